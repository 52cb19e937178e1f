"""An `if` whose one path gives a static empty array (`np.array([])`, float64) where the
other gives int64 indices of run-time length, inside a staged loop (where the condition
cannot be assumed): the empty array takes the indices' dtype, so the indices stay int64.
Promoted to float64 before, they made the later `x[locs[0]]` a false IndexError at run
time (emd's `_find_extrema` in the sift loop). Outside loops the condition is assumed
and each path keeps NumPy's own dtype, as before."""
import numpy as np
import pytest

from tests.differential import check


def first_above(x, levels):
    out = np.zeros(levels.shape[0])
    for k in range(levels.shape[0]):
        locs = np.nonzero(x > levels[k])[0]
        if len(locs) == 0:
            locs = np.array([])
        if len(locs) > 0:
            out[k] = x[locs[0]] + locs[0]
    return out


def count_in_loop(x, levels):
    n = 0
    for k in range(levels.shape[0]):
        locs = np.nonzero(x > levels[k])[0]
        if len(locs) == 0:
            locs = np.array([])
        n += len(locs)
    return n


def straight(x):
    locs = np.nonzero(x > 0.5)[0]
    if len(locs) == 0:
        locs = np.array([])
    return locs


@pytest.mark.parametrize("levels", [[0.2, 0.5, 2.0], [2.0, 3.0], [0.0, 0.1]])
def test_indices_stay_integers_beside_an_empty_path(levels):
    x = np.array([0.1, 0.9, 0.3, 0.8, 0.95, 0.4])
    check(first_above, x, np.array(levels), rtol=0, atol=0)
    check(count_in_loop, x, np.array(levels), rtol=0, atol=0)


@pytest.mark.parametrize("x", [[0.1, 0.9, 0.7], [0.1, 0.2]])
def test_outside_loops_each_path_keeps_numpys_dtype(x):
    check(straight, np.array(x), rtol=0, atol=0)
