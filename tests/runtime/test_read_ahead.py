"""Element reads of a loop-carried array taken a trip ahead (`lowering/read_ahead.py`),
against NumPy bit for bit: after XLA's optimisation the loop that fills a DTW table
with a `break` on the written cell holds no copy of the table (it held two per trip,
25x NumPy's time); windows that start and end inside the table, breaks taken and not,
negative indices that wrap, and an index past the end that must still raise."""
import numpy as np
import pytest
from differential import check

from npxla import jit
from test_row_lanes import copies_in_loop_bodies

RNG = np.random.default_rng(44)


def band_dtw(s1, s2, window, limit):
    r, c = s1.shape[0], s2.shape[0]
    D = np.full((r + 1, c + 1), np.inf)
    D[0, 0] = 0.0
    last = 0
    for i in range(r):
        lo = max(0, i - window + 1)
        hi = min(c, i + window)
        for j in range(lo, hi):
            d = abs(s1[i] - s2[j])
            options = [D[i, j], D[i, j + 1], D[i + 1, j]]
            pick = 0
            if options[1] < options[pick]:
                pick = 1
            if options[2] < options[pick]:
                pick = 2
            D[i + 1, j + 1] = d + options[pick]
            if D[i + 1, j + 1] > limit:
                last = j
                break
    return D, last


def wrapping_reads(x, limit):
    # row i - 1 of row 0 is the last row (-1); the break reads the written cell
    n, m = x.shape
    total = 0
    for i in range(n):
        for j in range(1, m):
            v = x[i - 1, j - 1] + x[i, j - 1]
            x[i, j] = v * 0.5
            if x[i, j] > limit:
                total += j
                break
    return x, total


def reads_past_the_end(x, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        prev = x[idx[k]]
        x[k] = prev + 1.0
        if x[k] > 1e9:
            break
        s += prev
    return s, x


def _series(n):
    return np.cumsum(RNG.standard_normal(n))


@pytest.mark.parametrize("window,limit", [(5, 1e300), (40, 1e300), (500, 1e300),
                                          (40, 60.0), (500, 300.0)])
def test_band_dtw_matches_numpy(window, limit):
    check(band_dtw, _series(60), _series(50), window, limit, rtol=0, atol=0)


def test_band_dtw_updates_its_table_in_place():
    a, b = _series(200), _series(180)
    text = jit(band_dtw).lower(a, b, 50, 1e300).as_text("hlo")
    assert copies_in_loop_bodies(text, (201, 181)) == 0


@pytest.mark.parametrize("limit", [1e300, 2.0, -1.0])
def test_negative_indices_wrap_as_before(limit):
    check(wrapping_reads, RNG.standard_normal((7, 9)), limit, rtol=0, atol=0)


def test_index_past_the_end_still_raises():
    x = RNG.standard_normal(6)
    idx = np.array([1, 2, 0, 9, 3])
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 6"):
        reads_past_the_end(x.copy(), idx)
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 6"):
        jit(reads_past_the_end)(x.copy(), idx)
    check(reads_past_the_end, x, np.array([1, 2, 0, 5, 3, -6]), rtol=0, atol=0)
