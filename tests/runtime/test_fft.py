"""np.fft vs NumPy: dtypes (NumPy 2: float32 -> complex64, ints -> complex128), n / s
cropping and padding, axes (more than XLA's three at once, repeated), norms, out=,
frequencies and shifts, errors."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from differential import check, random_array, tolerance
from npxla import jit

RNG = np.random.default_rng(3)
DTYPES = [np.bool_, np.int32, np.int64, np.uint8, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]
NORMS = [None, "backward", "ortho", "forward"]


def data(shape, dt):
    return random_array(RNG, shape, dt)


def tol(dt):
    return tolerance(dt, half=5e-3, single=(1e-5, 2e-5), double=1e-10)


def one_d(x):
    return (np.fft.fft(x), np.fft.ifft(x), np.fft.fft(x, 7), np.fft.ifft(x, 3, axis=0),
            np.fft.fft2(x), np.fft.ifft2(x), np.fft.fftn(x), np.fft.ifftn(x))


def real_ones(x):
    return (np.fft.rfft(x), np.fft.rfft(x, 5, axis=0), np.fft.rfft2(x), np.fft.rfftn(x),
            np.fft.ihfft(x))


def inverse_real(x):
    return (np.fft.irfft(x), np.fft.irfft(x, 9, axis=0), np.fft.irfft2(x), np.fft.irfftn(x),
            np.fft.hfft(x), np.fft.hfft(x, 4))


@pytest.mark.parametrize("dt", DTYPES)
def test_complex_transforms(dt):
    check(one_d, data((4, 6), dt), **tol(dt))


@pytest.mark.parametrize("dt", [d for d in DTYPES if np.dtype(d).kind != "c"])
def test_real_transforms(dt):
    check(real_ones, data((4, 6), dt), **tol(dt))


@pytest.mark.parametrize("dt", DTYPES)
def test_inverse_real_transforms(dt):
    check(inverse_real, data((4, 6), dt), **tol(dt))


@pytest.mark.parametrize("norm", NORMS)
def test_norms(norm):
    def f(x, r):
        return (np.fft.fft(x, norm=norm), np.fft.ifft(x, 5, norm=norm),
                np.fft.fftn(x, norm=norm), np.fft.ifftn(x, s=(3, 8), axes=(0, 1), norm=norm),
                np.fft.rfft(r, norm=norm), np.fft.irfft(x, norm=norm),
                np.fft.rfftn(r, norm=norm), np.fft.irfftn(x, s=(4, 7), axes=(0, 1), norm=norm),
                np.fft.hfft(x, norm=norm), np.fft.ihfft(r, norm=norm))
    check(f, data((4, 6), np.complex128), data((4, 6), np.float64), rtol=1e-10, atol=1e-10)


def test_lengths_axes_and_many_axes():
    def f(x):
        return (np.fft.fftn(x), np.fft.fftn(x, s=(3, 6), axes=(3, 0)),
                np.fft.ifftn(x, axes=(2, 0, 3, 1)), np.fft.rfftn(x),
                np.fft.rfftn(x, s=(2, 5, 3, 4), axes=(0, 1, 2, 3)),
                np.fft.irfftn(x, axes=(1, 0, 3, 2)), np.fft.fft2(x, s=(1, 9)),
                np.fft.rfft2(x, axes=(0, 2)), np.fft.irfft2(x, s=(5, 5)),
                np.fft.fftn(x, s=(3, -1), axes=(0, 1)))
    check(f, data((2, 3, 4, 5), np.float64), rtol=1e-10, atol=1e-10)


def test_repeated_axes():
    def f(x, r):
        return (np.fft.fftn(x, s=(3, 5), axes=(0, 0)), np.fft.rfftn(r, axes=(1, 1)),
                np.fft.irfftn(x, s=(4, 6), axes=(0, 0)), np.fft.rfftn(r, s=(3, 4), axes=(1, 1)))
    check(f, data((4, 6), np.complex128), data((4, 6), np.float64), rtol=1e-10, atol=1e-10)


def test_deprecated_s_without_axes():
    def f(x):
        return np.fft.fftn(x, s=(3, 4)), np.fft.fft2(x, s=(None, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(f, data((4, 6), np.float32), **tol(np.float32))


@settings(max_examples=6, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.sampled_from([0, 1, -1]))
def test_lengths_property(m, n, axis):
    def f(x):
        return np.fft.fft(x, n, axis=axis), np.fft.irfft(x, n, axis=axis)
    check(f, data((m, 3), np.complex128), rtol=1e-10, atol=1e-10)


def test_shapes_empty_and_scalars():
    def f(x):
        return np.fft.fft(x), np.fft.rfft(x, 4), np.fft.fftn(x, axes=(1,))
    check(f, np.ones((0, 3)))
    check(lambda x: np.fft.fft(x), np.ones(1))
    check(lambda x: np.fft.rfft(x), np.ones(1, np.float32))


def test_out_argument():
    def f(x):
        out = np.zeros(x.shape, np.complex128)
        r = np.fft.fft(x, out=out)
        return out, r
    check(f, data((3, 4), np.float64), rtol=1e-10, atol=1e-10)


def test_errors():
    def bad_n(x):
        return np.fft.fft(x, 0)

    def bad_norm(x):
        return np.fft.ifft(x, norm="bogus")

    def complex_rfft(x):
        return np.fft.rfft(x)

    def bad_s(x):
        return np.fft.fftn(x, s=(2, 2), axes=(0,))
    for fn, x, exc in [(bad_n, np.ones(4), ValueError), (bad_norm, np.ones(4), ValueError),
                       (complex_rfft, np.ones(4, complex), TypeError),
                       (bad_s, np.ones((2, 2)), ValueError),
                       (lambda x: np.fft.fftshift(x), np.float64(2.0), ValueError)]:
        with pytest.raises(exc):
            fn(x)
        with pytest.raises(exc):
            jit(fn)(x)


def test_frequencies():
    def f(d):
        return (np.fft.fftfreq(7, d), np.fft.fftfreq(8, d), np.fft.rfftfreq(7, d),
                np.fft.rfftfreq(8, d), np.fft.fftfreq(5), np.fft.rfftfreq(1, d))
    check(f, 0.25)
    check(f, np.float32(0.1))
    check(f, np.array(2.0))

    def g(n):
        return np.fft.fftfreq(n, 0.5)
    check(g, 6)


@pytest.mark.parametrize("dt", [np.int8, np.float32, np.complex128, np.bool_])
def test_shifts(dt):
    def f(x):
        return (np.fft.fftshift(x), np.fft.ifftshift(x), np.fft.fftshift(x, axes=1),
                np.fft.ifftshift(x, axes=(0, -1)), np.fft.ifftshift(np.fft.fftshift(x)),
                np.fft.fftshift(x[0, 0]))
    check(f, data((3, 4, 5), dt))


def test_fft_in_loop():
    def smooth(x, steps):
        k = np.fft.rfftfreq(x.shape[0])
        for _ in range(steps):
            x = np.fft.irfft(np.fft.rfft(x) * np.exp(-k * k), x.shape[0])
        while np.abs(x).max() > 0.5:
            x = x * 0.5
        return x, np.fft.fftshift(np.abs(np.fft.fft(x)))
    check(smooth, data((16,), np.float64), 3, rtol=1e-10, atol=1e-12)
