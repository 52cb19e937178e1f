"""Cumulative functions and differences vs NumPy: cumsum, cumprod, nancumsum,
nancumprod, cumulative_sum/prod, ufunc.accumulate, diff, ediff1d, gradient."""
import numpy as np
import pytest

from matrix import alternate
from hypothesis import given, settings, strategies as st

from differential import check, random_array, tolerance
from npxla import jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(7)
DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]


def data(shape, dt, lo=-3, hi=4):
    return random_array(RNG, shape, dt, lo, hi)


def cum_forms(x):
    return (np.cumsum(x), np.cumsum(x, axis=0), np.cumsum(x, axis=-1), x.cumsum(1),
            np.cumprod(x), np.cumprod(x, axis=-2), x.cumprod(axis=1))


@pytest.mark.parametrize("dt", alternate(DTYPES))
def test_cumsum_cumprod_dtypes(dt):
    # small ints and bools accumulate in int64/uint64 as NumPy's do; products wrap alike
    check(cum_forms, data((3, 9), dt), **tolerance(dt))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 16, 17, 33, 100])
def test_scan_lengths(n):
    def f(x):
        return np.cumsum(x), np.cumprod(x % 3 + 1)
    check(f, RNG.integers(-9, 10, n))


def test_float_rounding_and_special_values():
    def f(x):
        return np.cumsum(x), np.cumprod(x)
    check(f, RNG.normal(size=1000), rtol=1e-9, atol=1e-9)
    check(f, np.array([-0.0, -0.0, 1.0, np.inf, -np.inf, 2.0]))
    check(f, np.array([1.0, np.nan, 2.0, 3.0]))


def test_dtype_and_out():
    def f(x):
        o = np.zeros(x.shape, np.float32)
        np.cumsum(x, axis=0, out=o)
        return (np.cumsum(x, dtype=np.int8), np.cumprod(x, axis=1, dtype=np.float32),
                x.cumsum(dtype=np.float64), o, np.cumsum(abs(x), 0, np.uint16))
    for dt in (np.int32, np.bool_, np.float64):
        check(f, data((3, 4), dt), rtol=1e-6)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 0), (0, 3)])
def test_shapes(shape):
    def f(x):
        return np.cumsum(x), np.cumprod(x), np.nancumsum(x)
    check(f, data(shape, np.float64))
    check(f, data(shape, np.int8))
    if len(shape) == 2:
        def g(x):
            return np.cumsum(x, axis=0), np.cumprod(x, axis=1)
        check(g, data(shape, np.float32))


def test_scalars():
    def f(s, t):
        return np.cumsum(s), np.cumprod(t), np.cumsum([s, t, s])
    check(f, 2.5, 3)
    check(f, np.float32(1.5), np.int8(4))


def test_nan_cumulative():
    def f(x):
        return (np.nancumsum(x), np.nancumsum(x, axis=0), np.nancumprod(x, axis=1),
                np.nancumprod(x))
    x = RNG.normal(size=(3, 5))
    x[0, 1] = x[2, 2] = x[1, 0] = np.nan
    check(f, x)
    check(f, x.astype(np.float32), rtol=1e-5)
    check(f, (x + 1j * x).astype(np.complex128))
    check(f, data((3, 5), np.int16))


def test_cumulative_sum_prod():
    def f(x, y):
        return (np.cumulative_sum(x), np.cumulative_sum(x, include_initial=True),
                np.cumulative_prod(y, axis=0, include_initial=True),
                np.cumulative_sum(y, axis=-1, dtype=np.float32),
                np.cumulative_prod(y, axis=1))
    check(f, data((6,), np.int8), data((3, 4), np.float64), rtol=1e-6)

    def bad(y):
        return np.cumulative_sum(y)
    with pytest.raises(ValueError, match="axis"):
        jit(bad)(np.ones((2, 2)))


@pytest.mark.parametrize("dt", [np.int8, np.bool_, np.float32, np.float64])
def test_ufunc_accumulate(dt):
    def f(x):
        return (np.add.accumulate(x), np.multiply.accumulate(x, axis=1),
                np.maximum.accumulate(x), np.minimum.accumulate(x, axis=-1),
                np.logical_or.accumulate(x > 0), np.logical_and.accumulate(x > 0, axis=1),
                np.add.accumulate(x, dtype=np.float64), np.fmax.accumulate(x))
    x = data((4, 5), dt)
    if np.dtype(dt).kind == "f":
        x[1, 2] = np.nan               # maximum propagates it, fmax skips it
    check(f, x, **tolerance(dt))

    def bitwise(x):
        return np.bitwise_or.accumulate(x), np.bitwise_xor.accumulate(x, axis=1)
    if np.dtype(dt).kind in "iub":
        check(bitwise, x)


def test_cumsum_in_loop():
    def f(x):
        acc = np.zeros(x.shape[1])
        for i in range(x.shape[0]):
            acc = acc + np.cumsum(x[i])
        return acc
    check(f, RNG.normal(size=(5, 8)))


# --- diff / ediff1d ------------------------------------------------------------------------

def diff_forms(x):
    return (np.diff(x), np.diff(x, axis=0), np.diff(x, n=2, axis=-1), np.diff(x, n=0),
            np.diff(x, prepend=0), np.diff(x, axis=0, append=x[:1]),
            np.diff(x, n=3, prepend=1, append=[[1]] * x.shape[0]), np.diff(x, n=9))


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint8, np.int64, np.float16,
                                np.float32, np.float64, np.complex64])
def test_diff(dt):
    check(diff_forms, data((4, 5), dt), **tolerance(dt))


def test_diff_shapes_and_errors():
    def f(x):
        return np.diff(x), np.diff(x, prepend=2.5)
    check(f, data((0,), np.float64))
    check(f, data((1,), np.int32))

    def zero_d(x):
        return np.diff(x)

    def negative(x):
        return np.diff(x, n=-1)
    with pytest.raises(ValueError, match="at least one dimensional"):
        jit(zero_d)(np.float64(1.0))
    with pytest.raises(ValueError, match="order must be non-negative"):
        jit(negative)(np.ones(3))


@pytest.mark.parametrize("dt", [np.int16, np.float32, np.float64])
def test_ediff1d(dt):
    def f(x):
        return (np.ediff1d(x), np.ediff1d(x, to_begin=[1, 2]), np.ediff1d(x, to_end=3),
                np.ediff1d(x, to_end=np.array([[1, 2]]), to_begin=-1))
    check(f, data((3, 4), dt), **tolerance(dt))

    def bad(x):
        return np.ediff1d(x, to_begin=0.5)
    if np.dtype(dt).kind == "i":
        with pytest.raises(TypeError, match="same_kind"):
            jit(bad)(data((3,), dt))


# --- gradient --------------------------------------------------------------------------------

def grad_forms(x):
    return (np.gradient(x), np.gradient(x, 2.0), np.gradient(x, axis=1),
            np.gradient(x, 0.5, edge_order=2), np.gradient(x, 1.0, [1, 2, 4, 5, 7.0],
                                                           edge_order=2),
            np.gradient(x, np.arange(4), np.float32(2), axis=(0, -1)),
            np.gradient(x, [0, 1, 3, 4], axis=0))


@pytest.mark.parametrize("dt", alternate([np.int8, np.int64, np.float16, np.float32, np.float64,
                                np.complex128]))
def test_gradient(dt):
    check(grad_forms, data((4, 5), dt), **tolerance(dt))


def test_gradient_traced_spacing():
    def f(x, c, s):
        return (np.gradient(x, c, axis=0), np.gradient(x, c, axis=0, edge_order=2),
                np.gradient(x, s), np.gradient(x[:, 0], c))
    x = RNG.normal(size=(4, 5))
    check(f, x, np.array([0.0, 1, 3, 4]), 0.5)         # non-uniform at run time
    check(f, x, np.array([0.0, 1, 2, 3]), 0.5)         # uniform: NumPy's scalar formulas
    check(f, x, np.array([0, 2, 4, 6]), 2)


def test_gradient_errors():
    def small(x):
        return np.gradient(x, edge_order=2)

    def wrong(x):
        return np.gradient(x, [1.0, 2.0])

    def too_many(x):
        return np.gradient(x, 1.0, 2.0)
    with pytest.raises(ValueError, match="too small"):
        jit(small)(np.ones(2))
    with pytest.raises(ValueError, match="must match"):
        jit(wrong)(np.ones(3))
    with pytest.raises(TypeError, match="invalid number of arguments"):
        jit(too_many)(np.ones(3))
    with pytest.raises(TypeError):
        jit(small)(np.ones(4, bool))


# --- properties --------------------------------------------------------------------------------

@settings(max_examples=12, deadline=None)
@given(st.integers(1, 3).flatmap(lambda nd: st.tuples(
    st.lists(st.integers(0, 6), min_size=nd, max_size=nd), st.integers(-nd, nd - 1))),
    st.sampled_from([np.int8, np.uint16, np.float64]))
def test_cumsum_property(shape_axis, dt):
    shape, axis = shape_axis

    def f(x):
        return np.cumsum(x, axis=axis), np.diff(x, axis=axis), np.cumprod(x, axis=axis)
    check(f, data(tuple(shape), dt))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_cumsum_keeps_the_sign_of_negative_zero(dtype):
    x = np.array([-0.0, -0.0, 1.0, -1.0, -0.0], dtype)
    for f in (lambda a: np.cumsum(a), lambda a: a.cumsum(), lambda a: np.cumsum(a[None], 1)):
        got, want = jit(f)(x), f(x)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))


# --- wide slices: NumPy's loop, `y[i] = y[i - 1] (op) x[i]`, as one `while` ----------
def scans_along(x, axis):
    return (np.cumsum(x, axis=axis), np.cumprod(x, axis=axis),
            np.maximum.accumulate(x, axis=axis), np.minimum.accumulate(x, axis=axis),
            np.fmax.accumulate(x, axis=axis), np.fmin.accumulate(x, axis=axis),
            np.nancumsum(x, axis=axis))


def bit_scans_along(x, axis):
    return (np.bitwise_and.accumulate(x, axis=axis), np.bitwise_or.accumulate(x, axis=axis),
            np.bitwise_xor.accumulate(x, axis=axis), np.cumsum(x, axis=axis))


@pytest.mark.parametrize("shape,axis", [((40, 50), 0), ((3, 40, 20), 1), ((2, 40, 130), 2),
                                        ((64, 200), 1), ((200, 40), 0)])
def test_wide_scans_follow_numpy(shape, axis):
    x = RNG.normal(size=shape) * 0.9 + 0.1
    x.flat[::37] = np.nan                          # NaN propagation and skipping
    check(scans_along, x, axis, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [np.int8, np.uint32, np.int64, np.bool_])
def test_wide_integer_scans(dt):
    x = data((50, 140), dt)
    check(bit_scans_along, x, 0)
    check(bit_scans_along, x, 1)


def test_wide_sums_are_numpys_to_the_last_bit():
    """The sequential form adds in NumPy's order: float sums equal NumPy's exactly."""
    x = RNG.normal(size=(300, 400)) * 1e3
    f = jit(lambda_free_cumsum)
    for axis in (0, 1):
        np.testing.assert_array_equal(f(x, axis), np.cumsum(x, axis=axis))


def lambda_free_cumsum(x, axis):
    return np.cumsum(x, axis=axis)


def test_wide_scan_form_in_the_program():
    text = jit(lambda_free_cumsum).lower(np.zeros((64, 64)), 0).as_text()
    assert "stablehlo.while" in text and "reduce_window" not in text
    text = jit(lambda_free_cumsum).lower(np.zeros(4096), 0).as_text()
    assert "npxla.library_loop" in text and "reduce_window" not in text   # `_blocked`
    text = jit(lambda_free_cumsum).lower(np.zeros(4096, np.int64), 0).as_text()
    assert "reduce_window" in text           # integers associate exactly


def running_totals(x, n):
    k = 0
    while k < n[0]:                      # a trip count from data: a staged loop
        x = np.cumsum(x, axis=1) * 0.5
        k += 1
    return x


def test_wide_scans_in_a_staged_loop():
    check(running_totals, RNG.normal(size=(40, 140)), np.array([3]), rtol=1e-12,
          atol=1e-12)


# --- np.unwrap (emd's phase_from_complex_signal; refused before) ------------------------

_PHASE = np.cumsum(np.random.default_rng(12).uniform(-2.0, 2.0, 60))
_WRAPPED = np.angle(np.exp(1j * _PHASE))


@pytest.mark.parametrize("p, kwargs", [
    (_WRAPPED, {}),
    (_WRAPPED.astype(np.float32), {}),
    (np.stack([_WRAPPED, _WRAPPED[::-1]], axis=1), {"axis": 0}),
    (np.stack([_WRAPPED, _WRAPPED[::-1]]), {}),
    (_WRAPPED, {"discont": 4.0}),
    (np.degrees(_WRAPPED), {"period": 360.0}),
    (np.array([0, 1, 2, -1, 0, 4, 5, 8, 10, 13]), {"period": 6}),     # integer period
    (np.array([0, 3, 7, 1]), {}),
    (np.array([0.0, np.pi, 0.0, -np.pi, 2 * np.pi]), {}),        # jumps of exactly pi
    (np.array([1.0]), {}),
    (np.zeros(0), {}),
], ids=lambda v: None if isinstance(v, dict) else None)
def test_unwrap_matches_numpy(p, kwargs):
    check(lambda a: np.unwrap(a, **kwargs), p, rtol=1e-12, atol=1e-12)


# --- narrow slices and 1-d arrays: NumPy's loop too, BLOCK steps per trip ------------
def running(x, axis):
    return (np.cumsum(x, axis=axis), np.cumprod(1 + x / 1024, axis=axis),
            np.nancumsum(x, axis=axis), np.add.accumulate(x, axis=axis))


@pytest.mark.parametrize("shape, axis", [((1,), 0), ((2,), 0), ((16,), 0), ((17,), 0),
                                         ((33,), 0), ((1000,), 0), ((5, 300), 1),
                                         ((300, 5), 0), ((3, 4, 50), 2), ((6, 40), 0)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex128])
def test_running_sums_are_numpys_bits(shape, axis, dtype):
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape) * 50
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    x = x.astype(dtype)
    if x.size > 1:
        x.flat[1] = np.nan
    want, got = running(x, axis), jit(running)(x, axis)
    for k, (w, g) in enumerate(zip(want, got)):
        assert g.dtype == w.dtype
        if k == 1 and np.dtype(dtype).kind == "c":   # XLA's complex multiply
            np.testing.assert_allclose(g, w, rtol=1e-12)
        else:
            np.testing.assert_array_equal(g, w)
