"""What every np.linalg routine shares: NumPy's dtype rules, argument checks, the
answer for empty inputs, LinAlgError from device-side flags, and small matrix helpers.

The np.linalg family is split by what its routines are built on: linalg.py (LU,
Cholesky, QR and the eigensolvers), linalg_svd.py (the SVD and what builds on it),
linalg_norms.py (norms and condition numbers) and linalg_products.py (multi_dot & co.).
This module holds the rules they must all apply the same way.

Dtypes: like NumPy (`_commonType`), every routine computes in float64 / complex128 and
casts the result back to float32 / complex64 for single-precision inputs; integer and
bool inputs give float64; float16 raises NumPy's TypeError. Stacked (batched) matrices
work wherever NumPy accepts them.

Lowering: products are `dot_general`; `cholesky` and `triangular_solve` are StableHLO
ops; LU, QR, the Hermitian eigensolver, SVD and the general eigensolver are borrowed
from JAX (runtime/lowering/borrowed.py: LAPACK on CPU, cuSOLVER on GPU). Inputs with a
zero-size axis are answered by NumPy itself (`shape_only`: their results depend on
shapes only).

Errors NumPy raises from LAPACK's status (`LinAlgError`: singular matrix, not positive
definite, no convergence, non-finite input to eig) are runtime flags computed on the
device and raised after the call, where the core's error flags accept an exception
class (see `raise_if`).
"""
from __future__ import annotations

import inspect
import operator
import warnings

import numpy as np
from numpy.linalg import LinAlgError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import errorflags
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.linalg.products import contract
from npxla.runtime.numpy.reductions.reductions import asarray, static
from npxla.runtime.numpy.core.registry import dispatch

FAMILY = "linalg"


def apply(fn, *args, **kwargs):
    """A registered NumPy function applied with NumPy's semantics."""
    return dispatch(fn, args, kwargs)


# --- dtypes and argument checks ---------------------------------------------------------------

def common_type(*arrays):
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


def real_dtype(dtype):
    return np.dtype(np.dtype(dtype).type(0).real.dtype)


def assert_stacked_2d(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")


def assert_stacked_square(*arrays):
    assert_stacked_2d(*arrays)
    for a in arrays:
        if a.shape[-1] != a.shape[-2]:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def int_arg(value, what, error="exponent must be an integer"):
    if isinstance(value, AbstractArray) and value.dtype.kind not in "iub":
        raise TypeError(error)
    value = static(value, what)
    try:
        return operator.index(value)
    except TypeError as e:
        raise TypeError(error) from e


def is_empty_2d(a):
    """Whether the (stacked) matrices have no elements."""
    return a.size == 0 and int(np.prod(a.shape[-2:])) == 0


def square_operand(fn, a, **kwargs):
    """(a in the computation dtype, result dtype, NumPy's result when `a` is empty or
    None) for the routines on stacked square matrices."""
    a = asarray(a)
    assert_stacked_square(a)
    t, rt = common_type(a)
    if a.size == 0:
        return a, rt, shape_only(fn, a, **kwargs)
    return cast_to(a, t), rt, None


def shape_only(fn, *arrays, **kwargs):
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


def raise_if(flag, message):
    """`np.linalg.LinAlgError(message)` after the call when any element of `flag` is set.

    Needs `errorflags.check(flag, message, error=...)`; with a core whose error flags
    only raise IndexError, the check is left out and the result holds inf/NaN."""
    if _CHECK_TAKES_ERROR:
        errorflags.check(flag, message, error=LinAlgError)


# support-table notes on how the errors above surface in this core
SINGULAR_NOTE = (
    "a singular matrix raises LinAlgError after the call" if _CHECK_TAKES_ERROR else
    "a singular matrix gives inf/NaN (NumPy raises LinAlgError)")
NOT_POSITIVE_DEFINITE_NOTE = (
    "a matrix that is not positive definite raises LinAlgError after the call"
    if _CHECK_TAKES_ERROR else
    "a matrix that is not positive definite gives NaN (NumPy raises LinAlgError)")


def failed(result, a, core=1):
    """LAPACK's `info` != 0 as NumPy reports it: NaN in the result (JAX's lowerings fill
    failed factorizations with NaN; XLA's cholesky gives NaN) of a *finite* matrix.
    Non-finite input gives NaN results without an error, as NumPy mostly does."""
    axes = tuple(range(result.ndim - core, result.ndim))
    bad = apply(np.any, apply(np.isnan, result), axis=axes)
    finite = apply(np.all, apply(np.isfinite, a), axis=(-2, -1))
    return apply(np.any, apply(np.logical_and, bad, finite))


# --- matrix helpers (abstract arrays in, abstract arrays out) -----------------------------

def mT(x):
    """Swap the last two axes (no conjugation)."""
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return S.transpose(x, perm=perm)


def conj(x):
    return apply(np.conjugate, x) if x.dtype.kind == "c" else x


def mH(x):
    return conj(mT(x))


def mm(a, b):
    """Batched matrix product of equal batch shapes, in a's dtype."""
    batch = tuple(range(a.ndim - 2))
    return contract(a, b, a.dtype, batch=(batch, batch), contract=((a.ndim - 1,), (a.ndim - 2,)))


def bcast_batch(x, batch, core):
    """Broadcast x (trailing `core` axes kept) to batch + its core shape."""
    shape = tuple(batch) + x.shape[x.ndim - core:]
    if x.shape == shape:
        return x
    return S.broadcast_in_dim(x, shape=shape,
                              dims=tuple(range(len(shape) - x.ndim, len(shape))))


def matrix_diagonal(x):
    """(..., n, n) -> (..., n)."""
    return apply(np.diagonal, x, axis1=-2, axis2=-1)


def iota(shape, dim):
    return S.iota(shape=tuple(shape), dtype=np.int32, dim=dim)


def eye_like(batch, n, dtype):
    eye = cast_to(apply(np.equal, iota((n, n), 0), iota((n, n), 1)), dtype)
    return bcast_batch(eye, batch, 2)


def last_entry(x, index):
    """x[..., index] for a static index."""
    i = index % x.shape[-1]
    nb = x.ndim - 1
    out = S.static_slice(x, start=(0,) * nb + (i,), limit=x.shape[:-1] + (i + 1,),
                         strides=(1,) * x.ndim)
    return S.reshape(out, shape=x.shape[:-1])
