"""Scalar work of a counted loop that depends on the counter alone, computed for every
trip before the loop (`lowering/maps.py`): bit for bit what the loop computes without
the rewrite (the same ops on the same values, a trip axis added), against NumPy (whose
transcendentals npxla matches within an ulp), and where the work ended up."""
import numpy as np
import pytest
from jaxlib.mlir import ir

from differential import check
from npxla import jit
from tests.runtime.loop_ops import count_ops, maps_off

RNG = np.random.default_rng(39)


def exact(fn, *args):
    """Against NumPy, and bit for bit against the loop staged without the rewrite."""
    check(fn, *args, rtol=1e-13, atol=0)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with maps_off():
        plain = jit(fn)(*copies)
    np.testing.assert_array_equal(jit(fn)(*args), plain)


def multiplies_in_loops(fn, *args):
    """How many `stablehlo.multiply` ops fn's staged module has inside while bodies."""
    return count_ops(fn, args, lambda op, depth: depth and op.name == "stablehlo.multiply")


def tanh_of_diagonal(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += np.tanh(a[i, i])
    return s


def weighted_terms(x, w, out):
    for i in range(2, x.shape[0]):
        t = np.exp(-x[i - 2] * w[i]) + np.sqrt(abs(x[i])) * np.cos(w[i - 1])
        out[i] = out[i - 1] * 0.5 + t
    return out


def picked_by_index_array(x, idx):
    total = 0.0
    for k in range(idx.shape[0]):
        v = x[idx[k]]
        total = total * 0.9 + np.log1p(v * v) / (1.0 + np.arctan(v))
    return total


def strided_pairs(a):
    acc = 0
    for i in range(0, a.shape[0] - 1, 3):
        h = (a[i] * 2654435761) ^ (a[i + 1] >> 3)
        h = (h * 40503) & 0xFFFF
        acc = (acc * 31 + h) % 1000003
    return acc


def test_map_then_sum():
    a = RNG.standard_normal((300, 300))
    exact(tanh_of_diagonal, a)


def test_map_with_a_recurrence_writing_an_array():
    x, w = RNG.standard_normal(500), RNG.standard_normal(500)
    exact(weighted_terms, x, w, np.zeros(500))


@pytest.mark.parametrize("n", [1, 2, 40])
def test_picked_through_an_index_array(n):
    x = RNG.standard_normal(50)
    idx = RNG.integers(-50, 50, n)              # negative indices too
    exact(picked_by_index_array, x, idx)


def test_integer_map_with_a_stride():
    exact(strided_pairs, RNG.integers(0, 2**40, 301))


def test_the_work_leaves_the_loop():
    a = RNG.standard_normal((300, 300))
    with maps_off():
        assert multiplies_in_loops(tanh_of_diagonal, a) > 10
    assert multiplies_in_loops(tanh_of_diagonal, a) == 0


def cheap(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * 2.0
    return s


def test_cheap_maps_stay():
    assert multiplies_in_loops(cheap, RNG.standard_normal(100)) > 0


@pytest.mark.parametrize("bad", [0, 5, 39])
def test_a_check_that_fails_part_way(bad):
    x = RNG.standard_normal(50)
    idx = RNG.integers(-50, 50, 40)
    idx[bad] = 57
    with pytest.raises(IndexError) as expected:
        picked_by_index_array(x, idx)
    with pytest.raises(IndexError) as got:
        jit(picked_by_index_array)(x, idx)
    assert str(got.value).splitlines()[0] == str(expected.value)
    assert multiplies_in_loops(picked_by_index_array, x, idx) < 5


def alignment_scores(a, b, gap):
    """Needleman-Wunsch: the row above and the match test are the same whatever the
    row being filled holds, so they are computed for the whole row before its loop."""
    n, m = a.shape[0], b.shape[0]
    S = np.zeros((n + 1, m + 1), dtype=np.int64)
    for j in range(1, m + 1):
        S[0, j] = j * gap
    for i in range(1, n + 1):
        S[i, 0] = i * gap
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                diag = S[i - 1, j - 1] + 2
            else:
                diag = S[i - 1, j - 1] - 1
            S[i, j] = max(diag, S[i - 1, j] + gap, S[i, j - 1] + gap)
    return S


def table_reads(fn, *args):
    """(gathers in the module, element reads of a 2-D array inside nested loops)."""
    return (count_ops(fn, args, lambda op, depth: op.name == "stablehlo.gather"),
            count_ops(fn, args, lambda op, depth: depth >= 2 and
                      op.name == "stablehlo.dynamic_slice" and
                      ir.RankedTensorType(op.operands[0].type).rank == 2))


@pytest.mark.parametrize("n, m", [(3, 2), (7, 12), (40, 33)])
def test_a_table_row_is_read_as_slices_before_its_loop(n, m):
    a, b = RNG.integers(0, 4, n), RNG.integers(0, 4, m)
    exact(alignment_scores, a, b, -2)
    with maps_off():
        assert table_reads(alignment_scores, a, b, -2)[1] > 0
    assert table_reads(alignment_scores, a, b, -2) == (0, 0)


def shifted_reads(x, y):
    """Reads `x[j + 2]`: all trips' elements are one slice where `x` has two more."""
    total = 0.0
    for j in range(y.shape[0]):
        v = x[j + 2] * y[j]
        total = total * 0.5 + np.exp(-v * v) / (1.0 + np.sqrt(abs(v)))
    return total


def test_reads_along_the_axis_are_one_slice():
    x, y = RNG.standard_normal(32), RNG.standard_normal(30)
    exact(shifted_reads, x, y)
    assert table_reads(shifted_reads, x, y)[0] == 0
    with maps_off():
        before = multiplies_in_loops(shifted_reads, x, y)
    assert multiplies_in_loops(shifted_reads, x, y) < before / 2   # (`total * 0.5` stays)


@pytest.mark.parametrize("size", [30, 31])
def test_reads_past_the_axis_stay_gathers_and_raise_at_their_trip(size):
    """The trips from `size - 2` on read outside `x`: the loop raises there, and the
    trips' values are gathered (each index clamped as its trip would), not sliced."""
    x, y = RNG.standard_normal(size), RNG.standard_normal(30)
    assert table_reads(shifted_reads, x, y)[0] > 0
    with pytest.raises(IndexError) as expected:
        shifted_reads(x, y)
    with pytest.raises(IndexError) as got:
        jit(shifted_reads)(x, y)
    assert str(got.value).splitlines()[0] == str(expected.value)


def triangular_tanh(a, w):
    """The inner loop runs `i` trips: at most n - 1 (`counted.max_trip_count`)."""
    n = a.shape[0]
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(i):
            s += np.tanh(a[i, j]) * w[j]
        out[i] = s
    return out


def data_bounded_tanh(a, w, counts):
    """The inner loop runs `counts[i]` trips: no bound is known when staging."""
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(counts[i]):
            s += np.tanh(a[i, j]) * w[j]
        out[i] = s
    return out


@pytest.mark.parametrize("n", [1, 2, 9, 60])
def test_a_triangular_loop_computes_its_longest_row_before_each_loop(n):
    a, w = RNG.standard_normal((n, n)), RNG.standard_normal(n)
    exact(triangular_tanh, a, w)
    inner = lambda op, depth: depth >= 2 and op.name == "stablehlo.multiply"  # noqa: E731
    with maps_off():
        before = count_ops(triangular_tanh, (a, w), inner)
    if n > 2:
        assert count_ops(triangular_tanh, (a, w), inner) < before / 4


def test_a_loop_bounded_by_data_keeps_its_work():
    a, w = RNG.standard_normal((20, 20)), RNG.standard_normal(20)
    counts = RNG.integers(0, 21, 20)
    exact(data_bounded_tanh, a, w, counts)
    with maps_off():
        before = multiplies_in_loops(data_bounded_tanh, a, w, counts)
    assert multiplies_in_loops(data_bounded_tanh, a, w, counts) == before
