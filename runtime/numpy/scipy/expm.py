"""`scipy.linalg.expm` on traced arrays, with SciPy's values and dtypes, on the staged
loops and LU solves of `lapack`.
"""
from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError

from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.linalg.linalg_common import (apply, eye_like, iota)
from npxla.runtime.numpy.reductions.reductions import asarray, full
from npxla.runtime.numpy.core.registry import implements_lazy
from npxla.runtime.numpy.scipy.lapack import FAMILY, fori_loop, lu_factors, lu_solve_perm, where

_I64 = np.dtype(np.int64)


# --- scipy.linalg.expm ----------------------------------------------------------------------
# Padé approximant with scaling and squaring (Al-Mohy & Higham 2009): degree 13 (degree 7
# in single precision), s halvings chosen from the norms of A's powers (`_scaling`), s
# squarings as a staged loop. As
# SciPy's expm: a diagonal matrix gives exp of its diagonal, a triangular one gets its
# diagonal and first off-diagonal recomputed at each squaring (Al-Mohy & Higham 2009,
# code fragment 2.1) and the other triangle zeroed. SciPy picks the degree from more
# norm estimates, so values agree within rounding, not bit for bit.

_PADE = {
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
}
_THETA = {13: 4.25, 7: 3.925724783138660}
# 1 / |c_(2m+1)| of the Padé remainder, and the unit roundoff (Al-Mohy & Higham's ell)
_ELL = {13: (113250775606021113483283660800000000., 2.0 ** -53),
        7: (4487938430976000., 2.0 ** -24)}


def _norm1(x):
    return apply(np.max, apply(np.sum, apply(np.abs, x), axis=-2), axis=-1)


def _scaling(a, m):
    """The number of squarings s per matrix (Al-Mohy & Higham 2009, algorithm 5.1):
    from the norms of A's powers, d_k = ||A^k||^(1/k), then raised by ell(2^-s A, m) where
    the Padé remainder's bound on |A| would exceed the unit roundoff."""
    mm = lambda x, y: apply(np.matmul, x, y)        # noqa: E731
    root = lambda x, k: apply(np.power, _norm1(x), 1.0 / k)   # noqa: E731
    a2 = mm(a, a)
    a4 = mm(a2, a2)
    a6 = mm(a4, a2)
    if m == 13:
        a8 = mm(a4, a4)
        d8 = root(a8, 8)
        eta = apply(np.minimum, apply(np.maximum, root(a6, 6), d8),
                    apply(np.maximum, d8, root(mm(a8, a2), 10)))
    else:
        eta = apply(np.maximum, root(a4, 4), root(a6, 6))
    norm = _norm1(a)
    eta = where(apply(np.isfinite, eta), eta, norm)       # powers overflowed: the norm
    ratio = apply(np.divide, eta, _THETA[m])
    s = apply(np.ceil, apply(np.log2, where(apply(np.greater, ratio, 1), ratio, 1)))
    # ell: log2 of || |A|^(2m+1) ||_1 / || |A| ||_1 by vector products, renormalised
    absa = apply(np.abs, a)

    def times_abs(_, w, logn):
        top = apply(np.max, w, axis=-1, keepdims=True)
        top = where(apply(np.greater, top, 0), top, 1)
        logn = apply(np.add, logn, apply(np.log2, S.reshape(top, shape=top.shape[:-1])))
        w = apply(np.matmul, apply(np.expand_dims, apply(np.divide, w, top), -2), absa)
        return S.reshape(w, shape=w.shape[:-2] + w.shape[-1:]), logn
    w, logn = fori_loop(0, 2 * m, times_abs, [apply(np.sum, absa, axis=-2),   # 1^T |A|
                                               apply(np.zeros_like, norm)])
    logn = apply(np.add, logn, apply(np.log2, apply(np.max, w, axis=-1)))
    c, u = _ELL[m]
    log_alpha = apply(np.subtract, apply(np.subtract, logn, apply(np.log2, norm)),
                      apply(np.multiply, 2 * m, s))
    ell = apply(np.ceil, apply(np.divide, apply(np.subtract, log_alpha, np.log2(c * u)),
                               2 * m))
    ell = where(apply(np.logical_and, apply(np.isfinite, ell), apply(np.greater, ell, 0)),
                ell, 0)
    s = apply(np.add, where(apply(np.isfinite, s), s, 0), ell)
    return cast_to(apply(np.minimum, s, 2000), _I64)


def _mat(x):
    return apply(np.expand_dims, apply(np.expand_dims, x, -1), -1)


def _pade(a, m):
    """(U, V) of the degree-m Padé approximant of exp(a)."""
    b = _PADE[m]
    eye = eye_like(a.shape[:-2], a.shape[-1], a.dtype)
    mm = lambda x, y: apply(np.matmul, x, y)                       # noqa: E731
    lin = lambda *terms: _sum([apply(np.multiply, c, x) for c, x in terms])  # noqa: E731
    a2 = mm(a, a)
    a4 = mm(a2, a2)
    a6 = mm(a4, a2)
    if m == 7:
        u = mm(a, lin((b[7], a6), (b[5], a4), (b[3], a2), (b[1], eye)))
        return u, lin((b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye))
    u = mm(a, _sum([mm(a6, lin((b[13], a6), (b[11], a4), (b[9], a2))),
                    lin((b[7], a6), (b[5], a4), (b[3], a2), (b[1], eye))]))
    v = _sum([mm(a6, lin((b[12], a6), (b[10], a4), (b[8], a2))),
              lin((b[6], a6), (b[4], a4), (b[2], a2), (b[0], eye))])
    return u, v


def _sum(terms):
    out = terms[0]
    for t in terms[1:]:
        out = apply(np.add, out, t)
    return out


def _exp_sinch(x):
    """SciPy's `_exp_sinch` along the last axis: (exp(x[1:]) - exp(x[:-1])) / diff(x),
    exp(x[:-1]) where the difference is zero."""
    e = apply(np.exp, x)
    de, dx = apply(np.diff, e, axis=-1), apply(np.diff, x, axis=-1)
    zero = apply(np.equal, dx, 0)
    head = S.static_slice(e, start=(0,) * e.ndim, limit=e.shape[:-1] + (e.shape[-1] - 1,),
                          strides=(1,) * e.ndim)
    return where(zero, head, apply(np.divide, de, where(zero, 1, dx)))


def _band(n, k):
    """Mask (n, n) of the k-th diagonal."""
    return apply(np.equal, apply(np.subtract, iota((n, n), 1), iota((n, n), 0)), k)


def _triangular_fix(r, diag, sd, scale, lower_tri):
    """Code fragment 2.1: r's diagonal exp(diag * scale), its first off-diagonal on the
    triangle's side exp_sinch(diag * scale) * sd * scale (everything per matrix)."""
    n = r.shape[-1]
    x = apply(np.multiply, diag, apply(np.expand_dims, scale, -1))
    r = where(_band(n, 0), apply(np.expand_dims, apply(np.exp, x), -1), r)
    if n < 2:
        return r
    off = apply(np.multiply, _exp_sinch(x),
                apply(np.multiply, sd, apply(np.expand_dims, scale, -1)))
    off = apply(np.pad, off, [(0, 0)] * (off.ndim - 1) + [(0, 1)])
    upper_vals = apply(np.expand_dims, off, -1)        # r[i, i + 1] = off[i]
    lower_vals = apply(np.expand_dims, off, -2)        # r[j + 1, j] = off[j]
    return where(_mat(lower_tri), where(_band(n, -1), lower_vals, r),
                 where(_band(n, 1), upper_vals, r))


@implements_lazy("scipy.linalg.expm", family=FAMILY,
                 notes="Padé 13 (single precision: 7) with Al-Mohy & Higham's scaling "
                       "(norms of A's powers, ell correction), the squarings a staged loop; "
                       "triangular and diagonal matrices as SciPy treats them; agrees with "
                       "SciPy within rounding")
def expm(A):
    a = asarray(A)
    if a.size == 1 and a.ndim < 2:      # SciPy: np.array([[np.exp(a.item())]])
        kind = a.dtype.kind
        t = np.complex128 if kind == "c" else np.float16 if kind == "b" else np.float64
        return S.reshape(apply(np.exp, cast_to(a, t)), shape=(1, 1))
    if a.ndim < 2:
        raise LinAlgError("The input array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    if a.shape[-2:] == (1, 1):
        return apply(np.exp, a)
    t = np.dtype(np.float64) if a.dtype.kind not in "fc" else \
        np.dtype(np.float32) if a.dtype == np.float16 else a.dtype
    if min(a.shape) == 0:
        return full(0, t, a.shape)
    a = cast_to(a, t)
    n = a.shape[-1]
    batch = a.shape[:-2]
    m = 7 if t in (np.float32, np.complex64) else 13
    rt = np.dtype(np.float32) if m == 7 else np.dtype(np.float64)
    # structure, as SciPy's bandwidth: diagonal, lower / upper triangular
    nonzero = apply(np.not_equal, a, 0)
    below = apply(np.any, apply(np.tril, nonzero, -1), axis=(-2, -1))
    above = apply(np.any, apply(np.triu, nonzero, 1), axis=(-2, -1))
    lower_tri = apply(np.logical_not, above)
    tri = apply(np.logical_or, lower_tri, apply(np.logical_not, below))
    diagonal = apply(np.logical_not, apply(np.logical_or, below, above))
    s = _scaling(a, m)
    scale = cast_to(apply(np.ones_like, s), rt)

    def halve(j, sc):
        return (where(apply(np.less, j, s), apply(np.multiply, sc, 0.5), sc),)
    smax = apply(np.max, s)
    (scale,) = fori_loop(0, smax, halve, [scale])
    u, v = _pade(apply(np.multiply, a, cast_to(_mat(scale), t)), m)
    lu, _, perm = lu_factors(apply(np.subtract, v, u))
    r = lu_solve_perm(lu, perm, apply(np.add, u, v))
    diag = apply(np.diagonal, a, 0, -2, -1)
    sd = where(apply(np.expand_dims, lower_tri, -1), apply(np.diagonal, a, -1, -2, -1),
               apply(np.diagonal, a, 1, -2, -1))
    first = apply(np.exp, apply(np.multiply, diag, apply(np.expand_dims, cast_to(scale, t),
                                                        -1)))
    fix = _mat(apply(np.logical_and, tri, apply(np.greater, s, 0)))
    r = where(fix, where(_band(n, 0), apply(np.expand_dims, first, -1), r), r)

    def square(j, r, sc):
        active = apply(np.less, j, s)
        sc = where(active, apply(np.multiply, sc, 2), sc)
        r2 = apply(np.matmul, r, r)
        r2 = where(_mat(tri), _triangular_fix(r2, diag, sd, cast_to(sc, t), lower_tri), r2)
        return where(_mat(active), r2, r), sc
    r, _ = fori_loop(0, smax, square, [r, scale])
    r = where(_mat(lower_tri), apply(np.tril, r), where(_mat(tri), apply(np.triu, r), r))
    exact = apply(np.multiply, eye_like(batch, n, t),
                  apply(np.expand_dims, apply(np.exp, diag), -1))
    return where(_mat(diagonal), exact, r)
