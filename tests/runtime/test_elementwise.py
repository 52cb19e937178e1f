"""Differential tests of the elementwise ufuncs against NumPy: every ufunc over the
dtype families NumPy supports (no-loop dtypes must raise TypeError like NumPy), special
values (nan, inf, -0.0, zero divisors, out-of-range shifts) and shapes."""
import warnings

import numpy as np
import pytest


from differential import check, tolerance
from npxla import jit
from npxla.transpiler.base.errors import DTypeError, UnsupportedFunctionError

# Representative dtypes: one of each kind and width class (each costs compiles).
UNARY_DTYPES = [np.bool_, np.uint8, np.int32, np.float16, np.float32, np.float64,
                np.complex128]
BINARY_DTYPES = [np.bool_, np.int8, np.uint64, np.float16, np.float32, np.float64,
                 np.complex64]


def _pairs(ufuncs, dtypes, default):
    """(ufunc, dtype) cases: float64 and bool for every ufunc by default (a ufunc that
    refuses one is checked to raise like NumPy), the other `default` dtypes for every
    second ufunc; the slow run covers every pair."""
    out = []
    for k, u in enumerate(ufuncs):
        for d in dtypes:
            name = f"{u.__name__}-{np.dtype(d).name}"
            fast = np.dtype(d) in (np.float64, np.bool_) or (k % 2 == 0 and
                                                  any(np.dtype(d) == np.dtype(x) for x in default))
            out.append(pytest.param(u, d, id=name) if fast else
                       pytest.param(u, d, id=name, marks=pytest.mark.slow))
    return out


def tol(dtype):
    return tolerance(dtype, half=(2e-3, 1e-3), single=(2e-6, 1e-6))


def loop_dtype(ufunc, *dtypes):
    try:
        return ufunc.resolve_dtypes(tuple(np.dtype(d) for d in dtypes) + (None,) * ufunc.nout)
    except TypeError:
        return None


def _result_tol(result):
    """Tolerance of the least precise float result (loops of int inputs are float)."""
    leaves = result if isinstance(result, tuple) else (result,)
    kinds = [np.asarray(r).dtype for r in leaves]
    for dt in (np.float16, np.float32, np.complex64):
        if np.dtype(dt) in kinds:
            return tol(dt)
    return tol(np.float64)


def check_or_raises(fn, *args, **kw):
    """Where NumPy raises (no loop, bool subtract...), the compiled call raises the
    same exception class; otherwise values must match."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kw = {**_result_tol(fn(*args)), **kw}
    except Exception as e:  # noqa: BLE001
        builtin = next(c for c in (TypeError, OverflowError, ValueError, ArithmeticError)
                       if isinstance(e, c))
        with pytest.raises(builtin):
            jit(fn)(*args)
        return
    check(fn, *args, **kw)


def values(dtype, kind="any"):
    """Six sample values in the ufunc's domain ("unit": inside (-1, 1); "pos": > 0)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return np.array([True, False, True, True, False, True])
    base = {"any": [-2.5, -0.75, 0.0, 0.5, 1.25, 3.0], "unit": [-0.9, -0.3, 0.0, 0.2, 0.5, 0.7],
            "pos": [0.25, 0.5, 1.0, 1.5, 2.0, 4.0], "ge1": [1.0, 1.5, 2.0, 3.0, 4.0, 8.0]}[kind]
    arr = np.array(base)
    if dt.kind in "iu":
        arr = np.round(arr * 2)
        if dt.kind == "u" or kind in ("pos", "ge1"):
            arr = np.abs(arr) + 1
    if dt.kind == "c":
        return (arr + 0.5j * arr[::-1]).astype(dt)
    return arr.astype(dt)


def _unary(u):
    def f(x):
        return u(x)
    return f


UNARY = {  # ufunc -> domain of sample values
    np.negative: "any", np.positive: "any", np.absolute: "any", np.fabs: "any",
    np.sign: "any", np.sqrt: "pos", np.cbrt: "any", np.square: "any",
    np.reciprocal: "pos", np.exp: "unit", np.exp2: "any", np.expm1: "unit",
    np.log: "pos", np.log2: "pos", np.log10: "pos", np.log1p: "pos", np.sin: "any",
    np.cos: "any", np.tan: "unit", np.arcsin: "unit", np.arccos: "unit",
    np.arctan: "any", np.sinh: "unit", np.cosh: "unit", np.tanh: "any",
    np.arcsinh: "any", np.arccosh: "ge1", np.arctanh: "unit", np.degrees: "any",
    np.radians: "any", np.floor: "any", np.ceil: "any", np.trunc: "any", np.rint: "any",
    np.isnan: "any", np.isinf: "any", np.isfinite: "any", np.signbit: "any",
    np.conjugate: "any", np.logical_not: "any", np.invert: "any", np.modf: "any",
}


@pytest.mark.parametrize("ufunc, dtype", _pairs(list(UNARY), UNARY_DTYPES,
                                               (np.bool_, np.int32, np.float64, np.complex128)))
def test_unary(ufunc, dtype):
    check_or_raises(_unary(ufunc), values(dtype, UNARY[ufunc]))


SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 2.5, -2.5, 0.5, -1.5, 1e300])


@pytest.mark.parametrize("ufunc", [np.degrees, np.radians, np.rad2deg, np.deg2rad],
                         ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_angle_conversions_are_bit_exact(ufunc, dtype):
    # NumPy's float32 loop multiplies by 180.0f/NPY_PIf (divided in float32): the
    # double constant rounded to float32 is up to 2 ulp off (pymap3d's float32 latitudes)
    x = np.linspace(-400.0, 400.0, 20001).astype(dtype)
    want, got = ufunc(x), jit(_unary(ufunc))(x)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("ufunc", [np.floor, np.ceil, np.trunc, np.rint, np.sign,
                                   np.isnan, np.isinf, np.isfinite, np.signbit, np.modf,
                                   np.absolute, np.fix, np.square, np.exp2, np.sqrt],
                         ids=lambda u: u.__name__)
def test_unary_special_values(ufunc):
    check(_unary(ufunc), SPECIAL)


def test_complex_special():
    def f(z):
        return np.isnan(z), np.isinf(z), np.isfinite(z), np.sign(z), np.abs(z), np.conj(z)
    z = np.array([1 + 1j, np.nan + 0j, complex(0, np.inf), 0j, -3 + 4j, complex(1, np.nan)])
    check(f, z)
    check(f, z.astype(np.complex64), rtol=1e-6)


def _binary(u):
    def f(x, y):
        return u(x, y)
    return f


def operands(dtype, ufunc):
    """Pairs that exercise signs, zero divisors, NaN and out-of-range shift counts."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return np.array([True, True, False, False]), np.array([True, False, True, False])
    if ufunc in (np.left_shift, np.right_shift) and dt.kind in "iu":
        a = np.array([1, -3, 5, -128, 7, 1, 2, -1]) if dt.kind == "i" else \
            np.array([1, 3, 5, 128, 7, 1, 2, 9])
        b = np.array([0, 1, 3, 2, dt.itemsize * 8, dt.itemsize * 8 + 1, 63, -1 % 256])
        if dt.kind == "i":
            b[-1] = -1
        return a.astype(dt), b.astype(dt)
    a = np.array([-7, -3, 0, 3, 7, 5, 6, -6])
    b = np.array([2, -2, 3, 0, -3, 5, 4, 0])
    if ufunc in (np.power,) and dt.kind in "iu":
        b = np.abs(b) % 5
    if dt.kind == "u":
        a, b = np.abs(a), np.abs(b)
    if dt.kind == "f":
        a = a + np.array([0.5, 0, 0, np.nan, -np.inf, 0.25, np.inf, -0.0])
        b = b + np.array([0, 0.5, 0, 0, 0, np.nan, 0, 0])
    if dt.kind == "c":
        a, b = a + 1j * b, b - 0.5j * a
    return a.astype(dt), b.astype(dt)


BINARY = [np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.remainder,
          np.fmod, np.power, np.float_power, np.maximum, np.minimum, np.fmax, np.fmin,
          np.arctan2, np.hypot, np.copysign, np.heaviside, np.logaddexp, np.logaddexp2,
          np.logical_and, np.logical_or, np.logical_xor, np.bitwise_and, np.bitwise_or,
          np.bitwise_xor, np.left_shift, np.right_shift, np.divmod, np.less, np.less_equal,
          np.greater, np.greater_equal, np.equal, np.not_equal]


@pytest.mark.parametrize("ufunc, dtype", _pairs(BINARY, BINARY_DTYPES,
                                               (np.bool_, np.uint64, np.float64, np.complex64)))
def test_binary(ufunc, dtype):
    a, b = operands(dtype, ufunc)
    kw = {}
    if ufunc in (np.power, np.float_power) and np.dtype(dtype).kind == "c":
        kw = dict(rtol=1e-5, atol=1e-5)   # XLA complex pow = exp(b log a)
    check_or_raises(_binary(ufunc), a, b, **kw)


def test_float16_floor_divide_remainder_exact():
    a = np.linspace(-9, 9, 37).astype(np.float16)
    b = np.float16(1.75)
    check(float_divmods, a, b)


def float_divmods(x, y):
    return x // y, x % y, np.fmod(x, y)


def test_integer_division_edges():
    def f(x, y):
        return x // y, x % y, np.fmod(x, y), divmod(x, y)
    info = np.iinfo(np.int8)
    a = np.array([info.min, info.min, info.max, -1, 0, 5], np.int8)
    b = np.array([-1, 1, -1, 0, 0, 0], np.int8)
    check(f, a, b)
    check(f, a.astype(np.int64), b.astype(np.int64))


def test_round_decimals():
    def f(x):
        return np.round(x), np.round(x, 1), np.around(x, 2), np.round(x, -1), x.round(3)
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.675, 1.005, 15.0, 25.0, -35.0, 123.456])
    check(f, x)
    check(f, x.astype(np.float32), rtol=1e-6)
    check(f, x.astype(np.float16), rtol=1e-3)
    check(f, (x + 1j * x[::-1]).astype(np.complex128))
    check(f, np.array([15, 25, -15, 35, 1250, 7], np.int32))
    check(f, np.array([15, 25, 35, 250], np.uint8))


def test_clip():
    def f(x, lo, hi):
        return np.clip(x, lo, hi), np.clip(x, None, hi), np.clip(x, lo, None), x.clip(lo), \
            x.clip(max=hi), np.clip(x, a_min=lo, a_max=hi)
    x = np.array([-3.0, np.nan, 0.5, 7.0, 2.0])
    check(f, x, 0.0, 2.0)
    check(f, x, np.array([1.0, 0.0, np.nan, 0.0, 3.0]), 2.5)
    check(f, np.arange(-5, 5, dtype=np.int8), np.int8(-2), 3)
    check(f, np.arange(6, dtype=np.uint8).reshape(2, 3), 1, np.array([2, 4, 9], np.uint8))
    check(f, np.arange(6, dtype=np.int16), 1.5, 3)     # weak float bound -> float64

    def g(x):
        return np.clip(x, None, None)
    check(g, np.arange(3.0))


def test_where():
    def f(c, x, y):
        return np.where(c, x, y), np.where(c > 0, x, 1), np.where(c, 2.5, y)
    c = np.array([True, False, True])
    check(f, c, np.arange(3, dtype=np.int8), np.float32(7))
    check(f, c, np.arange(6, dtype=np.uint8).reshape(2, 3), np.arange(3, dtype=np.int16))
    check(f, np.array([1, 0, 2]), 3.5, np.arange(3, dtype=np.float16))
    check(f, c, np.ones(3, np.complex64), 2)

    def empty(c, x):
        return np.where(c, x, 0)
    check(empty, np.zeros((0, 3), bool), np.zeros((0, 3), np.float32))


def where_one_argument(c):
    return np.where(c)


def test_where_one_argument_is_nonzero():
    check(where_one_argument, np.array([True, False, True]))
    check(where_one_argument, np.array([[0.0, 1.5], [2.0, 0.0]]))


def test_complex_parts_and_angle():
    def f(z):
        return np.real(z), np.imag(z), z.real, z.imag, np.angle(z), np.angle(z, deg=True), \
            z.conj(), z.conjugate(), np.conj(z)
    check(f, np.array([1 + 2j, -3j, -1 + 0j, 0j]))
    check(f, np.array([1 + 2j, -3j], np.complex64), rtol=1e-6)
    check(f, np.array([-1.5, 2.0]))
    check(f, np.array([-1, 2], np.int8), rtol=1e-3)   # angle of int8 is float16 (weak 0)


def test_nan_propagation_extrema():
    def f(x, y):
        return np.maximum(x, y), np.minimum(x, y), np.fmax(x, y), np.fmin(x, y)
    x = np.array([np.nan, 1.0, np.nan, -np.inf, 2.0])
    y = np.array([1.0, np.nan, np.nan, 3.0, 2.0])
    check(f, x, y)
    check(f, np.array([1 + 1j, np.nan, 2j]), np.array([1 + 2j, 1, np.nan + 1j]))


def test_logaddexp_infinities():
    def f(x, y):
        return np.logaddexp(x, y), np.logaddexp2(x, y)
    x = np.array([np.inf, -np.inf, -np.inf, np.inf, 1.0, 1000.0, np.nan])
    y = np.array([np.inf, -np.inf, 3.0, -np.inf, 1.0, 999.0, 0.0])
    check(f, x, y)


def test_shapes_broadcasting_and_empty():
    def f(x, y):
        return x + y, np.arctan2(x, y), x // y, np.maximum(x, y), x < y
    for xs, ys in [((), ()), ((3,), ()), ((2, 1), (3,)), ((0,), (1,)), ((2, 0, 3), (3,)),
                   ((4, 1, 2), (3, 1))]:
        x = np.arange(int(np.prod(xs)), dtype=np.float32).reshape(xs) - 1.5
        y = np.arange(int(np.prod(ys)), dtype=np.float32).reshape(ys) + 0.5
        check(f, x, y, rtol=1e-6)


def test_ufunc_out_and_dtype_keywords():
    def f(x, y, out):
        np.add(x, y, out=out)
        return np.add(x, y, dtype=np.float32), np.sqrt(x, dtype=np.float32), out
    check(f, np.arange(3.0), np.ones(3), np.zeros(3))


def test_fix_and_identity_do_not_alias():
    def f(x):
        y = np.fix(x)
        z = np.positive(x)
        y += 1
        z += 2
        return x, y, z
    check(f, np.arange(4, dtype=np.int32))
    check(f, np.array([-1.5, 2.5]))


def test_power_negative_int_constant_exponent_raises():
    def f(x):
        return x ** -1
    with pytest.raises(ValueError, match="negative integer powers"):
        jit(f)(np.arange(1, 4))


def test_log2_exact_on_powers_of_two():
    def f(x):
        return np.log2(x), np.floor(np.log2(x)).astype(np.int64)
    x = 2.0 ** np.arange(-20, 60, 3)
    result = check(f, x)
    assert (result[0] == np.log2(x)).all()
    check(f, x.astype(np.float32))


# --- nextafter, spacing, sinc, deg2rad/rad2deg -----------------------------------------

def _special_floats(dtype):
    fi = np.finfo(dtype)
    return np.array([0.0, -0.0, 1.0, -1.0, -1.5, 3.0, -8.0, fi.max, -fi.max, fi.tiny,
                     -fi.tiny, 2 * fi.tiny, fi.smallest_subnormal, -fi.smallest_subnormal,
                     np.inf, -np.inf, np.nan], dtype)


def _bits(x):
    return np.asarray(x).view(f"u{np.asarray(x).itemsize}")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_spacing_bit_exact(dtype):
    # subnormal results included (XLA's subtraction would flush them); float16 follows
    # npy_half_spacing (positive; half an ulp at negative powers of two)
    x = _special_floats(dtype)
    got = jit(_unary(np.spacing))(x)
    with np.errstate(all="ignore"):
        expected = np.spacing(x)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(_bits(got), _bits(expected))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_nextafter_bit_exact(dtype):
    x = _special_floats(dtype)
    targets = [np.full_like(x, np.inf), np.full_like(x, -np.inf), np.zeros_like(x), x[::-1],
               np.full_like(x, np.nan)]
    f = jit(_binary(np.nextafter))
    for y in targets:
        with np.errstate(all="ignore"):
            expected = np.nextafter(x, y)
        got = f(x, y)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(_bits(got), _bits(expected))


def test_nextafter_spacing_promotion():
    check_or_raises(_binary(np.nextafter), np.array([1, 2], np.int8), np.array([3, 0], np.int8))
    check_or_raises(_binary(np.nextafter), np.arange(3.0), np.float32(5))
    check_or_raises(_unary(np.spacing), np.array([1, 2], np.int16))
    check_or_raises(_unary(np.spacing), np.array([1 + 1j]))     # no complex loop: TypeError


@pytest.mark.parametrize("x", [
    np.array([0.0, 0.5, 1.0, -2.5, 1e-9, np.inf, np.nan]),
    np.array([0.0, 0.5, -3.25], np.float32),
    np.array([0.0, 0.5, 4.0], np.float16),
    np.array([0, 1, -2], np.int8),
    np.array([0, 1j, 1 + 1j]),
    0.0, 0.25, np.float32(0),
], ids=lambda x: np.asarray(x).dtype.name + str(np.ndim(x)))
def test_sinc(x):
    check(_unary(np.sinc), x, rtol=2e-3 if np.asarray(x).dtype == np.float16 else 1e-6,
          atol=1e-6)


def test_deg2rad_rad2deg():
    def f(x):
        return np.deg2rad(x), np.rad2deg(x), np.rad2deg(np.deg2rad(x))
    check(f, np.array([0.0, 90.0, -180.0, 360.0, 1e-3]))
    check(f, np.array([0, 90, 180], np.int16), rtol=1e-3)
    check(f, np.array([45.0], np.float32), rtol=1e-6)


# --- where= with out= (emd's wrap_phase: np.remainder(IP, L, where=np.isfinite(IP),
# out=IP), refused before) ----------------------------------------------------------------

def _where_into_out(x):
    logs = np.zeros_like(x)
    np.log10(x, where=x > 0, out=logs)
    y = x.copy()
    r = np.remainder(y, 2.0, where=np.isfinite(y), out=y)
    counts = np.full(x.shape, -1, np.int64)
    np.add(np.nan_to_num(x).astype(np.int64), 1, out=(counts,), where=x > 1)
    rows = np.ones((2, x.shape[0]))
    np.multiply(x, 3.0, out=rows, where=np.array([[True], [False]]))   # broadcast mask
    return logs, r is y, y, counts, rows


def _where_in_a_loop(x):
    acc = np.zeros_like(x)
    for k in range(3):
        np.add(acc, x * k, out=acc, where=x > k - 1)
    return acc


def test_ufunc_where_with_out_keeps_the_rest():
    x = np.array([0.5, -1.0, np.inf, 3.0, np.nan, 7.5])
    check(_where_into_out, x)
    check(_where_in_a_loop, x)


def test_ufunc_where_without_out_is_refused_with_what_to_write():
    with pytest.raises(UnsupportedFunctionError, match="uninitialised") as info:
        jit(lambda x: np.log10(x, where=x > 0))(np.ones(3))
    assert "out=" in info.value.hint
    with pytest.raises(DTypeError):                   # same_kind, as NumPy's out=
        jit(lambda x: np.sqrt(x, out=np.zeros(3, np.int64), where=x > 0))(np.ones(3))
