"""`scipy.special`'s Gamma family on traced arrays: gamma, gammaln, betaln and
digamma/psi, as SciPy computes them (Cephes gamma.c, rgamma.c, beta.c, psi.c, with
Boost's rational approximation of psi on [1, 2]), built on the ufunc loops and staging
helpers of `special` (whose docstring describes how the kernels round as SciPy's).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.numpy.scipy.special import (
    _INF, _NAN, _REAL, W, _c, _chbevl, _if_any, _opaque, _poly, _poly1, _product_loop,
    _rising_loop, _step, _ufunc)


# --- Gamma, lgam, rgamma (Cephes gamma.c, rgamma.c) ---------------------------------------

_GAMMA_P = _c("""
    0.00016011952247675185 0.0011913514700658638 0.010421379756176158 0.04763678004571372
    0.20744822764843598 0.4942148268014971 1.0""")
_GAMMA_Q = _c("""
    -2.3158187332412014e-05 0.0005396055804933034 -0.004456419138517973 0.011813978522206043
    0.035823639860549865 -0.23459179571824335 0.0714304917030273 1.0""")
_STIR = _c("""
    0.0007873113957930937 -0.00022954996161337813 -0.0026813261780578124
    0.0034722222160545866 0.08333333333334822""")
_LGAM_A = _c("""
    0.0008116141674705085 -0.0005950619042843014 0.0007936503404577169 -0.002777777777300997
    0.08333333333333319""")
_LGAM_B = _c("""
    -1378.2515256912086 -38801.631513463784 -331612.9927388712 -1162370.974927623
    -1721737.0082083966 -853555.6642457654""")
_LGAM_C = _c("""
    -351.81570143652345 -17064.210665188115 -220528.59055385445 -1139334.4436798252
    -2532523.0717758294 -2018891.4143353277""")
_RGAMMA_R = _c("""
    3.1317345823123e-17 -6.70718606477908e-16 2.2003907817225954e-15 2.4769163034825414e-13
    -6.600741004112952e-12 5.13850186324227e-11 1.0896538645441867e-09
    -3.3396463068683694e-08 2.6897599644059546e-07 2.960011775188017e-06
    -8.048141249784711e-05 0.0004166091387096889 0.005065798640286087 -0.06419254361091582
    -0.004985587286840036 0.12754601561052395""")
_MAXGAM, _MAXSTIR, _MAXLGM = 171.624376956302725, 143.01608, 2.556348e305
_LOGPI = 1.144729885849400174143427351353058711647
_LS2PI = 0.91893853320467274178
_SQRT2PI = 2.506628274631000502415765284811045253007
_EULER = 0.577215664901532860606512090082402431


def _stirf(x):
    w = 1.0 / x
    w = 1.0 + w * _poly(w, _STIR)
    y = np.exp(x)
    v = np.power(x, 0.5 * x - 0.25)
    y = W(x > _MAXSTIR, v * (v / y), np.power(x, x - 0.5) / y)
    return W(x >= _MAXGAM, _INF, _SQRT2PI * y * w)


def _sinpi(z):
    """sin(pi z) for |z| <= 1/2 (where Cephes's sinpi is just that)."""
    return np.sin(np.pi * z)


def gamma_kernel(x):
    finite = np.isfinite(x)
    q = np.abs(x)
    big = q > 33.0

    def stirling():                 # |x| > 33: Stirling's formula, reflected for x < 0
        st = _stirf(W(big & finite, q, 34.0))
        p = np.floor(q)
        odd = np.floor(0.5 * p) * 2.0 != p
        z = np.abs(q * _sinpi(q - W(q - p > 0.5, p + 1.0, p)))
        return [W(x < 0, W(p == q, _NAN, W(odd, 1.0, -1.0) * (np.pi / (z * st))), st)]
    big_val, = _if_any(big & finite, stirling, [x])
    # |x| <= 33: recurrences into [2, 3), a rational function there. Cephes stops
    # ("small") where w comes within 1e-9 of 0: at the end of its loop for x < 0
    # (w in (-1e-9, 0)) or at the start of the next one (w in [0, 1e-9))
    xs = W(big | ~finite, 2.5, x)
    z = _product_loop(xs)
    z, n = _rising_loop(xs, z, -1e-9, strict=False)
    w = W(xs >= 3.0, xs - _opaque(np.floor(xs) - 2.0), W(xs < 0, xs + n, xs))
    small = w < 1e-9
    small_val = W(w == 0.0, _NAN, z / ((1.0 + 0.5772156649015329 * w) * w))
    for _ in range(2):
        up = w < 2.0
        z, w = _step(up, (z, z / w), (w, w + 1.0))
    t = w - 2.0
    val = W(small, small_val, W(w == 2.0, z, z * _poly(t, _GAMMA_P) / _poly(t, _GAMMA_Q)))
    out = W(x == 0, W(np.signbit(x), -_INF, _INF), W(big, big_val, val))
    return W(finite, out, W(x > 0, _INF, _NAN))


def _lgam_large(x):
    """lgam for x >= 13 (Stirling's series)."""
    q = (x - 0.5) * np.log(x) - x + _LS2PI
    p = 1.0 / (x * x)
    mid = q + _poly(p, _LGAM_A) / x
    tail = ((7.9365079365079365079365e-4 * p - 2.7777777777777777777778e-3) * p +
            0.0833333333333333333333) / x
    out = W(x >= 1000.0, W(x > 1.0e8, q, q + tail), mid)
    return W(x > _MAXLGM, _INF, out)


def gammaln_kernel(x):
    finite = np.isfinite(x)
    refl = x < -34.0
    q = -x
    w = _lgam_large(W(refl, q, W((x >= 13.0) & finite, x, 13.0)))

    def reflected():                # x < -34: log(pi / |q sin(pi q)|) - lgam(q)
        p = np.floor(q)
        up = q - p > 0.5
        p2 = W(up, p + 1.0, p)
        z = q * _sinpi(W(up, p2 - q, q - p2))
        return [W(p == q, _INF, _LOGPI - np.log(z) - w)]
    rv, = _if_any(refl, reflected, [x])
    # -34 <= x < 13: recurrences into [2, 3) (u = x + p, as Cephes has it)
    xr = W(refl | (x >= 13.0) | ~finite, 2.5, x)
    z, n = _rising_loop(xr, _product_loop(xr), 2.0, strict=True)
    p = W(xr >= 3.0, _opaque(2.0 - np.floor(xr)), n)
    lz = np.log(np.abs(z))
    t = xr + _opaque(p - 2.0)
    rec = W(xr + p == 2.0, lz, lz + t * _poly(t, _LGAM_B) / _poly1(t, _LGAM_C))
    rec = W((xr <= 0) & (xr == np.floor(xr)), _INF, rec)
    return W(finite, W(refl, rv, W(x >= 13.0, w, rec)), x)


def _rgamma(x, gamma_x):
    """1/Gamma(x) (Cephes rgamma.c), given Gamma(x) for |x| > 4."""
    w = W(np.abs(x) > 4.0, 0.5, x)
    z = np.ones_like(w)
    for _ in range(3):
        w, z = _step(w > 1.0, (w, w - 1.0), (z, z * (w - 1.0)))
    for _ in range(4):
        z, w = _step(w < 0.0, (z, z / w), (w, w + 1.0))
    y = w * (1.0 + _chbevl(4.0 * w - 2.0, _RGAMMA_R)) / z
    y = W(w == 0.0, 0.0, W(w == 1.0, 1.0 / z, y))
    out = W(np.abs(x) > 4.0, 1.0 / gamma_x, y)
    return W(x == 0, x, W((x < 0) & (x == np.floor(x)), 0.0, out))


# --- lbeta (Cephes beta.c) ----------------------------------------------------------------

def betaln_kernel(a, b):
    def nonpos_int(v):
        return (v <= 0) & (v == np.floor(v))

    def integral(v):
        return (v == np.trunc(v)) & (np.abs(v) < 2147483648.0)
    # a non-positive integer argument: lbeta(1 - a - b, b) where that is defined, else inf
    case_a = nonpos_int(a)
    case_b = nonpos_int(b) & ~case_a
    ok_a = (a >= -2147483648.0) & integral(b) & (1.0 - a - b > 0) & (b > 0)
    ok_b = (b >= -2147483648.0) & integral(a) & (1.0 - b - a > 0)
    over = (case_a & ~ok_a) | (case_b & ~ok_b)
    A = W(case_a, 1.0 - a - b, W(case_b, 1.0 - b - a, a))
    B = W(case_b, a, b)
    swap = np.abs(A) < np.abs(B)
    a, b = W(swap, B, A), W(swap, A, B)
    s = a + b
    asym = (np.abs(a) > 1e6 * np.abs(b)) & (a > 1e6)       # a much larger than b
    large = (np.abs(s) > _MAXGAM) | (np.abs(a) > _MAXGAM) | (np.abs(b) > _MAXGAM)
    mid = ~(asym | large)
    ls, lb, la = _if_any(~mid, lambda: [gammaln_kernel(W(mid, 2.5, v)) for v in (s, b, a)],
                         [a, a, a])
    r = lb - b * np.log(a)                                  # the asymptotic expansion
    r = r + b * (1 - b) / (2 * a)
    r = r + b * (1 - b) * (1 - 2 * b) / (12 * a * a)
    r = r + -b * b * (1 - b) * (1 - b) / (12 * a * a * a)

    def ratio():                    # Gamma(a) Gamma(b) / Gamma(a + b)
        ga, gb, gs = [gamma_kernel(W(mid, v, 2.5)) for v in (a, b, s)]
        y = _rgamma(W(mid, s, 2.5), gs)
        # 1/Gamma(a + b) is subnormal for a + b near MAXGAM, which XLA:CPU flushes to
        # zero: there the products divide by Gamma(a + b) instead
        huge = np.abs(gs) > 2.0 ** 1000
        ya, yb = W(huge, ga / gs, ga * y), W(huge, gb / gs, gb * y)
        prod = W(np.abs(np.abs(ya) - 1.0) > np.abs(np.abs(yb) - 1.0), yb * ga, ya * gb)
        return [W(np.isinf(y), _INF, np.log(np.abs(prod)))]
    val, = _if_any(mid, ratio, [a])
    return W(over, _INF, W(asym, r, W(large, la + (lb - ls), val)))


# --- psi / digamma (Cephes psi.c, Boost's approximation on [1, 2]) ---------------------

_PSI_A = _c("""
    0.08333333333333333 -0.021092796092796094 0.007575757575757576 -0.004166666666666667
    0.003968253968253968 -0.008333333333333333 0.08333333333333333""")
_PSI_P = _c("""
    -0.002071332116774595 -0.04525132144873906 -0.28919126444774784 -0.6503185377089651
    -0.3255503118680449 0.25479851061131553""")
_PSI_Q = _c("""
    -5.578984132167551e-07 0.0021284987017821146 0.054151797245674226 0.43593529692665967
    1.4606242909763516 2.076711702373047 1.0""")
_PSI_Y = float(np.float32(0.99558162689208984))
_PSI_ROOTS = (1569415565.0 / 1073741824.0, (381566830.0 / 1073741824.0) / 1073741824.0,
              0.9016312093258695918615325266959189453125e-19)
# the negative root, psi there, and psi(x + 2)'s Taylor coefficients about it (the n-th
# is (-1)**(n + 1) zeta(n + 1, root + 2), from mpmath)
_NEGROOT, _NEGROOTVAL = -0.504083008264455409, 7.2897639029768949e-17
_NEGROOT_SERIES = _c("""
    0.9381979690834112 -0.41728953034468597 0.23722825947363896 -0.1466662943236801
    0.09410557231158634 -0.06150600545373637 0.040595095830363755 -0.026938776410793626
    0.017931311290499935 -0.011956729288150052 0.007981037191019603 -0.005330509396838975
    0.0035615020417106053 -0.002380069950809624 0.001590746648516227 -0.0010632734592477785
    0.0007107361968853116 -0.0004750983849279136 0.0003175891442401357
    -0.00021230094089949746 0.00014191904779929247 -9.48704488985804e-05
    6.341939860671127e-05 -4.239492005192181e-05""")


def _psi(x):
    finite = np.isfinite(x)
    neg = x < 0
    r = x - np.trunc(x)
    y, = _if_any(neg, lambda: [W(neg, -np.pi / np.tan(np.pi * W(neg, r, 0.5)), 0.0)],
                 [np.zeros_like(x)])
    x = W(neg, 1.0 - x, W(finite & (x != 0), x, 1.5))
    integer = (x <= 10.0) & (x == np.floor(x))
    h = y                               # positive integers: y + 1 + 1/2 + ... - EULER
    for i in range(1, 10):
        h = W(x > i, h + 1.0 / i, h)
    below = x < 1.0
    y, x = _step(below, (y, y - 1.0 / x), (x, x + 1.0))
    mid = ~below & (x < 10.0)
    for _ in range(8):
        x, y = _step(mid & (x > 2.0), (x, x - 1.0), (y, y + 1.0 / (x - 1.0)))
    g = _opaque(_opaque(x - _PSI_ROOTS[0]) - _PSI_ROOTS[1]) - _PSI_ROOTS[2]
    near = g * _PSI_Y + g * (_poly(x - 1.0, _PSI_P) / _poly(x - 1.0, _PSI_Q))
    zz = 1.0 / (x * x)
    far = np.log(x) - (0.5 / x) - W(x < 1.0e17, zz * _poly(zz, _PSI_A), 0.0)
    out = W((x >= 1.0) & (x <= 2.0), y + near, y + far)
    return W(integer, h - _EULER, out), neg & (r == 0)


def digamma_kernel(x):
    out, pole = _psi(x)
    z = x - _NEGROOT
    around = np.abs(z) < 0.3
    zs, xs = W(around, z, 0.0), W(around, x, _NEGROOT)
    s = _poly(zs, _NEGROOT_SERIES[::-1]) + 1.0 / (xs * _NEGROOT) + \
        1.0 / ((xs + 1.0) * (_NEGROOT + 1.0))
    out = W(around, _NEGROOTVAL + zs * s, W(pole, _NAN, out))
    out = W(x == 0, W(np.signbit(x), _INF, -_INF), out)
    return W(np.isfinite(x), out, W(x > 0, _INF, _NAN))


_ufunc("scipy.special.gamma", "gamma", "dDfF", gamma_kernel, notes=_REAL + "Cephes, as SciPy")
_ufunc("scipy.special.gammaln", "gammaln", "df", gammaln_kernel)
_ufunc(("scipy.special.digamma", "scipy.special.psi"), "psi", "dDfF", digamma_kernel,
       notes=_REAL + "Cephes/Boost, as SciPy; near -0.504 within 2 ulp of the true value "
       "(SciPy's series: 9)")
_ufunc("scipy.special.betaln", "betaln", "df", betaln_kernel)
