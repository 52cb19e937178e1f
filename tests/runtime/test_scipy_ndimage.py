"""Differential tests: scipy.ndimage convolve/correlate(1d), uniform_filter(1d) and
gaussian_filter(1d) (runtime/numpy/scipy/ndimage.py) against SciPy itself: every boundary
mode, dtypes (integer results truncate as SciPy's C casts do), origins, kernels longer
than the input, special values, errors, and inside data-dependent control flow."""
import numpy as np
import pytest

from differential import check
from matrix import slow_except
from npxla import jit

ndimage = pytest.importorskip("scipy.ndimage")

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(363)
MODES = ("reflect", "mirror", "nearest", "wrap", "constant")
DTYPES = [np.float64, np.float32, np.int16, np.uint8, np.bool_, np.int64]
EXACT = {"rtol": 0, "atol": 0}     # SciPy's order of operations: the same bits


def data(shape, dtype, scale=10):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.random(shape) > 0.5
    if dtype.kind in "iu":
        return RNG.integers(0, 60, shape).astype(dtype)
    return (RNG.normal(size=shape) * scale).astype(dtype)


def same_error(fn, *args):
    with pytest.raises(Exception) as expected:
        fn(*args)
    with pytest.raises(type(expected.value)) as actual:
        jit(fn)(*args)
    assert str(actual.value).endswith(str(expected.value)), (actual.value, expected.value)


# --- convolve / correlate ---------------------------------------------------------------------

def conv_modes(x, w):
    return tuple(ndimage.convolve(x, w, mode=m, cval=1.5) for m in MODES) + \
        tuple(ndimage.correlate(x, w, mode=m) for m in MODES)


CASES = [((11,), (3,)), ((6,), (4,)), ((1,), (3,)), ((2,), (5,)), ((3,), (7,)),
         ((7, 6), (3, 3)), ((4, 3), (2, 4)), ((3, 4, 5), (2, 3, 2))]


MATRIX = [(d, s, w) for d in DTYPES for s, w in CASES]


@pytest.mark.parametrize("dtype,shape,wshape", slow_except(
    MATRIX, lambda c: c[0] == np.float64 and c[1] in ((11,), (2,), (3,), (7, 6), (3, 4, 5)) or
    c[0] == np.uint8 and c[1] in ((6,), (4, 3)),
    ids=lambda c: f"{np.dtype(c[0]).name}-{c[1]}-{c[2]}", multi=True))
def test_convolve_correlate_every_mode(dtype, shape, wshape):
    w = RNG.normal(size=wshape)
    w.flat[0] = 0.0                                  # SciPy skips zero weights
    check(conv_modes, data(shape, dtype), w, **EXACT)


@pytest.mark.parametrize("dtype", slow_except([np.float32, np.int16, np.bool_, np.int64],
                                              lambda d: d in (np.float32, np.bool_),
                                              ids=lambda d: np.dtype(d).name))
def test_convolve_dtypes_2d(dtype):
    check(conv_modes, data((5, 6), dtype), RNG.normal(size=(3, 2)), **EXACT)


def origins(x, w):
    return (ndimage.convolve(x, w, origin=1), ndimage.convolve(x, w, origin=(-1, 0)),
            ndimage.correlate(x, w, origin=(0, -1), mode="wrap"),
            ndimage.correlate(x, w[:2], mode="nearest", origin=(-1, 1)),
            ndimage.convolve(x, w[0], axes=1, mode="mirror"),
            ndimage.convolve(x, w, output=np.float32), ndimage.correlate(x, w, output="int32"))


def test_origins_axes_and_output_dtypes():
    check(origins, data((6, 7), np.float64), RNG.normal(size=(3, 4)), **EXACT)


def special_values(x, w):
    return ndimage.convolve(x, w), ndimage.correlate(x, w, mode="constant", cval=np.nan), \
        ndimage.uniform_filter(x, 3), ndimage.gaussian_filter(x, 1.0)


def test_infinities_and_nans_as_scipy():
    x = RNG.normal(size=(5, 9))
    x[1, 2], x[3, 6], x[0, 8] = np.inf, -np.inf, np.nan
    w = np.array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 1e-17]])
    check(special_values, x, w, **EXACT)


def traced_weights(x, w):
    return ndimage.convolve(x, w), ndimage.correlate(x, w, mode="constant"), \
        ndimage.correlate1d(x, w[0], axis=0), ndimage.convolve1d(x, w[1], mode="wrap")


def test_traced_weights_with_zeros():
    w = RNG.normal(size=(3, 3))
    w[1, 1] = w[0, 2] = 0.0
    check(traced_weights, data((6, 5), np.float64), w, rtol=1e-13, atol=1e-13)


def complex_values(x, w):
    return (ndimage.convolve(x, w), ndimage.correlate(x, w.real, cval=1 + 2j, mode="constant"),
            ndimage.convolve(x.real, w), ndimage.uniform_filter(x, 3),
            ndimage.gaussian_filter(x, 0.8), ndimage.correlate1d(x, w[0]))


def test_complex_inputs_and_weights():
    x = RNG.normal(size=(5, 6)) + 1j * RNG.normal(size=(5, 6))
    w = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))
    check(complex_values, x.astype(np.complex64), w, rtol=1e-5, atol=1e-5)
    check(complex_values, x, w, rtol=1e-13, atol=1e-13)


def big_kernel(x, w):
    return ndimage.convolve(x, w, mode="nearest"), ndimage.correlate(x, w, mode="mirror"), \
        ndimage.gaussian_filter(x, 30.0, mode="wrap"), ndimage.uniform_filter(x, 80)


def test_kernels_with_many_terms_run_as_loops():
    # 9 x 9 weights and a 241-tap Gaussian: more terms than are unrolled
    check(big_kernel, data((12, 10), np.float64), RNG.normal(size=(9, 9)), **EXACT)


# --- 1-d filters -----------------------------------------------------------------------------

def one_d(x, w):
    return (ndimage.correlate1d(x, w, axis=0, mode="reflect"),
            ndimage.convolve1d(x, w, axis=-1, mode="constant", cval=-2.0, origin=1),
            ndimage.correlate1d(x, [1.0, 0.0, -1.0], mode="mirror"),   # antisymmetric
            ndimage.correlate1d(x, [1.0, 2.0, 1.0], axis=0, mode="wrap"),   # symmetric
            ndimage.convolve1d(x, w[:2], mode="nearest"),
            ndimage.uniform_filter1d(x, 4, axis=0, mode="mirror", origin=-1),
            ndimage.gaussian_filter1d(x, 1.5, order=2, mode="constant"))


@pytest.mark.parametrize("dtype", [np.float64, np.int32], ids=lambda d: np.dtype(d).name)
def test_one_dimensional_filters(dtype):
    check(one_d, data((7, 8), dtype), RNG.normal(size=5), **EXACT)


# --- uniform / gaussian -------------------------------------------------------------------

def uniform_modes(x):
    return tuple(ndimage.uniform_filter(x, 3, mode=m, cval=0.5) for m in MODES) + (
        ndimage.uniform_filter(x, (4, 2), origin=(1, 0), mode=("wrap", "mirror")),
        ndimage.uniform_filter(x, 9), ndimage.uniform_filter(x, 1),
        ndimage.uniform_filter(x, 3, axes=0, output=np.float64))


def gaussian_modes(x):
    return tuple(ndimage.gaussian_filter(x, 1.2, mode=m, cval=3.0) for m in MODES) + (
        ndimage.gaussian_filter(x, (0.5, 2.0), order=(1, 0), truncate=3.0),
        ndimage.gaussian_filter(x, 1.0, order=2, mode="nearest"),
        ndimage.gaussian_filter(x, 2.0, radius=1), ndimage.gaussian_filter(x, 0.0),
        ndimage.gaussian_filter(x, 6.0, axes=1, output=np.float32))


@pytest.mark.parametrize("dtype", slow_except(DTYPES, lambda d: d in (np.float64, np.float32,
                                                                      np.int16),
                                              ids=lambda d: np.dtype(d).name))
@pytest.mark.parametrize("fn", [uniform_modes, gaussian_modes], ids=lambda f: f.__name__)
def test_uniform_and_gaussian(fn, dtype):
    check(fn, data((6, 7), dtype), **EXACT)


def small_inputs(x):
    return (ndimage.gaussian_filter(x[:1], 2.0), ndimage.uniform_filter(x[:2], 5),
            ndimage.convolve(x[:1], np.ones(4)), ndimage.gaussian_filter(x[:0], 1.0),
            ndimage.convolve(x[:2], np.ones(9) / 9, mode="mirror"),
            ndimage.convolve(x[0], 2.0))


def test_inputs_shorter_than_the_kernel_and_empty():
    check(small_inputs, data((5,), np.float64), **EXACT)


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(40, 30, 5), (200, 3)], ids=str)
def test_larger_arrays(shape):
    x = data(shape, np.float32)
    w = RNG.normal(size=(3,) * len(shape))
    check(conv_modes, x, w, **EXACT)
    check(gaussian_modes, x[..., 0] if len(shape) == 3 else x, **EXACT)


# --- errors ------------------------------------------------------------------------------

def err_mode(x):
    return ndimage.convolve(x, np.ones(3), mode="edge")


def err_mode_sequence(x):
    return ndimage.convolve(x, np.ones(3), mode=["reflect"])


def err_weights_ndim(x):
    return ndimage.convolve(x, np.ones((3, 3)))


def err_origin(x):
    return ndimage.convolve(x, np.ones(3), origin=2)


def err_half(x):
    return ndimage.gaussian_filter(x.astype(np.float16), 1.0)


def err_half_convolve(x):
    return ndimage.convolve(x.astype(np.float16), np.ones(3))


def err_uniform_origin(x):
    return ndimage.uniform_filter(x, 3, origin=2)


def err_uniform_size(x):
    return ndimage.uniform_filter1d(x, 0)


def err_sequence(x):
    return ndimage.uniform_filter(x, (3, 3))


def err_order(x):
    return ndimage.gaussian_filter(x, 1.0, order=-1)


def err_radius(x):
    return ndimage.gaussian_filter1d(x, 1.0, radius=-2)


def err_complex_cval(x):
    return ndimage.convolve(x, np.ones(3) * 1j, cval=1j)


def err_axes(x):
    return ndimage.uniform_filter(x, 3, axes=(1,))


@pytest.mark.parametrize("fn", [err_mode, err_mode_sequence, err_weights_ndim, err_origin,
                                err_half, err_half_convolve, err_uniform_origin,
                                err_uniform_size, err_sequence, err_order, err_radius,
                                err_complex_cval, err_axes], ids=lambda f: f.__name__)
def test_errors_as_scipy(fn):
    same_error(fn, np.arange(6.0))


def into_output(x):
    out = np.zeros(x.shape, np.float32)
    ndimage.gaussian_filter(x, 1.0, output=out)
    same = ndimage.uniform_filter(x, 3, output=x)
    return out, same, x


def test_output_arrays_are_written():
    check(into_output, data((4, 5), np.float64), **EXACT)


def into_argument(x, out):
    ndimage.convolve(x, np.ones((2, 2)), output=out, mode="constant")
    return out


def test_output_argument_is_written_back():
    check(into_argument, data((4, 5), np.float64), np.zeros((4, 5), np.int32), **EXACT)


# --- data-dependent control flow ----------------------------------------------------------

def smooth_if(x):
    if x.sum() > 0:
        y = ndimage.gaussian_filter(x, 1.0)
    else:
        y = ndimage.convolve(x, np.array([[0.0, 1.0], [1.0, 0.0]]), mode="wrap")
    return y


def smooth_until(x):
    y = x
    for _ in range(2):
        y = ndimage.uniform_filter(y, 3, mode="nearest")
    while np.abs(y).max() > 1.0:
        y = ndimage.gaussian_filter(y, 0.7) * 0.9
    return y


def test_inside_data_dependent_control_flow():
    x = RNG.normal(size=(6, 5))
    for v in (x + 1, x - 1):
        check(smooth_if, v, **EXACT)
    check(smooth_until, x * 5, **EXACT)
