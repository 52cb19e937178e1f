"""Order statistics and NaN-aware reductions vs NumPy: median, quantile, percentile and
their nan* forms (every method), nansum nanprod nanmean nanvar nanstd nanmax nanmin
nanargmax nanargmin, count_nonzero, ptp, average."""
import numpy as np
import pytest

from matrix import alternate
from hypothesis import given, settings, strategies as st

from differential import check, random_array, tolerance
from npxla import jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(11)
METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "median_unbiased", "normal_unbiased"]


def data(shape, dt, lo=-5, hi=6):
    return random_array(RNG, shape, dt, lo, hi)


def with_nans(x):
    x = x.copy()
    x[1, 2] = np.nan
    x[:, 3] = np.nan          # an all-NaN column
    x[0, 0] = np.nan
    return x


def tol(dt):
    return tolerance(dt, single=(2e-6, 1e-6))


# --- median ------------------------------------------------------------------------------

def median_forms(x):
    return (np.median(x), np.median(x, axis=0), np.median(x, axis=-1, keepdims=True),
            np.median(x, axis=(0, 2)), np.median(x, keepdims=True))


@pytest.mark.parametrize("dt", alternate([np.bool_, np.int8, np.uint8, np.int64, np.float16,
                                np.float32, np.float64, np.complex128]))
def test_median_dtypes(dt):
    check(median_forms, data((4, 5, 3), dt), **tol(dt))


def test_median_nan_and_shapes():
    x = data((4, 5, 3), np.float64)
    x[1, 2, 0] = np.nan
    check(median_forms, x)

    def f(x):
        return np.median(x), np.median(x, axis=0)
    check(f, data((5,), np.float64))
    check(f, data((1,), np.int32))
    check(f, data((0,), np.float64))
    check(f, data((0, 3), np.float64))
    check(f, np.float64(2.5).reshape(()) + np.zeros((1,)))

    def g(s):
        return np.median(s), np.median([s, 1.0, 4.0])
    check(g, 2.0)
    check(g, np.float32(3))


def test_median_out_and_overflow():
    def f(x):
        o = np.zeros(3)
        np.median(x, axis=0, out=o)
        return o, np.median(x.copy(), overwrite_input=True)   # NumPy scrambles its input
    check(f, data((4, 3), np.float64))
    big = np.array([1e308, 1e308, 1e308])     # the middle value itself, not (a + a) / 2
    check(f, big.reshape(3, 1) * np.ones((1, 3)))


# --- quantile / percentile -------------------------------------------------------------

@pytest.mark.parametrize("method", alternate(METHODS))
def test_quantile_methods(method):
    def f(x):
        return (np.quantile(x, 0.3, method=method),
                np.quantile(x, [0.0, 0.25, 0.5, 1.0], axis=0, method=method),
                np.percentile(x, 37, axis=-1, method=method, keepdims=True),
                np.percentile(x, np.array([[10.0], [90.0]]), axis=1, method=method))
    check(f, data((4, 5), np.float64))
    if method in ("linear", "lower", "nearest", "midpoint", "inverted_cdf", "hazen",
                  "closest_observation"):
        check(f, data((4, 5), np.int16))

    def nan(x):
        return (np.nanquantile(x, 0.3, method=method),
                np.nanquantile(x, [0.0, 0.25, 0.5, 1.0], axis=0, method=method),
                np.nanpercentile(x, 37, axis=-1, method=method, keepdims=True))
    check(nan, with_nans(data((4, 5), np.float64)))


@pytest.mark.parametrize("method", alternate(["linear", "lower", "nearest", "midpoint", "hazen",
                                    "inverted_cdf"]))
def test_traced_q(method):
    # q values off the exact rank boundaries: XLA may fuse n * q - 1 into one rounding
    def f(x, q):
        return (np.quantile(x, q, method=method), np.quantile(x, q, axis=0, method=method),
                np.nanquantile(x, q, axis=1, method=method),
                np.percentile(x, q * 100, axis=1, method=method))
    x = data((4, 5), np.float64)
    check(f, x, 0.37)
    check(f, x, np.array([0.13, 0.91]))
    check(f, with_nans(x), np.float32(0.71), **tol(np.float32))


def test_quantile_dtypes_follow_numpy():
    def f(x):
        return (np.quantile(x, 0.5), np.quantile(x, np.float64(0.5)), np.quantile(x, 1),
                np.quantile(x, np.float32(0.3)), np.percentile(x, np.float16(30)),
                np.quantile(x, [0.5]), np.median(x))
    for dt in (np.float16, np.float32, np.int8, np.uint16):
        check(f, data((6,), dt), **tol(np.float16))
    # integer wrap-around inside NumPy's interpolation is reproduced
    check(f, np.array([-100, 100], np.int8))


def test_quantile_nan_slices():
    def f(x):
        return (np.quantile(x, 0.4, axis=0), np.percentile(x, [20, 80], axis=1),
                np.nanmedian(x), np.nanmedian(x, axis=0), np.nanmedian(x, axis=1,
                                                                       keepdims=True),
                np.nanquantile(x, 0.5, method="lower", axis=0))
    x = with_nans(data((4, 5), np.float64))
    check(f, x)
    check(f, x.astype(np.float32), **tol(np.float32))
    check(f, x.astype(np.float16), **tol(np.float16))
    check(f, data((4, 5), np.int32))


def test_quantile_errors():
    def out_of_range(x):
        return np.quantile(x, 1.5)

    def pct(x):
        return np.percentile(x, [10, 101])

    def cplx(x):
        return np.quantile(x, 0.5)

    def method(x):
        return np.quantile(x, 0.5, method="bogus")

    def empty(x):
        return np.quantile(x, 0.5)

    def weights(x):
        return np.quantile(x, 0.5, weights=x, method="inverted_cdf")
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        jit(out_of_range)(np.ones(3))
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        jit(pct)(np.ones(3))
    with pytest.raises(TypeError, match="real numbers"):
        jit(cplx)(np.ones(3, complex))
    with pytest.raises(ValueError, match="not a valid method"):
        jit(method)(np.ones(3))
    with pytest.raises(IndexError):
        jit(empty)(np.ones(0))
    with pytest.raises(Exception, match="weights"):
        jit(weights)(np.ones(3))


# --- NaN reductions ----------------------------------------------------------------------

def nan_forms(x):
    return (np.nansum(x), np.nansum(x, axis=0), np.nanprod(x, axis=1, keepdims=True),
            np.nanmax(x), np.nanmax(x, axis=0), np.nanmin(x, axis=-1, keepdims=True),
            np.nanmean(x), np.nanmean(x, axis=0), np.nanvar(x, axis=1),
            np.nanstd(x, axis=0, ddof=1), np.nanvar(x, keepdims=True),
            np.nanargmax(x, axis=1), np.nanargmin(x), np.nanargmax(x, axis=0,
                                                                   keepdims=True))


@pytest.mark.parametrize("dt", alternate([np.bool_, np.int8, np.uint16, np.int64, np.float16,
                                np.float32, np.float64, np.complex64, np.complex128]))
def test_nan_reductions(dt):
    x = data((4, 5), dt)
    if np.dtype(dt).kind in "fc":
        x[1, 2] = np.nan
        x[0, 4] = np.nan
    check(nan_forms, x, **tol(dt))


def test_all_nan_slices():
    def f(x):
        return (np.nanmax(x, axis=0), np.nanmin(x, axis=0), np.nanmean(x, axis=0),
                np.nanvar(x, axis=0), np.nanstd(x, axis=0, ddof=3), np.nansum(x, axis=0),
                np.nanprod(x, axis=0), np.nanmax(x, axis=0, initial=-7.0))
    x = with_nans(data((4, 5), np.float64))
    check(f, x)

    def arg(x):
        return np.nanargmax(x, axis=0)
    with pytest.raises(IndexError, match="All-NaN slice encountered"):
        jit(arg)(x)                              # NumPy: ValueError, at run time here
    check(arg, np.nan_to_num(x))
    def folded():      # a constant array (a closure array would be an input)
        return np.nanargmin(np.asarray(np.full(3, np.nan)) + 0)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        jit(folded)()


def test_nan_kwargs():
    def f(x, m):
        return (np.nansum(x, where=m), np.nansum(x, initial=5.0, axis=1),
                np.nanmax(x, where=m, initial=-9.0, axis=0), np.nanmean(x, dtype=np.float32),
                np.nanvar(x, correction=1, axis=1), np.nanstd(x, ddof=1, keepdims=True),
                np.nanmean(x, where=m, axis=1), np.nanvar(x, where=m))
    x = with_nans(data((4, 5), np.float64))
    check(f, x, RNG.random((4, 5)) > 0.3, rtol=1e-6)

    def bad(x):
        return np.nanmean(x, dtype=np.int32)
    with pytest.raises(TypeError, match="inexact"):
        jit(bad)(x)


# --- count_nonzero, ptp, average ----------------------------------------------------------------

@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint8, np.int64, np.float32,
                                np.float64, np.complex64])
def test_count_ptp_average(dt):
    def f(x):
        return (np.count_nonzero(x), np.count_nonzero(x, axis=0),
                np.count_nonzero(x, axis=(0, 1), keepdims=True), np.average(x),
                np.average(x, axis=0, returned=True),
                np.average(x, axis=1, weights=np.arange(5.0)),
                np.average(x, weights=x != 0, returned=True),
                np.average(x, axis=-1, keepdims=True))
    x = data((4, 5), dt)
    check(f, x, **tol(dt))

    def g(x):
        return np.ptp(x), np.ptp(x, axis=1, keepdims=True), np.ptp(x, axis=0)
    if dt == np.bool_:
        with pytest.raises(TypeError):
            jit(g)(x)
    else:
        check(g, x, **tol(dt))


def test_average_weights_shapes():
    def f(x, w2, w1):
        return (np.average(x, axis=(0, 1), weights=w2), np.average(x, axis=(1, 0),
                                                                   weights=w2.T),
                np.average(x, axis=2, weights=w1, returned=True), np.average(x, weights=x))
    x = data((2, 3, 4), np.float64)
    check(f, x, RNG.random((2, 3)), RNG.random(4))

    def bad(x, w):
        return np.average(x, weights=w)
    with pytest.raises(TypeError, match="Axis must be specified"):
        jit(bad)(x, np.ones(4))


def test_count_nonzero_scalar_result():
    def f(x):
        return np.count_nonzero(x), np.count_nonzero(x > 1)
    res = check(f, data((7,), np.float64))
    assert isinstance(res[0], np.integer)


# --- properties ----------------------------------------------------------------------------------

@settings(max_examples=10, deadline=None)
@given(st.integers(1, 3).flatmap(lambda nd: st.tuples(
    st.lists(st.integers(1, 5), min_size=nd, max_size=nd), st.integers(-nd, nd - 1))),
    st.floats(0, 1))
def test_quantile_property(shape_axis, q):
    shape, axis = shape_axis

    def f(x):
        return np.quantile(x, q, axis=axis), np.median(x, axis=axis), np.nanmedian(x)
    check(f, data(tuple(shape), np.float64))
