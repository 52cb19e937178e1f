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
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.arithmetic import cmp, copysign, full, select
from npxla.runtime.lowering.rounding import hidden as _opaque
from npxla.runtime.numpy.convert import cast_to

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
# log(1+f) = 2 atanh(s) = 2s + s * R, R = z * R1(z), z = s**2 <= 0.0295
_R1 = (0.6666666666666666, 0.40000000000000874, 0.28571428570804414,
       0.22222222391549865, 0.1818179565607498, 0.153862389077312, 0.13268792798243967,
       0.1308643519979018)
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


# --- log --------------------------------------------------------------------------

def log_parts(a):
    """log(a) = e*ln2 + hi + lo for a > 0 finite (float e, |hi| <= 0.35, about 2**-60
    relative): a = 2**e * m with m in [sqrt(1/2), sqrt(2)), f = m - 1 exact, and
    log(1+f) = (f - f**2/2) + s (f**2/2 + R), the first difference exact (f**2 by
    Dekker). Subnormal a is scaled by 2**54 first (XLA:CPU reads it as zero anyway)."""
    sub = a.cmp(np.finfo(np.float64).tiny, "LT")
    a = where(sub, a * 2.0 ** 54, a)
    bits = X.bitcast(a.v, dtype=_I64)
    ebits = E.shift_right_logical(bits, full(bits, 52))
    mant = E.bitwise_or(E.bitwise_and(bits, full(bits, (1 << 52) - 1)),
                        full(bits, 1023 << 52))
    m = F(X.bitcast(mant, dtype=_F64))                    # [1, 2)
    big = m.cmp(SQRT2, "GE")
    m = where(big, m * 0.5, m)
    e = F(S.convert(E.subtract(ebits, full(ebits, 1023)), dtype=_F64))
    e = e + where(big, 1.0, 0.0) + where(sub, -54.0, 0.0)
    f = m - 1.0
    s = f / (f + 2.0)
    z = s * s
    h, hl = two_sqr(f)
    hh = h * 0.5
    hi, he = fast_two_sum(f, -hh)
    lo = (he - hl * 0.5) + s * (hh + z * horner(z, _R1))
    return e, hi, lo


def ln_combine(e, hi, lo, extra=None):
    """e*ln2 + hi + lo (+ extra), rounded once."""
    s, err = fast_two_sum(e * LN2_HI, hi)
    small = lo + e * LN2_LO
    if extra is not None:
        small = small + extra
    return s + (err + small)


def _regular(x):
    """0 < x < inf (false for NaN)."""
    return E.bitwise_and(x.cmp(0.0, "GT"), x.cmp(np.inf, "LT"))


def _log_specials(x, out):
    """log-like results at 0 (-inf), negatives and NaN (NaN) and +inf (+inf)."""
    out = where(_regular(x), out, np.nan)
    out = where(x.cmp(0.0, "EQ"), -np.inf, out)
    return where(x.cmp(np.inf, "EQ"), np.inf, out)


def log2(x):
    """e + log(m) * (1/ln2), the product by Dekker: powers of two are exact."""
    e, hi, lo = log_parts(x)
    ph, pl = two_prod(hi, INV_LN2_HI)
    s, err = fast_two_sum(e, ph)
    out = s + (err + ((pl + hi * INV_LN2_LO) + lo * INV_LN2_HI))
    return _log_specials(x, out)


def log10(x):
    """e*log10(2) + log(m) * (1/ln10): log10(10**k) == k exactly."""
    e, hi, lo = log_parts(x)
    ph, pl = two_prod(hi, INV_LN10_HI)
    s, err = fast_two_sum(e * LG2_HI, ph)
    out = s + (err + (((pl + e * LG2_LO) + hi * INV_LN10_LO) + lo * INV_LN10_HI))
    return _log_specials(x, out)


def log1p(x):
    """log(u) + d/u with u + d == 1 + x exactly (TwoSum)."""
    u, d = two_sum(1.0, x)
    e, hi, lo = log_parts(u)
    out = ln_combine(e, hi, lo, d / u)
    out = _log_specials(u, out)                         # u: 0 at x == -1, NaN below
    return where(x.cmp(0.0, "EQ"), x, out)              # -0.0 kept


def arcsinh(x):
    """sign * log(a + sqrt(a**2 + 1)) with a**2 + 1 and the square root in
    double-double; log(a) + ln2 for a > 2**28; x itself for |x| < 2**-26."""
    a = abs(x)
    big = a.cmp(2.0 ** 28, "GT")
    h, hl = two_sqr(where(big, 1.0, a))
    s1, e1 = two_sum(h, 1.0)
    r, rl = _sqrt_dd(s1, e1 + hl)
    b, be = fast_two_sum(r, a)
    b = where(big, a, b)
    e, hi, lo = log_parts(b)
    out = ln_combine(e + where(big, 1.0, 0.0), hi, lo,
                     where(big, 0.0, (be + rl) / b))
    out = where(a.cmp(np.inf, "EQ"), np.inf, out)
    out = F(copysign(out.v, x.v))
    return where(a.cmp(2.0 ** -26, "LT"), x, out)       # also NaN and -0.0


def _sqrt_dd(s, e):
    """sqrt(s + e) as r + rl (s > 0; rl = 0 where s == 0)."""
    r = F(E.sqrt(s.v))
    ph, pl = two_sqr(r)
    rl = (((s - ph) - pl) + e) / (r + r)
    return r, where(s.cmp(0.0, "GT"), rl, 0.0)


def arccosh(x):
    """log(x + sqrt(x**2 - 1)), x**2 - 1 exact as h - 1 + hl; log(x) + ln2 for
    x > 2**28."""
    big = x.cmp(2.0 ** 28, "GT")
    xs = where(big, 1.0, x)
    h, hl = two_sqr(xs)
    s1, e1 = two_sum(h, -1.0)
    r, rl = _sqrt_dd(s1, e1 + hl)
    b, be = fast_two_sum(xs, r)
    b = where(big, x, b)
    e, hi, lo = log_parts(b)
    out = ln_combine(e + where(big, 1.0, 0.0), hi, lo,
                     where(big, 0.0, (be + rl) / b))
    out = where(x.cmp(1.0, "GE"), out, np.nan)
    return where(x.cmp(np.inf, "EQ"), np.inf, out)


def arctanh(x):
    """sign * log((1 + a) / (1 - a)) / 2, numerator, denominator and quotient as
    double-doubles."""
    a = abs(x)
    nh, nl = two_sum(1.0, a)
    dh, dl = two_sum(1.0, -a)
    q, ql = dd_div_by(nh, nl, dh, dl, 1.0 / dh)
    inside = a.cmp(1.0, "LT")
    q = where(inside, q, 2.0)
    e, hi, lo = log_parts(q)
    out = ln_combine(e, hi, lo, ql / q) * 0.5
    out = where(inside, out, where(a.cmp(1.0, "EQ"), np.inf, np.nan))
    out = F(copysign(out.v, x.v))
    return where(a.cmp(2.0 ** -27, "LT"), x, out)       # also NaN and -0.0


def hypot(a, b):
    """sqrt(a**2 + b**2) with both scaled by the same power of two (the larger into
    [1, 2)), the squares and their sum in double-double, the square root corrected
    once and rounded once (the plain scaled formula is 2 ulp off); an infinity wins
    over NaN, as in C's hypot."""
    ax, ay = abs(a), abs(b)
    m, n = F(E.maximum(ax.v, ay.v)), F(E.minimum(ax.v, ay.v))
    bits = X.bitcast(m.v, dtype=_I64)
    e = E.subtract(E.shift_right_logical(bits, full(bits, 52)), full(bits, 1023))
    e = E.minimum(E.maximum(e, full(e, -1000)), full(e, 1000))
    down = pow2(E.negate(e))
    ms, ns = m * down, n * down                          # exact (m normal)
    h1, l1 = two_sqr(ms)
    h2, l2 = two_sqr(ns)
    s, se = fast_two_sum(h1, h2)
    r, rl = _sqrt_dd(s, se + (l1 + l2))
    out = scale(r + rl, e)
    out = where(m.cmp(0.0, "EQ"), 0.0, out)
    inf = E.bitwise_or(ax.cmp(np.inf, "EQ"), ay.cmp(np.inf, "EQ"))
    return where(inf, np.inf, out)


def int_power(x, n):
    """x**n for an integer constant 3 <= |n| <= MAX_INT_POWER: x = m * 2**e (m in [0.5,
    1)), m**n by squaring in double-double (each product by Dekker's two_prod, the low
    parts carried), rounded once and scaled by 2**(e n) (a reciprocal first for n < 0),
    so the result is within about 0.5 ulp of x**n, where XLA's pow is 1 ulp off NumPy's
    and 3-10x as slow. 0, inf and NaN as C's pow."""
    k = abs(n)
    bits = X.bitcast(x.v, dtype=_I64)
    ebits = E.bitwise_and(E.shift_right_logical(bits, full(bits, 52)), full(bits, 0x7FF))
    e = E.subtract(ebits, full(ebits, 1022))
    m = F(X.bitcast(E.bitwise_or(E.bitwise_and(bits, full(bits, ~(0x7FF << 52))),
                                 full(bits, 1022 << 52)), dtype=_F64))   # +-[0.5, 1)
    hi, lo = None, None
    base_hi, base_lo = m, None
    while k:
        if k & 1:
            if hi is None:
                hi, lo = base_hi, base_lo
            else:
                hi, lo = _dd_mul(hi, lo, base_hi, base_lo)
        k >>= 1
        if k:
            base_hi, base_lo = _dd_mul(base_hi, base_lo, base_hi, base_lo)
    if n < 0:                        # 1 / (hi + lo): q + q * (1 - q hi - q lo)
        q = 1.0 / hi
        ph, pl = two_prod(q, hi)
        hi = q + q * (((1.0 - ph) - pl) - q * lo)
        shift = E.negate(E.multiply(e, full(e, abs(n))))
    else:
        hi = hi + lo
        shift = E.multiply(e, full(e, n))
    shift = E.minimum(E.maximum(shift, full(shift, -2000)), full(shift, 2000))
    out = scale(hi, shift)
    odd = abs(n) % 2 == 1
    zero = F(copysign(full(x.v, 0.0), x.v)) if odd else F(full(x.v, 0.0))
    inf = F(copysign(full(x.v, np.inf), x.v)) if odd else F(full(x.v, np.inf))
    a = abs(x)
    out = where(a.cmp(0.0, "EQ"), zero if n > 0 else inf, out)
    out = where(a.cmp(np.inf, "EQ"), inf if n > 0 else zero, out)
    return where(x.cmp(x, "NE"), x, out)                 # NaN


MAX_INT_POWER = 16


def _dd_mul(ah, al, bh, bl):
    """(ah + al) * (bh + bl) as a double-double (al, bl may be None: zero)."""
    p, e = two_prod(ah, bh)
    if al is not None:
        e = e + ah * bl + al * bh if bl is not None else e + al * bh
    elif bl is not None:
        e = e + ah * bl
    return fast_two_sum(p, e)


def arcsin(x):
    """atan(t) with t = x / sqrt(1 - x**2) as a double-double t + tl: 1 - x**2, its root
    and the quotient in double-double, then atan(t) + tl / (1 + t**2) (XLA's float64
    asin is 2 ulp from NumPy; its atan is within 1). x itself below 2**-26 (where
    x**3/6 is below its last bit; XLA's underflows there)."""
    a = abs(x)
    inside = a.cmp(1.0, "LT")
    xs = where(inside, x, 0.5)
    h, hl = two_sqr(xs)
    s1, e1 = two_sum(1.0, -h)
    r, rl = _sqrt_dd(s1, e1 - hl)
    q = xs / r
    ph, pl = two_prod(q, r)
    tl = (((xs - ph) - pl) - q * rl) / r
    out = F(E.atan(q.v)) + tl / (q * q + 1.0)
    out = where(inside, out, where(a.cmp(1.0, "EQ"), F(copysign(full(x.v, np.pi / 2), x.v)),
                                   np.nan))
    return where(a.cmp(2.0 ** -26, "LT"), x, out)       # also NaN and -0.0


def arcsin_small(x, asin):
    """XLA's arcsin (float32, float16) with arcsin(x) == x below 2**-26, where XLA's
    underflows (x**3/6 is below x's last bit there); `asin`: the op itself."""
    return select(cmp(E.abs_(x), full(x, 2.0 ** -26), "LT"), x, asin(x))


# --- cbrt -------------------------------------------------------------------------

# cbrt on [1, 2], relative error 2**-16.5 (fitted like _Q); cube roots of 2 and 4
_CBRT = (0.5077694517808452, 0.7159085229810622, -0.29826672896584727,
         0.0850244745207509, -0.010425274118756456)
_CBRT2, _CBRT4 = 1.2599210498948732, 1.5874010519681994


def cbrt(x):
    """|x| = m * 2**(3j), m in [1, 8): y = P(mantissa) * cbrt(2**rem) (16 bits), one
    Newton step (32 bits), then one Newton step y - (y**3 - m) / (3 y**2) with the
    residual in double-double (about 2**-64), rounded once; times 2**j, exactly.
    0, inf and NaN give x itself."""
    a = abs(x)
    sub = a.cmp(np.finfo(np.float64).tiny, "LT")
    a = where(sub, a * 2.0 ** 54, a)                    # 2**54 == (2**18)**3
    bits = X.bitcast(a.v, dtype=_I64)
    ebits = E.shift_right_logical(bits, full(bits, 52))  # 1 .. 2046 (normal a)
    e = F(S.convert(E.subtract(ebits, full(ebits, 1023)), dtype=_F64))
    jf = F(E.floor(((e + 0.5) * (1.0 / 3.0)).v))        # floor(e / 3), exactly
    rem = e - jf * 3.0                                   # 0, 1, 2
    m1 = F(X.bitcast(E.bitwise_or(E.bitwise_and(bits, full(bits, (1 << 52) - 1)),
                                  full(bits, 1023 << 52)), dtype=_F64))   # [1, 2)
    m = m1 * F(X.bitcast(E.shift_left(E.add(S.convert(rem.v, dtype=_I64),
                                               full(bits, 1023)), full(bits, 52)),
                         dtype=_F64))                    # m1 * 2**rem, exact
    y = horner(m1, _CBRT) * where(rem.cmp(0.0, "EQ"), 1.0,
                                  where(rem.cmp(1.0, "EQ"), _CBRT2, _CBRT4))
    y = (y * 2.0 + m / (y * y)) * (1.0 / 3.0)
    h, hl = two_sqr(y)
    c, cl = two_prod(h, y)
    resid = (c - m) + (cl + hl * y)
    y = y - resid / (h * 3.0)
    j = S.convert(E.subtract(jf.v, select(sub, full(jf.v, 18.0), full(jf.v, 0.0))),
                  dtype=_I64)
    out = F(copysign((y * pow2(j)).v, x.v))
    special = E.bitwise_not(_regular(a))                 # 0, inf, NaN
    # x + x keeps -0.0, inf and NaN; a subnormal that XLA:CPU flushed gives 0
    return where(special, x + x, out)


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
