"""Loops that read rows (contiguous windows) of a large unaligned argument read them
from its aligned superset (`runtime/xla/superset_windows.py`) instead of copying the
argument first. Checked against NumPy at each misalignment NumPy's heap gives, with NaN
bytes before the array (they lie in the superset and must never reach a result), and
for windows that are not contiguous (those keep the copy)."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.xla import superset
from npxla.runtime.xla.superset_windows import contiguous

needs_superset = pytest.mark.skipif(not superset._ENABLED, reason="x86-64 only")


def after_nans(values, offset):
    """A copy of `values` whose data starts `offset` bytes past a 64-byte line, after
    bytes that read as NaN (float) or -1 (int)."""
    raw = np.empty(values.nbytes + 256, np.uint8)
    start = (offset - raw.ctypes.data) % 64 + 64
    raw[:start] = 0xFF
    out = raw[start:start + values.nbytes].view(values.dtype).reshape(values.shape)
    out[...] = values
    assert out.ctypes.data % 64 == offset
    return out


def forward(L, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def row_pairs(A):
    """Runs of two rows, the last row (a static window) and one element per step."""
    n = A.shape[0]
    out = np.zeros(A.shape[1])
    for i in range(n - 1):
        out += A[i:i + 2, :].sum(axis=0) * A[i, i % 3] + A[n - 1, :]
    return out


def planes(T):
    """Rows of a 3-D array, and one whole plane at a traced index."""
    acc = np.zeros(T.shape[2], T.dtype)
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            acc = acc + T[i, j, :] * (j + 1)
        acc = acc + T[i].sum(axis=0)
    return acc


def columns(A):
    """A column is not a run of the flat buffer: this loop keeps the copy."""
    s = 0.0
    for j in range(A.shape[1]):
        s = s + A[:, j].max() * j
    return s


def _shifter(f):
    (variant,) = [v for vs in f._cache.values() for v in vs]
    return variant.entry._shift


def _run(fn, args, rtol=1e-12):
    f = jit(fn)
    f.clear_cache()
    want = fn(*args)
    for _ in range(3):                  # the variant is compiled at the second call
        got = f(*args)
        np.testing.assert_allclose(got, want, rtol=rtol)
        assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    return f


def test_contiguous_windows():
    assert contiguous([1, 5], (4, 5)) and contiguous([2, 5], (4, 5))
    assert contiguous([1, 1], (4, 5)) and contiguous([1, 3], (4, 5))
    assert contiguous([1, 2, 6], (3, 4, 6)) and contiguous([4, 5], (4, 5))
    assert not contiguous([2, 3], (4, 5)) and not contiguous([4, 1], (4, 5))
    assert not contiguous([1, 2, 5], (3, 4, 6))


@needs_superset
@pytest.mark.parametrize("offset", [16, 32, 48])
def test_triangular_solve_reads_rows_in_place(offset):
    n = 400
    rng = np.random.default_rng(offset)
    L = after_nans(np.tril(rng.random((n, n))) + n * np.eye(n), offset)
    b = rng.random(n)
    f = _run(forward, (L, b))
    assert _shifter(f)._variants[(offset // 8,)], "the loop should read L in place"


@needs_superset
def test_runs_of_rows_static_rows_and_elements():
    A = after_nans(np.random.default_rng(1).random((300, 120)), 16)
    f = _run(row_pairs, (A,))
    assert _shifter(f)._variants[(2,)]


@needs_superset
@pytest.mark.parametrize("dtype, offset", [(np.int64, 48), (np.float32, 16)])
def test_rows_of_a_3d_array(dtype, offset):
    T = after_nans((np.random.default_rng(2).random((6, 40, 300)) * 100).astype(dtype), offset)
    f = _run(planes, (T,), rtol=1e-5)
    key = (offset // np.dtype(dtype).itemsize,)
    assert _shifter(f)._variants[key]


@needs_superset
def test_columns_keep_the_copy():
    A = after_nans(np.random.default_rng(3).random((400, 200)), 32)
    f = _run(columns, (A,))
    assert _shifter(f)._variants == {(4,): False}


@needs_superset
def test_the_last_rows_and_clamped_starts():
    """Windows that end at the array's last element: the run must not reach past it."""
    def tail(A, k):
        s = np.zeros(A.shape[1])
        for i in range(A.shape[0] - k, A.shape[0]):
            s += A[i, :] + A[i - 1:i + 1, :].sum(axis=0)
        return s
    A = after_nans(np.random.default_rng(4).random((250, 160)), 48)
    for k in (1, 5, 249):
        np.testing.assert_allclose(jit(tail)(A, k), tail(A, k), rtol=1e-12)
