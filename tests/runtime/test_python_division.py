"""Traced Python numbers divide as Python does: a zero divisor raises ZeroDivisionError
with Python's message (NumPy values keep NumPy's inf/NaN/0 and warnings)."""
import operator

import numpy as np
import pytest

from differential import check
from npxla import jit

CASES = [(operator.truediv, 5, 0), (operator.floordiv, 5, 0), (operator.mod, -5, 0),
         (divmod, 7, 0), (operator.truediv, 5.0, 0.0), (operator.floordiv, 2.5, 0.0),
         (operator.mod, 2.5, -0.0), (divmod, 1.5, 0.0), (operator.truediv, 1 + 2j, 0j),
         (operator.pow, 0.0, -2.0), (operator.pow, 0, -1), (operator.truediv, True, False),
         (operator.truediv, 6, 3), (operator.mod, 7.5, 2.0), (operator.pow, 0.0, 2.0)]


def _apply(op, a, b):
    return op(a, b)


@pytest.mark.parametrize("op, a, b", CASES)
def test_python_numbers_divide_like_python(op, a, b):
    try:
        want = op(a, b)
    except ZeroDivisionError as e:
        with pytest.raises(ZeroDivisionError, match=str(e)):
            jit(_apply, static_argnums=0)(op, a, b)
        return
    got = jit(_apply, static_argnums=0)(op, a, b)
    assert got == want and type(got) is type(want)


def _guarded(n, d):
    if d != 0:
        return n // d
    return -1


def _in_loop(x, n):
    total = 0
    for i in range(n):
        total += n // (i - 3)
    return x * total


def test_only_the_division_that_runs_raises():
    assert jit(_guarded)(7, 0) == -1 and jit(_guarded)(7, 2) == 3
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        jit(_in_loop)(np.ones(2), 5)
    np.testing.assert_array_equal(jit(_in_loop)(np.ones(2), 3), _in_loop(np.ones(2), 3))


def _numpy_values(x):
    return x[0] / x[1], x.sum() // 0, np.float64(1.0) / x[1]


def test_numpy_values_keep_numpys_semantics():
    x = np.array([1.0, 0.0])
    with np.errstate(all="ignore"):
        want = _numpy_values(x)
    with np.errstate(all="ignore"):
        got = jit(_numpy_values)(x)
    np.testing.assert_array_equal(got, want)


def _by_constants(x):
    return (x // 7, x % 7, x // 1, x % 1, np.floor_divide(x, 3), np.remainder(x, 5),
            divmod(x, 4), x // 0, x % 0)


def _by_negative_constants(x):
    return x // -3, x % -3, divmod(x, -7), np.fmod(x, -3)


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.int64, np.uint8, np.uint64])
def test_division_by_constants(dt):
    info = np.iinfo(dt)
    x = np.arange(max(info.min + 1, -60), min(info.max, 60) + 1).astype(dt)
    with np.errstate(all="ignore"):
        check(_by_constants, x)
        if info.min < 0:
            check(_by_negative_constants, x)
