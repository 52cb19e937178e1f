"""The float64 log family (log2, log10, log1p), the inverse hyperbolic functions,
arcsin, hypot, integer powers and cbrt within 1 ulp of NumPy, built on the
double-double primitives and constants of `accurate_math` (whose docstring describes the
techniques: mantissa reduction for log, fdlibm's log(1+f) kernel, Newton steps with an
exact residual for cbrt).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.ufuncs.arithmetic import cmp, copysign, full, select
from npxla.runtime.numpy.ufuncs.accurate_math import (
    F, INV_LN10_HI, INV_LN10_LO, INV_LN2_HI, INV_LN2_LO, LG2_HI, LG2_LO, LN2_HI, LN2_LO, SQRT2,
    dd_div_by, fast_two_sum, horner, pow2, scale, two_prod, two_sqr, two_sum, where)

_F64, _I64 = np.dtype(np.float64), np.dtype(np.int64)


# log(1+f) = 2 atanh(s) = 2s + s * R, R = z * R1(z), z = s**2 <= 0.0295
_R1 = (0.6666666666666666, 0.40000000000000874, 0.28571428570804414,
       0.22222222391549865, 0.1818179565607498, 0.153862389077312, 0.13268792798243967,
       0.1308643519979018)


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
