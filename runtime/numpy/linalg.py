"""np.linalg on abstract arrays, with NumPy 2's dtype, shape and error rules.

Dtypes: like NumPy (`_commonType`), every routine computes in float64 / complex128 and
casts the result back to float32 / complex64 for single-precision inputs; integer and
bool inputs give float64; float16 raises NumPy's TypeError. Stacked (batched) matrices
work wherever NumPy accepts them.

Lowering: products are `dot_general`; `cholesky` and `triangular_solve` are StableHLO
ops; LU, QR, the Hermitian eigensolver, SVD and the general eigensolver are borrowed
from JAX (runtime/lowering/borrowed.py: LAPACK on CPU, cuSOLVER on GPU). `solve`, `inv`,
`det` and `slogdet` are built on the borrowed LU (rows permuted with take_along_axis,
two triangular solves; det/slogdet from the LU diagonal as NumPy does); `lstsq`, `pinv`,
`matrix_rank`, `cond` and the 2/-2/nuc norms on the SVD. Inputs with a zero-size axis
are answered by NumPy itself (their results depend on shapes only).

Errors NumPy raises from LAPACK's status (`LinAlgError`: singular matrix, not positive
definite, no convergence, non-finite input to eig) are runtime flags computed on the
device and raised after the call, where the core's error flags accept an exception
class (see `_raise_if`).
"""
from __future__ import annotations

import inspect
import operator
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple
from numpy.linalg import LinAlgError

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.linalg_ops import cholesky as _cholesky, triangular_solve
from npxla.runtime.lowering.borrowed import borrow
from npxla.runtime.numpy import errorflags
from npxla.runtime.numpy.convert import cast_to
from npxla.runtime.numpy.products import contract
from npxla.runtime.numpy.reductions import asarray, full, numpy_error, static
from npxla.runtime.numpy.registry import dispatch, implements
from npxla.runtime.numpy.ufunc_core import store_out

_L = np.linalg._linalg       # NumPy's result namedtuples (SVDResult, EighResult, ...)
_FAMILY = "linalg"


def _np(fn, *args, **kwargs):
    """A registered NumPy function applied with NumPy's semantics."""
    return dispatch(fn, args, kwargs)


# --- dtypes and argument checks ---------------------------------------------------------------

def _common_type(*arrays):
    """(computation dtype, result dtype): NumPy's `_commonType`."""
    single, is_complex = True, False
    for a in arrays:
        dt = a.dtype
        if dt.kind in "fc":
            is_complex |= dt.kind == "c"
            if dt in (np.float64, np.complex128):
                single = False
            elif dt not in (np.float32, np.complex64):
                raise TypeError(f"array type {dt.name} is unsupported in linalg")
        else:
            single = False
    if is_complex:
        return np.dtype(np.complex128), np.dtype(np.complex64 if single else np.complex128)
    return np.dtype(np.float64), np.dtype(np.float32 if single else np.float64)


def _real(dtype):
    return np.dtype(np.dtype(dtype).type(0).real.dtype)


def _assert_stacked_2d(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")


def _assert_stacked_square(*arrays):
    _assert_stacked_2d(*arrays)
    for a in arrays:
        if a.shape[-1] != a.shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def _int(value, what, error="exponent must be an integer"):
    if isinstance(value, AbstractArray) and value.dtype.kind not in "iub":
        raise TypeError(error)
    value = static(value, what)
    try:
        return operator.index(value)
    except TypeError as e:
        raise TypeError(error) from e


def _square(fn, a, **kwargs):
    """(a in the computation dtype, result dtype, NumPy's result when `a` is empty or
    None) for the routines on stacked square matrices."""
    a = asarray(a)
    _assert_stacked_square(a)
    t, rt = _common_type(a)
    if a.size == 0:
        return a, rt, _shape_only(fn, a, **kwargs)
    return cast_to(a, t), rt, None


def _shape_only(fn, *arrays, **kwargs):
    """NumPy's own result for inputs with a zero-size axis (it depends on shapes only).

    The values are emitted as traced constants: a folded 0-d constant result would come
    back from the call as a 0-d ndarray instead of a NumPy scalar."""
    dummies = [np.zeros(a.shape, a.dtype) if isinstance(a, AbstractArray) else a
               for a in arrays]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = fn(*dummies, **kwargs)
    return _traced(result)


def _traced(tree):
    if isinstance(tree, tuple):
        items = [_traced(t) for t in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else tuple(items)
    value = np.asarray(tree)
    return AbstractArray(value.shape, value.dtype, ir=as_abstract(value).ir)


_CHECK_TAKES_ERROR = "error" in inspect.signature(errorflags.check).parameters


def _raise_if(flag, message):
    """`np.linalg.LinAlgError(message)` after the call when any element of `flag` is set.

    Needs `errorflags.check(flag, message, error=...)`; with a core whose error flags
    only raise IndexError, the check is left out and the result holds inf/NaN."""
    if _CHECK_TAKES_ERROR:
        errorflags.check(flag, message, error=LinAlgError)


_SINGULAR = ("a singular matrix raises LinAlgError after the call" if _CHECK_TAKES_ERROR else
             "a singular matrix gives inf/NaN (NumPy raises LinAlgError)")


def _failed(result, a, core=1):
    """LAPACK's `info` != 0 as NumPy reports it: NaN in the result (JAX's lowerings fill
    failed factorizations with NaN; XLA's cholesky gives NaN) of a *finite* matrix.
    Non-finite input gives NaN results without an error, as NumPy mostly does."""
    axes = tuple(range(result.ndim - core, result.ndim))
    bad = _np(np.any, _np(np.isnan, result), axis=axes)
    finite = _np(np.all, _np(np.isfinite, a), axis=(-2, -1))
    return _np(np.any, _np(np.logical_and, bad, finite))


# --- matrix helpers (abstract arrays in, abstract arrays out) -----------------------------

def _mT(x):
    """Swap the last two axes (no conjugation)."""
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return S.transpose(x, perm=perm)


def _conj(x):
    return _np(np.conjugate, x) if x.dtype.kind == "c" else x


def _mH(x):
    return _conj(_mT(x))


def _mm(a, b):
    """Batched matrix product of equal batch shapes, in a's dtype."""
    batch = tuple(range(a.ndim - 2))
    return contract(a, b, a.dtype, batch=(batch, batch), contract=((a.ndim - 1,), (a.ndim - 2,)))


def _bcast_batch(x, batch, core):
    """Broadcast x (trailing `core` axes kept) to batch + its core shape."""
    shape = tuple(batch) + x.shape[x.ndim - core:]
    if x.shape == shape:
        return x
    return S.broadcast_in_dim(x, shape=shape,
                              dims=tuple(range(len(shape) - x.ndim, len(shape))))


def _diagonal(x):
    """(..., n, n) -> (..., n)."""
    return _np(np.diagonal, x, axis1=-2, axis2=-1)


def _iota(shape, dim):
    return S.iota(shape=tuple(shape), dtype=np.int32, dim=dim)


def _eye_like(batch, n, dtype):
    eye = cast_to(_np(np.equal, _iota((n, n), 0), _iota((n, n), 1)), dtype)
    return _bcast_batch(eye, batch, 2)


def _last(x, index):
    """x[..., index] for a static index."""
    i = index % x.shape[-1]
    nb = x.ndim - 1
    out = S.static_slice(x, start=(0,) * nb + (i,), limit=x.shape[:-1] + (i + 1,),
                         strides=(1,) * x.ndim)
    return S.reshape(out, shape=x.shape[:-1])


# --- LU-based routines -----------------------------------------------------------------------

def _lu(a):
    """Borrowed LU of (..., n, n): (lu, pivots (0-based), permutation)."""
    return borrow("lu", a)


def _singular(lu):
    return _np(np.any, _np(np.equal, _diagonal(lu), 0))


def _lu_solve(lu, perm, b):
    """Solve A x = b from A's LU (`perm`: A[perm] = L U); same batch shapes."""
    pb = _np(np.take_along_axis, b, S.reshape(perm, shape=perm.shape + (1,)), axis=-2)
    y = triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True,
                         transpose_a="NO_TRANSPOSE")
    return triangular_solve(lu, y, left_side=True, lower=False, unit_diagonal=False,
                            transpose_a="NO_TRANSPOSE")


def _solve(a, b, check=True):
    """a (A..., n, n), b (B..., n, k), both in the computation dtype: broadcast batch."""
    lu, _, perm = _lu(a)
    if check:
        _raise_if(_singular(lu), "Singular matrix")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return _lu_solve(_bcast_batch(lu, batch, 2), _bcast_batch(perm, batch, 1),
                     _bcast_batch(b, batch, 2))


@implements(np.linalg.solve, family=_FAMILY,
            notes="LU (LAPACK/cuSOLVER via JAX) and two triangular solves; " + _SINGULAR)
def solve(a, b):
    a, b = asarray(a), asarray(b)
    _assert_stacked_square(a)
    t, rt = _common_type(a, b)
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


def _inv(a, check=True):
    """Inverse of (..., n, n) in the computation dtype."""
    return _solve(a, _eye_like(a.shape[:-2], a.shape[-1], a.dtype), check)


@implements(np.linalg.inv, family=_FAMILY, notes="LU solve against the identity; " + _SINGULAR)
def inv(a):
    a, rt, empty = _square(np.linalg.inv, a)
    return empty if empty is not None else cast_to(_inv(a), rt)


def _slogdet(a):
    """(sign, logabsdet) of (..., n, n) in the computation dtype (NumPy's formulas)."""
    lu, piv, _ = _lu(a)
    d = _diagonal(lu)
    n = d.shape[-1]
    absd = _np(np.abs, d)
    logdet = _np(np.sum, _np(np.log, absd), axis=-1)
    swaps = _np(np.sum, _np(np.not_equal, piv, _iota((n,), 0)), axis=-1)
    parity = _np(np.subtract, 1, _np(np.multiply, 2, _np(np.remainder, swaps, 2)))
    if d.dtype.kind == "c":
        unit = _np(np.divide, d, _np(np.where, _np(np.equal, absd, 0), 1, absd))
    else:
        unit = _np(np.sign, d)
    sign = _np(np.multiply, _np(np.prod, unit, axis=-1), cast_to(parity, d.dtype))
    singular = _np(np.any, _np(np.equal, d, 0), axis=-1)     # LAPACK's info > 0
    return _np(np.where, singular, cast_to(0, d.dtype), sign), logdet


@implements(np.linalg.slogdet, family=_FAMILY)
def slogdet(a):
    a, rt, empty = _square(np.linalg.slogdet, a)
    if empty is not None:
        return empty
    sign, logdet = _slogdet(a)
    return _L.SlogdetResult(cast_to(sign, rt), cast_to(logdet, _real(rt)))


@implements(np.linalg.det, family=_FAMILY, notes="sign * exp(logabsdet) from the LU, "
            "as NumPy computes it")
def det(a):
    a, rt, empty = _square(np.linalg.det, a)
    if empty is not None:
        return empty
    sign, logdet = _slogdet(a)
    return cast_to(_np(np.multiply, sign, _np(np.exp, logdet)), rt)


@implements(np.linalg.matrix_power, family=_FAMILY)
def matrix_power(a, n):
    a = asarray(a)
    _assert_stacked_square(a)
    n = _int(n, "the exponent n")
    if n == 0:
        return _eye_like(a.shape[:-2], a.shape[-1], a.dtype)
    if n < 0:
        a = inv(a)
        n = -n
    z = result = None
    while n > 0:
        z = a if z is None else _np(np.matmul, z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _np(np.matmul, result, z)
    return result


@implements(np.linalg.tensorinv, family=_FAMILY)
def tensorinv(a, ind=2):
    a = asarray(a)
    ind = _int(ind, "ind", "ind must be an integer")
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    inv_shape = a.shape[ind:] + a.shape[:ind]
    prod = int(np.prod(a.shape[ind:], dtype=np.int64))
    if prod == 0 or a.size % prod:
        return _shape_only(np.linalg.tensorinv, a, ind)
    ia = inv(S.reshape(a, shape=(prod, a.size // prod)))
    return S.reshape(ia, shape=inv_shape)


@implements(np.linalg.tensorsolve, family=_FAMILY)
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

@implements(np.linalg.cholesky, family=_FAMILY,
            notes="stablehlo.cholesky; reads only the lower (upper=True: upper) triangle; "
                  + ("a matrix that is not positive definite raises LinAlgError after the "
                     "call" if _CHECK_TAKES_ERROR else "a matrix that is not positive "
                     "definite gives NaN (NumPy raises LinAlgError)"))
def cholesky(a, /, *, upper=False):
    upper = bool(static(upper, "upper"))
    a, rt, empty = _square(np.linalg.cholesky, a, upper=upper)
    if empty is not None:
        return empty
    r = _cholesky(a, lower=not upper)
    _raise_if(_failed(r, a, 2), "Matrix is not positive definite")
    return cast_to(_np(np.triu if upper else np.tril, r), rt)


_QR_MODES = ("reduced", "complete", "r", "raw")


@implements(np.linalg.qr, family=_FAMILY, notes="Householder QR (LAPACK geqrf/orgqr via "
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
    _assert_stacked_2d(a)
    t, rt = _common_type(a)
    m, n = a.shape[-2:]
    if a.size == 0:
        return _shape_only(np.linalg.qr, a, mode)
    at = cast_to(a, t)
    if mode == "raw":
        h, tau = borrow("geqrf", at)
        return cast_to(_mT(h), rt), cast_to(tau, rt)
    q, r = borrow("qr", at, full_matrices=mode == "complete" and m > n)
    if mode == "r":
        return cast_to(r, rt)
    return _L.QRResult(cast_to(q, rt), cast_to(r, rt))


# --- eigenvalues ---------------------------------------------------------------------------------

def _uplo(UPLO):
    UPLO = static(UPLO, "UPLO").upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "L"


def _eigh(fn, a, UPLO):
    """(eigenvalues, eigenvectors) in the result dtypes, or NumPy's result if empty."""
    lower = _uplo(UPLO)
    a, rt, empty = _square(fn, a, UPLO=UPLO)
    if empty is not None:
        return empty
    v, w = borrow("eigh", a, lower=lower)
    _raise_if(_failed(w, a), "Eigenvalues did not converge")
    return cast_to(w, _real(rt)), cast_to(v, rt)


@implements(np.linalg.eigh, family=_FAMILY,
            notes="LAPACK syevd/heevd via JAX; eigenvector signs may differ from NumPy's")
def eigh(a, UPLO="L"):
    return _L.EighResult(*_eigh(np.linalg.eigh, a, UPLO))


@implements(np.linalg.eigvalsh, family=_FAMILY)
def eigvalsh(a, UPLO="L"):
    w = _eigh(np.linalg.eigvalsh, a, UPLO)
    return w[0] if isinstance(w, tuple) else w


def _eig(a, name, vectors):
    _assert_stacked_square(a)
    t, rt = _common_type(a)
    if a.dtype.kind != "c":
        raise UnsupportedFunctionError(
            f"np.linalg.{name} of a real matrix returns real or complex results depending "
            "on the data (complex only when some eigenvalue is not real), and a compiled "
            "program needs its dtypes in advance",
            hint=f"pass a complex matrix, np.linalg.{name}(a.astype(complex)) (NumPy then "
                 "returns complex results too), or use np.linalg.eigh / eigvalsh for a "
                 "symmetric matrix")
    if a.size == 0:
        return _shape_only(getattr(np.linalg, name), a)
    at = cast_to(a, t)
    _raise_if(_np(np.logical_not, _np(np.all, _np(np.isfinite, at))),
              "Array must not contain infs or NaNs")
    outs = borrow("eig", at, compute_right=vectors)
    _raise_if(_failed(outs[0], at), "Eigenvalues did not converge")
    outs = [cast_to(o, rt) for o in outs]
    return _L.EigResult(*outs) if vectors else outs[0]


@implements(np.linalg.eig, family=_FAMILY, notes="complex input only (for real input "
            "NumPy's result dtype depends on the data); LAPACK geev via JAX")
def eig(a):
    return _eig(asarray(a), "eig", True)


@implements(np.linalg.eigvals, family=_FAMILY, notes="complex input only (for real input "
            "NumPy's result dtype depends on the data); LAPACK geev via JAX")
def eigvals(a):
    return _eig(asarray(a), "eigvals", False)


# --- SVD and what builds on it ---------------------------------------------------------------

def _svd(a, full_matrices=True, compute_uv=True):
    """SVD in the result dtypes; `a` non-empty, at least 2-d."""
    t, rt = _common_type(a)
    outs = borrow("svd", cast_to(a, t), full_matrices=bool(full_matrices),
                  compute_uv=bool(compute_uv))
    s = outs[1] if compute_uv else outs[0]
    _raise_if(_failed(s, a), "SVD did not converge")
    if not compute_uv:
        return cast_to(s, _real(rt))
    u, s, vh = outs
    return _L.SVDResult(cast_to(u, rt), cast_to(s, _real(rt)), cast_to(vh, rt))


@implements(np.linalg.svd, family=_FAMILY, notes="LAPACK gesdd via JAX; singular-vector "
            "signs may differ from NumPy's; hermitian=True computes the general SVD "
            "(same singular values, another valid U, Vh); a NaN input gives NaN (NumPy "
            "raises LinAlgError)")
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    a = asarray(a)
    full_matrices = static(full_matrices, "full_matrices")
    compute_uv = static(compute_uv, "compute_uv")
    static(hermitian, "hermitian")
    _assert_stacked_2d(a)
    _common_type(a)
    if a.size == 0:
        return _shape_only(np.linalg.svd, a, full_matrices, compute_uv)
    return _svd(a, full_matrices, compute_uv)


@implements(np.linalg.svdvals, family=_FAMILY)
def svdvals(x, /):
    return svd(x, compute_uv=False)


def _is_empty_2d(a):
    return a.size == 0 and int(np.prod(a.shape[-2:])) == 0


@implements(np.linalg.pinv, family=_FAMILY, notes="hermitian=True uses the general SVD")
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
    if _is_empty_2d(a):
        m, n = a.shape[-2:]
        return full(0, a.dtype, a.shape[:-2] + (n, m))
    u, s, vt = svd(_conj(a), full_matrices=False)
    cutoff = _np(np.multiply, _np(np.expand_dims, rcond, -1),
                 _np(np.amax, s, axis=-1, keepdims=True))
    large = _np(np.greater, s, cutoff)
    s = _np(np.where, large, _np(np.divide, 1, s), 0)
    s = cast_to(s, _real(u.dtype))
    return _np(np.matmul, _mT(vt), _np(np.multiply, _np(np.expand_dims, s, -1), _mT(u)))


@implements(np.linalg.matrix_rank, family=_FAMILY,
            notes="a 1-d input gives a traced 0/1 Python int")
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = asarray(A)
    static(hermitian, "hermitian")
    if A.ndim < 2:
        nonzero = _np(np.logical_not, _np(np.all, _np(np.equal, A, 0)))
        return cast_to(nonzero, np.int64, weak=True)
    if A.size == 0:
        return _shape_only(np.linalg.matrix_rank, A, tol, hermitian, rtol=rtol)
    S_ = svd(A, compute_uv=False)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * np.finfo(S_.dtype).eps
        else:
            rtol = _np(np.expand_dims, asarray(rtol), -1)
        tol = _np(np.multiply, _np(np.max, S_, axis=-1, keepdims=True, initial=0), rtol)
    else:
        tol = _np(np.expand_dims, asarray(tol), -1)
    return _np(np.count_nonzero, _np(np.greater, S_, tol), axis=-1)


@implements(np.linalg.lstsq, family=_FAMILY,
            notes="SVD-based; residuals has shape (K,) whenever M > N, also for a "
                  "rank-deficient a (NumPy then returns an empty array)")
def lstsq(a, b, rcond=None):
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
    t, rt = _common_type(a, b)
    real_t, real_rt = _real(t), _real(rt)
    if rcond is None:
        rcond = np.finfo(t).eps * max(n, m)
    if a.size == 0:
        return _shape_only(np.linalg.lstsq, a, b, static(rcond, "rcond"))
    at, bt = cast_to(a, t), cast_to(bm, t) if k else full(0, t, (m, 1))
    u, s, vh = borrow("svd", at, full_matrices=False, compute_uv=True)
    _raise_if(_failed(s, at), "SVD did not converge in Linear Least Squares")
    # LAPACK gelsd: singular values <= rcond * s_max count as zero; rcond < 0 means
    # the machine precision
    rcond = cast_to(asarray(rcond), real_t)
    rcond = _np(np.where, _np(np.less, rcond, 0), np.finfo(real_t).eps / 2, rcond)
    cutoff = _np(np.multiply, rcond, _last(s, 0))
    keep = _np(np.greater, s, cutoff)
    rank = cast_to(_np(np.sum, keep), np.int32)
    sinv = cast_to(_np(np.where, keep, _np(np.divide, 1, s), 0), t)
    coef = _np(np.multiply, _mm(_mH(u), bt), _np(np.expand_dims, sinv, -1))
    x = _mm(_mH(vh), coef)
    if m > n and k:
        r = _np(np.subtract, bt, _mm(at, x))
        resid = _np(np.sum, _np(np.square, _np(np.abs, r)), axis=0)
    else:
        resid = full(0, real_t, (0,))
    if not k:
        x = full(0, t, (n, 0))
    if is_1d:
        x = S.reshape(x, shape=(n,))
    return (cast_to(x, rt), cast_to(resid, real_rt), rank, cast_to(s, real_rt))


@implements(np.linalg.cond, family=_FAMILY)
def cond(x, p=None):
    x = asarray(x)
    p = static(p, "p")
    if _is_empty_2d(x):
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p in {2, -2}:
        s = svd(x, compute_uv=False)
        hi, lo = _last(s, 0), _last(s, -1)
        r = _np(np.divide, lo, hi) if p == -2 else _np(np.divide, hi, lo)
    else:
        _assert_stacked_square(x)
        t, rt = _common_type(x)
        invx = _inv(cast_to(x, t), check=False)
        r = _np(np.multiply, norm(x, p, axis=(-2, -1)), norm(invx, p, axis=(-2, -1)))
        r = cast_to(r, _real(rt))
    nan_x = _np(np.any, _np(np.isnan, x), axis=(-2, -1))
    nan_mask = _np(np.logical_and, _np(np.isnan, r), _np(np.logical_not, nan_x))
    return _np(np.where, nan_mask, cast_to(as_abstract(np.inf), r.dtype), r)


# --- norms -----------------------------------------------------------------------------------

@implements(np.linalg.norm, family=_FAMILY)
def norm(x, ord=None, axis=None, keepdims=False):
    x = asarray(x)
    ord, axis = static(ord, "ord"), static(axis, "axis")
    keepdims = static(keepdims, "keepdims")
    if x.dtype.kind not in "fc":
        x = cast_to(x, np.float64)
    nd = x.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2)
                         or (ord == 2 and nd == 1)):
        flat = S.reshape(x, shape=(x.size,))
        if x.dtype.kind == "c":
            re, im = _np(np.real, flat), _np(np.imag, flat)
            sq = _np(np.add, _np(np.dot, re, re), _np(np.dot, im, im))
        else:
            sq = _np(np.dot, flat, flat)
        ret = _np(np.sqrt, sq)
        return S.reshape(ret, shape=(1,) * nd) if keepdims else ret
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (int(axis),)
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    if len(axis) == 1:
        return _vector_norm(x, ord, axis, keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, axis, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def _vector_norm(x, ord, axis, keepdims):
    absx = _np(np.abs, x)
    if ord == np.inf:
        return _np(np.max, absx, axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return _np(np.min, absx, axis=axis, keepdims=keepdims)
    if ord == 0:
        nz = cast_to(_np(np.not_equal, x, 0), _real(x.dtype))
        return _np(np.sum, nz, axis=axis, keepdims=keepdims)
    if ord == 1:
        return _np(np.sum, absx, axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        sq = _np(np.real, _np(np.multiply, _conj(x), x))
        return _np(np.sqrt, _np(np.sum, sq, axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    powered = cast_to(_np(np.power, absx, ord), absx.dtype)
    ret = _np(np.sum, powered, axis=axis, keepdims=keepdims)
    return cast_to(_np(np.power, ret, np.reciprocal(ord, dtype=ret.dtype)), ret.dtype)


def _matrix_norm(x, ord, axis, keepdims):
    nd = x.ndim
    row, col = (normalize_axis_index(a, nd) for a in axis)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord in (2, -2, "nuc"):
        s = svd(_np(np.moveaxis, x, (row, col), (-2, -1)), compute_uv=False) \
            if x.size else None
        if ord == 2:
            ret = _np(np.amax, s, axis=-1, initial=0) if s is not None else None
        elif ord == -2:
            ret = _np(np.amin, s, axis=-1) if s is not None else None
        else:
            ret = _np(np.sum, s, axis=-1, initial=0) if s is not None else None
        if ret is None:
            return _shape_only(np.linalg.norm, x, ord, axis, keepdims)
    elif ord in (1, -1):
        red = _np(np.sum, _np(np.abs, x), axis=row)
        c = col - 1 if col > row else col
        ret = _np(np.max, red, axis=c, initial=0) if ord == 1 else _np(np.min, red, axis=c)
    elif ord in (np.inf, -np.inf):
        red = _np(np.sum, _np(np.abs, x), axis=col)
        r = row - 1 if row > col else row
        ret = _np(np.max, red, axis=r, initial=0) if ord == np.inf else \
            _np(np.min, red, axis=r)
    elif ord in (None, "fro", "f"):
        sq = _np(np.real, _np(np.multiply, _conj(x), x))
        ret = _np(np.sqrt, _np(np.sum, sq, axis=axis))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[axis[0]] = shape[axis[1]] = 1
        ret = S.reshape(ret, shape=tuple(shape))
    return ret


@implements(np.linalg.matrix_norm, family=_FAMILY)
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(asarray(x), axis=(-2, -1), keepdims=keepdims, ord=ord)


@implements(np.linalg.vector_norm, family=_FAMILY)
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    x = asarray(x)
    axis, keepdims = static(axis, "axis"), static(keepdims, "keepdims")
    shape = list(x.shape)
    if axis is None:
        y, ax = S.reshape(x, shape=(x.size,)), 0
    elif isinstance(axis, tuple):
        axes = normalize_axis_tuple(axis, x.ndim)
        rest = tuple(i for i in range(x.ndim) if i not in axes)
        y = S.transpose(x, perm=axes + rest)
        size = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
        y, ax = S.reshape(y, shape=(size,) + tuple(x.shape[i] for i in rest)), 0
    else:
        y, ax = x, axis
    res = norm(y, axis=ax, ord=ord)
    if keepdims:
        for i in normalize_axis_tuple(range(len(shape)) if axis is None else axis,
                                      len(shape)):
            shape[i] = 1
        res = S.reshape(res, shape=tuple(shape))
    return res


# --- products --------------------------------------------------------------------------------

def _chain_order(shapes):
    """Matrix-chain order (NumPy's multi_dot dynamic programme): split table."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = np.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(arrays, split, i, j):
    if i == j:
        return arrays[i]
    k = split[i][j]
    return _np(np.dot, _chain(arrays, split, i, k), _chain(arrays, split, k + 1, j))


@implements(np.linalg.multi_dot, family=_FAMILY)
def multi_dot(arrays, *, out=None):
    arrays = [asarray(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    if len(arrays) == 2:
        return _np(np.dot, arrays[0], arrays[1], **({} if out is None else {"out": out}))
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = S.reshape(arrays[0], shape=(1,) + arrays[0].shape)
    if last == 1:
        arrays[-1] = S.reshape(arrays[-1], shape=arrays[-1].shape + (1,))
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be "
                              "two-dimensional")
    result = _chain(arrays, _chain_order([a.shape for a in arrays]), 0, len(arrays) - 1)
    if first == 1 and last == 1:
        result = S.reshape(result, shape=())
    elif first == 1 or last == 1:
        result = S.reshape(result, shape=(result.size,))
    if out is not None:
        return store_out("multi_dot", out, result, casting="no")
    return result


@implements(np.linalg.matmul, family=_FAMILY)
def linalg_matmul(x1, x2, /):
    return _np(np.matmul, x1, x2)


@implements(np.linalg.matrix_transpose, family=_FAMILY)
def matrix_transpose(x, /):
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return _mT(x)


@implements(np.linalg.outer, family=_FAMILY)
def linalg_outer(x1, x2, /):
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        numpy_error(np.linalg.outer, x1, x2)
    return _np(np.outer, x1, x2)
