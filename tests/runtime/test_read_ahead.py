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


def sample_paths(P_cdfs, init_states, random_values, out):
    """quantecon's Markov-chain sample paths: `out[i, t + 1]` from a search in the row
    `out[i, t]` names, read again inside a branch; the first element written just
    before the inner loop."""
    num_reps, ts_length = out.shape
    n = P_cdfs.shape[0]
    for i in range(num_reps):
        out[i, 0] = init_states[i]
        for t in range(ts_length - 1):
            k = np.searchsorted(P_cdfs[out[i, t]], random_values[i, t], side='right')
            if k == n:
                k = np.searchsorted(P_cdfs[out[i, t]], P_cdfs[out[i, t], n - 1],
                                    side='left')
            out[i, t + 1] = k


def recurrence_with_a_check(x, scale):
    """`x[t + 1] = f(x[t])` whose read also feeds a value the write does not use."""
    worst = 0.0
    for t in range(x.shape[0] - 1):
        v = x[t]
        worst = max(worst, abs(v))
        x[t + 1] = 0.5 * v + scale
    return worst


def _chain(states, reps, length, beyond=False):
    P = RNG.random((states, states))
    P /= P.sum(axis=1, keepdims=True)
    cdfs = np.cumsum(P, axis=1)
    if beyond:
        cdfs[:, -1] = 0.999             # draws past the last value take the branch
    return (cdfs, RNG.integers(0, states, reps), RNG.random((reps, length)),
            np.zeros((reps, length), dtype=np.int64))


@pytest.mark.parametrize("beyond", [False, True])
def test_sample_paths_match_numpy(beyond):
    check(sample_paths, *_chain(6, 7, 40, beyond), rtol=0, atol=0)


def test_sample_paths_update_the_paths_in_place():
    args = _chain(20, 50, 400)
    text = jit(sample_paths).lower(*args).as_text("hlo")
    assert copies_in_loop_bodies(text, (50, 400)) == 0


def test_a_forwarded_value_and_a_read_feeding_another_value():
    x = RNG.standard_normal(300)
    check(recurrence_with_a_check, x, 0.25, rtol=0, atol=0)
    text = jit(recurrence_with_a_check).lower(x, 0.25).as_text("hlo")
    assert copies_in_loop_bodies(text, (300,)) == 0
