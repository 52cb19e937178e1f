"""Float64 elementary functions within 1 ulp of NumPy, where XLA's own are not.

XLA's float64 log1p (129 ulp near -0.41), expm1 (4), sinh/cosh (496 for large |x|),
tanh (7), cbrt (118 with the LLVM IR emitters), asinh/acosh/atanh (3-129) and log10 as
log(x)/ln10 (3) differ from NumPy by more than an ulp (tests/benchmarks/accuracy.py,
docs/accuracy.md). They are rebuilt here from exactly rounded primitives only (+, -,
*, /, sqrt, integer bit operations; XLA's float64 exp is 1.7 ulp off, so the exp
family gets its own) with classic techniques:

* error-free transformations: TwoSum / FastTwoSum and Dekker's product with Veltkamp's
  split, which need each product rounded on its own (no FMA: `rmul`, `E.hide`);
* Cody-Waite reduction (x = k*ln2 + r, ln2 in two parts, k*LN2_HI exact) for exp and
  mantissa reduction (x = 2**e * m, m in [sqrt(1/2), sqrt(2))) for log, so log2/log10
  of powers of 2/10 come out exact;
* polynomial kernels whose leading terms are double-doubles (expm1(r) = r + r**2/2 +
  r**3 Q(r); log(1+f) = f - f**2/2 + s (f**2/2 + R(s**2)), s = f/(2+f), fdlibm's form):
  results are rounded once from about 60 correct bits, 0.5 ulp plus a few hundredths
  off, which keeps them within 1 ulp of NumPy's own (up to 1.2 ulp off) results;
* cbrt: a polynomial guess and Newton steps, the last with an exact residual.

Q, R and the other polynomials were fitted for this module (relative least squares on
Chebyshev nodes in 60-digit arithmetic; Q and R to 2**-52.9 and 2**-54 on |r| <= ln2/2
and s**2 <= (3 - 2 sqrt 2)**2).

Special values (NaN, +-inf, +-0, domain errors) are set by selects, as in NumPy's C
code. XLA:CPU reads subnormal inputs as zero; the log and cbrt kernels scale them up
first, so platforms that keep subnormals get them right.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.numpy.ufuncs.arithmetic import cmp, copysign, full, select
from npxla.runtime.lowering.rounding import hidden as _opaque
from npxla.runtime.numpy.core.convert import cast_to


_F64, _I64 = np.dtype(np.float64), np.dtype(np.int64)

# ln2 and log10(2) with a 42-bit head (k * HI is exact for |k| < 2**11) and a tail
LN2_HI, LN2_LO = 0.6931471805598903, 5.497923018708371e-14
LG2_HI, LG2_LO = 0.30102999566395283, 2.8363394551044964e-14
# 1/ln2 and 1/ln10 as double-doubles
INV_LN2_HI, INV_LN2_LO = 1.4426950408889634, 2.0355273740931033e-17
INV_LN10_HI, INV_LN10_LO = 0.4342944819032518, 1.098319650216765e-17
SQRT2 = 1.4142135623730951
# round-to-integer shifter: (t + 1.5*2**52) holds round(t) in its low mantissa bits
_SHIFTER = 6755399441055744.0
# expm1(r) = r + r**2/2 + r**3 * Q(r), |r| <= ln2/2
_Q = (0.16666666666666669, 0.04166666666666665, 0.008333333333330074,
      0.0013888888888903348, 0.00019841269862999302, 2.4801587266770676e-05,
      2.7557268535266783e-06, 2.7557338915853056e-07, 2.5100352950585987e-08,
      2.0890527113588003e-09)


EXP_MAX = 709.782712893384          # largest x with exp(x) (and expm1(x)) finite


_hidden = E.hide       # also under fast_math: XLA would fold TwoSum's error term away
_rmul = E.elementwise("multiply", lambda a, b: _opaque(hlo.MulOp(a, b).result, np.float64))
_mul = E.elementwise("multiply", hlo.MulOp)


def hidden(x):
    return F(_hidden(x.v))


def rmul(a, b):
    """a * b rounded on its own, never contracted into a later add (an error-free
    transformation needs the rounded product)."""
    return F(_rmul(a.v, a._o(b)))


class F:
    """A float64 AbstractArray with arithmetic operators over E's primitives (Python
    numbers become constants), so the double-double code below reads like the formulas
    it implements. `*` is a bare product that XLA may contract with an add into an
    FMA: used where the product is exact (powers of two, Veltkamp halves) or only
    feeds a small correction term (polynomials), where a contraction is as good or
    better; error-free transformations use `rmul`."""
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def _o(self, o):
        return o.v if isinstance(o, F) else full(self.v, o)

    def __neg__(self):
        return F(E.negate(self.v))

    def __abs__(self):
        return F(E.abs_(self.v))

    def cmp(self, o, direction):
        return cmp(self.v, self._o(o), direction)


def _operators(name, prim):
    setattr(F, f"__{name}__", lambda a, b: F(prim(a.v, a._o(b))))
    setattr(F, f"__r{name}__", lambda a, b: F(prim(a._o(b), a.v)))


for _name, _prim in (("add", E.add), ("sub", E.subtract), ("mul", _mul),
                     ("truediv", E.divide)):
    _operators(_name, _prim)


def where(pred, a, b):
    """select over F values and/or float64 constants."""
    a = a.v if isinstance(a, F) else full(pred, a, _F64)
    b = b.v if isinstance(b, F) else full(pred, b, _F64)
    return F(select(pred, a, b))


# --- error-free transformations (exact as long as nothing overflows) ----------------

def _sum(a, b):
    """fl(a + b); `a` or `b` may be a Python float. With a constant operand the sum is
    hidden, or XLA folds the constant out of `(a + c) - c`."""
    if isinstance(a, float):
        return hidden(b + a)
    return hidden(a + b) if isinstance(b, float) else a + b


def two_sum(a, b):
    """s + e == a + b exactly, s = fl(a + b) (Knuth). Operands must be rounded values
    (not bare products, which could be contracted into the sum)."""
    s = _sum(a, b)
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fast_two_sum(a, b):
    """two_sum for |a| >= |b| (or a == 0) (Dekker)."""
    s = _sum(a, b)
    return s, b - (s - a)


def _split(a):
    """Veltkamp's split: a == hi + lo with 26-bit hi, 27-bit lo (|a| < 2**995); a may be
    a Python float."""
    t = a * 134217729.0 if isinstance(a, float) else rmul(a, 134217729.0)
    hi = t - (t - a)
    return hi, a - hi


def two_prod(a, b):
    """p + e == a * b exactly (Dekker, no FMA); b may be a Python float."""
    p = rmul(a, b)
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def two_sqr(a):
    """p + e == a * a exactly."""
    p = rmul(a, a)
    ah, al = _split(a)
    return p, ((ah * ah - p) + (ah * al) * 2.0) + al * al


def horner(x, coeffs):
    acc = x * coeffs[-1] + coeffs[-2]
    for c in reversed(coeffs[:-2]):
        acc = acc * x + c
    return acc


def pow2(k):
    """2.0**k from an int64 k in [-1022, 1023], by its bits."""
    bits = E.shift_left(E.add(k, full(k, 1023)), full(k, 52))
    return F(X.bitcast(bits, dtype=_F64))


def scale(y, k):
    """y * 2**k for int64 k in [-2000, 2000], in two exact steps (2**k alone may not be a
    float); overflows to inf like the true product."""
    k1 = E.shift_right_arithmetic(k, full(k, 1))
    return (y * pow2(k1)) * pow2(E.subtract(k, k1))


# --- exp --------------------------------------------------------------------------

def exp_parts(x):
    """exp(x) = 2**k * (w_hi + w_lo) for finite |x| <= 1100: int64 k = round(x/ln2),
    w in [0.7, 1.42] to about 2**-60 relative. r = x - k*ln2 is kept as r + rr; expm1(r)
    = r + r**2/2 + r**3 Q(r) with r + r**2/2 summed exactly."""
    t = hidden(x * INV_LN2_HI + _SHIFTER)
    kf = t - _SHIFTER
    k = E.subtract(X.bitcast(t.v, dtype=_I64), X.bitcast(full(t.v, _SHIFTER), dtype=_I64))
    r_hi = x - kf * LN2_HI                      # exact (Sterbenz; kf*LN2_HI exact)
    r, rr = two_sum(r_hi, -rmul(kf, LN2_LO))
    h, hl = two_sqr(r)
    s, e = fast_two_sum(r, h * 0.5)
    tail = e + ((hl * 0.5 + (h * r) * horner(r, _Q)) + rr * (r + 1.0))
    p, pe = fast_two_sum(s, tail)
    w_hi, e2 = fast_two_sum(1.0, p)
    return k, w_hi, e2 + pe


# below this exp(x) rounds to 0 (half the smallest subnormal is exp(-745.13...))
EXP_MIN = -745.2


def exp(x):
    """2**k * (1 + s), s = expm1(r) summed plainly and 1 + s rounded once: the terms
    after r are below 2**-4 of the result, so their roundings stay far below its last
    bit and exp_parts' double-double sums are not needed (2x the cost). XLA's float64
    exp is up to 2 ulp from NumPy."""
    xv = F(E.minimum(E.maximum(x.v, full(x.v, -746.0)), full(x.v, EXP_MAX + 1.0)))
    t = hidden(xv * INV_LN2_HI + _SHIFTER)
    kf = t - _SHIFTER
    k = E.subtract(X.bitcast(t.v, dtype=_I64), X.bitcast(full(t.v, _SHIFTER), dtype=_I64))
    r, rr = two_sum(xv - kf * LN2_HI, -rmul(kf, LN2_LO))
    s = r + ((r * r) * (r * horner(r, _Q) + 0.5) + rr)
    out = scale(hidden(s + 1.0), k)
    out = where(x.cmp(EXP_MAX, "GT"), np.inf, out)       # +inf too
    return where(x.cmp(EXP_MIN, "LT"), 0.0, out)         # -inf too; NaN stays


def expm1(x):
    """2**k * w - 1, the -1 added exactly (TwoSum) before the one rounding."""
    xv = F(E.minimum(E.maximum(x.v, full(x.v, -45.0)), full(x.v, EXP_MAX)))
    k, w_hi, w_lo = exp_parts(xv)
    half = pow2(E.subtract(k, full(k, 1)))             # 2**k itself overflows at 1024
    s, e = two_sum((w_hi * half) * 2.0, -1.0)
    out = s + (e + (w_lo * half) * 2.0)
    out = where(x.cmp(EXP_MAX, "GT"), np.inf, out)       # +inf too
    return where(abs(x).cmp(2.0 ** -54, "LT"), x, out)   # keeps -0.0


def recip(d, coeffs, newton=2):
    """An approximation of 1/d (about 2**-30 relative) from a polynomial fitted on d's
    range and Newton steps y (2 - d y), without a division: XLA keeps a division
    with several users out of the fusion of its users, and then computes everything
    it depends on once more for each fusion (tanh took 10x as long)."""
    y = horner(d, coeffs)
    for _ in range(newton):
        y = y * (2.0 - d * y)
    return y


# 1/w on [0.7, 1.42] and on [1, 2] (both 2**-8.8 relative), fitted like _Q
_RECIP_W = (3.9803312965565754, -5.815691785664895, 3.700447555846613,
            -0.8663103922727446)
_RECIP_12 = (2.8069621037319057, -2.894756558128552, 1.301069736188101,
             -0.21530572532602976)


def dd_div_by(nh, nl, dh, dl, y):
    """(nh + nl) / (dh + dl) as q + ql, given y ~ 1/dh to 2**-30: q = nh * y, and the
    residual (n - q d, q*dh exact by Dekker) times y corrects it to about 2**-60."""
    q = y if isinstance(nh, float) else rmul(nh, y)     # nh == 1.0 for a reciprocal
    ph, pl = two_prod(q, dh)
    rem = (nh - ph) - pl
    rem = rem if isinstance(nl, float) else rem + nl      # nl == 0.0
    return q, (rem - q * dl) * y


def _hyperbolic_parts(a):
    """For a = |x| >= 0 (at most 1100): e = exp(a) = 2**k * w and 2**k * (w -+ v) with
    v = (1/e) * 2**k = (1/w) * 2**-2k, so sinh = 2**(k-1) * (w - v) and
    cosh = 2**(k-1) * (w + v); both sums as hi + lo (one TwoSum), 1/w in double-double
    (for cosh too: a rounded 1/w put it 0.87 ulp off). v is left at 2**-80 * (1/w)
    for k > 40, where it is below the last bit."""
    k, w_hi, w_lo = exp_parts(a)
    q, ql = dd_div_by(1.0, 0.0, w_hi, w_lo, recip(w_hi, _RECIP_W, newton=3))
    kk = E.minimum(k, full(k, 40))
    c = pow2(E.negate(E.add(kk, kk)))
    v, vl = q * c, ql * c
    s_hi, s_e = fast_two_sum(w_hi, -v)
    c_hi, c_e = fast_two_sum(w_hi, v)
    return k, (s_hi, s_e + (w_lo - vl)), (c_hi, c_e + (w_lo + vl))


def _magnitude(x, top):
    """|x| clamped to `top` (NaN stays NaN: XLA's min/max propagate it)."""
    return F(E.minimum(E.abs_(x.v), full(x.v, top)))


def sinh(x):
    a = _magnitude(x, 711.0)
    k, (hi, lo), _ = _hyperbolic_parts(a)
    out = scale(hi + lo, E.subtract(k, full(k, 1)))
    out = F(copysign(out.v, x.v))
    return where(abs(x).cmp(2.0 ** -26, "LT"), x, out)   # sinh(x) == x, -0.0 kept


def cosh(x):
    a = _magnitude(x, 711.0)
    k, _, (hi, lo) = _hyperbolic_parts(a)
    return scale(hi + lo, E.subtract(k, full(k, 1)))


def tanh(x):
    """-t / (2 + t) with t = expm1(-2|x|) = 2**k w - 1 as a double-double and a
    double-double quotient; |x| >= 20 gives exactly +-1."""
    a = _magnitude(x, 20.0)
    k, w_hi, w_lo = exp_parts(a * -2.0)
    sc = pow2(k)                                         # k in [-58, 0]
    t, te = two_sum(w_hi * sc, -1.0)
    tl = te + w_lo * sc
    d, de = fast_two_sum(2.0, t)
    q, ql = dd_div_by(-t, -tl, d, de + tl, recip(d, _RECIP_12))
    out = F(copysign((q + ql).v, x.v))
    return where(abs(x).cmp(2.0 ** -27, "LT"), x, out)


def tanh_narrow(y):
    """float32/float16 tanh, computed in float64 by XLA's tanh (`float_via_f64`), with
    y itself below 2**-27 (XLA's flushes the subnormal float32 ones)."""
    return select(cmp(E.abs_(y), full(y, 2.0 ** -27), "LT"), y, E.tanh(y))


# --- dtype handling ---------------------------------------------------------------

def float_via_f64(fn, narrow=None):
    """A lowering from a float64 composite `fn(F) -> F`: float32 and float16 operands
    are computed in float64 and rounded back through float32 (as NumPy's half loops go
    through float), so they are correctly rounded but for rare double roundings. This
    costs 2-5x XLA's float32 ops (cbrt: a quarter), which were 2-25 ulp off NumPy
    (sinh, cosh 25; log2 near 1 was wrong). `narrow`,
    if given, is the float64 op used for them instead (tanh: XLA's float64 tanh, 7 ulp
    off in float64, is 2**-49 relative, invisible after the rounding, and 3x as fast
    as `fn`)."""
    def lower(x):
        if x.dtype == np.float64:
            return fn(F(x)).v
        y = cast_to(x, np.float64)
        out = cast_to(narrow(y) if narrow is not None else fn(F(y)).v, np.float32)
        return out if x.dtype == np.float32 else cast_to(out, x.dtype)
    return lower
