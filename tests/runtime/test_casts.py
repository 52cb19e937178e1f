"""Differential tests: NumPy scalar-type constructors and float/int/bool/complex
builtins on traced values (runtime/numpy/core/casts.py)."""
import numpy as np
import pytest

from matrix import alternate

from differential import check
from npxla import jit

pytestmark = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")

TYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
         np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def all_types(x):
    return (np.bool_(x), np.int8(x), np.int16(x), np.int32(x), np.int64(x), np.uint8(x),
            np.uint16(x), np.uint32(x), np.uint64(x), np.float16(x), np.float32(x),
            np.float64(x), np.complex64(x), np.complex128(x), np.intp(x))


@pytest.mark.parametrize("dt", alternate(TYPES))
def test_scalar_types_on_0d(dt):
    check(all_types, np.array(3, dt)[()])        # a NumPy scalar argument
    check(all_types, np.array([0, 2, 5], dt))    # arrays: like astype


@pytest.mark.parametrize("x", [7, 2.75, True])
def test_scalar_types_on_python_scalars(x):
    check(all_types, x)


def complex_types(x):
    return np.complex64(x), np.complex128(x), np.bool_(x)


def int_type_of_complex(x):
    return np.int32(x)


def test_python_complex_to_scalar_types():
    check(complex_types, 2 - 1j)
    with pytest.raises(TypeError, match="int\\(\\) argument"):
        jit(int_type_of_complex)(2 + 0j)


def complex_scalar_to_real(x):
    return float(x), int(x), np.float32(x), np.int16(x)


def test_complex_numpy_scalar_to_real():
    check(complex_scalar_to_real, np.complex128(2.5 - 1j))


def signed(x):
    return np.int8(x), np.int32(x), np.int64(x), np.bool_(x), np.float32(x)


@pytest.mark.parametrize("x", [-2.7, -0.5, 0.0, 3.9, np.float32(-7.5), np.complex64(-3 + 4j)])
def test_truncation_toward_zero(x):
    check(signed, x)


def builtins_(x):
    return float(x), int(x), bool(x), complex(x)


@pytest.mark.parametrize("x", [2.7, -2.7, 0.0, 5, -3, True, False, np.float32(1.5),
                               np.float16(-0.25), np.int8(-5), np.uint64(7), np.bool_(True),
                               np.array(4.5)])
def test_builtins_are_weak(x):
    r = check(builtins_, x)
    assert [type(v) for v in r] == [float, int, bool, complex]


def complex_builtin(x):
    return complex(x), bool(x), complex(x, 2.0), complex(1.5, x)


@pytest.mark.parametrize("x", [1 + 2j, np.complex64(-1j), 0j, 2.5])
def test_complex_builtins(x):
    check(complex_builtin, x)


def weak_in_promotion(x, y):
    # float(x) is a Python float: it must not upcast the float32 array
    return y * float(x), y + int(x), np.float32(x) * 2.5


def test_builtin_results_promote_weakly():
    check(weak_in_promotion, np.float64(1.5), np.arange(3, dtype=np.float32))


def bool_of_size1(x):
    return bool(x)


def test_bool_size1_array():
    check(bool_of_size1, np.array([[2.0]]))
    check(bool_of_size1, np.array([0], np.int8))


def float_of_array(x):
    return float(x)


def int_of_complex(x):
    return int(x)


@pytest.mark.parametrize("f,x,exc", [
    (float_of_array, np.ones(1), TypeError),
    (float_of_array, np.ones(3), TypeError),
    (float_of_array, 1j, TypeError),
    (int_of_complex, 1 + 0j, TypeError),
    (bool_of_size1, np.ones(2), ValueError),
    (bool_of_size1, np.ones(0), ValueError),
])
def test_builtin_errors(f, x, exc):
    with pytest.raises(exc) as np_err:
        f(x)
    with pytest.raises(exc) as err:
        jit(f)(x)
    assert str(np_err.value) in str(err.value)


def casts_of_lists(x, y):
    return np.float32([x, y]), np.int16([[x], [y]])


def test_scalar_type_of_list():
    check(casts_of_lists, 1.5, 2)


# --- float -> int out of range: NumPy's C casts on the host (x86: INT_MIN) --------------
_X86 = __import__("platform").machine().lower() in ("x86_64", "amd64")
_SPECIAL = np.array([np.nan, np.inf, -np.inf, 1e20, -1e20, 3e9, -3e9, 300.7, -300.7, 2.5,
                     70000.5, 2.0 ** 63, -2.0 ** 63, 2.0 ** 31, 1e10, -0.9, 0.9])


def _astype_to(x, dtype):
    return x.astype(dtype)


@pytest.mark.skipif(not _X86, reason="NumPy's out-of-range casts are the host CPU's")
@pytest.mark.parametrize("src", [np.float64, np.float32])
@pytest.mark.parametrize("dst", [np.int64, np.int32, np.int16, np.int8, np.uint16, np.uint8])
def test_out_of_range_and_nonfinite_float_to_int_casts_match_numpy_on_x86(src, dst):
    x = _SPECIAL.astype(src)
    with np.errstate(invalid="ignore"):
        want = x.astype(dst)
    got = jit(_astype_to, static_argnums=1)(x, dst)
    assert got.dtype == want.dtype and np.array_equal(got, want), (got, want)


def int_index(x):
    return x[int(x.max())]


@pytest.mark.parametrize("bad, error", [(np.nan, ValueError), (np.inf, OverflowError)])
def test_int_of_nan_or_inf_raises_like_python(bad, error):
    x = np.array([0.0, 1.0, bad])
    with pytest.raises(error):
        int_index(x)
    with pytest.raises(error):
        jit(int_index)(x)
    assert jit(int_index)(np.array([0.0, 1.0, 2.0])) == 2.0


def test_int_of_a_float_beyond_int64_is_refused_at_run_time():
    """Python makes a big int (here an out-of-bounds index): compiled code cannot
    hold it, so it raises IntegerOverflowError instead of reading a wrong element."""
    from npxla.transpiler.base.errors import IntegerOverflowError
    with pytest.raises(IntegerOverflowError):
        jit(int_index)(np.array([0.0, 1.0, 1e30]))


def round_index(x):
    return x[round(x.max()) - 3]


def floor_ceil_index(x):
    import math
    return x[math.floor(x.min()) + math.ceil(x.max()) - 3]


@pytest.mark.parametrize("fn", [round_index, floor_ceil_index])
@pytest.mark.parametrize("bad, error", [(np.nan, ValueError), (np.inf, OverflowError)])
def test_round_floor_ceil_of_nan_or_inf_raise_like_python(fn, bad, error):
    """Python's `round`, `math.floor` and `math.ceil` make ints: NaN and inf have none
    (they gave INT_MIN, and x[INT_MIN - 3] read some element)."""
    x = np.array([0.0, 1.0, bad])
    with pytest.raises(error):
        fn(x)
    with pytest.raises(error):
        jit(fn)(x)
    good = np.array([0.0, 1.0, 2.4])
    assert jit(fn)(good) == fn(good)


def masked_store(y, x, m):
    y[m] = x.prod()
    y[[0]] = x.max()
    return y


def basic_store(y, x):
    y[1:] = x.prod()
    return y


@pytest.mark.parametrize("bad", [np.inf, np.nan, 1e20])
def test_numpy_scalar_stored_through_a_mask_is_cast_unchecked(bad):
    """NumPy checks a NumPy float scalar stored into an integer array only through a
    basic index; through a mask or an index array it casts (INT_MIN on x86). Fuzz seed
    40029 raised OverflowError there."""
    y = np.zeros(3, np.int64)
    x = np.array([bad, 2.0])
    m = np.array([True, False, True])
    with np.errstate(all="ignore"):
        check(masked_store, y, x, m)
    with pytest.raises((OverflowError, ValueError)):
        basic_store(y.copy(), x)
    with pytest.raises((OverflowError, ValueError)):
        jit(basic_store)(y.copy(), x)
