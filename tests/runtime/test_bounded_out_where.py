"""`out=` and `where=` with arrays of run-time length (refused before): results written
into a static array or a view of run-time length under NumPy's casting rules, lengths
checked at run time; `where=` on the moments (mean, var, std and their nan* forms) and
on any/all; nanmean/nanvar/nanstd skipping NaNs. Differential against NumPy, with the
caller's arrays, at the top level and in a staged loop."""
import numpy as np
import pytest

from npxla import jit
from tests.differential import check

RNG = np.random.default_rng(31)
# NumPy's own warnings on the reference side (empty slices, dof <= 0)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def reductions_into_out(x, k):
    k = k[0]
    total = np.zeros(())
    np.sum(x[:k], out=total)
    counts = np.zeros((), np.int64)
    np.sum(x[:k] * 10, out=counts)             # unsafe: truncated, as NumPy
    rows = np.zeros(3)
    A = np.outer(np.arange(3.0), x)
    np.max(A[:, :k + 1], axis=1, out=rows)
    m = np.zeros(())
    r = np.mean(x[x > 0.5], out=m)
    return total, counts, rows, m, r


def ufuncs_into_views(x, y, k):
    k = k[0]
    np.add(x[:k], 1.5, out=y[:k])
    np.sqrt(x[k:], out=y[k:])
    np.multiply(x[:k], 2, out=x[:k])               # in place through the view
    np.subtract(y[:k], 10.0, out=y[:k], where=x[:k] > 1.0)
    c = np.cumsum(x[:k], out=np.zeros(x.shape)[:k])
    return c.sum(), c.shape


def static_into_a_view(x, y, k):
    np.add(x[:3], 1.0, out=y[k[0]:k[0] + 3])
    return y


@pytest.mark.parametrize("k", [0, 1, 4, 8])
def test_reductions_into_out(k):
    check(reductions_into_out, RNG.random(8), np.array([k]))


@pytest.mark.parametrize("k", [0, 3, 8])
def test_ufuncs_into_views_of_run_time_length(k):
    check(ufuncs_into_views, RNG.random(8) * 2, np.zeros(8), np.array([k]))


@pytest.mark.parametrize("k", [0, 5])
def test_a_static_result_into_a_view(k):
    check(static_into_a_view, RNG.random(8), np.zeros(8), np.array([k]))


def in_a_loop(A):
    n = A.shape[0]
    C = np.zeros_like(A)
    acc = np.zeros(())
    for i in range(n):
        np.cumsum(A[i, :i + 1], out=C[i, :i + 1])
        np.add(acc, np.sum(A[i, :i]), out=acc)
    return C, acc


def test_out_in_a_staged_loop():
    check(in_a_loop, RNG.random((6, 6)))


def _std_into_int(x, k):
    o = np.zeros((), np.int64)
    np.std(x[:k[0]], out=o)
    return o


def _wrong_ndim(x, k):
    o = np.zeros((1,))
    np.sum(x[:k[0]], out=o)
    return o


def _length_mismatch(x, k):
    y = np.zeros(8)
    np.add(x[:k[0]], 1.0, out=y[:3])
    return y


@pytest.mark.parametrize("fn, error", [(_std_into_int, TypeError),
                                       (_wrong_ndim, ValueError),
                                       (_length_mismatch, ValueError)])
def test_out_errors_are_numpys(fn, error):
    x, k = RNG.random(8), np.array([5])
    with pytest.raises(error):
        fn(x.copy(), k)
    with pytest.raises(error):
        jit(fn)(x.copy(), k)


def moments_with_where(x, k):
    y = x[:k[0]]
    keep = y > 0.3
    return (np.mean(y, where=keep), np.var(y, where=keep), np.std(y, where=keep, ddof=1),
            np.any(y > 0.9, where=keep), np.all(y > 0.1, where=keep),
            np.nanmean(y, where=keep), np.nanvar(y, where=keep), np.nanstd(y))


def nan_moments(x, k):
    y = x[:k[0]]
    A = np.outer(x, x)[:, :k[0]]
    return (np.nanmean(y), np.nanvar(y), np.nanstd(y, ddof=1), np.nanmean(A, axis=1),
            np.nanvar(A, axis=0), np.nanmean(x[x > 0.2]), np.nanmean(np.arange(8)[:k[0]]))


_WITH_NANS = np.array([0.5, np.nan, 0.1, 0.9, np.nan, 0.35, 0.2, 0.7])


@pytest.mark.parametrize("k", [0, 1, 2, 5, 8])
def test_where_on_moments(k):
    check(moments_with_where, _WITH_NANS.copy() * 0 + RNG.random(8), np.array([k]))


@pytest.mark.parametrize("k", [0, 1, 2, 3, 8])
def test_nan_moments_skip_nans(k):
    check(nan_moments, _WITH_NANS.copy(), np.array([k]))


def out_is_returned(x):
    m = np.zeros(())
    r = np.sum(x, out=m)
    s = np.add(x, 1.0, out=np.zeros(x.shape))
    return r, s, np.mean(x[x > 0.5], out=np.zeros(()))


def test_out_is_handed_back_as_numpy_does():
    # a 0-d out= stays a 0-d array (it came back as a NumPy scalar before)
    check(out_is_returned, RNG.random(8))
