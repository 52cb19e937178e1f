"""Float max/min and argmax/argmin of large arrays against NumPy: NaN and infinities.

XLA:CPU hands large max/min reductions to YNNPACK, which skips NaN: np.max of a
(1000, 1000) array holding one NaN came back as the largest number, silently
(`lowering/reduce.py`, GUARD_MIN). And argmax/argmin of long 1-d arrays run in two
levels (`lowering/argreduce.py`), whose row maxima come from the same library. The
arrays here are large enough for both paths; NaN, infinities and ties sit in the first,
a middle and the short last row of the blocked argmax.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from differential import check
from npxla import jit
from npxla.runtime.lowering import argreduce, reduce as R

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(7)


def extremes(x):
    return (np.max(x), np.min(x), x.max(axis=0), np.amin(x, axis=1),
            x.max(axis=1, keepdims=True), np.maximum.reduce(x, axis=None), np.ptp(x),
            np.abs(x).max(), np.linalg.norm(x.ravel(), np.inf), np.max(x, initial=0.5))


def _with(shape, dtype=np.float64, **at):
    x = RNG.standard_normal(shape).astype(dtype)
    for value, places in at.items():
        for p in places:
            x[p] = {"nan": np.nan, "inf": np.inf, "ninf": -np.inf}[value]
    return x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("marks", [
    {}, {"nan": [(333, 444)]}, {"nan": [(0, 0), (999, 999)]},
    {"inf": [(5, 5)], "ninf": [(6, 7)]}, {"inf": [(5, 5)], "nan": [(500, 5)]},
], ids=["clean", "one-nan", "corner-nans", "infs", "inf-and-nan"])
def test_large_float_extremes_keep_nan(dtype, marks):
    assert 1000 * 1000 >= R.GUARD_MIN
    check(extremes, _with((1000, 1000), dtype, **marks))


def test_all_nan_and_all_inf_columns():
    x = _with((64, 128))
    x[:, 3] = np.nan
    x[:, 5] = -np.inf
    x[7] = np.inf
    check(extremes, x)


def test_small_extremes_keep_nan_without_the_guard():
    check(extremes, _with((30, 40), nan=[(3, 4)]))


def arg_all(x):
    return np.argmax(x), np.argmin(x), x.argmax(), x.argmin(axis=0)


_N = argreduce.BLOCKED_MIN + 3 * argreduce.BLOCK + 17     # a short last row


@pytest.mark.parametrize("marks", [
    {}, {"nan": [10]}, {"nan": [_N - 1]}, {"nan": [_N - 5, _N // 3]},
    {"inf": [_N - 2], "ninf": [3]}, {"inf": [100, _N - 1]},
], ids=["clean", "nan-first-row", "nan-last", "two-nans", "infs", "tied-infs"])
def test_blocked_argmax_matches_numpy(marks):
    check(arg_all, _with(_N, **marks))


@pytest.mark.parametrize("n", [argreduce.BLOCKED_MIN, _N, 1_000_003])
def test_blocked_argmax_ties_and_short_last_row(n):
    x = RNG.standard_normal(n)
    x[n - 3:] = 50.0          # the extreme only in the short last row
    x[n // 2] = -50.0
    check(arg_all, x)
    x[n - argreduce.BLOCK - 30] = 50.0     # tie with the row before: the first wins
    check(arg_all, x)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.int32, np.float32])
def test_blocked_argmax_other_dtypes(dtype):
    x = RNG.integers(0, 7, _N).astype(dtype)
    check(arg_all, x)


def test_blocked_argmax_of_flattened_2d_and_constant():
    check(lambda a: (np.argmax(a), np.argmin(a)), RNG.standard_normal((300, 200)))
    check(arg_all, np.zeros(_N))
    check(arg_all, np.full(_N, -np.inf))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, _N - 1),
                          st.sampled_from([np.nan, np.inf, -np.inf, 9.0, -9.0])),
                max_size=4))
def test_blocked_argmax_property(places):
    x = np.round(RNG.standard_normal(_N), 1)     # many ties
    for i, v in places:
        x[i] = v
    f = _ARG
    got = f(x)
    assert tuple(int(g) for g in got) == tuple(int(e) for e in arg_all(x))


_ARG = jit(arg_all)


def test_nan_max_inside_a_staged_loop():
    """A data-dependent loop whose condition reads a large max: NaN must stop it as
    NumPy's comparison with NaN does."""
    def f(x):
        steps = 0
        while np.max(x) > 1.0 and steps < 5:
            x = x * 0.5
            steps += 1
        return steps, np.argmax(x)

    check(f, _with((200, 100), nan=[(10, 10)]) + 10)
    check(f, _with((200, 100)) + 10)
