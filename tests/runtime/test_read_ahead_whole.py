"""Rows and columns of an array a loop computes anew every trip, read a trip ahead
(`lowering/read_ahead.py`, `_plan_whole`), against NumPy bit for bit: Floyd-Warshall
with unreachable pairs and NaN, rank-one eliminations, zero and one trips, arrays below
the size the move needs, reads at an index computed from the array (left alone), and
trips that also reduce the old array (left alone); after XLA's optimisation the
Floyd-Warshall loop holds no copy of the table (it copied it every trip)."""
import numpy as np
import pytest
from differential import check

from benchmarks.kernels import load_example
from npxla import jit
from npxla.runtime.lowering import read_ahead
from test_row_lanes import copies_in_loop_bodies

RNG = np.random.default_rng(45)
SIDE = 40                                # 1,600 elements: above WHOLE_MIN_ELEMENTS


floyd_warshall = load_example("floyd_warshall").EXAMPLE.fn.__wrapped__


def first_rounds(dist, rounds):
    for k in range(rounds):
        dist = np.minimum(dist, dist[:, k, np.newaxis] + dist[np.newaxis, k, :])
    return dist


def eliminate(A):
    n = A.shape[0]
    for k in range(n - 1):
        A = A - np.outer(A[:, k], A[k, :]) / A[k, k] * (np.arange(n) > k)[:, None]
    return A


def pivot_rows(A, steps):
    for _ in range(steps):
        p = np.argmax(np.abs(A[:, 0]))          # the row index read from the array
        A = A - 0.5 * A[p, :]
    return A


def with_a_change_test(D):
    change = 0.0
    for k in range(D.shape[0]):
        new = np.minimum(D, D[:, k, None] + D[None, k, :])
        change = max(change, float(np.max(D - new)))       # reads the old table whole
        D = new
    return D, change


def _graph(n, nan=False):
    w = RNG.uniform(1.0, 10.0, (n, n))
    d = np.where(RNG.random((n, n)) < 0.15, w, np.inf)
    np.fill_diagonal(d, 0.0)
    if nan:
        d[2, 3] = np.nan
    return d


@pytest.mark.parametrize("n", [5, SIDE, 64])
@pytest.mark.parametrize("nan", [False, True])
def test_floyd_warshall_matches_numpy(n, nan):
    check(floyd_warshall, _graph(n, nan), rtol=0, atol=0)


@pytest.mark.parametrize("rounds", [0, 1, 2, SIDE])
def test_zero_one_and_all_rounds(rounds):
    check(first_rounds, _graph(SIDE), rounds, rtol=0, atol=0)


@pytest.mark.parametrize("n", [8, SIDE])
def test_rank_one_eliminations_match_numpy(n):
    A = RNG.standard_normal((n, n)) + n * np.eye(n)
    check(eliminate, A, rtol=0, atol=0)


def test_a_row_chosen_by_the_data_stays_a_read_of_the_array():
    check(pivot_rows, RNG.standard_normal((SIDE, SIDE)), 5, rtol=0, atol=0)


def test_a_trip_that_reads_the_old_table_whole_matches_numpy():
    check(with_a_change_test, _graph(SIDE), rtol=0, atol=0)


def test_the_reads_move_and_the_loop_copies_nothing():
    d = _graph(64)
    assert 64 * 64 >= read_ahead.WHOLE_MIN_ELEMENTS
    lowered = jit(floyd_warshall).lower(d)
    # the column and the row are carried: the loop's state holds both
    assert "tensor<64x64xf64>, tensor<1x64xf64>, tensor<64x1xf64>" in lowered.as_text()
    assert copies_in_loop_bodies(lowered.as_text("hlo"), d.shape) == 0
    small = _graph(8)
    assert "tensor<8x8xf64>, tensor<1x8xf64>, tensor<8x1xf64>" not in \
        jit(floyd_warshall).lower(small).as_text()
