"""Python operators, in-place operators, builtins (abs, round, divmod) and math.* on
traced values, checked against NumPy (NEP 50 weak Python scalars included)."""
import math

import numpy as np
import pytest

from matrix import dtype_in, slow_except

from differential import check
from npxla import jit

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.uint64, np.float16, np.float32,
          np.float64, np.complex64]


def arith(x, y):
    return x + y, x * y, x / y, x ** y


def sub(x, y):
    return x - y, -x, +x, abs(x)


def divs(x, y):
    return x // y, x % y, divmod(x, y)


def bits(x, y):
    return x & y, x | y, x ^ y, ~x, x << y, x >> y


def comps(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


def sample(dtype, n=4):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return np.array([True, False, True, False][:n])
    base = np.array([3, -2, 5, 1])[:n] if dt.kind not in "ub" else np.array([3, 2, 5, 1])[:n]
    if dt.kind == "c":
        return (base + 1j).astype(dt)
    return base.astype(dt)


def rtol(dtype):
    return {np.float16: 1e-3, np.float32: 1e-6, np.complex64: 1e-6}.get(dtype, 1e-12)


def raising_or_check(fn, *args, **kw):
    try:
        with np.errstate(all="ignore"):
            fn(*args)
    except (TypeError, ValueError, OverflowError) as e:
        expected = next(c for c in (TypeError, OverflowError, ValueError) if isinstance(e, c))
        with pytest.raises(expected):
            jit(fn)(*args)
        return
    check(fn, *args, **kw)


@pytest.mark.parametrize("dtype", slow_except(DTYPES, dtype_in(np.bool_, np.uint8, np.uint64,
                                                               np.float64, np.complex64),
                                              ids=lambda d: np.dtype(d).name))
@pytest.mark.parametrize("fn", [arith, sub, divs, bits, comps], ids=lambda f: f.__name__)
def test_operators_array_array(fn, dtype):
    a = sample(dtype)
    b = sample(dtype)[::-1].copy()
    if fn is arith and np.dtype(dtype).kind in "iu":
        b = np.abs(b)
    raising_or_check(fn, a, b, rtol=rtol(dtype))


@pytest.mark.parametrize("scalar", [2, 2.5, True, 1 + 1j], ids=repr)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.float32, np.float16, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_weak_python_scalars_traced(dtype, scalar):
    """The scalar is a traced argument: promotion must follow NEP 50 (weak)."""
    def f(x, s):
        return x + s, s * x, x - s, s / x, x < s, s == x, x ** 3
    raising_or_check(f, sample(dtype), scalar, rtol=rtol(dtype))


@pytest.mark.parametrize("scalar", [np.int16(3), np.float32(2.5), np.float64(-1.5),
                                    np.uint8(7)], ids=repr)
def test_numpy_scalars(scalar):
    def f(x, s):
        return x + s, x * s, s - x, x // s, x % s, x < s, s + 1, s * 2.5
    check(f, np.arange(-2, 3, dtype=np.int8), scalar)
    check(f, np.linspace(-1, 1, 5, dtype=np.float16), scalar, rtol=1e-3)


def test_python_scalar_results_stay_python():
    def f(s, t):
        return s + t, s * 2, s / t, s // t, s % t, -s, abs(s), s < t
    check(f, 7, 2)
    check(f, 7.5, -2.0)
    check(f, -7, 2.0)


def test_constant_python_int_out_of_range_raises_overflow():
    def f(x):
        return x + 300
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        jit(f)(np.arange(3, dtype=np.int8))

    def g(x):
        return x - (-1)
    with pytest.raises(OverflowError):
        jit(g)(np.arange(3, dtype=np.uint8))


def test_comparisons_with_out_of_range_python_ints():
    def f(x, s):
        return x < s, x == s, x > s, s <= x, x != -1, x > 1000
    for dt in (np.uint8, np.int8, np.uint64, np.int64):
        check(f, np.array([0, 1, 100], dt), -5)
        check(f, np.array([0, 1, 100], dt), 500)


def test_bool_arithmetic():
    def f(x, y):
        return x + y, x * y, x & y, x | y, x ^ y, ~x, x // y
    check(f, np.array([True, True, False, False]), np.array([True, False, True, False]))

    def neg(x):
        return -x
    with pytest.raises(TypeError):
        jit(neg)(np.array([True, False]))

    def minus(x, y):
        return x - y
    with pytest.raises(TypeError):
        jit(minus)(np.array([True]), np.array([False]))


def iadd(x, y):
    x += y
    return x


def isub(x, y):
    x -= y
    return x


def imul(x, y):
    x *= y
    return x


def itruediv(x, y):
    x /= y
    return x


def ifloordiv(x, y):
    x //= y
    return x


def imod(x, y):
    x %= y
    return x


def ipow(x, y):
    x **= y
    return x


def iand(x, y):
    x &= y
    x |= y
    x ^= y
    x <<= y
    x >>= y
    return x


@pytest.mark.parametrize("fn", [iadd, isub, imul, itruediv, ifloordiv, imod, ipow, iand],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype,other", [
    (np.int16, 2), (np.float32, 2.5), (np.int16, 1.5),
    pytest.param(np.float64, np.arange(4.0), marks=pytest.mark.slow),
    pytest.param(np.uint8, 3, marks=pytest.mark.slow), (np.int8, np.int64(2)),
    pytest.param(np.float16, np.float64(2), marks=pytest.mark.slow)], ids=str)
def test_inplace(fn, dtype, other):
    """In-place ops write into the caller's array; casting='same_kind' errors as NumPy."""
    raising_or_check(fn, np.arange(1, 5).astype(dtype), other, rtol=rtol(dtype))


def test_inplace_broadcast_and_alias():
    def f(x, y):
        z = x
        z += y
        x[0] *= 2
        return z, x
    check(f, np.ones((2, 3)), np.arange(3.0))


def test_builtin_round_abs_divmod():
    def f(x):
        return round(x), round(x, 1), round(x, -1), abs(x), divmod(x, 3)
    for v in (2.5, -3.5, 7.25, np.float64(2.5), np.float32(-0.5), 14, np.int16(25)):
        check(f, v, rtol=1e-6)


def test_round_on_array_raises_like_numpy():
    def f(x):
        return round(x)
    with pytest.raises(TypeError):
        jit(f)(np.arange(3.0))


def test_math_functions_on_traced_scalars():
    def f(x):
        return (math.sqrt(x), math.exp(x), math.log(x), math.log(x, 2), math.log2(x),
                math.log10(x), math.log1p(x), math.expm1(x), math.sin(x), math.cos(x),
                math.tan(x), math.atan(x), math.atan2(x, 2), math.sinh(x), math.cosh(x),
                math.tanh(x), math.asinh(x), math.fabs(x), math.floor(x), math.ceil(x),
                math.isnan(x), math.isinf(x), math.isfinite(x),
                math.copysign(x, -1), math.hypot(x, 3), math.degrees(x), math.radians(x),
                math.pow(x, 2), math.fmod(x, 0.7))
    check(f, 2.5)
    check(f, np.float32(0.75), rtol=1e-6)
    check(f, 3)
    check(f, np.int8(4))

    def g(x):
        return math.asin(x), math.acos(x), math.atanh(x), math.acosh(x + 2), math.trunc(x)
    check(g, 0.5)
    check(g, -0.75)
