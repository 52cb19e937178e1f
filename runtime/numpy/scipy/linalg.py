"""scipy.linalg on traced arrays, with SciPy's values, dtypes and errors.

Registered by name (`registry.implements_lazy`), found once the user's code imports
scipy.linalg; nothing here imports SciPy. Built on what np.linalg uses (the borrowed
LAPACK/cuSOLVER factorizations of runtime/lowering/borrowed.py, StableHLO's cholesky and
triangular_solve) but with SciPy's rules: single precision stays single precision
(SciPy calls LAPACK's s/c routines), 8/16-bit integers and bool compute in float32,
`check_finite` raises ValueError after the call, and LinAlgError (numpy.linalg's, which
scipy.linalg re-exports) carries SciPy's messages. Batched (stacked) inputs work where
SciPy 1.17 accepts them. Helpers shared with scipy.linalg.lapack: `lapack`;
expm: `expm`; qr, svd, eigh and pinv: `linalg_decompositions`.

Where the results may differ from SciPy's:
  - values within rounding (XLA's products and solves), not bit for bit; eigenvector
    and singular-vector signs follow the borrowed LAPACK routine;
  - SciPy's LinAlgWarning for ill-conditioned matrices is not emitted;
  - the `overwrite_*` flags are accepted and ignored (SciPy documents the overwritten
    argument's contents as unspecified);
  - the 'slice(s) [...]' of inv/solve's singular message is always "[0]" (SciPy 1.17
    also numbers the failing slices from 0 in its list, so one failing slice reads the
    same);
  - on the CPU, cholesky/cho_factor/solve_triangular/cho_solve (and solve's 'pos',
    triangular and tridiagonal structures) call SciPy's own LAPACK/BLAS routines
    (borrowed through jaxlib): SciPy's bits and its `info`. On other platforms a
    non-positive-definite matrix's leading minor comes from an unblocked Cholesky run
    only when XLA's factor fails, and on matrices at the edge of definiteness XLA's
    Cholesky and LAPACK's potrf may disagree (Hilbert(13));
  - with `check_finite=False` and non-finite input (which SciPy documents as undefined:
    "may result in problems (crashes, non-termination)") the values are not SciPy's.
Stacked inputs to the functions SciPy runs slice by slice (`_apply_over_batch`) come back
as SciPy returns them: a list of stacked outputs (qr(mode='r'): an array).
"""
from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.borrowed import has_lapack
from npxla.runtime.lowering.linalg_ops import cholesky_factor
from npxla.runtime.numpy.core import errorflags
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.linalg.linalg_common import (apply, bcast_batch, eye_like, iota, mH,
                                                      mT, matrix_diagonal)
from npxla.runtime.numpy.reductions.reductions import asarray, full, static
from npxla.runtime.numpy.core.registry import implements_lazy
from npxla.runtime.numpy.scipy.lapack import (
    FAMILY, cdsz_dtype, cholesky_info, gtsv, if_else, lapack_dtype, lu_factors,
    lu_solve_perm, permute_rows, pivots_to_permutation, real_of, trsm, validated, where,
    zero_diagonal, zero_size_batch)


_SINGULAR = "A singular matrix detected: slice(s) [0] are singular."


def _reg(name, notes=""):
    return implements_lazy("scipy.linalg." + name, family=FAMILY, notes=notes)


def _check(flag, message, error=LinAlgError, payload=None):
    errorflags.check(flag, message, error=error, payload=payload)


def _any_last2(x):
    return apply(np.any, x, axis=(-2, -1))


def _tri(x, lower, k=0):
    return apply(np.tril if lower else np.triu, x, k)


def _symmetric_from(a, lower, hermitian):
    """The symmetric (Hermitian) matrix that `a`'s lower (upper) triangle stands for."""
    t = _tri(a, lower)
    other = mH(t) if hermitian else mT(t)
    full_ = apply(np.add, t, _tri(other, not lower, 1 if lower else -1))
    if hermitian and a.dtype.kind == "c":      # LAPACK ignores the diagonal's imaginary part
        d = apply(np.real, matrix_diagonal(a))
        eye = eye_like(a.shape[:-2], a.shape[-1], np.bool_)
        full_ = where(eye, cast_to(apply(np.expand_dims, d, -1), a.dtype), full_)
    return full_


def _triangular_kind(a):
    """(lower, upper) per matrix: SciPy's structure detection (bandwidth)."""
    lower = apply(np.logical_not, _any_last2(apply(np.not_equal, _tri(a, False, 1), 0)))
    upper = apply(np.logical_not, _any_last2(apply(np.not_equal, _tri(a, True, -1), 0)))
    return lower, upper


_INV_STRUCTURES = {None: "auto", "general": "gen", "gen": "gen", "diagonal": "diag",
                   "upper triangular": "upper", "lower triangular": "lower", "pos": "pos",
                   "sym": "sym", "her": "her"}
_SOLVE_STRUCTURES = dict(_INV_STRUCTURES, **{
    "tridiagonal": "tri", "positive definite": "pos", "symmetric": "sym",
    "hermitian": "her", "banded": "banded"})


def _structured_solve(kind, a, b, lower, transposed=False):
    """x with a x = b (`transposed`: a^T x = b, for the structures SciPy transposes) for
    (..., n, n) `a` and (..., n, k) `b` of one batch shape, and the per-matrix singular
    flag, as SciPy's batched solver decides them."""
    if transposed and kind in ("auto", "gen", "tri"):
        a = mT(a)
    if kind in ("upper", "lower"):
        low = kind == "lower"
        return trsm(a, b, low, trans="TRANSPOSE" if transposed else "NO_TRANSPOSE"), \
            zero_diagonal(a)
    if kind == "diag":
        d = matrix_diagonal(a)
        return apply(np.divide, b, apply(np.expand_dims, d, -1)), zero_diagonal(a)
    if kind == "pos":
        low = bool(lower)
        c, info = _factor(a, low)
        y = trsm(c, b, low, trans="NO_TRANSPOSE" if low else "ADJOINT")
        x = trsm(c, y, low, trans="ADJOINT" if low else "NO_TRANSPOSE")
        if info is None:
            return x, apply(np.logical_not, _positive_diagonal(c))
        return x, apply(np.not_equal, info, 0)
    if kind == "tri":
        n = a.shape[-1]
        shape = a.shape[:-2]
        flat = int(np.prod(shape, dtype=np.int64))
        dia = [S.reshape(apply(np.diagonal, a, k, -2, -1), shape=(flat, n - abs(k)))
               for k in (-1, 0, 1)]
        *_, x, info = gtsv(*dia, S.reshape(b, shape=(flat,) + b.shape[-2:]))
        return S.reshape(x, shape=b.shape), S.reshape(apply(np.not_equal, info, 0),
                                                      shape=shape)
    if kind in ("sym", "her"):
        a = _symmetric_from(a, bool(lower), kind == "her")
    lu, _, perm = lu_factors(a)
    x = lu_solve_perm(lu, perm, b)
    singular = zero_diagonal(lu)
    if kind == "auto":      # triangular matrices: singular when a diagonal entry is zero
        lo, up = _triangular_kind(a)
        singular = where(apply(np.logical_or, lo, up), zero_diagonal(a), singular)
    return x, singular


def _pack(batch, *outs):
    """SciPy's `_apply_over_batch`: a batch's outputs come back as a list, each stacked
    (a Python value becomes an array of the batch shape); one matrix's as a tuple."""
    if not batch:
        return tuple(outs)
    return [o if isinstance(o, AbstractArray) else as_abstract(np.full(batch, o))
            for o in outs]


def _positive_diagonal(c):
    """Whether a Cholesky factor is complete: every pivot > 0 (NaN fails too)."""
    return apply(np.all, apply(np.greater, apply(np.real, matrix_diagonal(c)), 0), axis=-1)


# --- inv, solve, solve_triangular, solve_banded ----------------------------------------------

@_reg("inv", "LU (borrowed LAPACK getrf) in the input's precision; SciPy's structure "
      "detection decides singularity (triangular: a zero diagonal entry); a singular "
      "matrix raises LinAlgError after the call; no LinAlgWarning")
def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    a = validated(a, check_finite)
    if a.ndim < 2:
        raise ValueError(f"Expected at least ndim=2, got a1.ndim={a.ndim}")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected square matrix, got a1.shape={a.shape}")
    t = lapack_dtype(a)
    if a.size == 0:
        return full(0, t, a.shape)
    kind = _INV_STRUCTURES[static(assume_a, "assume_a")]
    a = cast_to(a, t)
    n = a.shape[-1]
    if kind == "diag":      # SciPy 1.17 inverts the diagonal in place, off-diagonal kept
        eye = eye_like(a.shape[:-2], n, np.bool_)
        x = where(eye, apply(np.divide, 1, a), a)
        _check(zero_diagonal(a), _SINGULAR)
        return x
    x, singular = _structured_solve(kind, a, eye_like(a.shape[:-2], n, t),
                                    static(lower, "lower"))
    _check(singular, _SINGULAR)
    if kind == "auto":          # exact zeros where SciPy's triangular inverse has them
        lo, up = _triangular_kind(a)
        e = lambda f: S.reshape(f, shape=f.shape + (1, 1))       # noqa: E731
        x = where(e(lo), _tri(x, True), where(e(up), _tri(x, False), x))
    return x


@_reg("solve", "SciPy's structures (assume_a None, 'gen', 'diagonal', 'upper/lower "
      "triangular', 'pos', 'sym', 'her', 'tridiagonal'; not 'banded'); broadcast batches; "
      "a singular matrix raises LinAlgError after the call; no LinAlgWarning")
def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False):
    assume_a = static(assume_a, "assume_a")
    kind = _SOLVE_STRUCTURES.get(assume_a) if isinstance(assume_a, (str, type(None))) \
        else None
    if kind is None:
        raise ValueError(f"{assume_a} is not a recognized matrix structure")
    if kind == "banded":
        raise UnsupportedFunctionError(
            "scipy.linalg.solve(assume_a='banded') is not supported",
            hint="pass the bands to scipy.linalg.solve_banded, or leave assume_a out")
    a, b = validated(a, check_finite), validated(b, check_finite)
    if a.ndim < 2:
        a = S.reshape(a, shape=(1,) * (2 - a.ndim) + a.shape)
    if b.ndim < 1:
        b = S.reshape(b, shape=(1,))
    t = cdsz_dtype(a, b)
    a, b = cast_to(a, t), cast_to(b, t)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected square matrix, got a1.shape={a.shape}")
    if t.kind == "c" and static(transposed, "transposed"):
        raise NotImplementedError("scipy.linalg.solve can currently not solve a^T x = b "
                                  "or a^H x = b for complex matrices.")
    vector = b.ndim == 1
    if vector:
        b = S.reshape(b, shape=b.shape + (1,))
    scalar = a.size == 1
    if b.shape[-2] != a.shape[-1] and not scalar:
        raise ValueError(f"incompatible shapes: a1.shape={a.shape} and b1.shape={b.shape}")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = bcast_batch(a, batch, 2), bcast_batch(b, batch, 2)
    if a.size == 0 or b.size == 0:
        x = full(0, t, b.shape)
    elif scalar:
        _check(apply(np.equal, a, 0), "A singular matrix detected.")
        x = apply(np.divide, b, a)
    else:
        x, singular = _structured_solve(kind, a, b, static(lower, "lower"),
                                        bool(static(transposed, "transposed")))
        _check(singular, _SINGULAR)
    return S.reshape(x, shape=x.shape[:-1]) if vector else x


def _batched(name, a, core_a, b):
    """SciPy's `_apply_over_batch` for (a with `core_a` core axes, b 1|2 core axes):
    (a, b broadcast to one batch, b made 2-D, whether b was a vector)."""
    vector = b.ndim < 2
    b2 = S.reshape(b, shape=b.shape + (1,)) if vector else b
    batch = np.broadcast_shapes(a.shape[:a.ndim - core_a], b2.shape[:-2]) \
        if not vector else a.shape[:a.ndim - core_a]
    zero_size_batch(name, batch)
    return bcast_batch(a, batch, core_a), bcast_batch(b2, batch, 2), vector, batch


_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def _trans(trans):
    trans = static(trans, "trans")
    if trans not in _TRANS:
        raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    return _TRANS[trans]


@_reg("solve_triangular", "BLAS trsm on the CPU (StableHLO triangular_solve elsewhere); a zero diagonal entry raises "
      "SciPy's LinAlgError (naming it) after the call")
def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    a, b = validated(a, check_finite), validated(b, check_finite)
    trans, lower, unit = _trans(trans), bool(static(lower, "lower")), \
        bool(static(unit_diagonal, "unit_diagonal"))
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("expected square matrix")
    if b.ndim == 0 or b.shape[-2 if b.ndim >= 2 else 0] != a.shape[-1]:
        raise ValueError(f"shapes of a {a.shape[-2:]} and b {b.shape[-2:]} are "
                         "incompatible")
    t = lapack_dtype(a, b)
    a, b2, vector, _ = _batched("solve_triangular", a, 2, b)
    if b.size == 0:
        return full(0, t, b.shape)
    a, b2 = cast_to(a, t), cast_to(b2, t)
    if not unit:
        zero = apply(np.equal, matrix_diagonal(a), 0)
        _check(zero, "singular matrix: resolution failed at diagonal {}",
               payload=apply(np.broadcast_to, iota((a.shape[-1],), 0), zero.shape))
    kind = ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"][trans]
    x = trsm(a, b2, lower, unit, kind)
    return S.reshape(x, shape=x.shape[:-1]) if vector else x


# --- Cholesky -------------------------------------------------------------------------------

def _square_2d(a, name):
    if a.ndim < 2:
        a = S.reshape(a, shape=(1,) * (2 - a.ndim) + a.shape)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError("Input array is expected to be square but has the shape: "
                         f"{a.shape[-2:]}.")
    zero_size_batch(name, a.shape[:-2])
    return a


def _potrf_info(a, c, lower):
    """LAPACK's info for the factor `c` of `a`: computed only where XLA's factor failed."""
    bad = apply(np.logical_not, apply(np.greater, apply(np.real, matrix_diagonal(c)), 0))
    zeros = full(0, np.int32, a.shape[:-2])
    (info,) = if_else(apply(np.any, bad), lambda: [cholesky_info(a, lower)],
                      lambda: [zeros], [zeros])
    return info


def _factor(a, lower, need_info=False):
    """(factor in its triangle, garbage elsewhere; potrf's info or None): LAPACK potrf on
    the CPU; elsewhere XLA's cholesky (and, `need_info`, potrf's info from a staged
    unblocked Cholesky where XLA's factor failed)."""
    if a.dtype.kind == "c" and not has_lapack(a.dtype):   # potrf reads the diagonal's
        a = _symmetric_from(a, lower, True)               # real part only
    c, info = cholesky_factor(a, lower)
    if info is None and need_info:
        info = _potrf_info(a, c, lower)
    return c, info


def _cholesky(a, lower):
    """(factor in its triangle, garbage elsewhere; a cast) with SciPy's error."""
    t = lapack_dtype(a)
    a = cast_to(a, t)
    c, info = _factor(a, lower, need_info=True)
    _check(apply(np.greater, info, 0), "{}-th leading minor of the array is not positive "
           "definite", payload=info)
    return c, a


@_reg("cholesky", "LAPACK potrf on the CPU (stablehlo.cholesky elsewhere) in the input's precision; upper factor by default; "
      "a matrix that is not positive definite raises SciPy's LinAlgError (naming the "
      "leading minor) after the call")
def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    lower = bool(static(lower, "lower"))
    a = _square_2d(validated(a, check_finite), "cholesky")
    if a.size == 0:
        return full(0, lapack_dtype(a), a.shape)
    c, _ = _cholesky(a, lower)
    return _tri(c, lower)


@_reg("cho_factor", "the factor in the chosen triangle, the input's other triangle kept "
      "(as LAPACK potrf leaves it)")
def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    low = bool(static(lower, "lower"))
    a = _square_2d(validated(a, check_finite), "cho_factor")
    if a.size == 0:
        return full(0, lapack_dtype(a), a.shape), lower
    c, a = _cholesky(a, low)
    return _pack(a.shape[:-2], apply(np.add, _tri(c, low), _tri(a, not low, 1 if low else -1)),
                 lower)


@_reg("cho_solve", "two triangular solves with the factor's triangle")
def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = c_and_lower
    lower = bool(np.ravel(static(lower, "lower"))[0])     # a batch's lowers: the first
    c, b = asarray(c), asarray(b)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2]:
        raise ValueError("The factored matrix c is not square.")
    c, b2, vector, _ = _batched("cho_solve", c, 2, b)
    c, b2 = validated(c, check_finite), validated(b2, check_finite)
    if b.ndim == 0 or b.shape[-2 if b.ndim >= 2 else 0] != c.shape[-1]:
        raise ValueError(f"incompatible dimensions ({c.shape[-2:]} and "
                         f"{b.shape[-2:] if b.ndim >= 2 else b.shape})")
    t = lapack_dtype(c, b)
    if b.size == 0:
        return full(0, lapack_dtype(c, b), b.shape)
    c, b2 = cast_to(c, t), cast_to(b2, t)
    y = trsm(c, b2, lower, trans="NO_TRANSPOSE" if lower else "ADJOINT")
    x = trsm(c, y, lower, trans="ADJOINT" if lower else "NO_TRANSPOSE")
    return S.reshape(x, shape=x.shape[:-1]) if vector else x


# --- LU ------------------------------------------------------------------------------------

def _lu_parts(a):
    """(L (.., m, k), U (.., k, n), perm) of a (.., m, n)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    lu, _, perm = lu_factors(a)
    lpart = S.static_slice(lu, start=(0,) * a.ndim, limit=a.shape[:-1] + (k,),
                           strides=(1,) * a.ndim)
    eye = eye_like(a.shape[:-2], max(m, k), a.dtype)
    eye = S.static_slice(eye, start=(0,) * a.ndim, limit=a.shape[:-2] + (m, k),
                         strides=(1,) * a.ndim)
    L = apply(np.add, _tri(lpart, True, -1), eye)
    U = _tri(S.static_slice(lu, start=(0,) * a.ndim, limit=a.shape[:-2] + (k, n),
                            strides=(1,) * a.ndim), False)
    return L, U, perm


@_reg("lu", "borrowed LAPACK getrf; P as SciPy builds it (A = P L U; p_indices: "
      "A = L[p] U)")
def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    permute_l, p_indices = bool(static(permute_l, "permute_l")), \
        bool(static(p_indices, "p_indices"))
    a = validated(a, check_finite)
    if a.ndim < 2:
        raise ValueError("The input array must be at least two-dimensional.")
    t = lapack_dtype(a)
    a = cast_to(a, t)
    *nd, m, n = a.shape
    nd, k = tuple(nd), min(m, n)
    rt = real_of(t)
    if min(a.shape) == 0:
        L, U = full(0, t, nd + (m, k)), full(0, t, nd + (k, n))
        if permute_l:
            return L, U
        return (full(0, np.int32, nd + (0,)) if p_indices else full(0, rt, nd + (0, 0))), L, U
    if (m, n) == (1, 1):
        one = apply(np.ones_like, a)
        if permute_l:
            return one, a
        return (full(0, np.int64, nd + (m,)) if p_indices else one), one, a
    L, U, perm = _lu_parts(a)
    if permute_l:
        return permute_rows(L, apply(np.argsort, perm, axis=-1)), U
    if p_indices:
        return cast_to(apply(np.argsort, perm, axis=-1), np.int32), L, U
    rows = iota(nd + (m, m), len(nd))
    P = apply(np.equal, rows, apply(np.expand_dims, perm, -2))     # P[perm[c], c] = 1
    return cast_to(P, rt), L, U


@_reg("lu_factor", "borrowed LAPACK getrf: LAPACK's packed factors and 0-based pivots "
      "(int32); no LinAlgWarning for an exactly singular matrix")
def lu_factor(a, overwrite_a=False, check_finite=True):
    a = validated(a, check_finite)
    if a.ndim < 2:
        raise UnsupportedFunctionError("scipy.linalg.lu_factor of a 1-d array",
                                       hint="pass a 2-d array")
    zero_size_batch("lu_factor", a.shape[:-2])
    if a.size == 0:
        return full(0, a.dtype, a.shape), full(0, np.int32, (0,))
    lu_, piv, _ = lu_factors(cast_to(a, lapack_dtype(a)))
    return _pack(a.shape[:-2], lu_, cast_to(piv, np.int32))


@_reg("lu_solve", "the pivots replayed as a staged loop, then two triangular solves")
def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    lu_, piv = lu_and_piv
    lu_, piv, b = asarray(lu_), asarray(piv), validated(b, check_finite)
    trans = _trans(trans)
    if lu_.ndim < 2 or lu_.shape[-1] != lu_.shape[-2]:
        raise ValueError("expected square matrix")
    if b.ndim == 0 or b.shape[-2 if b.ndim >= 2 else 0] != lu_.shape[-2]:
        raise ValueError(f"Shapes of lu {lu_.shape[-2:]} and b "
                         f"{b.shape[-2:] if b.ndim >= 2 else b.shape} are incompatible")
    t = lapack_dtype(lu_, b)
    if b.size == 0:
        return full(0, t, b.shape)
    vector = b.ndim < 2
    b2 = S.reshape(b, shape=b.shape + (1,)) if vector else b
    batch = np.broadcast_shapes(lu_.shape[:-2], piv.shape[:-1], b2.shape[:-2])
    zero_size_batch("lu_solve", batch)
    lu_, b2 = bcast_batch(cast_to(lu_, t), batch, 2), bcast_batch(cast_to(b2, t), batch, 2)
    perm = pivots_to_permutation(bcast_batch(piv, batch, 1), lu_.shape[-1])
    x = lu_solve_perm(lu_, cast_to(perm, np.int32), b2, trans)
    return S.reshape(x, shape=x.shape[:-1]) if vector else x
