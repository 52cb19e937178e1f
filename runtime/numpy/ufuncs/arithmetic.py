"""Arithmetic ufuncs and operators with NumPy's exact semantics.

NumPy picks loop dtypes (ufunc_core); the lowerings here reproduce what NumPy's C
loops compute where XLA's ops differ: integer `//`/`%` floor with Python signs and
give 0 for a zero divisor (XLA gives -1 / the dividend), float `//`/`%` use NumPy's
`npy_divmod` (fmod + sign fix + snapping), bool `+`/`*` are or/and, `maximum`/`minimum`
propagate NaN while `fmax`/`fmin` ignore it, complex ordering is lexicographic.
float16 composites compute in float32 and round once, as NumPy's half loops do.
Float division stays a division (`exact`: XLA would multiply by the reciprocal of a
scalar divisor, an ulp off NumPy).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import pyints, pyzero
from npxla.runtime.numpy.core.convert import broadcast_shapes, broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import implements, lookup
from npxla.runtime.numpy.ufuncs.ufunc_core import apply_ufunc, register_outer, register_ufunc
from npxla.transpiler.base.errors import UnsupportedFunctionError


# --- building blocks on same-shape operands ------------------------------------------

def full(x, value, dtype=None):
    """A constant of `x`'s shape (splat), in `dtype` or `x`'s dtype."""
    c = as_abstract(np.array(value, dtype=dtype or x.dtype))
    if c.dtype.kind == "c" and x.size > 1:
        return S.broadcast_in_dim(c, shape=x.shape, dims=())  # see splat_safe
    return broadcast_to_shape(c, x.shape)


def splat_safe(x):
    """trace.constant cannot emit complex splat constants: broadcast a 0-d one."""
    c = x.const
    if c is not None and c.dtype.kind == "c" and c.size > 1 and bool(np.all(c == c.flat[0])):
        return full(x, c.flat[0])
    return x


def _complex_consts_ok(lower):
    return lambda *xs: lower(*[splat_safe(x) for x in xs])


def copy(x):
    """A fresh handle on x's value: identity lowerings must not alias their input
    (`y = np.positive(x); y += 1` leaves x alone)."""
    c = x.const
    return AbstractArray(x.shape, x.dtype, ir=None if c is not None else x.ir, const=c,
                         deps=x.deps)


def select(pred, a, b):
    return S.select(pred, a, b)


def cmp(a, b, direction):
    return E.compare(a, b, direction)


def isnan(x):
    return cmp(x, x, "NE")


def and_(*ps):
    out = ps[0]
    for p in ps[1:]:
        out = E.bitwise_and(out, p)
    return out


def or_(*ps):
    out = ps[0]
    for p in ps[1:]:
        out = E.bitwise_or(out, p)
    return out


def is_int(x):
    return x.dtype.kind in "iub"


def is_complex(x):
    return x.dtype.kind == "c"


def via_f32(fn):
    """Run a float composite in float32 for float16 operands (NumPy's half loops do)."""
    def wrapped(*xs):
        if xs and all(x.dtype == np.float16 for x in xs):
            out = fn(*[cast_to(x, np.float32) for x in xs])
            if isinstance(out, tuple):
                return tuple(cast_to(o, np.float16) for o in out)
            return cast_to(out, np.float16)
        return fn(*xs)
    return wrapped


def exact(v, like=None):
    """`v` unchanged, hidden from XLA's value rewrites: XLA turns `a / broadcast(c)` into
    `a * (1 / c)`, lets LLVM fuse `a * b + c` into one FMA, and keeps float16
    intermediates in float32; each changes the last bit against NumPy, which rounds every
    operation. An integer `or` with a data-dependent zero (1 only where `like`, or `v`,
    is NaN: those results are NaN anyway) makes `v` a rounded, opaque value."""
    like = v if like is None else like
    ity = np.dtype(f"i{v.dtype.itemsize}")
    nan = S.convert(cmp(like, like, "NE"), dtype=ity)
    return X.bitcast(E.bitwise_or(X.bitcast(v, dtype=ity), nan), dtype=v.dtype)


def signbit(x):
    """Sign bit via bit reinterpretation: true for -0.0 and negative NaNs, like C."""
    if x.dtype.kind in "ub":
        return full(x, False, np.bool_)
    if x.dtype.kind == "i":
        return cmp(x, full(x, 0), "LT")
    bits = X.bitcast(x, dtype=np.dtype(f"i{x.dtype.itemsize}"))
    return cmp(bits, full(bits, 0), "LT")


def copysign(a, b):
    mag = E.abs_(a)
    return select(signbit(b), E.negate(mag), mag)


# --- integer and float division ------------------------------------------------------

def _int_divmod(a, b):
    """Floor quotient and remainder with NumPy's x//0 == x%0 == 0. A divisor that is a
    nonzero constant (`i % 65521`, `n // 2`) needs no zero guard."""
    zero = full(b, 0)
    nonzero = b.const is not None and bool(np.all(np.asarray(b.const) != 0))
    b_is_zero = None if nonzero else cmp(b, zero, "EQ")
    safe = b if nonzero else select(b_is_zero, full(b, 1), b)
    q, r = E.divide(a, safe), E.remainder(a, safe)
    if a.dtype.kind == "i":
        fix = and_(cmp(r, zero, "NE"), cmp(cmp(r, zero, "LT"), cmp(safe, zero, "LT"), "NE"))
        q = select(fix, E.subtract(q, full(q, 1)), q)
        r = select(fix, E.add(r, safe), r)
    if nonzero:
        return q, r
    return select(b_is_zero, zero, q), select(b_is_zero, zero, r)


@via_f32
def _float_divmod(a, b):
    """NumPy's npy_divmod: fmod, move the remainder to the divisor's sign, snap the
    quotient to the nearest integer; a zero divisor gives (a/b, fmod(a, b))."""
    zero = full(a, 0)
    mod = E.remainder(a, b)
    div = E.divide(E.subtract(a, mod), b)
    fix = and_(cmp(mod, zero, "NE"), cmp(cmp(b, zero, "LT"), cmp(mod, zero, "LT"), "NE"))
    mod = select(fix, E.add(mod, b), mod)
    div = select(fix, E.subtract(div, full(div, 1)), div)
    mod = select(cmp(mod, zero, "EQ"), copysign(zero, b), mod)
    fl = E.floor(div)
    fl = select(cmp(E.subtract(div, fl), full(div, 0.5), "GT"), E.add(fl, full(fl, 1)), fl)
    quot = E.divide(a, b)
    fl = select(cmp(div, zero, "EQ"), copysign(zero, quot), fl)
    b_zero = cmp(b, zero, "EQ")
    return select(b_zero, quot, fl), mod


def _divmod(a, b):
    return _int_divmod(a, b) if is_int(a) else _float_divmod(a, b)


def _fmod(a, b):
    if not is_int(a):
        return E.remainder(a, b)
    zero = full(b, 0)
    b_is_zero = cmp(b, zero, "EQ")
    return select(b_is_zero, zero, E.remainder(a, select(b_is_zero, full(b, 1), b)))


def int_power(a, b):
    """Integer powers wrap like NumPy's; a negative exponent raises NumPy's ValueError,
    when staging for a constant one, after the call (a run-time check) for a traced one
    (XLA's own answer for it even differs between its CPU code generators)."""
    if is_int(a) and b.dtype.kind == "i":
        check(cmp(b, full(b, 0), "LT"),
              "Integers to negative integer powers are not allowed.", error=ValueError)
    return E.power(a, b)


def _true_divide(a, b):
    """IEEE division: XLA would turn `x / scalar` into `x * (1 / scalar)` (off by an ulp:
    12.0 / 10 gives 1.2000000000000002) and `x / np.sqrt(y)` into `x * rsqrt(y)`;
    `exact` keeps the divisor a divisor (its zero made from the dividend's NaNs, unless
    the dividend is a constant, where XLA would fold that zero away)."""
    if a.dtype.kind == "f" and (a.dtype == np.float16 or _may_become_broadcast(b)):
        return E.divide(a, exact(b, b if a.const is not None else a))
    return E.divide(a, _kept_divisor(b))


# ops whose results XLA's algebraic simplifier turns a division by into a product:
# `a / sqrt(b)` into `a * rsqrt(b)` (rsqrt is not correctly rounded: `1 / np.sqrt(y)`
# differed from NumPy in a third of its elements on an AMD EPYC host), `a / rsqrt(b)`,
# `a / b ** c` into `a * b ** -c`, `a / exp(b)` into `a * exp(-b)`
_REWRITTEN_DIVISORS = frozenset(f"stablehlo.{n}" for n in
                                ("sqrt", "rsqrt", "power", "exponential"))


def _kept_divisor(b):
    """`b`, hidden from XLA's rewrites (`exact`, its own NaN as the zero) when it is
    the result of an op whose division XLA would turn into a product."""
    if b.dtype.kind != "f" or getattr(b.ir.owner, "name", None) not in _REWRITTEN_DIVISORS:
        return b
    return exact(b)


def _may_become_broadcast(b):
    """Whether XLA could see divisor `b` as a broadcast, and so rewrite the division
    into a multiplication by its reciprocal: a constant, a broadcast, or elementwise
    and layout ops over such values. A divisor computed from any full-size runtime
    value keeps its division and needs no guard (which costs a fusion boundary)."""
    return b.const is not None or _uniform(b.ir, 8)


# ops that keep a value a broadcast when all their array operands are broadcasts
_TRANSPARENT = frozenset(f"stablehlo.{n}" for n in (
    "abs add and atan2 bitcast_convert cbrt ceil clamp compare convert cosine divide exponential "
    "exponential_minus_one floor is_finite log log_plus_one logistic maximum minimum multiply "
    "negate not or power remainder round_nearest_even round_nearest_afz rsqrt select sign "
    "sine sqrt subtract tan tanh xor reshape transpose slice dynamic_slice reverse "
    "concatenate pad").split())


def _uniform(value, depth):
    if not value.type.rank or depth == 0:
        return True
    owner = value.owner
    name = getattr(owner, "name", None)
    if not isinstance(name, str):          # a block argument: a parameter or carried value
        return False
    if name in ("stablehlo.broadcast_in_dim", "stablehlo.constant"):
        return True
    return name in _TRANSPARENT and all(_uniform(v, depth - 1) for v in owner.operands)


def _reciprocal(x):
    """Integer 1/x truncates; 1/0 is what NumPy's C loop gives on x86-64 (the int
    conversion of inf): the minimum for 32/64-bit signed ints, else 0."""
    if not is_int(x) or x.dtype == np.bool_:
        return E.divide(full(x, 1), _kept_divisor(x)) if not is_int(x) else copy(x)
    zero = cmp(x, full(x, 0), "EQ")
    q = E.divide(full(x, 1), select(zero, full(x, 1), x))
    at_zero = np.iinfo(x.dtype).min if x.dtype.kind == "i" and x.dtype.itemsize >= 4 else 0
    return select(zero, full(x, at_zero), q)


# --- ordering (complex is lexicographic in NumPy) ------------------------------------

def less(a, b, direction="LT"):
    """Comparison for every dtype; complex compares (real, imag) lexicographically."""
    if not is_complex(a) or direction in ("EQ", "NE"):
        return cmp(a, b, direction)
    ar, ai, br, bi = X.real(a), X.imag(a), X.real(b), X.imag(b)
    strict = direction[0] + "T"
    return or_(cmp(ar, br, strict), and_(cmp(ar, br, "EQ"), cmp(ai, bi, direction)))


def _nan_any(x):
    if not is_complex(x):
        return isnan(x)
    return or_(isnan(X.real(x)), isnan(X.imag(x)))


def _extremum(direction, propagate):
    """maximum/minimum (NaN wins) and fmax/fmin (NaN loses), NumPy's select form."""
    def lower(a, b):
        take_a = less(a, b, direction)
        if not is_int(a):
            take_a = or_(take_a, _nan_any(a)) if propagate else \
                or_(take_a, _nan_any(b))
        return select(take_a, a, b)
    return lower


# --- table-driven registration -------------------------------------------------------

def _add(a, b):
    if a.dtype == np.bool_:
        return E.bitwise_or(a, b)
    for x, zero in ((a, b), (b, a)):
        if x.const is None and _positive_zero(zero):
            # XLA simplifies `x + 0.0` to `x`, but IEEE (and NumPy) give -0.0 + 0.0 = +0.0
            return select(cmp(x, zero, "EQ"), zero, x)
    return E.add(a, b)


def _positive_zero(v):
    """Whether `v` is a real float constant of +0.0 only."""
    c = v.const
    return c is not None and v.dtype.kind == "f" and c.size > 0 and not np.any(c) and \
        not np.any(np.signbit(c))


def _multiply(a, b):
    return E.bitwise_and(a, b) if a.dtype == np.bool_ else E.multiply(a, b)


def _absolute(x):
    if x.dtype.kind in "ub":
        return copy(x)
    return X.abs_(x)


def _sign(x):
    if is_complex(x):
        # NumPy 2: z/|z|; 0 for 0; a single infinite part gives the unit along it.
        mag = X.abs_(x)
        unit = E.divide(x, X.complex_(mag, full(mag, 0)))
        unit = select(cmp(mag, full(mag, 0), "EQ"), full(x, 0), unit)
        re, im = X.real(x), X.imag(x)
        re_inf, im_inf = X.is_inf(re), X.is_inf(im)
        zero = full(re, 0)
        axis = X.complex_(select(re_inf, E.sign(re), zero), select(im_inf, E.sign(im), zero))
        return select(cmp(re_inf, im_inf, "NE"), axis, unit)
    if x.dtype.kind == "u":
        return select(cmp(x, full(x, 0), "EQ"), full(x, 0), full(x, 1))
    return E.sign(x)


LOWERINGS = {
    np.add: _add,
    np.subtract: E.subtract,
    np.multiply: _multiply,
    np.true_divide: _true_divide,
    np.floor_divide: lambda a, b: _divmod(a, b)[0],
    np.remainder: lambda a, b: _divmod(a, b)[1],
    np.divmod: _divmod,
    np.fmod: _fmod,
    np.float_power: E.power,
    np.negative: E.negate,
    np.positive: copy,
    np.absolute: _absolute,
    np.fabs: E.abs_,
    np.sign: _sign,
    np.square: lambda x: _multiply(x, x),
    np.reciprocal: _reciprocal,
    np.maximum: _extremum("GT", propagate=True),     # equal (+-0): b, as NumPy
    np.minimum: _extremum("LT", propagate=True),
    np.fmax: _extremum("GE", propagate=False),
    np.fmin: _extremum("LE", propagate=False),
}

def register_table(table, family="elementwise"):
    for ufunc, lower in table.items():
        register_ufunc(ufunc, lower=_complex_consts_ok(lower), family=family)
        guarded(ufunc)


# --- Python-int range checks (NEP 50) ------------------------------------------------

def check_weak_ints(args):
    """NumPy 2 raises OverflowError when a Python int does not fit the loop dtype
    (`int8_array + 300`); we can check it for constant Python ints only."""
    for a in args:
        if type(a) is int or (getattr(a, "weak", False) and a.const is not None
                              and a.dtype.kind == "i"):
            value = int(a if type(a) is int else a.const)
            others = [o for o in args if o is not a]
            strong = [o for o in others if not isinstance(o, (bool, int, float, complex))
                      and not getattr(o, "weak", False)]
            for o in strong:
                dt = np.asarray(o).dtype if not hasattr(o, "dtype") else o.dtype
                if dt.kind in "iu":
                    info = np.iinfo(dt)
                    if not info.min <= value <= info.max:
                        raise OverflowError(f"Python integer {value} out of bounds for {dt}")


def _strong_bools(args):
    """Weak (Python) bools promote exactly like np.bool_, but the dtype resolver only
    accepts int/float/complex as weak keys: resolve them as strong bools."""
    out, changed = [], False
    for a in args:
        if type(a) is bool or (type(a) is AbstractArray and a.weak and a.dtype == np.bool_):
            a = as_abstract(a)
            a = AbstractArray(a.shape, a.dtype, ir=None if a.const is not None else a.ir,
                              const=a.const, deps=a.deps)
            changed = True
        out.append(a)
    return out, changed


def _mark_weak(result):
    if isinstance(result, tuple):
        return tuple(_mark_weak(r) for r in result)
    if type(result) is AbstractArray and result.ndim == 0:
        result.weak = True
    return result


def guarded(ufunc, range_check=True):
    """Wrap a registered ufunc: constant Python-int range check, run-time checks of
    Python arithmetic (division by zero: pyzero; int overflow: pyints), weak-bool
    resolution."""
    entry = lookup(ufunc)
    inner = entry.impl

    def impl(*args, **kwargs):
        if range_check:
            check_weak_ints(args)
        if pyzero.applies(ufunc, args) and not kwargs:
            pyzero.check_operands(ufunc, args)
        if pyints.applies(ufunc, args) and not kwargs:
            pyints.check_operands(ufunc, args)
            result = inner(*args)
            pyints.check_result(ufunc, args, result)
            return result
        ops, changed = _strong_bools(args)
        if not changed:
            return inner(*args, **kwargs)
        all_weak = all(type(a) in (bool, int, float, complex) or
                       (type(a) is AbstractArray and a.weak) for a in args)
        result = inner(*ops, **kwargs)
        return _mark_weak(result) if all_weak and kwargs.get("out") is None else result
    entry.impl = impl


# --- comparisons ---------------------------------------------------------------------

_COMPARISONS = {np.less: "LT", np.less_equal: "LE", np.greater: "GT",
                np.greater_equal: "GE", np.equal: "EQ", np.not_equal: "NE"}


def _compare_mixed_int(x, y, direction, swapped):
    """Strong int array vs weak Python int: NumPy compares the true values (a negative
    int vs uint8 is never equal), so compare in int64, or split on sign for uint64."""
    if x.dtype != np.uint64:
        a, b = cast_to(x, np.int64), cast_to(y, np.int64)
        a, b = (b, a) if swapped else (a, b)
        shape = broadcast_shapes(a.shape, b.shape)
        return cmp(broadcast_to_shape(a, shape), broadcast_to_shape(b, shape), direction)
    shape = broadcast_shapes(x.shape, y.shape)
    xb, yb = broadcast_to_shape(x, shape), broadcast_to_shape(cast_to(y, np.int64), shape)
    neg = cmp(yb, full(yb, 0), "LT")
    yu = cast_to(select(neg, full(yb, 0), yb), np.uint64)  # no huge uint64 constants
    direct = cmp(yu, xb, direction) if swapped else cmp(xb, yu, direction)
    # y < 0 <= x: x > y always.
    x_gt_y = {"LT": False, "LE": False, "GT": True, "GE": True, "EQ": False, "NE": True}
    y_gt_x = {"LT": True, "LE": True, "GT": False, "GE": False, "EQ": False, "NE": True}
    when_neg = (y_gt_x if swapped else x_gt_y)[direction]
    return select(neg, full(direct, when_neg, np.bool_), direct)


def _register_comparison(ufunc, direction):
    def lower(a, b):
        return less(a, b, direction)

    def impl(*args, out=None, dtype=None, where=True, casting="same_kind", **kwargs):
        if out is None and dtype is None and where is True and not kwargs and len(args) == 2:
            ops = [as_abstract(a) for a in args]
            for i in (0, 1):
                x, y = ops[i], ops[1 - i]
                if (not x.weak and x.dtype.kind in "iu" and y.weak and y.dtype.kind == "i"):
                    return _compare_mixed_int(x, y, direction, swapped=(i == 1))
        if where is not True or kwargs:
            raise UnsupportedFunctionError(
                f"np.{ufunc.__name__}: where=/{sorted(kwargs)} are not supported")
        return apply_ufunc(ufunc, _complex_consts_ok(lower), args, out=out, dtype=dtype,
                           casting=casting)
    implements(ufunc, family="comparison")(impl)
    register_outer(ufunc)
    guarded(ufunc, range_check=False)


for _ufunc, _dir in _COMPARISONS.items():
    _register_comparison(_ufunc, _dir)


register_table(LOWERINGS)
