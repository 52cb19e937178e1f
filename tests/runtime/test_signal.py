"""Differential tests: np.convolve, np.correlate, np.interp and np.polyval
(runtime/numpy/spectral/signal.py) against NumPy over dtypes, lengths, modes and special values."""
import warnings

import numpy as np
import pytest

from matrix import dtype_in, slow_except

from differential import check, random_array, tolerance
from npxla import jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SIGNAL_DTYPES = [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32, np.float64,
                 np.complex64, np.complex128]


def tol(dtype):
    return tolerance(dtype, half=(5e-3, 5e-2))


# --- convolve / correlate ----------------------------------------------------------

def conv_and_corr(a, v):
    return (np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(a, v, mode="valid"),
            np.correlate(a, v), np.correlate(a, v, "same"), np.correlate(a, v, "full"))


@pytest.mark.parametrize("dtype", slow_except(SIGNAL_DTYPES, dtype_in(np.bool_, np.int64,
                                                                      np.float64, np.complex64),
                                              ids=lambda d: np.dtype(d).name))
@pytest.mark.parametrize("n,m", [(7, 3), (3, 7), (4, 4), (1, 5), (6, 1), (5, 2)])
def test_convolve_correlate_modes(dtype, n, m):
    rng = np.random.default_rng(n * 10 + m)
    a, v = random_array(rng, n, dtype), random_array(rng, m, dtype)
    if np.dtype(dtype).kind in "fc":
        a, v = a * 3, v * 3
    check(conv_and_corr, a, v, **tol(dtype))


def test_integer_results_wrap_like_numpy():
    # NumPy accumulates in 64 bits and casts the sum to the result dtype
    a = np.array([100, 120, -128, 127], np.int8)
    v = np.array([100, 100, 3], np.int8)
    check(conv_and_corr, a, v)
    check(conv_and_corr, a.astype(np.uint8), v.astype(np.uint8))


def mixed(a, v):
    out = np.convolve(a, v), np.convolve(v, a, "same")
    if np.ndim(a) and np.ndim(v):           # correlate refuses 0-d operands
        out += (np.correlate(a, v, "full"), np.correlate(v, a, "same"))
    return out


@pytest.mark.parametrize("a,v", [
    (np.arange(5, dtype=np.int8), np.array([0.5, 1.5], np.float32)),   # promotion
    (np.arange(5, dtype=np.int16), 3),                                  # Python int -> int64
    (np.arange(4.0), 2.5),                                              # scalar v
    (np.float32(2), np.arange(3, dtype=np.float32)),                    # 0-d a
    (np.array([1 + 2j, -1j]), np.array([1.0, 2.0, 3.0])),              # complex conj rule
    (np.array([1.0, 2.0, 3.0]), np.array([1 + 2j, -1j])),
])
def test_convolve_mixed_operands(a, v):
    check(mixed, a, v)


def traced_list(x, y):
    return np.convolve([x, y, 1.0], [1.0, -1.0]), np.correlate([1, 2, 3], [x, y])


def test_list_operands_with_traced_values():
    check(traced_list, 2.0, 3.5)


def integer_modes(a, v):
    return np.convolve(a, v, 0), np.convolve(a, v, 1), np.correlate(a, v, 2)


def test_integer_mode_numbers():
    check(integer_modes, np.arange(6.0), np.array([1.0, 2.0, 0.5]))


def conv_mode(a, v, mode):
    return np.convolve(a, v, mode)


def corr_mode(a, v, mode):
    return np.correlate(a, v, mode)


@pytest.mark.parametrize("fn,a,v,mode,exc", [
    (conv_mode, np.zeros(0), np.ones(2), "full", ValueError),
    (conv_mode, np.ones(3), np.zeros(0), "full", ValueError),
    (corr_mode, np.zeros(0), np.ones(2), "valid", ValueError),
    (corr_mode, np.ones(2), np.zeros(0), "valid", ValueError),
    (conv_mode, np.ones((2, 2)), np.ones(2), "full", ValueError),
    (corr_mode, np.ones(3), np.float64(2), "full", ValueError),
    (conv_mode, np.ones(3), np.ones(2), "bad", ValueError),
    (conv_mode, np.ones(3), np.ones(2), "FULL", ValueError),
    (corr_mode, np.ones(3), np.ones(2), 3, ValueError),
])
def test_convolve_errors_match_numpy(fn, a, v, mode, exc):
    with pytest.raises(exc) as expected:
        fn(a, v, mode)
    with pytest.raises(exc) as got:
        jit(fn, static_argnums=2)(a, v, mode)
    assert str(expected.value) in str(got.value)


def moving_average(x, k):
    return np.convolve(x, np.ones(k) / k, mode="valid")


def test_moving_average_in_a_loop():
    def smooth(x, n):
        for _ in range(n):
            x = np.convolve(x, np.array([0.25, 0.5, 0.25]), "same")
        return x
    x = np.random.default_rng(0).normal(size=64)
    check(smooth, x, 3)
    check(moving_average, x, 5)


# --- interp ---------------------------------------------------------------------------

XP = np.array([0.0, 1.0, 2.0, 2.0, 3.5, 5.0])          # increasing, with a repeated point
FP = np.array([1.0, 3.0, -2.0, 4.0, np.inf, 2.0])
X = np.array([-1.0, 0.0, 0.5, 1.0, 1.999, 2.0, 2.5, 3.5, 4.0, 5.0, 6.0, np.nan, np.inf,
              -np.inf])


def interp_all(x, xp, fp):
    return (np.interp(x, xp, fp), np.interp(x, xp, fp, left=-1.0, right=99.0),
            np.interp(x, xp, fp, left=7))


@pytest.mark.parametrize("x,xp,fp", [
    (X, XP, FP),
    (X.astype(np.float32), XP.astype(np.float32), FP.astype(np.float32)),
    (np.arange(-2, 8).astype(np.int16), np.array([0, 2, 4, 6], np.int8),
     np.array([1, -1, 3, 5], np.int64)),
    # complex fp (finite: assert_allclose cannot compare complex infinities)
    (X, XP, np.nan_to_num(FP) + 1j * np.nan_to_num(FP[::-1], posinf=-3.0)),
    (X, XP, (np.nan_to_num(FP, posinf=50.0) + 2j).astype(np.complex64)),
    (X.reshape(2, 7), XP, FP),                                # any shape of x
    (np.zeros((0, 3)), XP, FP),
    (X, np.array([1.5]), np.array([3.0])),                    # a single sample point
    (X, np.array([0.0, 1.0]), np.array([np.nan, 1.0])),       # NaN fallbacks
    (X, np.array([0.0, 1.0, 2.0]), np.array([np.inf, np.inf, -np.inf])),
])
def test_interp(x, xp, fp):
    check(interp_all, x, xp, fp)


def interp_scalar(x, xp, fp):
    return np.interp(x, xp, fp)


@pytest.mark.parametrize("x", [2.5, 7, np.float32(0.25), np.array(1.5), np.nan])
def test_interp_scalar_x(x):
    check(interp_scalar, x, XP, FP)


def interp_traced_bounds(x, lo, hi):
    return np.interp(x, [0.0, 1.0, 3.0], [0.0, 10.0, 5.0], left=lo, right=hi)


def test_interp_traced_left_right():
    check(interp_traced_bounds, X, -5.0, np.float64(42.0))


def interp_periodic(x, xp, fp):
    return np.interp(x, xp, fp, period=360), np.interp(x, xp, fp, period=-360.0)


def test_interp_period():
    x = np.array([-180, -170, -185, 185, -10, -5, 0, 365, 720.5])
    xp = np.array([190, -190, 350, -350])
    check(interp_periodic, x, xp, np.array([5, 10, 3, 4]))
    check(interp_periodic, x, xp, np.array([5, 10, 3, 4]) * (1 - 1j))


def interp_linspace(t):
    xp = np.linspace(0.0, 1.0, 11)
    return np.interp(t, xp, np.sin(xp))


def test_interp_searchsorted_large():
    t = np.random.default_rng(1).random(1000)
    check(interp_linspace, t)


@pytest.mark.parametrize("x,xp,fp,exc", [
    (X, np.zeros(0), np.zeros(0), ValueError),
    (X, np.arange(3.0), np.arange(2.0), ValueError),
    (X, np.ones((1, 3)), np.ones((1, 3)), ValueError),
    (X + 1j, XP, FP, TypeError),
])
def test_interp_errors_match_numpy(x, xp, fp, exc):
    with pytest.raises(exc) as expected:
        interp_scalar(x, xp, fp)
    with pytest.raises(exc) as got:
        jit(interp_scalar)(x, xp, fp)
    assert str(expected.value) in str(got.value)


def interp_zero_period(x):
    return np.interp(x, [1.0, 2.0], [3.0, 4.0], period=0)


def test_interp_zero_period():
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        jit(interp_zero_period)(X)


# --- polyval --------------------------------------------------------------------------

def polyval(p, x):
    return np.polyval(p, x)


@pytest.mark.parametrize("p,x", [
    (np.array([1.0, -2.0, 3.0]), np.linspace(-2, 2, 7)),
    (np.array([1.0, -2.0, 3.0]), 0.5),                          # Python float x
    (np.array([1, 2, 3]), 5),                                   # ints
    (np.array([3, 0, 1], np.int8), np.arange(-3, 4, dtype=np.int8)),   # wraps in int8
    (np.array([1.5, 2.0]), np.arange(4, dtype=np.float32)),     # promotion
    (np.array([2.0, 1j]), np.array([1 + 1j, 2.0])),
    (np.arange(6.0).reshape(3, 2), np.arange(2.0)),             # 2-d p: rows broadcast
    (np.zeros(0), np.arange(3.0)),                              # empty p: zeros_like(x)
    (np.array([1.0, 0.0, -1.0]), np.arange(6.0).reshape(2, 3)),
])
def test_polyval(p, x):
    check(polyval, p, x)


def polyval_list(a, b, x):
    return np.polyval([a, b, 1.5], x), np.polyval((1, a), x)


def test_polyval_list_of_traced_coefficients():
    check(polyval_list, 1.0, -2.0, np.arange(3.0))
    check(polyval_list, 2, 3, np.arange(3, dtype=np.int32))


def test_polyval_poly1d_is_refused():
    def f(x):
        return np.polyval(np.poly1d([1.0, 2.0]), x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="poly1d"):
            jit(f)(np.arange(3.0))


def test_interp_and_polyval_are_bit_exact():
    # products are rounded before the addition, as NumPy does (no FMA contraction)
    rng = np.random.default_rng(5)
    xp, fp, x = np.sort(rng.random(40)), rng.normal(size=40), rng.random(300)
    for args in [(x, xp, fp), (x, xp, fp + 1j * rng.normal(size=40))]:
        np.testing.assert_array_equal(jit(interp_scalar)(*args), interp_scalar(*args))
    p = rng.normal(size=9)
    for dt in (np.float64, np.float32):
        np.testing.assert_array_equal(jit(polyval)(p.astype(dt), x.astype(dt)),
                                      polyval(p.astype(dt), x.astype(dt)))
