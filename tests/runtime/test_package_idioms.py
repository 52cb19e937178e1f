"""Idioms of published packages found on held-out code (ahrs, issue 34): a list of traced
values as an operand of an operator or ufunc (`q = [g, *chi]; q /= np.linalg.norm(q)`),
rows gathered with `np.r_[[a], [b]]`, a NumPy helper's own error (`AxisError` from
`normalize_axis_index`) in a branch that is not taken, and a package's ndarray
subclass made from traced values (refused, located)."""
import numpy as np
import pytest

from differential import check
from npxla import TranspileError, jit

X = np.array([1.0, 2.0, 3.0, 4.0])


def list_divided(x):
    q = [x[0] * 2, *x[1:]]
    q /= np.linalg.norm(q)
    return q, [x[0], 1.0] + x[:2], np.maximum([x[1], 0.0], x[2:])


def rows_gathered(a, m):
    return np.r_[[a / np.linalg.norm(a)], [m / np.linalg.norm(m)]], np.c_[[a], [m]]


def axis_by_ndim(q):                     # ahrs.utils.metrics.qdist, shortened
    q = np.copy(q)
    if q.ndim == 1:
        if np.allclose(q, 0.0):
            return q[0] * 0.0          # (a Python 0.0 here would be promoted: float64)
        return np.linalg.norm(q)
    return np.linalg.norm(q, axis=1)


@pytest.mark.parametrize("fn, args", [
    (list_divided, (X,)), (rows_gathered, (X[:3], X[1:])),
    (axis_by_ndim, (X,)), (axis_by_ndim, (np.zeros(4),)),
    (axis_by_ndim, (np.stack([X, -X]),))], ids=lambda v: getattr(v, "__name__", ""))
def test_idioms_agree(fn, args):
    check(fn, *args)


class Quat(np.ndarray):
    def __new__(cls, q):
        q = np.asarray(q, dtype=float)
        return super().__new__(cls, q.shape, float, q / np.linalg.norm(q))


def makes_subclass(x):
    return Quat(x * 2)


def test_an_ndarray_subclass_made_from_traced_values_is_refused_located():
    with pytest.raises(TranspileError) as info:
        jit(makes_subclass)(X)
    err = info.value
    assert "'Quat' subclasses np.ndarray" in str(err)
    assert err.location is not None and err.location.file == __file__
