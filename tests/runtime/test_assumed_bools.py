"""Conditions nothing can stage (a comprehension's filter, a library's `if` on array
data run as Python) are assumed while staging and checked when the program runs: a
run that finds one wrong is discarded and the call staged again (staging.speculation).
"""
import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.runtime.driver import assumed
from npxla.transpiler.base.errors import ConcretizationError


def positives(x):
    return sum(v * 2 for v in x if v > 0)


def kept_after_write(x):
    x *= 2
    kept = [v for v in x if v > 1]
    return len(kept), x.sum()


def any_builtin(x):
    return 1.0 if any(v < 0 for v in x) else 0.0


def sorted_in_place(x):
    items = [x[0], x[1], x[2]]
    items.sort()                   # list.sort's comparisons, as sorted()'s
    return items, sorted(x[:2], reverse=True)


def inside_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:                               # staged
            s = s + sum(1.0 for v in x[:3] if v > s)   # a filter inside a staged loop
    return s


@pytest.mark.parametrize("fn", [positives, kept_after_write, any_builtin, sorted_in_place])
def test_assumed_conditions_follow_each_calls_data(fn):
    f = jit(fn)
    f.clear_cache()
    for x in (np.array([1.0, -2.0, 3.0]), np.array([-1.0, 2.0, 3.0]),
              np.array([0.5, 0.25, 3.0]), np.array([1.0, -2.0, 3.0])):
        check(fn, x)


def test_a_discarded_run_writes_nothing_back():
    f = jit(kept_after_write)
    f.clear_cache()
    x = np.array([1.0, -2.0, 3.0])
    f(x.copy())
    y = np.array([0.25, 0.1, 3.0])          # the assumptions of x's program are wrong
    expected = kept_after_write(y.copy())
    got = f(y)
    assert got == expected and np.array_equal(y, [0.5, 0.2, 6.0])


def test_a_condition_that_keeps_changing_is_refused_after_a_few_flips():
    def signs(x):
        return [1 for v in x[:1] if v > 0]
    f = jit(signs)
    with pytest.raises(ConcretizationError, match="concrete Python bool") as info:
        for k in range(2 * assumed.MAX_FLIPS + 4):
            x = np.array([(-1.0) ** k])
            assert f(x) == signs(x)
    assert info.value.location is not None


def test_not_assumed_inside_a_staged_region():
    with pytest.raises(ConcretizationError, match="concrete Python bool"):
        jit(inside_loop)(np.array([1.0, -1.0, 2.0]))


def printed_filter(x):
    print("total", x.sum())
    return len([v for v in x if v > 0])


def test_a_redone_run_prints_once(capsys):
    f = jit(printed_filter)
    f.clear_cache()
    for x in (np.array([1.0, -2.0]), np.array([-1.0, 2.0, 3.0])[:2], np.array([3.0, 4.0])):
        got = f(x)
        printed = capsys.readouterr().out
        assert got == printed_filter(x)
        assert printed == capsys.readouterr().out        # once, and as NumPy prints it


def timed_filter(x):
    import time
    t = time.perf_counter()
    n = len([v for v in x if v > 0])
    return n, time.perf_counter() >= t


def test_no_assumption_where_a_redone_run_would_read_the_clock_twice():
    with pytest.raises(ConcretizationError, match="concrete Python bool"):
        jit(timed_filter)(np.array([1.0, -2.0]))


def steps(base, n):
    for k in range(n):
        s = base * 0.5 ** k
        if (np.abs(s) > 1e-3).all():
            yield s


def generated_steps(x):
    return np.array(list(steps(x.max(), 4)))


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([0.001, 0.004]),
                               np.array([0.003, 0.001])])
def test_a_generator_helper_with_a_data_dependent_yield(x):
    f = jit(generated_steps)
    check(generated_steps, x)
    assert f(x).shape == generated_steps(x).shape


def test_a_jitted_generator_is_refused_at_its_yield():
    from npxla.transpiler.base.errors import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match="generator") as info:
        jit(steps)(1.0, 3)
    assert info.value.location.line == steps.__code__.co_firstlineno + 4


def wrong_path_fails_while_staging(x):     # pymap3d's vdist: `lamb = pi` when antipodal
    y = x * 2
    if (y > 5).any():
        y = np.pi
    try:
        y[0] = 1.0
    except TypeError:
        if x < 0:            # an array here: NumPy raises on this path
            y = -y
    return y


def test_an_assumption_whose_path_fails_while_staging_is_flipped():
    # the if's paths differ (a float, an array): its condition is assumed True first,
    # and that path fails while staging (a bool of an array); the other is staged
    small, large = np.ones(3), np.full(3, 4.0)
    check(wrong_path_fails_while_staging, small)
    with pytest.raises(ValueError):
        wrong_path_fails_while_staging(large)
    with pytest.raises(ValueError):
        jit(wrong_path_fails_while_staging)(large)


def _extrema(x):
    e = np.nonzero(x[1:-1] > x[2:])[0]
    if len(e) == 0:
        return np.array([])
    import math          # a statement no staged `if` holds: the early return is assumed
    return e + math.floor(1.0)


def two_extrema_then_refused(x):
    a, c = _extrema(x), _extrema(-x)
    head = a[1:3] if a[0] < c[0] else c[1:3]
    return {head[0]: 1}        # refused: a key from array data


def test_a_refusal_on_the_path_the_data_takes_is_raised_without_flipping_on(monkeypatch):
    # (emd's get_padded_extrema) staging fails on the data's own path: flipping the
    # assumption a run has already given used to alternate until MAX_FLIPS, then stage
    # with no assumptions, where the paths' dtypes are promoted (int positions as float)
    flips = []
    original = assumed.Assumptions.flip
    monkeypatch.setattr(assumed.Assumptions, "flip",
                        lambda self, sites: flips.append(sites) or original(self, sites))
    f = jit(two_extrema_then_refused)
    f.clear_cache()
    with pytest.raises(ConcretizationError) as info:
        f(np.sin(np.linspace(0.0, 20.0, 200)))
    assert "{head[0]: 1}" in str(info.value)
    assert len(flips) <= 2
