"""Index checks that a counted loop's range proves, left out of its unrolled trips
(`lowering/proven_checks.py`): the same values as NumPy, the same IndexError at the same
element where an index is out of range (in the loop's range or in an index array), and
negative indices wrapped as NumPy wraps them."""
import numpy as np
import pytest

from benchmarks.loop_kernels import csr_matvec_loop as csr
from differential import check
from loop_ops import count_ops
from npxla import jit
from npxla.runtime.lowering import unroll

RNG = np.random.default_rng(37)


def reversed_rows(indptr, data):
    """The counter runs down: the index is `hi - 1 - t`."""
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(indptr[i + 1] - 1, indptr[i] - 1, -1):
            s = s * 0.5 + data[k]
        y[i] = s
    return y


def dense_windows(A, lo, hi, j):
    """A row index fixed in the loop (`i`), a column moving with it, and an index that
    is the same on every trip (`j`)."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        s = 0.0
        for k in range(lo[i], hi[i]):
            s += A[i, k] * A[i, j]
        out[i] = s
    return out


def _matrix(rows, rng, per=(0, 12), columns=50):
    counts = rng.integers(per[0], per[1] + 1, rows)
    indptr = np.zeros(rows + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(counts)
    nnz = int(indptr[-1])
    return indptr, rng.integers(0, columns, nnz), rng.normal(size=nnz), rng.normal(size=columns)


def _outcome(fn, args):
    """NumPy's value, or its exception's type and message."""
    try:
        return fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    except IndexError as e:
        return (IndexError, str(e))


def _same_outcome(fn, args):
    want = _outcome(fn, args)
    if isinstance(want, tuple):
        with pytest.raises(IndexError) as info:
            jit(fn)(*args)
        assert str(info.value) == want[1]
    else:
        np.testing.assert_array_equal(jit(fn)(*args), want)


def test_csr_rows_against_numpy():
    check(csr, *_matrix(300, RNG), rtol=0, atol=0)


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_an_index_array_out_of_range_raises_at_its_element(where):
    indptr, indices, data, x = _matrix(40, RNG, per=(3, 12))
    at = {"first": 0, "middle": indices.shape[0] // 2, "last": indices.shape[0] - 1}[where]
    indices[at] = 50 + at
    _same_outcome(csr, (indptr, indices, data, x))


def test_negative_entries_of_an_index_array_wrap():
    indptr, indices, data, x = _matrix(40, RNG, per=(3, 12))
    indices[::5] -= 50                       # -50..-1: NumPy reads from the end
    check(csr, indptr, indices, data, x, rtol=0, atol=0)


@pytest.mark.parametrize("shift", [-3, 0, 4, 2**62])
def test_a_range_that_leaves_the_array(shift):
    """Rows whose range starts before the data (negative indices wrap) or runs past its
    end (IndexError at the first element past it), and ranges far beyond int32."""
    indptr, indices, data, x = _matrix(30, RNG, per=(3, 12))
    indptr = indptr.copy()
    indptr[20:] += shift
    _same_outcome(csr, (indptr, indices, data, x))


def test_int32_index_arrays():
    indptr, indices, data, x = _matrix(60, RNG)
    check(csr, indptr.astype(np.int32), indices.astype(np.int32), data, x, rtol=0, atol=0)


def test_a_counter_that_runs_down():
    indptr, _, data, _ = _matrix(50, RNG)
    check(reversed_rows, indptr, data, rtol=0, atol=0)
    bad = indptr.copy()
    bad[30:] += 7
    _same_outcome(reversed_rows, (bad, data))


@pytest.mark.parametrize("j", [3, -2, 40])
def test_fixed_and_moving_indices_of_a_matrix(j):
    A = RNG.normal(size=(20, 30))
    lo = RNG.integers(-5, 10, 20)
    hi = lo + RNG.integers(0, 25, 20)
    _same_outcome(dense_windows, (A, lo, hi, j))


def test_random_structures_against_numpy():
    rng = np.random.default_rng(5)
    for _ in range(25):
        indptr, indices, data, x = _matrix(int(rng.integers(1, 30)), rng)
        if rng.random() < 0.5:
            at = rng.integers(0, indices.shape[0] or 1, 2)
            if indices.shape[0]:
                indices[at] = rng.integers(-80, 80, 2)
        if rng.random() < 0.3:
            indptr = indptr + rng.integers(-3, 4)
        _same_outcome(csr, (indptr, indices, data, x))


def _unsigned_checks_in_loops(fn, args):
    return count_ops(fn, args, lambda op, depth: depth > 0 and op.name == "stablehlo.compare"
                     and "UNSIGNED" in str(op.attributes["compare_type"]))


def test_the_unrolled_trips_hold_no_check(monkeypatch):
    args = _matrix(100, RNG, per=(10, 30))
    proven = _unsigned_checks_in_loops(csr, args)
    monkeypatch.setattr(unroll, "prove_trips", lambda loop, k: None)
    kept = _unsigned_checks_in_loops(csr, args)
    # without the proof every unrolled copy checks `k` and `indices[k]`; with it only the
    # loop itself (the trips past the proven run) does
    assert kept - proven >= 2 * 4
    assert proven <= 2
