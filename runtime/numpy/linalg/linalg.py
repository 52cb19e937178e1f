"""np.linalg's factorization-based routines: LU (solve, inv, det, slogdet, and
matrix_power / tensorinv / tensorsolve on top), Cholesky, QR and the eigensolvers.

`solve`, `inv`, `det` and `slogdet` are built on the borrowed LU (rows permuted with
take_along_axis, two triangular solves; det/slogdet from the LU diagonal as NumPy
does; on the CPU the triangular solves are BLAS trsm, so with getrf this is LAPACK's
gesv, NumPy's own algorithm, NaN/inf propagation included). Cholesky is LAPACK potrf on
the CPU (NumPy's routine: its `info` decides the error, not NaN in the factor). A
singular matrix, a matrix that is not positive definite or an eigensolver
that does not converge raises LinAlgError after the call (linalg_common.raise_if).
The dtype rules and helpers shared by the whole family are in linalg_common.py.
"""
from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError
from numpy.linalg._linalg import EigResult, EighResult, QRResult, SlogdetResult

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.linalg_ops import cholesky_factor, solve_triangular
from npxla.runtime.lowering.borrowed import borrow
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.linalg.linalg_common import (FAMILY, NOT_POSITIVE_DEFINITE_NOTE,
                                                      SINGULAR_NOTE, apply, assert_stacked_2d,
                                                      assert_stacked_square, bcast_batch,
                                                      common_type, eye_like, failed, int_arg, iota,
                                                      mT, matrix_diagonal, raise_if, real_dtype,
                                                      shape_only, square_operand)
from npxla.runtime.numpy.reductions.reductions import asarray, full, numpy_error, static
from npxla.runtime.numpy.core.registry import implements
from npxla.runtime.numpy.core.speculate import assume


# --- LU-based routines -----------------------------------------------------------------------

def _lu(a):
    """Borrowed LU of (..., n, n): (lu, pivots (0-based), permutation)."""
    return borrow("lu", a)


def _singular(lu):
    return apply(np.any, apply(np.equal, matrix_diagonal(lu), 0))


def _lu_solve(lu, perm, b):
    """Solve A x = b from A's LU (`perm`: A[perm] = L U); same batch shapes."""
    pb = apply(np.take_along_axis, b, S.reshape(perm, shape=perm.shape + (1,)), axis=-2)
    y = solve_triangular(lu, pb, lower=True, unit_diagonal=True)
    return solve_triangular(lu, y, lower=False)


def _solve(a, b, check=True):
    """a (A..., n, n), b (B..., n, k), both in the computation dtype: broadcast batch."""
    lu, _, perm = _lu(a)
    if check:
        raise_if(_singular(lu), "Singular matrix")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return _lu_solve(bcast_batch(lu, batch, 2), bcast_batch(perm, batch, 1),
                     bcast_batch(b, batch, 2))


@implements(np.linalg.solve, family=FAMILY,
            notes="LU (LAPACK/cuSOLVER via JAX) and two triangular solves; " + SINGULAR_NOTE)
def solve(a, b):
    a, b = asarray(a), asarray(b)
    assert_stacked_square(a)
    t, rt = common_type(a, b)
    n = a.shape[-1]
    vector = b.ndim == 1
    bm = S.reshape(b, shape=(n, 1)) if vector and b.shape[0] == n else b
    if bm.ndim < 2 or bm.shape[-2] != n:
        numpy_error(np.linalg.solve, a, b)
    try:
        batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    except ValueError:
        numpy_error(np.linalg.solve, a, b)
        raise
    if a.size == 0 or b.size == 0 or 0 in batch:
        return full(0, rt, batch + ((n,) if vector else bm.shape[-2:]))
    x = _solve(cast_to(a, t), cast_to(bm, t))
    if vector:
        x = S.reshape(x, shape=x.shape[:-1])
    return cast_to(x, rt)


def inverse(a, check=True):
    """Inverse of (..., n, n) in the computation dtype. A real 1 x 1 matrix is `1 / a`:
    LAPACK's LU and two triangular solves against the identity compute exactly that
    (the one pivot is `a`, and `1 * (1 / a)` or `1 / a` are the same number), and the
    three library calls were most of a small Kalman update (one scalar measurement)."""
    if a.shape[-1] == 1 and a.dtype.kind == "f":
        if check:
            raise_if(apply(np.equal, a, 0), "Singular matrix")
        return apply(np.divide, cast_to(1, a.dtype), a)
    return _solve(a, eye_like(a.shape[:-2], a.shape[-1], a.dtype), check)


@implements(np.linalg.inv, family=FAMILY,
            notes="LU solve against the identity; " + SINGULAR_NOTE)
def inv(a):
    a, rt, empty = square_operand(np.linalg.inv, a)
    return empty if empty is not None else cast_to(inverse(a), rt)


def _slogdet(a):
    """(sign, logabsdet) of (..., n, n) in the computation dtype (NumPy's formulas)."""
    lu, piv, _ = _lu(a)
    d = matrix_diagonal(lu)
    n = d.shape[-1]
    absd = apply(np.abs, d)
    logdet = apply(np.sum, apply(np.log, absd), axis=-1)
    swaps = apply(np.sum, apply(np.not_equal, piv, iota((n,), 0)), axis=-1)
    parity = apply(np.subtract, 1, apply(np.multiply, 2, apply(np.remainder, swaps, 2)))
    if d.dtype.kind == "c":
        unit = apply(np.divide, d, apply(np.where, apply(np.equal, absd, 0), 1, absd))
    else:
        unit = apply(np.sign, d)
    sign = apply(np.multiply, apply(np.prod, unit, axis=-1), cast_to(parity, d.dtype))
    singular = apply(np.any, apply(np.equal, d, 0), axis=-1)     # LAPACK's info > 0
    return apply(np.where, singular, cast_to(0, d.dtype), sign), logdet


@implements(np.linalg.slogdet, family=FAMILY)
def slogdet(a):
    a, rt, empty = square_operand(np.linalg.slogdet, a)
    if empty is not None:
        return empty
    sign, logdet = _slogdet(a)
    return SlogdetResult(cast_to(sign, rt), cast_to(logdet, real_dtype(rt)))


@implements(np.linalg.det, family=FAMILY, notes="sign * exp(logabsdet) from the LU, "
            "as NumPy computes it")
def det(a):
    a, rt, empty = square_operand(np.linalg.det, a)
    if empty is not None:
        return empty
    sign, logdet = _slogdet(a)
    return cast_to(apply(np.multiply, sign, apply(np.exp, logdet)), rt)


@implements(np.linalg.matrix_power, family=FAMILY)
def matrix_power(a, n):
    a = asarray(a)
    assert_stacked_square(a)
    n = int_arg(n, "the exponent n")
    if n == 0:
        return eye_like(a.shape[:-2], a.shape[-1], a.dtype)
    if n < 0:
        a = inv(a)
        n = -n
    z = result = None
    while n > 0:
        z = a if z is None else apply(np.matmul, z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else apply(np.matmul, result, z)
    return result


@implements(np.linalg.tensorinv, family=FAMILY)
def tensorinv(a, ind=2):
    a = asarray(a)
    ind = int_arg(ind, "ind", "ind must be an integer")
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    inv_shape = a.shape[ind:] + a.shape[:ind]
    prod = int(np.prod(a.shape[ind:], dtype=np.int64))
    if prod == 0 or a.size % prod:
        return shape_only(np.linalg.tensorinv, a, ind)
    ia = inv(S.reshape(a, shape=(prod, a.size // prod)))
    return S.reshape(ia, shape=inv_shape)


@implements(np.linalg.tensorsolve, family=FAMILY)
def tensorsolve(a, b, axes=None):
    a, b = asarray(a), asarray(b)
    axes = static(axes, "axes")
    if axes is not None:
        order = list(range(a.ndim))
        for k in (axes if isinstance(axes, (tuple, list)) else (axes,)):
            order.remove(k)
            order.insert(a.ndim, k)
        a = S.transpose(a, perm=tuple(order))
    old_shape = a.shape[-(a.ndim - b.ndim):]
    prod = int(np.prod(old_shape, dtype=np.int64))
    if a.size != prod ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    x = solve(S.reshape(a, shape=(prod, prod)), S.reshape(b, shape=(b.size,)))
    return S.reshape(x, shape=old_shape)


# --- Cholesky, QR ------------------------------------------------------------------------------

@implements(np.linalg.cholesky, family=FAMILY,
            notes="LAPACK potrf on the CPU (stablehlo.cholesky elsewhere); reads only the lower (upper=True: upper) triangle; "
                  + NOT_POSITIVE_DEFINITE_NOTE)
def cholesky(a, /, *, upper=False):
    upper = bool(static(upper, "upper"))
    a, rt, empty = square_operand(np.linalg.cholesky, a, upper=upper)
    if empty is not None:
        return empty
    r, info = cholesky_factor(a, lower=not upper)      # LAPACK potrf's info on the CPU
    raise_if(failed(r, a, 2) if info is None else apply(np.any, apply(np.not_equal, info, 0)),
             "Matrix is not positive definite")
    return cast_to(apply(np.triu if upper else np.tril, r), rt)


_QR_MODES = ("reduced", "complete", "r", "raw")


@implements(np.linalg.qr, family=FAMILY, notes="Householder QR (LAPACK geqrf/orgqr via "
            "JAX), the same algorithm as NumPy's, so signs match")
def qr(a, mode="reduced"):
    a = asarray(a)
    mode = static(mode, "mode")
    if mode not in _QR_MODES:
        if mode in ("f", "full", "e", "economic"):
            raise UnsupportedFunctionError(
                f"np.linalg.qr mode {mode!r} (deprecated in NumPy) is not supported",
                hint="use mode='reduced' or mode='raw'")
        raise ValueError(f"Unrecognized mode '{mode}'")
    assert_stacked_2d(a)
    t, rt = common_type(a)
    m, n = a.shape[-2:]
    if a.size == 0:
        return shape_only(np.linalg.qr, a, mode)
    at = cast_to(a, t)
    if mode == "raw":
        h, tau = borrow("geqrf", at)
        return cast_to(mT(h), rt), cast_to(tau, rt)
    q, r = borrow("qr", at, full_matrices=mode == "complete" and m > n)
    if mode == "r":
        return cast_to(r, rt)
    return QRResult(cast_to(q, rt), cast_to(r, rt))


# --- eigenvalues ---------------------------------------------------------------------------------

def _uplo(UPLO):
    UPLO = static(UPLO, "UPLO").upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "L"


def _eigh(fn, a, UPLO):
    """(eigenvalues, eigenvectors) in the result dtypes, or NumPy's result if empty."""
    lower = _uplo(UPLO)
    a, rt, empty = square_operand(fn, a, UPLO=UPLO)
    if empty is not None:
        return empty
    v, w = borrow("eigh", a, lower=lower)
    raise_if(failed(w, a), "Eigenvalues did not converge")
    return cast_to(w, real_dtype(rt)), cast_to(v, rt)


@implements(np.linalg.eigh, family=FAMILY,
            notes="LAPACK syevd/heevd via JAX; eigenvector signs may differ from NumPy's")
def eigh(a, UPLO="L"):
    return EighResult(*_eigh(np.linalg.eigh, a, UPLO))


@implements(np.linalg.eigvalsh, family=FAMILY)
def eigvalsh(a, UPLO="L"):
    w = _eigh(np.linalg.eigvalsh, a, UPLO)
    return w[0] if isinstance(w, tuple) else w


def _eig(a, name, vectors):
    """A real matrix's eigenvalues are complex in NumPy only when some is not real (its
    geev's imaginary parts are not all exactly 0): which it is depends on the data, so
    the program assumes real results and checks it when it runs (a run that finds a
    complex eigenvalue is staged again for complex results, `speculate.assume`)."""
    assert_stacked_square(a)
    t, rt = common_type(a)
    if a.size == 0:
        if a.dtype.kind != "c":
            _refuse_real_eig(name)
        return shape_only(getattr(np.linalg, name), a)
    at = cast_to(a, t)
    raise_if(apply(np.logical_not, apply(np.all, apply(np.isfinite, at))),
              "Array must not contain infs or NaNs")
    outs = borrow("eig", at, compute_right=vectors)
    raise_if(failed(outs[0], at), "Eigenvalues did not converge")
    if a.dtype.kind != "c":
        real = assume(apply(np.all, apply(np.equal, apply(np.imag, outs[0]), 0)))
        if real is None:
            _refuse_real_eig(name)
        ct = np.result_type(rt, np.complex64)
        outs = [cast_to(apply(np.real, o), rt) if real else cast_to(o, ct) for o in outs]
    else:
        outs = [cast_to(o, rt) for o in outs]
    return EigResult(*outs) if vectors else outs[0]


def _refuse_real_eig(name):
    raise UnsupportedFunctionError(
        f"np.linalg.{name} of a real matrix returns real or complex results depending "
        "on the data (complex only when some eigenvalue is not real), and a compiled "
        "program needs its dtypes in advance (it assumes them, and checks when it runs, "
        "only outside data-dependent branches and loops)",
        hint=f"pass a complex matrix, np.linalg.{name}(a.astype(complex)) (NumPy then "
             "returns complex results too), or use np.linalg.eigh / eigvalsh for a "
             "symmetric matrix")


@implements(np.linalg.eig, family=FAMILY, notes="LAPACK geev via JAX; for real input "
            "real results are assumed and checked when the program runs (complex ones: "
            "staged again), refused inside data-dependent branches and loops")
def eig(a):
    return _eig(asarray(a), "eig", True)


@implements(np.linalg.eigvals, family=FAMILY, notes="LAPACK geev via JAX; for real "
            "input real results are assumed and checked when the program runs (complex "
            "ones: staged again), refused inside data-dependent branches and loops")
def eigvals(a):
    return _eig(asarray(a), "eigvals", False)
