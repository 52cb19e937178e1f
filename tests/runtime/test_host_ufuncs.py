"""Large float arrays' transcendental functions are NumPy's own loops on hosts where
NumPy vectorises them with AVX-512 (`runtime/numpy/ufuncs/host_ufuncs.py`): npxla's
result is NumPy's bit for bit (special values, out-of-domain inputs, both float
dtypes, in pieces on several threads), inside loops and branches, through `out=`, and
such programs take the fast call path. Small, float16, complex operands and float64
sin/cos keep npxla's kernels."""
import warnings

import numpy as np
import pytest

from differential import DEVICE, check
from npxla import jit
from npxla.runtime.lowering.callbacks import CPU_BUFFER_CALLBACK_TARGET
from npxla.runtime.numpy.ufuncs import host_ufuncs as H

pytestmark = [
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.skipif(not H.ENABLED or DEVICE not in (None, "cpu"),
                       reason="NumPy's AVX-512 loops are not used on this host"),
]
RNG = np.random.default_rng(5)
N = 2 * H.MIN_ELEMENTS
BINARY = {"arctan2", "power"}
CASES = sorted(((u.__name__, str(d)) for u, ds in H.TABLE.items() for d in ds
                if u.__name__ not in BINARY))


def _bits(x):
    x = np.ascontiguousarray(x)
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def assert_same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))


def awkward(n, dtype):
    """Values across the functions' domains and beyond, with NaN, infinities, signed
    zeros, subnormals and the largest floats."""
    x = np.concatenate([RNG.uniform(-1.5, 1.5, n // 2), RNG.uniform(-800, 800, n // 4),
                        np.exp(RNG.uniform(-700, 700, n - n // 2 - n // 4))])
    x = x.astype(dtype)
    info = np.finfo(dtype)
    x[:9] = [np.nan, np.inf, -np.inf, 0.0, -0.0, info.smallest_subnormal, info.max,
             -info.max, 1.0]
    return RNG.permutation(x)


def _kernel(name):
    ufunc = getattr(np, name)

    def apply(x):
        return ufunc(x)
    return apply


@pytest.mark.parametrize("name,dtype", CASES)
def test_large_arrays_get_numpys_bits(name, dtype):
    fn = _kernel(name)
    x = awkward(N, dtype)
    assert CPU_BUFFER_CALLBACK_TARGET in jit(fn).lower(x).as_text()
    with np.errstate(all="ignore"):
        want = fn(x)
    assert_same_bits(jit(fn)(x), want)


def arctan2(y, x):
    return np.arctan2(y, x)


def power(x, y):
    return np.power(x, y)


def cube(x):
    return x ** 3.0, np.power(x, 2.0)


@pytest.mark.parametrize("fn", [arctan2, power])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_functions_of_two_arrays_get_numpys_bits(fn, dtype):
    y, x = awkward(N, dtype), awkward(N, dtype)
    x[::3] = RNG.uniform(-3, 3, len(x[::3])).astype(dtype)     # finite powers too
    row = awkward(N // 8, dtype)
    for args in ((y, x), (y.reshape(8, -1), row)):               # broadcast too
        with np.errstate(all="ignore"):
            want = fn(*args)
        assert CPU_BUFFER_CALLBACK_TARGET in jit(fn).lower(*args).as_text()
        assert_same_bits(jit(fn)(*args), want)


def test_a_constant_exponent_stays_a_product():
    """`x ** 3.0` keeps npxla's double-double powers (within 1 ulp) and `x ** 2.0` the
    product NumPy's fast path computes."""
    x = np.random.default_rng(2).uniform(-3, 3, N)
    assert _keeps_kernel(cube, x)
    got = jit(cube)(x)
    np.testing.assert_allclose(got[0], x ** 3.0, rtol=2.3e-16, atol=0)
    assert_same_bits(got[1], x * x)


@pytest.mark.parametrize("name", ["exp", "tanh", "log1p"])
def test_arrays_run_in_pieces_on_every_thread_still_match(name):
    fn = _kernel(name)
    x = awkward(5 * (H.PARALLEL_MIN_BYTES // 40 + 2471), np.float64).reshape(-1, 5)
    with np.errstate(all="ignore"):
        want = fn(x)
    assert_same_bits(jit(fn)(x), want)


def _keeps_kernel(fn, x):
    text = jit(fn).lower(x).as_text()
    return CPU_BUFFER_CALLBACK_TARGET not in text


def test_small_float16_complex_and_float64_sine_keep_npxlas_kernels():
    assert _keeps_kernel(_kernel("exp"), np.ones(H.MIN_ELEMENTS - 1))
    assert _keeps_kernel(_kernel("exp"), np.ones(N, np.float16))
    assert _keeps_kernel(_kernel("exp"), np.ones(N, np.complex128))
    assert _keeps_kernel(_kernel("sin"), np.ones(N))
    assert not _keeps_kernel(_kernel("sin"), np.ones(N, np.float32))


def exp_steps(x, steps):
    for _ in range(steps):
        x = np.tanh(x) + 0.5 * np.exp(-x * x)
    return x


def log_if_positive(x):
    if x.sum() > 0:
        return np.log1p(np.abs(x))
    return np.arctan(x)


def exp_into(x, out):
    np.exp(x, out=out)
    return out.max()


def test_inside_loops_branches_and_into_an_argument():
    x = RNG.normal(size=(64, 40))
    check(exp_steps, x, 5, rtol=0, atol=0)
    check(log_if_positive, x + 1.0, rtol=0, atol=0)
    check(log_if_positive, x - 1.0, rtol=0, atol=0)
    check(exp_into, x, np.zeros_like(x), rtol=0, atol=0)


def test_programs_with_library_calls_take_the_fast_path():
    f = jit(_kernel("exp"))
    x = RNG.normal(size=N)
    for _ in range(3):
        assert_same_bits(f(x), np.exp(x))
    assert f._fast, "a program whose only host calls are library loops is dispatched fast"


def test_no_warning_from_the_host_loop():
    """npxla's kernels raise no floating-point warnings; NumPy's loop run for them on
    XLA's thread stays silent too."""
    x = -np.ones(N)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = jit(_kernel("log"))(x)
    assert np.isnan(out).all()
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
