"""scipy.linalg's decompositions on traced arrays: qr, svd, eigh (standard and generalized)
and pinv, with SciPy's values, dtypes and errors, on the helpers of `linalg` (whose
docstring lists where results may differ from SciPy's).
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.borrowed import borrow
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.linalg.linalg_common import (apply, bcast_batch, eye_like, mH)
from npxla.runtime.numpy.reductions.reductions import asarray, full, static
from npxla.runtime.numpy.scipy.lapack import (lapack_dtype, real_of, trsm, validated, where,
                                              zero_size_batch)
from npxla.runtime.numpy.scipy.linalg import _check, _factor, _pack, _reg, _symmetric_from, _tri


# --- QR, SVD, eigh, pinv --------------------------------------------------------------------

@_reg("qr", "borrowed Householder QR (LAPACK geqrf/orgqr); modes 'full', 'economic', "
      "'r' (a 1-tuple, as SciPy returns), 'raw' (not for stacks, as SciPy); pivoting=True "
      "not supported")
def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    mode = static(mode, "mode")
    if mode not in ("full", "qr", "r", "economic", "raw"):
        raise ValueError("Mode argument should be one of ['full', 'r', 'economic', 'raw']")
    if static(pivoting, "pivoting"):
        raise UnsupportedFunctionError("scipy.linalg.qr(pivoting=True) is not supported",
                                       hint="use pivoting=False")
    a = validated(a, check_finite)
    if a.ndim < 2:
        raise ValueError("expected a 2-D array")
    zero_size_batch("qr", a.shape[:-2])
    t = lapack_dtype(a)
    a = cast_to(a, t)
    m, n = a.shape[-2:]
    k = min(m, n)
    nd = a.shape[:-2]
    if a.size == 0:
        if mode in ("economic", "raw"):
            q, r = full(0, t, nd + (m, k)), full(0, t, nd + (k, n))
        else:
            q, r = eye_like(nd, m, t), full(0, t, nd + (m, n))
        if mode == "r":
            return (r,)
        if mode == "raw":
            return ((full(0, t, nd + (m, n)), full(0, t, nd + (k,))), r)
        return q, r
    if mode == "raw" and nd:
        raise ValueError("setting an array element with a sequence. The requested array has "
                         f"an inhomogeneous shape after {len(nd)} dimensions.")
    if mode in ("r", "raw"):
        h, tau = borrow("geqrf", a)
        if mode == "raw" and m >= n:
            r = _tri(S.static_slice(h, start=(0,) * a.ndim, limit=nd + (n, n),
                                    strides=(1,) * a.ndim), False)
        else:
            r = _tri(h, False)
        return (r if nd else (r,)) if mode == "r" else ((h, tau), r)
    q, r = borrow("qr", a, full_matrices=mode != "economic")
    return _pack(nd, q, r)


@_reg("svd", "borrowed LAPACK gesdd (lapack_driver='gesvd' gives the same values); "
      "singular-vector signs follow the LAPACK routine")
def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    full_matrices, compute_uv = bool(static(full_matrices, "full_matrices")), \
        bool(static(compute_uv, "compute_uv"))
    a = validated(a, check_finite)
    if a.ndim < 2:
        raise ValueError("expected matrix")
    driver = static(lapack_driver, "lapack_driver")
    if not isinstance(driver, str):
        raise TypeError("lapack_driver must be a string")
    if driver not in ("gesdd", "gesvd"):
        raise ValueError(f'lapack_driver must be "gesdd" or "gesvd", not "{driver}"')
    zero_size_batch("svd", a.shape[:-2])
    t = lapack_dtype(a)
    rt = real_of(t)
    m, n = a.shape[-2:]
    nd = a.shape[:-2]
    if a.size == 0:
        s = full(0, rt, nd + (0,))
        if not compute_uv:
            return s
        if full_matrices:
            return eye_like(nd, m, t), s, eye_like(nd, n, t)
        return full(0, t, nd + (m, 0)), s, full(0, t, nd + (0, n))
    outs = borrow("svd", cast_to(a, t), full_matrices=full_matrices, compute_uv=compute_uv)
    s = outs[1] if compute_uv else outs[0]
    _check(_any_nan(s), "SVD did not converge")
    return _pack(nd, *outs) if compute_uv else s


def _any_nan(x):
    return apply(np.any, apply(np.isnan, x))


_EIGH_DRIVERS = ("ev", "evd", "evr", "evx", "gv", "gvd", "gvx")


@_reg("eigh", "borrowed LAPACK syevd/heevd (any driver); b: type 1 through the Cholesky "
      "factor of b; subset_by_index (static); eigenvector signs follow the LAPACK routine")
def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         type=1, check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    lower, eigvals_only = bool(static(lower, "lower")), bool(static(eigvals_only,
                                                                   "eigvals_only"))
    driver = static(driver, "driver")
    if driver is not None and driver not in _EIGH_DRIVERS:
        raise ValueError(f'"{driver}" is unknown. Possible values are "None", "ev", "evd", '
                         '"evr", "evx", "gv", "gvd", "gvx".')
    if subset_by_value is not None:
        raise UnsupportedFunctionError(
            "scipy.linalg.eigh(subset_by_value=...) returns a data-dependent number of "
            "eigenvalues", hint="compute all eigenvalues and select them with a mask")
    a = validated(a, check_finite)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError('expected square "a" matrix')
    if b is None and driver in ("gv", "gvd", "gvx"):
        raise ValueError(f"{driver} requires input b array to be supplied for generalized "
                         "eigenvalue problems.")
    t = lapack_dtype(a) if b is None else lapack_dtype(a, asarray(b))
    n = a.shape[-1]
    batch = a.shape[:-2]
    if b is not None:
        b = validated(b, check_finite)
        if b.ndim < 2 or b.shape[-2:] != a.shape[-2:]:
            raise ValueError(f"wrong b dimensions {b.shape[-2:]}, should be {a.shape[-2:]}")
        batch = np.broadcast_shapes(batch, b.shape[:-2])
        if static(type, "type") not in (1, 2, 3):
            raise ValueError("'type' keyword must be 1, 2 or 3")
        if static(type, "type") != 1:
            raise UnsupportedFunctionError("scipy.linalg.eigh(b, type=2 or 3) is not "
                                           "supported", hint="use type=1")
    zero_size_batch("eigh", batch)
    lo, hi = 0, n - 1
    if subset_by_index is not None:
        lo, hi = (int(static(v, "subset_by_index")) for v in subset_by_index)
        if not 0 <= lo <= hi < n:
            raise ValueError("Requested eigenvalue indices are not valid. Valid range is "
                             f"[0, {n - 1}] and start <= end, but start={lo}, end={hi} is "
                             "given")
    if n == 0:
        w = full(0, real_of(t), batch + (0,))
        return w if eigvals_only else (w, full(0, t, batch + (0, 0)))
    a = bcast_batch(cast_to(a, t), batch, 2)
    if b is not None:
        bt = _symmetric_from(bcast_batch(cast_to(b, t), batch, 2), lower, True)
        c, info = _factor(bt, True, need_info=True)
        _check(apply(np.greater, info, 0), "The leading minor of order {} of B is not "
               "positive definite. The factorization of B could not be completed and no "
               "eigenvalues or eigenvectors were computed.", payload=info)
        full_a = _symmetric_from(a, lower, True)
        y = trsm(c, full_a, True)                                 # L^-1 A
        a = mH(trsm(c, mH(y), True))                              # L^-1 A L^-H
        lower = True
    v, w = borrow("eigh", a, lower=lower)
    if b is not None:
        v = trsm(c, v, True, trans="ADJOINT")                     # x = L^-H y
    _check(_any_nan(w), "eigh did not converge")
    if (lo, hi) != (0, n - 1):
        w = S.static_slice(w, start=(0,) * w.ndim, limit=w.shape[:-1] + (hi + 1,),
                           strides=(1,) * w.ndim)
        w = S.static_slice(w, start=(0,) * (w.ndim - 1) + (lo,), limit=w.shape,
                           strides=(1,) * w.ndim)
        v = S.static_slice(v, start=(0,) * (v.ndim - 1) + (lo,),
                           limit=v.shape[:-1] + (hi + 1,), strides=(1,) * v.ndim)
    return w if eigvals_only else _pack(batch, w, v)


@_reg("pinv", "through the SVD with SciPy's cutoff atol + rtol * max(s)")
def pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    a = validated(a, check_finite)
    if a.ndim < 2:
        raise ValueError("expected matrix")
    u, s, vh = svd(a, full_matrices=False, check_finite=False)
    rt = s.dtype
    m, n = a.shape[-2:]
    atol = 0.0 if atol is None else atol
    rtol = max(m, n) * np.finfo(rt).eps if rtol is None else rtol
    for v in (atol, rtol):
        if isinstance(v, (int, float)) and v < 0:
            raise ValueError("atol and rtol values must be positive.")
        if not isinstance(v, (int, float)):
            _check(apply(np.any, apply(np.less, v, 0)),
                   "atol and rtol values must be positive.", error=ValueError)
    smax = apply(np.max, s, axis=-1, keepdims=True, initial=0.0)
    val = apply(np.add, atol, apply(np.multiply, smax, rtol))
    keep = apply(np.greater, s, val)
    sinv = cast_to(where(keep, apply(np.divide, 1, where(keep, s, 1)), 0), u.dtype)
    B = mH(apply(np.matmul, apply(np.multiply, u, apply(np.expand_dims, sinv, -2)), vh))
    if static(return_rank, "return_rank"):
        return _pack(a.shape[:-2], B, apply(np.sum, keep, axis=-1))
    return B
