"""np.linalg's SVD and what NumPy builds on it: svd, svdvals, pinv, matrix_rank and
lstsq.

Why a module of its own: these share the borrowed SVD (LAPACK gesdd via JAX) and
NumPy's cutoff rules for small singular values (rcond / rtol / tol), which differ in
each function's details and are reproduced one by one.
"""
from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError
from numpy.linalg._linalg import SVDResult

from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.borrowed import borrow
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.linalg.linalg_common import (FAMILY, apply, assert_stacked_2d,
                                                      common_type, conj, failed, is_empty_2d,
                                                      last_entry, mH, mm, mT, raise_if, real_dtype,
                                                      shape_only)
from npxla.runtime.numpy.reductions.reductions import asarray, full, static
from npxla.runtime.numpy.core.registry import implements


# --- SVD and what builds on it ---------------------------------------------------------------

def _any_nan(a):
    """LAPACK's SVD reports NaN input as a failure to converge (NumPy raises); an
    infinite entry gives NaN results without an error."""
    return apply(np.any, apply(np.isnan, a))


def _svd(a, full_matrices=True, compute_uv=True):
    """SVD in the result dtypes; `a` non-empty, at least 2-d."""
    t, rt = common_type(a)
    outs = borrow("svd", cast_to(a, t), full_matrices=bool(full_matrices),
                  compute_uv=bool(compute_uv))
    s = outs[1] if compute_uv else outs[0]
    raise_if(apply(np.logical_or, failed(s, a), _any_nan(a)), "SVD did not converge")
    if not compute_uv:
        return cast_to(s, real_dtype(rt))
    u, s, vh = outs
    return SVDResult(cast_to(u, rt), cast_to(s, real_dtype(rt)), cast_to(vh, rt))


@implements(np.linalg.svd, family=FAMILY, notes="LAPACK gesdd via JAX; singular-vector "
            "signs may differ from NumPy's; hermitian=True computes the general SVD "
            "(same singular values, another valid U, Vh); a NaN input gives NaN (NumPy "
            "raises LinAlgError)")
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    a = asarray(a)
    full_matrices = static(full_matrices, "full_matrices")
    compute_uv = static(compute_uv, "compute_uv")
    static(hermitian, "hermitian")
    assert_stacked_2d(a)
    common_type(a)
    if a.size == 0:
        return shape_only(np.linalg.svd, a, full_matrices, compute_uv)
    return _svd(a, full_matrices, compute_uv)


@implements(np.linalg.svdvals, family=FAMILY)
def svdvals(x, /):
    return svd(x, compute_uv=False)


@implements(np.linalg.pinv, family=FAMILY, notes="hermitian=True uses the general SVD")
def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    a = asarray(a)
    if rcond is None:
        if rtol is np._NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    static(hermitian, "hermitian")
    rcond = asarray(rcond)
    if is_empty_2d(a):
        m, n = a.shape[-2:]
        return full(0, a.dtype, a.shape[:-2] + (n, m))
    u, s, vt = svd(conj(a), full_matrices=False)
    cutoff = apply(np.multiply, apply(np.expand_dims, rcond, -1),
                 apply(np.amax, s, axis=-1, keepdims=True))
    large = apply(np.greater, s, cutoff)
    s = apply(np.where, large, apply(np.divide, 1, s), 0)
    s = cast_to(s, real_dtype(u.dtype))
    return apply(np.matmul, mT(vt), apply(np.multiply, apply(np.expand_dims, s, -1), mT(u)))


@implements(np.linalg.matrix_rank, family=FAMILY,
            notes="a 1-d input gives a traced 0/1 Python int")
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = asarray(A)
    static(hermitian, "hermitian")
    if A.ndim < 2:
        nonzero = apply(np.logical_not, apply(np.all, apply(np.equal, A, 0)))
        return cast_to(nonzero, np.int64, weak=True)
    if A.size == 0:
        return shape_only(np.linalg.matrix_rank, A, tol, hermitian, rtol=rtol)
    S_ = svd(A, compute_uv=False)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * np.finfo(S_.dtype).eps
        else:
            rtol = apply(np.expand_dims, asarray(rtol), -1)
        tol = apply(np.multiply, apply(np.max, S_, axis=-1, keepdims=True, initial=0), rtol)
    else:
        tol = apply(np.expand_dims, asarray(tol), -1)
    return apply(np.count_nonzero, apply(np.greater, S_, tol), axis=-1)


@implements(np.linalg.lstsq, family=FAMILY,
            notes="SVD-based; residuals has shape (K,) whenever M > N, also for a "
                  "rank-deficient a (NumPy then returns an empty array)")
def lstsq(a, b, rcond=None):
    """NumPy's (LAPACK gelsd's) minimum-norm least squares through the SVD: singular
    values at or below `rcond * s_max` count as zero (`rcond < 0`: machine precision;
    None: eps * max(M, N)); returns (x, residuals, rank, s) with residuals the squared
    2-norms of each column's residual when M > N, an empty array otherwise; a 1-d `b`
    gives a 1-d `x`."""
    a, b = asarray(a), asarray(b)
    is_1d = b.ndim == 1
    bm = S.reshape(b, shape=b.shape + (1,)) if is_1d else b
    for x in (a, bm):
        if x.ndim != 2:
            raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be "
                              "two-dimensional")
    m, n = a.shape
    m2, k = bm.shape
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    t, rt = common_type(a, b)
    real_t, real_rt = real_dtype(t), real_dtype(rt)
    if rcond is None:
        rcond = np.finfo(t).eps * max(n, m)
    if a.size == 0:
        return shape_only(np.linalg.lstsq, a, b, static(rcond, "rcond"))
    at, bt = cast_to(a, t), cast_to(bm, t) if k else full(0, t, (m, 1))
    u, s, vh = borrow("svd", at, full_matrices=False, compute_uv=True)
    raise_if(failed(s, at), "SVD did not converge in Linear Least Squares")
    # LAPACK gelsd: singular values <= rcond * s_max count as zero; rcond < 0 means
    # the machine precision
    rcond = cast_to(asarray(rcond), real_t)
    rcond = apply(np.where, apply(np.less, rcond, 0), np.finfo(real_t).eps / 2, rcond)
    cutoff = apply(np.multiply, rcond, last_entry(s, 0))
    keep = apply(np.greater, s, cutoff)
    rank = cast_to(apply(np.sum, keep), np.int32)
    sinv = cast_to(apply(np.where, keep, apply(np.divide, 1, s), 0), t)
    coef = apply(np.multiply, mm(mH(u), bt), apply(np.expand_dims, sinv, -1))
    x = mm(mH(vh), coef)
    if m > n and k:
        r = apply(np.subtract, bt, mm(at, x))
        resid = apply(np.sum, apply(np.square, apply(np.abs, r)), axis=0)
    else:
        resid = full(0, real_t, (0,))
    if not k:
        x = full(0, t, (n, 0))
    if is_1d:
        x = S.reshape(x, shape=(n,))
    return (cast_to(x, rt), cast_to(resid, real_rt), rank, cast_to(s, real_rt))
