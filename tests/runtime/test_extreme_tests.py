"""A whole-array max or min compared with a scalar, tested in one pass
(`lowering/extreme_tests.py`), against NumPy: every direction, either side, NaN and
infinities in the data and as the bound, arrays below and above the NaN guard's size,
float32 data against a float64 bound, and convergence loops."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from benchmarks.kernels import newton_sqrt
from differential import check
from npxla import jit
from npxla.runtime.lowering import reduce as R

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(11)


def max_gt(x, t):
    return np.max(np.abs(x)) > t


def max_ge(x, t):
    return np.max(x) >= t


def max_lt(x, t):
    return np.max(x) < t


def max_le_right(x, t):
    return t >= np.max(x)


def min_lt(x, t):
    return np.min(x) < t


def min_ge_right(x, t):
    return t <= np.min(x * 2.0)


def min_le(x, t):
    return x.min() <= t


def min_gt_right(x, t):
    return t < x.min()


def single_max_wider(x, t):
    return np.max(x.astype(np.float32)) > np.float64(t)


def amax_norm(x, t):
    return np.linalg.norm(x, np.inf) <= t, np.amax(x - 1.0) > t


TESTS = [max_gt, max_ge, max_lt, max_le_right, min_lt, min_ge_right, min_le,
         min_gt_right, single_max_wider, amax_norm]


def _data(n):
    base = RNG.normal(size=n)
    marked = []
    for place, value in itertools.product((0, n // 2, n - 1), (np.nan, np.inf, -np.inf)):
        x = base.copy()
        x[place] = value
        marked.append(x)
    return base, marked


@pytest.mark.parametrize("n", [7, R.GUARD_MIN + 5], ids=["small", "guarded"])
@pytest.mark.parametrize("fn", TESTS, ids=lambda f: f.__name__)
def test_tests_match_numpy(fn, n):
    base, marked = _data(n)
    bounds = [0.5, -3.0, np.nan, np.inf, -np.inf, float(base.max()), float(base.min())]
    jf = jit(fn)
    for x in [base, *marked]:
        for t in bounds:
            want, got = fn(x, t), jf(x, t)
            assert np.array_equal(want, got), (fn.__name__, t, want, got)


def test_two_dimensional_and_float32_data():
    x = RNG.normal(size=(80, 70)).astype(np.float32)
    check(max_gt, x, 1.5)
    x[3, 4] = np.nan
    check(max_gt, x, 1.5)
    check(min_lt, x, 0.0)


def until_small(x, tol):
    it = 0
    while True:
        x = x * 0.5
        it += 1
        if np.abs(x).max() < tol:
            break
    return x, it


@pytest.mark.parametrize("n", [50, 10_000])
def test_convergence_loops(n):
    a = RNG.uniform(1.0, 100.0, n)
    check(newton_sqrt, a)
    check(until_small, RNG.normal(size=n), 1e-3)
    a[n // 3] = np.nan          # the max is NaN: the loop stops at once, as NumPy's
    check(newton_sqrt, a)


def test_rewritten_in_one_pass():
    def scalar_tests(text, direction):
        return [line for line in text.splitlines() if f"compare  {direction}" in line
                and "(tensor<f64>, tensor<f64>)" in line]
    for n in (5, R.GUARD_MIN * 2):
        some = jit(max_gt).lower(np.ones(n), 0.5).as_text()
        assert "ui8" in some and not scalar_tests(some, "GT")    # the codes' reduction
        every = jit(max_lt).lower(np.ones(n), 0.5).as_text()
        assert "applies stablehlo.and" in every and not scalar_tests(every, "LT")


def test_max_read_elsewhere_keeps_its_reduction():
    def both(x, t):
        m = np.max(x)
        return m > t, m
    x = RNG.normal(size=R.GUARD_MIN + 1)
    check(both, x, 0.1)
    x[9] = np.nan
    check(both, x, 0.1)
    assert "ui8" not in jit(both).lower(x, 0.1).as_text()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, -1.0, 2.5, np.nan, np.inf, -np.inf]),
                min_size=1, max_size=12),
       st.sampled_from([0.0, 1.0, 2.5, np.nan, np.inf, -np.inf]),
       st.sampled_from(TESTS[:8]))
def test_any_values(values, t, fn):
    x = np.array(values)
    assert np.array_equal(fn(x, t), jit(fn)(x, t))
