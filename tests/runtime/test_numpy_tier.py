"""Small loop-free functions whose calls NumPy answers sooner run as themselves
(`runtime/driver/numpy_tier.py`). The choice is timed, so `Tier` is tested with runners
that advance a fake clock; the calls through `jit` check which signatures may be timed
at all and that a settled signature answers with NumPy's own result. The rest of the
suite turns the tier off (tests/conftest.py)."""
import logging
import sys

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.driver import numpy_tier
from npxla.runtime.driver.numpy_tier import PROBES, UNTIMED_RUNS, WARM, Tier

SETTLE_CALLS = WARM + 2 * PROBES        # calls until the choice
RUNS_PER_PROBE = UNTIMED_RUNS + 1


class Clocked:
    """A compiled runner and a function that take `compiled` and `numpy` units of a
    fake clock per call and say which ran."""

    def __init__(self, monkeypatch, compiled, numpy, raises=False, after_compiled=1):
        self.now, self.ran = 0.0, []
        self.after_compiled = after_compiled    # NumPy's slowdown right after a program
        self.costs = {"compiled": compiled, "numpy": numpy}
        self.raises = raises
        self.settled = []
        monkeypatch.setattr(numpy_tier, "_clock", lambda: self.now)
        self.tier = Tier(self.compiled, self.fn, lambda r, t: self.settled.append((r, t)))

    def compiled(self, args):
        self.now += self.costs["compiled"]
        self.ran.append("compiled")
        return ("compiled",) + args

    def fn(self, *args):
        self.now += self.costs["numpy"] * (self.after_compiled
                                           if self.ran[-1:] == ["compiled"] else 1)
        self.ran.append("numpy")
        if self.raises:
            raise TypeError("only npxla runs this")
        return ("numpy",) + args


def test_numpy_is_chosen_when_its_best_call_is_faster(monkeypatch):
    c = Clocked(monkeypatch, compiled=10e-6, numpy=2e-6)
    outs = [c.tier((k,)) for k in range(SETTLE_CALLS)]
    # every call answered with the program's result while both were timed
    assert outs == [("compiled", k) for k in range(SETTLE_CALLS)]
    assert c.ran.count("numpy") == PROBES * RUNS_PER_PROBE
    ((runner, times),) = c.settled
    assert times == pytest.approx((2e-6, 10e-6))
    assert runner((7,)) == ("numpy", 7) and runner.npxla_numpy_tier


@pytest.mark.parametrize("numpy_cost", [9.8e-6, 10e-6, 30e-6])
def test_the_program_stays_unless_numpy_is_clearly_faster(monkeypatch, numpy_cost):
    c = Clocked(monkeypatch, compiled=10e-6, numpy=numpy_cost)
    for k in range(SETTLE_CALLS):
        c.tier((k,))
        if c.settled:
            break
    ((runner, times),) = c.settled
    assert runner == c.compiled and times is None


def test_numpy_far_slower_ends_the_timing_after_two_runs(monkeypatch):
    c = Clocked(monkeypatch, compiled=10e-6, numpy=500e-6)
    for k in range(SETTLE_CALLS):
        c.tier((k,))
    assert c.ran.count("numpy") == 2 * RUNS_PER_PROBE
    assert c.settled == [(c.compiled, None)]


def test_numpy_is_timed_after_it_has_run_once(monkeypatch):
    """Right after a compiled call NumPy runs slower than it will once settled (XLA's
    worker threads still spin, the caches hold the program's data): a probe timing that
    run kept programs twice NumPy's settled time (summary statistics of 1,000 numbers)."""
    assert UNTIMED_RUNS >= 1
    c = Clocked(monkeypatch, compiled=10e-6, numpy=5e-6, after_compiled=3)
    for k in range(SETTLE_CALLS):
        c.tier((k,))
    ((runner, times),) = c.settled
    assert runner.npxla_numpy_tier and times == pytest.approx((5e-6, 10e-6))


def test_a_program_of_milliseconds_slower_than_numpy_settles_on_numpy(monkeypatch):
    """Not only the fixed cost of a call: mid-size kernels XLA:CPU splits over two
    cores (a centred Gram product of 2,000 x 50) run slower than NumPy too."""
    c = Clocked(monkeypatch, compiled=1.8e-3, numpy=0.9e-3)
    for k in range(SETTLE_CALLS):
        c.tier((k,))
    ((runner, times),) = c.settled
    assert runner.npxla_numpy_tier and times == pytest.approx((0.9e-3, 1.8e-3))


def test_numpy_far_slower_than_a_long_program_ends_the_timing_after_one_run(monkeypatch):
    c = Clocked(monkeypatch, compiled=2 * numpy_tier.QUICK_GIVE_UP_S,
                numpy=10 * numpy_tier.QUICK_GIVE_UP_S)
    for k in range(SETTLE_CALLS):
        c.tier((k,))
    assert c.ran.count("numpy") == RUNS_PER_PROBE
    assert c.settled == [(c.compiled, None)]


def test_slow_programs_are_never_run_as_python(monkeypatch):
    c = Clocked(monkeypatch, compiled=2 * numpy_tier.COMPILED_MAX_S, numpy=1e-6)
    for k in range(WARM + 2):
        c.tier((k,))
    assert "numpy" not in c.ran
    assert c.settled and c.settled[0] == (c.compiled, None)


def test_a_function_that_fails_as_python_keeps_the_program(monkeypatch):
    c = Clocked(monkeypatch, compiled=10e-6, numpy=1e-6, raises=True)
    outs = [c.tier((k,)) for k in range(WARM + 2)]
    assert outs == [("compiled", k) for k in range(WARM + 2)]
    assert c.settled == [(c.compiled, None)]


# --- through jit -------------------------------------------------------------------------

def scale_shift(x):
    return x * 2.0 + 1.0


def triangle_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(i):
            s += x[i] * x[j]
    return s


def shift_in_place(x):
    x += 1.0
    return x.sum()


OFFSET = np.arange(8.0)


def reads_a_global(x):
    return x + OFFSET


def noisy(x):
    print("called")
    return x * 3.0


@pytest.fixture
def tier_on(monkeypatch):
    monkeypatch.setattr(numpy_tier, "ENABLED", True)


def _runner(f, x):
    """The fast path's runner of `x`'s signature (None: calls take the general path)."""
    entries = [v for k, v in f._fast.items() if k[0] == x.shape]
    return entries[0][1] if entries else None


def _fresh(fn):
    f = jit(fn)
    f.clear_cache()              # (`jit` of one function is one object: earlier tests)
    return f


def test_a_small_function_settles_on_numpy_and_answers_as_numpy(tier_on, caplog):
    f = _fresh(scale_shift)
    x = np.linspace(-1.0, 1.0, 8)
    with caplog.at_level(logging.INFO, logger="npxla"):
        for _ in range(SETTLE_CALLS + 3):
            out = f(x)
    # NumPy's call of 8 elements takes ~1 µs, a compiled call ~10: the choice is clear
    assert getattr(_runner(f, x), "npxla_numpy_tier", False)
    np.testing.assert_array_equal(out, scale_shift(x))
    assert out.flags.writeable and out is not x
    assert any("runs as NumPy" in r.getMessage() for r in caplog.records)
    y = np.linspace(0.0, 3.0, 8)               # new values, same signature
    np.testing.assert_array_equal(f(y), scale_shift(y))


@pytest.mark.parametrize("fn", [triangle_sum, shift_in_place, noisy])
def test_loops_writes_and_effects_keep_the_program(tier_on, fn, capsys):
    f = _fresh(fn)
    x = np.linspace(-1.0, 1.0, 8)
    for _ in range(SETTLE_CALLS + 3):
        f(x.copy())
    runner = _runner(f, x)
    assert not isinstance(runner, Tier) and not getattr(runner, "npxla_numpy_tier", False)


def test_a_function_reading_globals_reads_them_as_python(tier_on, monkeypatch):
    module = sys.modules[__name__]
    monkeypatch.setattr(module, "OFFSET", np.arange(8.0))
    f = _fresh(reads_a_global)
    x = np.linspace(-1.0, 1.0, 8)
    for _ in range(SETTLE_CALLS + 3):
        out = f(x)
    assert getattr(_runner(f, x), "npxla_numpy_tier", False)
    np.testing.assert_array_equal(out, x + np.arange(8.0))
    module.OFFSET[:] = 5.0                # the same array, new values
    np.testing.assert_array_equal(f(x), x + 5.0)
    monkeypatch.setattr(module, "OFFSET", np.full(8, -1.0))
    np.testing.assert_array_equal(f(x), x - 1.0)


def test_the_tier_is_off_when_the_environment_says_so(monkeypatch):
    for value in ("off", "0", "No", "false"):
        monkeypatch.setenv("NPXLA_NUMPY_TIER", value)
        assert not numpy_tier._enabled()
    monkeypatch.setenv("NPXLA_NUMPY_TIER", "")
    assert numpy_tier._enabled()


def test_the_tier_off_keeps_the_program(monkeypatch):
    monkeypatch.setattr(numpy_tier, "ENABLED", False)
    f = _fresh(scale_shift)
    x = np.linspace(-1.0, 1.0, 8)
    for _ in range(SETTLE_CALLS + 3):
        f(x)
    assert not getattr(_runner(f, x), "npxla_numpy_tier", False)
    assert not isinstance(_runner(f, x), Tier)
