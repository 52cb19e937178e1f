"""Large arguments reach XLA without PJRT's slow copy: aligned row-major arrays are used
in place, arrays a few elements past a 64-byte line go in as their aligned superset where
the program reads them in place, others are copied once, with memcpy, into an aligned
buffer."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.lowering.host_pool import HostPool
from npxla.runtime.xla import transfer
from npxla.runtime.xla.transfer import aligned


def _misaligned(shape):
    raw = np.empty(int(np.prod(shape)) * 8 + 64, np.uint8)
    start = (16 - raw.ctypes.data) % 64
    return raw[start:start + int(np.prod(shape)) * 8].view(np.float64).reshape(shape)


def test_aligned_row_major_arrays_pass_through():
    raw = np.empty(1 << 20, np.uint8)
    start = -raw.ctypes.data % 64
    a = raw[start:start + (1 << 19)].view(np.float64)
    assert aligned(a) is a


def test_misaligned_and_strided_arrays_are_copied_aligned(monkeypatch):
    monkeypatch.setattr(transfer, "_ALIGN_MIN_BYTES", 1 << 18)
    a = _misaligned((400, 300))
    a[...] = np.arange(a.size).reshape(a.shape)
    assert a.ctypes.data % 64 != 0
    for value in (a, a.T, a[:, ::2]):
        out = aligned(value)
        assert out is not value and out.ctypes.data % 64 == 0 and out.flags.c_contiguous
        np.testing.assert_array_equal(out, value)


def test_small_arrays_and_non_arrays_are_untouched():
    """Below 1 MB PJRT's own copy, made on the thread that runs the program, is as
    fast: such arrays are handed over as they are; from 1 MB on they are copied."""
    small = np.arange(10.0)
    assert aligned(small) is small and aligned(3.0) == 3.0
    middle = _misaligned((300, 400))
    assert middle.ctypes.data % 64 != 0 and aligned(middle) is middle
    large = _misaligned((400, 400))
    copied = aligned(large)
    assert copied is not large and copied.ctypes.data % 64 == 0
    np.testing.assert_array_equal(copied, large)


def scale_in_place(a, s):
    a *= s
    return a.sum()


def corner(a):
    return a[0, 0] + a[-1, -1]


def test_results_and_write_back_are_unchanged_for_misaligned_arguments():
    a = _misaligned((400, 300))
    a[...] = np.random.default_rng(0).random(a.shape)
    expected = a.copy()
    total = jit(scale_in_place)(a, 2.0)
    np.testing.assert_allclose(a, expected * 2)
    np.testing.assert_allclose(total, (expected * 2).sum())
    for value in (a, a.T, a[::2, ::3]):
        assert jit(corner)(value) == corner(value)


# --- supersets: arrays 16 bytes past a 64-byte line go in without a copy ------------
SIZE = 40_000       # 320 KB of float64: above the size where copies start


def _after_nans(n, offset, dtype=np.float64):
    """An array `offset` bytes past a 64-byte line, preceded by NaN bytes: they lie in
    its superset and must not reach any result."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.empty(n * itemsize + 256, np.uint8)
    start = (offset - raw.ctypes.data) % 64 + 64
    raw[:start] = 0xFF                     # NaN as float64, -1 as ints
    a = raw[start:start + n * itemsize].view(dtype)
    a[...] = np.random.default_rng(offset).random(n) * 100
    assert a.ctypes.data % 64 == offset
    return a


def _fresh(fn):
    f = jit(fn)
    f.clear_cache()
    return f


def _shifter(f):
    (variant,) = [v for vs in f._cache.values() for v in vs]
    return variant.entry._shift


def elementwise(a, b):
    return a * 2.0 + b


def first_and_last(a):
    return a[0] + a[-1]


def chain(A, x):
    return (A @ x) @ A


def column_totals(a):
    return a.reshape(400, -1).sum(axis=0)


def stencil(a):
    a[1:-1] += 0.5 * (a[2:] - a[:-2])


def test_superset_variants_read_only_the_array():
    f = _fresh(elementwise)
    a, b = _after_nans(SIZE, 16), _after_nans(SIZE, 48)
    for _ in range(3):                 # the second call compiles the variant
        np.testing.assert_array_equal(f(a, b), elementwise(a, b))
    shifter = _shifter(f)
    assert shifter._variants[(2, 6)]
    params, variant = shifter.prepare([a, b])
    assert variant is not None and params[0].ctypes.data == a.ctypes.data - 16
    assert params[0].ctypes.data % 64 == 0 and params[0].size == SIZE + 2


def test_alternating_alignments_through_the_fast_path():
    f = _fresh(first_and_last)
    aligned_a = _after_nans(SIZE, 0)
    shifted = [_after_nans(SIZE, off) for off in (16, 32, 48, 16)]
    for _ in range(3):
        for a in [aligned_a] + shifted:
            assert f(a) == first_and_last(a)
    assert f._fast                      # the JAX C++ dispatch path ran these
    assert sum(1 for v in _shifter(f)._variants.values() if v) == 3


def test_programs_that_copy_the_argument_keep_the_memcpy():
    A = _after_nans(400 * 500, 16)
    f = _fresh(column_totals)
    for _ in range(3):
        np.testing.assert_allclose(f(A), column_totals(A), rtol=1e-12)
    assert _shifter(f)._variants == {(2,): False}


def test_products_take_the_matrix_split_around_its_line():
    """(A @ x) @ A reads A in place (`superset_dot`); the NaN bytes before it lie in the
    aligned matrix the program takes and must not reach the result."""
    A = _after_nans(400 * 500, 16).reshape(400, 500)
    x = np.random.default_rng(1).random(500)
    f = _fresh(chain)
    for _ in range(3):
        np.testing.assert_allclose(f(A, x), chain(A, x), rtol=1e-12)
    assert _shifter(f)._variants[(2,)] and _shifter(f)._splits[(2,)] == {0: 2}


def test_in_place_update_of_a_shifted_argument():
    f = _fresh(stencil)
    a = _after_nans(SIZE, 16)
    view = a[::3]
    expected = a.copy()
    for _ in range(3):
        f(a)
        stencil(expected)
    np.testing.assert_array_equal(a, expected)
    np.testing.assert_array_equal(view, expected[::3])
    assert _shifter(f)._variants[(2,)]


def test_strided_and_unaligned_itemsize_arrays_are_copied():
    raw = np.empty(SIZE * 8 + 64, np.uint8)
    odd = raw[3:3 + SIZE * 8].view(np.float64)        # 3 bytes past: no superset
    odd[...] = 1.5
    strided = _after_nans(2 * SIZE, 16)[::2]
    f = _fresh(first_and_last)
    for a in (odd, strided, odd, strided):
        assert f(a) == first_and_last(a)
    # a strided argument has a program of its own (its layout is part of the key)
    shifters = {len(key[1][0]): v.entry._shift for key, vs in f._cache.items() for v in vs}
    contiguous, strided_shifter = shifters[2], shifters[3]
    assert contiguous.prepare([odd]) == ([odd], None) and not contiguous._seen
    if strided_shifter is not None:
        strided_shifter.prepare([strided])
        assert not strided_shifter._seen and not strided_shifter._variants   # never
    assert not contiguous._seen and not contiguous._variants


def test_copies_in_pieces_match_numpy(monkeypatch):
    """`copy_into` cuts big copies into pieces that several threads copy; pieces of 4 KB
    over three threads here exercise every path on small arrays."""
    monkeypatch.setattr(transfer, "_CHUNK_BYTES", 4096)
    monkeypatch.setattr(transfer, "_PARALLEL_MIN_BYTES", 4096)
    monkeypatch.setattr(transfer, "_COPIERS", 3)
    monkeypatch.setattr(transfer, "_COPY_POOL", HostPool(2))
    rng = np.random.default_rng(0)
    a = _misaligned((123, 77))
    a[...] = rng.normal(size=a.shape)
    for src in (a, a.T, a[:, ::3], a[::-2], a.reshape(-1)[5:]):
        dst = transfer.aligned_empty(src.shape, src.dtype)
        transfer.copy_into(dst, src)
        np.testing.assert_array_equal(dst, src)
        narrow = np.empty(src.shape, np.float32)
        transfer.copy_into(narrow, src, casting="unsafe")
        np.testing.assert_array_equal(narrow, src.astype(np.float32))
    dst = np.zeros((123, 77))
    transfer.copy_into(dst, np.arange(77.0))     # broadcast: one whole copy
    np.testing.assert_array_equal(dst, np.broadcast_to(np.arange(77.0), dst.shape))
    transfer.copy_into(dst.T, a.T)               # a non-contiguous destination
    np.testing.assert_array_equal(dst, a)
    with pytest.raises(TypeError):              # a piece's error reaches the caller
        transfer.copy_into(np.empty(a.shape, np.int64), a)


def test_staging_buffers_are_reused_only_when_free():
    """A large argument's aligned copy goes into a buffer earlier calls used (its pages
    already faulted in) once nothing else refers to it; one still referred to (a call
    in flight holds it) is never handed out twice."""
    from npxla.runtime.xla.pool import BufferPool
    from npxla.runtime.xla.transfer import STAGING_MIN_BYTES, staging_buffer
    pool = BufferPool(cap=4 * STAGING_MIN_BYTES)
    shape, dtype = (STAGING_MIN_BYTES // 8,), np.dtype(np.float64)
    first = staging_buffer(shape, dtype, pool)
    second = staging_buffer(shape, dtype, pool)
    assert first.ctypes.data % 64 == 0 and second.ctypes.data % 64 == 0
    assert first.ctypes.data != second.ctypes.data      # first still held
    address = first.ctypes.data
    del first
    third = staging_buffer(shape, dtype, pool)
    assert third.ctypes.data == address                 # the freed one, again
    assert pool.held_bytes <= pool.cap
    small = staging_buffer((100,), dtype, pool)         # below the minimum: not pooled
    assert small.ctypes.data % 64 == 0 and pool.held_bytes <= 2 * (STAGING_MIN_BYTES + 64)
    huge = staging_buffer((pool.cap // 8 + 1,), dtype, pool)   # above the cap: not pooled
    assert huge.shape == (pool.cap // 8 + 1,)
    assert pool.held_bytes <= 2 * (STAGING_MIN_BYTES + 64)


def test_a_large_misaligned_argument_gives_numpys_answer_call_after_call():
    a = _misaligned((STAGING_ROWS, 1024))
    a[...] = np.random.default_rng(1).normal(size=a.shape)
    f = jit(_column_sums)
    for k in range(3):
        a[0, 0] = k                        # each call sees the array as it is now
        np.testing.assert_allclose(f(a), _column_sums(a), rtol=1e-10, atol=1e-10)


STAGING_ROWS = (1 << 24) // 8192 + 1      # just above the pooled size


def _column_sums(a):
    return a.sum(axis=0) + a[0, 0]
