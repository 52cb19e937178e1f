"""Large arguments reach XLA without PJRT's slow copy: aligned row-major arrays are used
in place, others are copied once, with memcpy, into an aligned buffer."""
import numpy as np

from npxla import jit
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


def test_misaligned_and_strided_arrays_are_copied_aligned():
    a = _misaligned((400, 300))
    a[...] = np.arange(a.size).reshape(a.shape)
    assert a.ctypes.data % 64 != 0
    for value in (a, a.T, a[:, ::2]):
        out = aligned(value)
        assert out is not value and out.ctypes.data % 64 == 0 and out.flags.c_contiguous
        np.testing.assert_array_equal(out, value)


def test_small_arrays_and_non_arrays_are_untouched():
    small = np.arange(10.0)
    assert aligned(small) is small and aligned(3.0) == 3.0


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
