"""Transcendental, rounding and complex-part ufuncs, np.round/np.clip/np.angle, and the
builtins `round`/`abs` plus `math.*` on traced scalars.

Lowerings follow NumPy's C formulas where XLA has no single op (exp2, log2, log10,
hypot, logaddexp, modf, heaviside) so special values (inf, nan, -0.0) come out the
same. `math.*` results are weak (they are Python floats/ints in plain Python).
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.staging.trace import current_trace
from jaxlib.mlir.dialects import chlo

from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.numpy.ufuncs.arithmetic import (cmp, copy, copysign, exact, full, is_complex,
                                                   is_int, isnan, or_, register_table, select,
                                                   via_f32)
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.casts import check_int_of_float
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.layouts import laid_out_like
from npxla.runtime.numpy.core.registry import (dispatch, implements, register_method,
                                               register_property)
from npxla.runtime.numpy.ufuncs.ufunc_core import apply_ufunc
from npxla.runtime.numpy.core.values import fresh
from npxla.runtime.numpy.ufuncs.arithmetic import LOWERINGS as A
from npxla.runtime.numpy.ufuncs.arithmetic import int_power
from npxla.runtime.numpy.ufuncs import accurate_log as L
from npxla.runtime.numpy.ufuncs import accurate_math as M
from npxla.runtime.numpy.ufuncs.ufunc_core import store_out
from npxla.runtime.numpy.ufuncs.host_ufuncs import host_lowering


def _scaled(num, den):
    """x * (num / den) as NumPy's loops compute it: float64 by the double constant
    (`x * (180.0/NPY_PI)`), float32 by the constant divided in float32
    (`180.0f/NPY_PIf`, up to 2 ulp from the double constant rounded), float16 through
    float32 and rounded back."""
    def lower(x):
        if x.dtype == np.float64:
            return E.multiply(x, full(x, num / den))
        factor = np.float32(num) / np.float32(den)
        return E.multiply(x, full(x, factor.astype(x.dtype)))
    return via_f32(lower)


def _int_identity(op):
    """floor/ceil/trunc keep integer inputs unchanged (NumPy 2 integer loops)."""
    return lambda x: copy(x) if is_int(x) else op(x)


def _trunc(x):
    return select(cmp(x, full(x, 0), "LT"), E.ceil(x), E.floor(x))


def _rint(x):
    if is_complex(x):
        return X.complex_(E.round_even(X.real(x)), E.round_even(X.imag(x)))
    return copy(x) if is_int(x) else E.round_even(x)


def _accurate(fn, complex_lower=None, narrow=None, single=None):
    """A real float lowering from runtime/numpy/ufuncs/accurate_math.py (float64 within 1 ulp
    of NumPy; float32/float16 computed in float64, by `narrow` if given, and rounded
    back); complex operands keep `complex_lower` (XLA's op). `single`: the op float32
    and float16 keep where XLA's own is within a few ulp of NumPy's (NumPy's float32
    loops are 1-3 ulp from correctly rounded themselves) and the float64 detour would
    cost 2-5x (docs/accuracy.md)."""
    real = M.float_via_f64(fn, narrow)

    def lower(x):
        if is_complex(x):
            return complex_lower(x)
        if single is not None and x.dtype != np.float64:
            return single(x)
        return real(x)
    return lower


def _log_base(ln_base, accurate):
    """log2/log10: accurate_math's real kernels (exact at powers of 2 / 10); complex
    log(x)/ln(base)."""
    return _accurate(accurate, lambda x: E.divide(E.log(x), full(x, ln_base)))


_LN2 = math.log(2.0)
_log2 = _log_base(_LN2, L.log2)


def _exp2(x):
    return E.power(full(x, 2), x)


def _hypot(a, b):
    """float64: accurate_math's (within 1 ulp of NumPy); float32 and float16 in float64,
    where the squares are exact and sqrt(a*a + b*b) cannot overflow, rounded back (as
    NumPy's C hypot, correctly rounded but for rare double roundings)."""
    if a.dtype == np.float64:
        return L.hypot(M.F(a), M.F(b)).v
    a64, b64 = cast_to(a, np.float64), cast_to(b, np.float64)
    h = E.sqrt(E.add(E.multiply(a64, a64), E.multiply(b64, b64)))
    inf = or_(X.is_inf(a64), X.is_inf(b64))        # any infinity wins over NaN
    h = select(inf, full(h, np.inf), h)
    out = cast_to(h, np.float32)
    return out if a.dtype == np.float32 else cast_to(out, a.dtype)


def _power(a, b):
    """A float raised to a constant integer 3 <= |n| <= 16 (`x ** 3`, `r ** -3`) by
    accurate_math's double-double squaring: within 1 ulp of NumPy and 3-10x faster than
    XLA's pow; everything else (integers, traced or other exponents, complex) by
    arithmetic's rules and XLA's pow. (0, 1, 2, -1 and 0.5 XLA rewrites itself, as
    NumPy's array power does; `**` of two scalars is `scalar_power`, the C library's.)"""
    n = _small_int_exponent(b)
    if n is None or a.dtype.kind != "f":
        return int_power(a, b)
    if a.dtype == np.float64:
        return L.int_power(M.F(a), n).v
    out = cast_to(L.int_power(M.F(cast_to(a, np.float64)), n).v, np.float32)
    return out if a.dtype == np.float32 else cast_to(out, a.dtype)


# NumPy's scalar math (`np.float64 ** 2`), Python's float `**` and `math.pow` call the C
# library's pow, which is not always the correctly rounded `x * x` that NumPy's array
# power and XLA's own rewrite of pow(x, 2) compute: squaring 100,000 random doubles,
# 74 results differ in the last bit (a DTW cost `(s1[i] - s2[j]) ** 2` in a loop then
# drifts from NumPy's table). XLA:CPU's pow of an exponent it cannot see is the C
# library's, bit for bit: 0 of 100,000 differ, float64 and float32, exponents 2, 3 and
# random ones.
_LIBM_POW = (np.dtype(np.float32), np.dtype(np.float64))


def scalar_power(a, b, dtype):
    """`a ** b` of two scalars (NumPy or Python numbers, not arrays) as the C library's
    pow computes it in `dtype`; None where NumPy's scalar math does something else
    (integers, float16, complex)."""
    dtype = np.dtype(dtype)
    if dtype not in _LIBM_POW:
        return None
    return E.power(cast_to(as_abstract(a), dtype), E.hide(cast_to(as_abstract(b), dtype)))


def _small_int_exponent(b):
    """The exponent as a Python int when it is one constant integer value with
    3 <= |n| <= MAX_INT_POWER, else None."""
    c = b.const
    if c is None or b.dtype.kind not in "iuf":
        return None
    c = np.asarray(c)
    if c.size == 0:
        return None
    first = c.flat[0]
    if not np.all(c == first) or not np.isfinite(first) or first != np.floor(first):
        return None
    n = int(first)
    return n if 3 <= abs(n) <= L.MAX_INT_POWER else None


def _exp(x):
    """float64: accurate_math's exp (XLA's is up to 2 ulp from NumPy) unless the trace
    is fast-math; float32, float16 and complex: XLA's."""
    if x.dtype == np.float64 and not current_trace().fast_math:
        return M.exp(M.F(x)).v
    return E.exp(x)


def _arcsin(x):
    """float64: accurate_math's (XLA's is 2 ulp from NumPy) unless fast-math."""
    if is_complex(x):
        return E.asin(x)
    if x.dtype == np.float64 and not current_trace().fast_math:
        return L.arcsin(M.F(x)).v
    return L.arcsin_small(x, E.asin)


def _logaddexp_via(log1p_exp, log_2):
    """NumPy's npy_logaddexp: equal inputs (incl. same-sign infinities) give x + log(2)."""
    @via_f32
    def lower(x, y):
        d = E.subtract(x, y)
        pos = cmp(d, full(d, 0), "GT")
        big = select(pos, x, y)
        tail = log1p_exp(select(pos, E.negate(d), d))
        out = select(isnan(d), d, E.add(big, tail))
        return select(cmp(x, y, "EQ"), E.add(x, full(x, log_2)), out)
    return lower


_logaddexp = _logaddexp_via(lambda t: E.log1p(E.exp(t)), _LN2)
_logaddexp2 = _logaddexp_via(
    lambda t: E.divide(E.log1p(_exp2(t)), full(t, _LN2)), 1.0)


def _heaviside(x, h0):
    zero = full(x, 0)
    out = select(cmp(x, zero, "LT"), zero, full(x, 1))
    out = select(cmp(x, zero, "EQ"), h0, out)
    return select(isnan(x), x, out)


def _modf(x):
    """(fractional, integral), both with x's sign; modf(+-inf) = (+-0, +-inf)."""
    whole = _trunc(x)
    frac = select(X.is_inf(x), full(x, 0), E.subtract(x, whole))
    return copysign(frac, x), whole


_next_after = E.elementwise("next_after", chlo.NextAfterOp)


def _magnitude_bits(x):
    ity = np.dtype(f"i{x.dtype.itemsize}")
    return E.bitwise_and(X.bitcast(x, dtype=ity),
                         full(X.bitcast(x, dtype=ity), (1 << (8 * x.dtype.itemsize - 1)) - 1))


def _nextafter(x, y):
    """chlo.next_after, with C's signed zero when a step toward zero reaches it
    (nextafter(-min_subnormal, 0) is -0.0) and npy_half_nextafter's `x == y -> x`."""
    out = _next_after(x, y)
    mag_out, mag_x = _magnitude_bits(out), _magnitude_bits(x)
    to_zero = E.bitwise_and(cmp(mag_out, full(mag_out, 0), "EQ"),
                            cmp(mag_x, full(mag_x, 0), "NE"))
    out = select(to_zero, copysign(full(x, 0), x), out)
    if x.dtype == np.float16:
        out = select(cmp(x, y, "EQ"), x, out)
    return out


def _spacing(x):
    """NumPy's npy_spacing, exactly, from the bits (XLA's subtraction would flush the
    subnormal results): the ulp of |x| away from zero with x's sign, the smallest
    subnormal for +-0, inf past the largest finite, nan for inf/nan. float16 follows
    npy_half_spacing: always positive, and half an ulp at negative powers of two."""
    fi = np.finfo(x.dtype)
    nbits, nm = x.dtype.itemsize * 8, fi.nmant
    ity = np.dtype(f"i{x.dtype.itemsize}")
    bits = X.bitcast(x, dtype=ity)
    mag = E.bitwise_and(bits, full(bits, (1 << (nbits - 1)) - 1))
    expo = E.shift_right_logical(mag, full(mag, nm))
    if x.dtype == np.float16:
        sig = E.bitwise_and(mag, full(mag, (1 << nm) - 1))
        boundary = E.bitwise_and(cmp(bits, full(bits, 0), "LT"), cmp(sig, full(sig, 0), "EQ"))
        expo = select(boundary, E.maximum(E.subtract(expo, full(expo, 1)), full(expo, 0)),
                      expo)
    one = full(expo, 1)
    normal = E.shift_left(E.subtract(expo, full(expo, nm)), full(expo, nm))
    subnormal = E.shift_left(one, E.maximum(E.subtract(expo, one), full(expo, 0)))
    ulp = X.bitcast(select(cmp(expo, full(expo, nm), "GT"), normal, subnormal),
                    dtype=x.dtype)
    if x.dtype != np.float16:
        nonzero = cmp(mag, full(mag, 0), "NE")
        ulp = select(nonzero, copysign(ulp, x), ulp)
    top = X.bitcast(full(bits, np.frombuffer(fi.max.tobytes(), ity)[0]), dtype=x.dtype)
    at_max = cmp(x, top, "EQ") if x.dtype == np.float16 else cmp(X.abs_(x), top, "EQ")
    ulp = select(at_max, copysign(full(x, np.inf), x), ulp)
    return select(E.is_finite(x), ulp, full(x, np.nan))


def _conjugate(x):
    if not is_complex(x):
        return copy(x)
    return X.complex_(X.real(x), E.negate(X.imag(x)))


LOWERINGS = {
    np.sqrt: E.sqrt, np.cbrt: _accurate(L.cbrt),
    np.exp: _exp, np.exp2: _exp2, np.expm1: _accurate(M.expm1, E.expm1, single=E.expm1),
    np.log: E.log, np.log2: _log2, np.log10: _log_base(math.log(10.0), L.log10),
    np.log1p: _accurate(L.log1p, E.log1p, single=E.log1p),
    np.sin: E.sin, np.cos: E.cos, np.tan: E.tan,
    np.arcsin: _arcsin, np.arccos: E.acos, np.arctan: E.atan, np.arctan2: E.atan2,
    np.sinh: _accurate(M.sinh, E.sinh), np.cosh: _accurate(M.cosh, E.cosh),
    np.tanh: _accurate(M.tanh, E.tanh, single=E.tanh),
    np.arcsinh: _accurate(L.arcsinh, X.asinh, single=X.asinh),
    np.arccosh: _accurate(L.arccosh, X.acosh, single=X.acosh),
    np.arctanh: _accurate(L.arctanh, X.atanh, single=X.atanh),
    np.degrees: _scaled(180.0, np.pi), np.rad2deg: _scaled(180.0, np.pi),
    np.radians: _scaled(np.pi, 180.0), np.deg2rad: _scaled(np.pi, 180.0),
    np.floor: _int_identity(E.floor), np.ceil: _int_identity(E.ceil),
    np.trunc: _int_identity(_trunc), np.rint: _rint,
    np.hypot: _hypot, np.copysign: copysign, np.power: _power,
    np.logaddexp: _logaddexp, np.logaddexp2: _logaddexp2,
    np.heaviside: _heaviside, np.modf: _modf, np.conjugate: _conjugate,
    np.nextafter: _nextafter, np.spacing: _spacing,
}
LOWERINGS = {ufunc: host_lowering(ufunc, lower) for ufunc, lower in LOWERINGS.items()}
register_table(LOWERINGS)


# --- functions built on the ufuncs ---------------------------------------------------

@implements(np.sinc, family="elementwise")
def sinc(x):
    """NumPy's formula: y = pi * x with 0 replaced by eps (1e-20 for complex), sin(y)/y."""
    x = dispatch(np.multiply, (np.pi, as_array(x)), {})
    eps = np.finfo(x.dtype).eps if x.dtype.kind == "f" else 1e-20
    y = dispatch(np.where, (x, x, eps), {})
    return dispatch(np.sin, (y,), {}) / y


def _static_int(value, what):
    if is_abstract(value):
        if value.const is None:
            raise UnsupportedFunctionError(f"{what} must be a Python int, not a traced value",
                                           hint="pass it as a constant or static argument")
        value = value.const
    return int(value)


@implements(np.fix, family="elementwise")
def fix(x, out=None):
    """np.fix rounds toward zero: it is np.trunc for every dtype NumPy accepts."""
    return dispatch(np.trunc, (x,), {} if out is None else {"out": out})


def _round_lower(decimals):
    """NumPy's PyArray_Round: rint(x * 10**d) / 10**d (divide/multiply for d < 0), each
    operation rounded on its own (`exact`: XLA would divide by multiplying with 0.1, and
    keep float16 steps in float32); complex rounds both parts; integers are unchanged
    for d >= 0 and go through float64 for d < 0."""
    scale = 10.0 ** abs(decimals)

    def real(x):
        if decimals == 0:
            return _rint(x)
        f = full(x, scale)
        if decimals > 0:
            return E.divide(_rint(exact(E.multiply(x, f))), exact(f, x))
        return E.multiply(_rint(exact(E.divide(x, exact(f, x)))), f)

    def lower(x):
        if is_int(x):
            if decimals >= 0:
                return copy(x)
            # through float64, then a C-style cast back: wraps (round(127, -1) is -126
            # in int8), where XLA's float -> int8 conversion would saturate
            y = real(cast_to(x, np.float64))
            return cast_to(cast_to(y, np.uint64 if x.dtype == np.uint64 else np.int64),
                           x.dtype)
        if is_complex(x):
            return X.complex_(real(X.real(x)), real(X.imag(x)))
        return real(x)
    return lower


@implements(np.round, np.around, method="round", family="elementwise")
def round_(x, decimals=0, out=None):
    decimals = _static_int(decimals, "np.round decimals")
    x = as_abstract(x)
    weak = x.weak
    lower = _round_lower(decimals)
    result = lower(x)
    result = fresh(result) if weak else result
    if out is not None:
        return store_out("round", out, result, "unsafe")
    return laid_out_like(result, x)


def _clip_lower(a, lo, hi):
    return A[np.minimum](A[np.maximum](a, lo), hi)


@implements(np.clip, method="clip", family="elementwise")
def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue,
         max=np._NoValue, **kwargs):
    """np.clip = minimum(maximum(a, min), max) with NumPy's NaN propagation; a None
    bound is left out (then it is a single maximum/minimum, as NumPy does)."""
    lo = min if a_min is np._NoValue else a_min
    hi = max if a_max is np._NoValue else a_max
    lo = None if lo is np._NoValue else lo
    hi = None if hi is np._NoValue else hi
    kw = {"out": out} if out is not None else {}
    kw.update(kwargs)
    if lo is None and hi is None:
        a = as_abstract(a)
        return dispatch(np.positive, (a,), kw) if a.dtype != np.bool_ else copy(a)
    if lo is None:
        return dispatch(np.minimum, (a, hi), kw)
    if hi is None:
        return dispatch(np.maximum, (a, lo), kw)
    return apply_ufunc(np._core.umath.clip, _clip_lower, (a, lo, hi), out=out,
                       casting=kwargs.get("casting", "same_kind"))


# --- complex parts ---------------------------------------------------------------------

def _part(which):
    def get(x):
        x = as_abstract(x)
        if is_complex(x):
            out = (X.real if which == "real" else X.imag)(x)
            out.weak = x.weak
            return out
        if which == "real":
            return x
        zero = full(x, 0)
        zero.weak = x.weak
        return zero
    return get


real, imag = _part("real"), _part("imag")
implements(np.real, family="elementwise")(real)
implements(np.imag, family="elementwise")(imag)
register_property("real", real)
register_property("imag", imag)
register_method("conj", lambda self, out=None: dispatch(np.conjugate, (self,),
                                                          {} if out is None else {"out": out}))
register_method("conjugate", lambda self, out=None: dispatch(
    np.conjugate, (self,), {} if out is None else {"out": out}))


@implements(np.angle, family="elementwise")
def angle(z, deg=False):
    """NumPy's own formula: arctan2(imag, real), with imag a weak 0 for real input."""
    z = as_abstract(z)
    if is_complex(z):
        a = dispatch(np.arctan2, (imag(z), real(z)), {})
    else:
        a = dispatch(np.arctan2, (0, z), {})
    return a * (180 / np.pi) if deg else a


# --- builtins and math.* on traced scalars ------------------------------------------

def _scalar_operand(x, fname):
    x = as_abstract(x)
    if x.ndim:
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
    if is_complex(x):
        raise TypeError(f"must be real number, not complex ({fname})")
    return x


def _weak(x, dtype):
    return fresh(cast_to(x, dtype), weak=True)


@implements(builtins.round, family="builtins",
            notes="round(x, ndigits) of a traced Python float uses NumPy's "
                  "rint(x * 10**n) / 10**n (round(1.15, 1) is 1.2), not Python's "
                  "correctly rounded decimal (1.1)")
def builtin_round(x, ndigits=None):
    """round(): NumPy scalars and Python floats give a Python int without ndigits;
    with ndigits a Python number stays Python, a NumPy scalar stays NumPy."""
    x = _scalar_operand(x, "round") if is_abstract(x) else as_abstract(x)
    if x.ndim:
        raise TypeError("type numpy.ndarray doesn't define __round__ method")
    if ndigits is None:
        if is_int(x):
            return _weak(x, np.int64 if x.dtype != np.uint64 else np.uint64)
        if x.const is None:
            check_int_of_float(x)       # round(nan), round(inf): Python's errors
        return _weak(E.round_even(x), np.int64)
    out = round_(x, ndigits)
    return _weak(out, out.dtype) if x.weak else out


implements(builtins.abs, family="builtins")(lambda x: dispatch(np.absolute, (x,), {}))

_MATH = {  # math function -> (ufunc, result kind: "f" float, "i" int, "b" bool)
    math.sqrt: (np.sqrt, "f"), math.exp: (np.exp, "f"), math.expm1: (np.expm1, "f"),
    math.log2: (np.log2, "f"), math.log10: (np.log10, "f"), math.log1p: (np.log1p, "f"),
    math.sin: (np.sin, "f"), math.cos: (np.cos, "f"), math.tan: (np.tan, "f"),
    math.asin: (np.arcsin, "f"), math.acos: (np.arccos, "f"), math.atan: (np.arctan, "f"),
    math.atan2: (np.arctan2, "f"), math.sinh: (np.sinh, "f"), math.cosh: (np.cosh, "f"),
    math.tanh: (np.tanh, "f"), math.asinh: (np.arcsinh, "f"),
    math.acosh: (np.arccosh, "f"), math.atanh: (np.arctanh, "f"),
    math.fabs: (np.fabs, "f"), math.degrees: (np.degrees, "f"),
    math.radians: (np.radians, "f"), math.copysign: (np.copysign, "f"),
    math.hypot: (np.hypot, "f"), math.pow: (np.power, "f"), math.fmod: (np.fmod, "f"),
    math.floor: (np.floor, "i"), math.ceil: (np.ceil, "i"), math.trunc: (np.trunc, "i"),
    math.isnan: (np.isnan, "b"), math.isinf: (np.isinf, "b"),
    math.isfinite: (np.isfinite, "b"),
}
for _name in ("exp2", "cbrt"):  # Python 3.11+
    if hasattr(math, _name):
        _MATH[getattr(math, _name)] = (getattr(np, _name), "f")


def _math_impl(ufunc, kind, fname):
    def impl(*args):
        ops = [_scalar_operand(a, fname) for a in args]
        if kind == "i" and is_int(ops[0]):
            return _weak(ops[0], np.int64)
        ops = [cast_to(o, np.float64) for o in ops]
        out = dispatch(ufunc, tuple(ops), {})
        if ufunc is np.power and out.const is None:
            out = scalar_power(*ops, np.float64)
        if kind == "i" and out.const is None:
            check_int_of_float(out)     # math.floor(nan), math.ceil(inf): Python's errors
        return _weak(out, {"f": np.float64, "i": np.int64, "b": np.bool_}[kind])
    return impl


for _fn, (_ufunc, _kind) in _MATH.items():
    implements(_fn, family="math")(_math_impl(_ufunc, _kind, _fn.__name__))


def math_function(fn, kernel, notes=""):
    """Register `fn` (a function of the `math` module) on a traced real scalar as
    `kernel`, a float64 function of an abstract array (a kernel another family keeps:
    `math.erf` is SciPy's erf)."""
    def impl(x):
        return _weak(kernel(cast_to(_scalar_operand(x, fn.__name__), np.float64)),
                     np.float64)
    implements(fn, family="math", notes=notes)(impl)


@implements(math.log, family="math")
def math_log(x, base=None):
    out = _math_impl(np.log, "f", "log")(x)
    if base is None:
        return out
    return _weak(E.divide(out, _math_impl(np.log, "f", "log")(base)), np.float64)
