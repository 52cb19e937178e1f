"""A loop that leaves an outside array in a variable on every iteration (`for ...:
return x`, `r = x`) is followed by a run-time selection: the variable is that array when
an iteration ran, else its value before the loop, so later in-place updates reach it
exactly as in NumPy (issue 35 item 4; these programs were refused as "may be the same
array as another variable")."""
from __future__ import annotations

import numpy as np
import pytest

from differential import check


def return_in_loop_then_update(x, n):
    u2 = x.T
    if np.any(x > 5):
        return x
    u3 = u2[:]
    for i4 in range(n):
        return x
    x[x < 0.5] -= u3[2, 1]
    return x


def keep_last_in_loop(x, y, n):
    """With the `break`, whether `r` is `x` depends on which iteration broke: the loop
    carries the number of the array `r` holds."""
    r = y
    for i in range(n):
        if x[i % x.shape[0], 0] > 10:
            break
        r = x
    x[0] += 1.0
    return r * 1.0, y


def reshape_view_then_loop_return(x, n):
    u2 = x.swapaxes(0, 1)
    if np.any(x > 5):
        return x, 0
    u3 = u2.reshape(4, 4)
    for i4 in range(n):
        return x, 1
    for i9 in range(u3.shape[0]):
        x[x < 0.5] -= u3[2, i9]
    return x, 2


@pytest.mark.parametrize("n", [0, 2])
def test_return_of_an_argument_in_a_loop(n):
    base = np.random.default_rng(0).standard_normal((5, 8))
    check(return_in_loop_then_update, base[1:, ::2], n)
    check(return_in_loop_then_update, base[1:, ::2] + 10, n)
    check(reshape_view_then_loop_return, base[1:, ::2], n)


@pytest.mark.parametrize("n", [0, 1, 3, 7])
@pytest.mark.parametrize("scale", [1.0, 20.0])
def test_an_alias_chosen_by_the_iteration_that_broke(n, scale):
    """Refused before: the loop now carries which outside array `r` holds."""
    x = np.random.default_rng(1).standard_normal((3, 3)) * scale
    check(keep_last_in_loop, x, x * 2, n)


def pick_among_arrays(x, y, n):
    r = x * 2
    for i in range(n):
        if x[i % 3, 1] > 0:
            r = x
        elif x[i % 3, 2] > 0.5:
            r = y
        else:
            r = r + 1
    r[0, 0] = -7.0
    return r


def write_through_the_pick(x, y, n):
    """Still refused: `r` is written in place and then may be replaced, in the same
    iteration (the loop's first iteration is peeled off for that, which a carried
    selection does not combine with yet)."""
    r = y
    for i in range(n):
        if x[i % 3, 0] > 0:
            r = x
        r[1, 1] += 1.0
    return r


@pytest.mark.parametrize("n", [0, 1, 3, 7])
def test_a_loop_carries_which_array_a_variable_holds(n):
    """Each iteration may leave one of several outside arrays (or a new one) in `r`;
    a write through `r` after the loop reaches the array it holds, as in NumPy (the
    caller's `x` and `y` are checked too)."""
    rng = np.random.default_rng(n)
    for _ in range(3):
        x, y = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
        check(pick_among_arrays, x, y, n)


def test_writing_through_a_pick_that_is_then_replaced_is_still_refused():
    from npxla import jit
    from npxla.transpiler.base.errors import UnsupportedOperationError
    x = np.ones((3, 3))
    with pytest.raises(UnsupportedOperationError, match="replaced by a new array"):
        jit(write_through_the_pick)(x, x * 2, 3)


def rebound_in_a_loop_that_surely_runs(x, y):
    """The fuzzer's seed 1, shrunk: a static trip count (`y.shape[0]` > 0) leaves `t1`
    exactly `t2`, so the later in-place update reaches `t2` too (was refused)."""
    t1 = np.arange(6) / (np.abs(x[-2, 0]) + 1)
    t2 = t1 + 1.0
    for i3 in range(y.shape[0]):
        t1 = t2
    for i7 in range(len(t1)):
        b9 = t1[i7:][::1]
        t1[2] += b9.sum()
    return t1, t2


def rebound_in_a_loop_that_never_runs(x, y):
    t1 = x[0] * 1.0
    t2 = t1 + 1.0
    for i3 in range(y.shape[0] - y.shape[0]):
        t1 = t2
    t1[0] += 5.0
    return t1, t2


def test_a_loop_with_a_static_trip_count_leaves_the_array_itself():
    x = np.random.default_rng(2).standard_normal((2, 6))
    check(rebound_in_a_loop_that_surely_runs, x, np.ones(6))
    check(rebound_in_a_loop_that_never_runs, x, np.ones(6))
