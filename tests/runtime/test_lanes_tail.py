"""A masked loop run as lanes stops once a quarter of the lanes or fewer go on, and each
lane still running finishes alone (`lowering/lanes_tail.py`): against NumPy bit for bit
(rtol=0) where few lanes run long, where none does, where the lanes start with most of
them finished, where a lane's row or a shared row is read, and where a lane that
finishes alone fails a check."""
import numpy as np
import pytest

from differential import check
from npxla import jit

RNG = np.random.default_rng(97)


def exact(fn, *args):
    return check(fn, *args, rtol=0, atol=0)


def hailstones(start):
    """Per start: the steps to reach 1 and the highest value on the way (two values per
    lane, one of them in a shared row)."""
    steps = np.zeros(start.shape[0], dtype=np.int64)
    peak = np.zeros(start.shape[0], dtype=np.int64)
    for i in range(start.shape[0]):
        n = start[i]
        top = n
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            top = max(top, n)
            steps[i] += 1
        peak[i] = top
    return steps, peak


@pytest.mark.parametrize("start", [
    np.concatenate([RNG.integers(1, 8, 60), [27, 97, 871]]),     # three stragglers
    RNG.integers(1, 100_000, 300),                                 # skewed, as in use
    np.full(40, 6),                                                # all alike
    np.concatenate([np.ones(50, dtype=np.int64), [7, 9]]),         # almost all done
    np.ones(12, dtype=np.int64),                                   # none runs a trip
], ids=["stragglers", "skewed", "alike", "mostly-finished", "none"])
def test_hailstone_counts(start):
    exact(hailstones, start)


def settle(A, tol):
    """Per row: the sum of squares up to the first element that brings it past `tol`
    (a per-lane row read inside the masked loop, and two results per lane)."""
    out = np.zeros(A.shape[0])
    steps = np.zeros(A.shape[0], dtype=np.int64)
    for i in range(A.shape[0]):
        row = A[i]
        s = 0.0
        k = 0
        while s < tol and k < row.shape[0]:
            s += row[k] * row[k]
            k += 1
        out[i] = s
        steps[i] = k
    return out, steps


def test_a_lane_s_row_read_alone():
    A = RNG.uniform(0.5, 1.0, (64, 40))
    A[[3, 17, 50], :] *= 0.01                      # three rows take many more trips
    exact(settle, A, 2.0)


def chase(x, table):
    """Each lane walks the table from its start; long walks run past its end."""
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        v = x[i]
        k = 0
        while v > 0:
            out[i] += table[k]
            k += 1
            v -= 1
    return out


def test_a_lane_finishing_alone_fails_a_check():
    table = RNG.standard_normal(30)
    x = RNG.integers(0, 5, 40)
    exact(chase, x, table)
    x[33] = 45                                     # reaches table[30] alone
    with pytest.raises(IndexError) as want:
        chase(x, table)
    with pytest.raises(IndexError) as got:
        jit(chase)(x, table)
    assert "30" in str(want.value) and "30" in str(got.value)
