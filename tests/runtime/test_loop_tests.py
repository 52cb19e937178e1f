"""Exit tests over whole arrays computed in the loop's condition
(`lowering/loop_tests.py`), against NumPy: loops that run zero, one and many trips,
tests combined with counters and `break`, tests that read the old and the new
values (left in the body), NaN in the data, and the flags' values after the loop."""
import numpy as np
import pytest

from benchmarks.kernels import newton_sqrt
from differential import check
from npxla import jit
from npxla.runtime.lowering import loop_tests
from tests.runtime.test_bounded_scatter import _copies_in_loops

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(5)
N = loop_tests._MIN_ELEMENTS + 3


def halvings(x, tol, limit):
    it = 0
    while np.abs(x).sum() > tol and it < limit:
        x = x * 0.5
        it += 1
    return x, it


def mean_above(x, level):
    trips = 0
    stopped = False
    while x.mean() > level:
        x = x - 1.0
        trips += 1
        if trips > 1000:
            stopped = True
            break
    if not stopped:
        trips = -trips
    return x, trips


def old_and_new(x, tol):
    err = np.inf
    while err > tol:
        new = 0.5 * x
        err = np.max(np.abs(new - x))
        x = new
    return x, err


def do_while(x):
    while True:
        x = np.sqrt(x)
        if np.all(x < 1.5):
            break
    return x


def test_loops_match_numpy():
    a = RNG.uniform(1.0, 100.0, N)
    check(newton_sqrt, a)
    check(halvings, RNG.normal(size=N), 1e-3, 10_000)
    check(halvings, RNG.normal(size=N), 1e-3, 3)           # the counter ends it
    check(halvings, RNG.normal(size=N), 1e9, 10)           # no trip
    check(mean_above, RNG.normal(size=N) + 5.5, 0.0)
    check(mean_above, RNG.normal(size=N), 10.0)            # no trip
    check(old_and_new, RNG.normal(size=N), 1e-9)
    check(do_while, RNG.uniform(1.0, 1e6, N))
    check(do_while, RNG.uniform(0.0, 1.0, N))              # one trip


def test_nan_stops_at_once():
    a = RNG.uniform(1.0, 100.0, N)
    a[7] = np.nan
    check(newton_sqrt, a)
    x = RNG.normal(size=N)
    x[-1] = np.nan
    check(halvings, x, 1e-3, 50)


def settle(u, alpha, tol, limit):
    """A test the converter stages behind the `break`'s flag (inside an `if`)."""
    steps = 0
    while np.abs(u).max() > tol:
        u = u.copy()
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
        steps += 1
        if steps > limit:
            break
    return u, steps


def test_test_behind_a_break():
    u = np.zeros(N)
    u[N // 2] = 1.0
    for limit in (0, 3, 10_000):
        check(settle, u, 0.4, 0.05, limit)
    u[7] = np.nan
    check(settle, u, 0.4, 0.05, 10)
    assert _cond_has_test(settle, u, 0.4, 0.05, 10)


def _cond_has_test(fn, *args):
    text = jit(fn).lower(*args).as_text()
    cond = text.split("cond {")[1].split("} do {")[0]
    return "stablehlo.reduce" in cond


def test_moved_only_where_it_reads_the_handed_on_values():
    a = RNG.uniform(1.0, 100.0, N)
    assert _cond_has_test(newton_sqrt, a)
    assert _cond_has_test(halvings, a, 1e-3, 10)
    assert not _cond_has_test(old_and_new, a, 1e-9)        # reads the trip's old x
    assert not _cond_has_test(newton_sqrt, a[:100])        # too small to pay


def test_flag_after_the_loop():
    def flags(x):
        go = np.max(x) > 0.0
        while go:
            x = x - 0.75
            go = np.max(x) > 0.0
        return x, go
    check(flags, RNG.uniform(0.0, 10.0, N))
    check(flags, -RNG.uniform(0.0, 10.0, N))


def test_no_copy_of_the_carried_array_per_trip():
    """With the test fused into the update, XLA recomputed the new `x` for the test
    from the old one and copied the old `x` every trip (issue 37, item 1)."""
    a = RNG.uniform(1.0, 100.0, N)
    text = jit(newton_sqrt).lower(a).as_text("hlo")
    assert _copies_in_loops(text, a.shape) == 0
