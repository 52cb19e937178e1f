"""Products: dot, matmul (`@`), inner, outer, vdot with NumPy's shape and dtype rules.

Result dtypes are asked of NumPy (one-element operands of the same dtypes, Python
scalars standing in for weak values) and every shape error re-raises NumPy's own
exception. Contractions lower to `stablehlo.dot_general` (HIGHEST precision for floats;
bool products count in int32 and test `!= 0`; float16 accumulates in float32).
"""
from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np
from jaxlib.mlir import ir

from npxla.transpiler.base.dtypes import weak_standin
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.dot import dot_general
from npxla.runtime.lowering.ssa import defining_op
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.numpy.core.convert import broadcast_shapes, cast_to
from npxla.runtime.numpy.linalg.host_matmul import host_product
from npxla.runtime.numpy.reductions.reductions import _real, _imag, _complex, asarray, numpy_error
from npxla.runtime.numpy.core.registry import implements
from npxla.runtime.numpy.ufuncs.ufunc_core import store_out
from npxla.transpiler.base.errors import UnsupportedFunctionError


@lru_cache(maxsize=None)
def _np_dtype(fn, keys):
    ops = [weak_standin(k[1]) if k[0] == "weak" else np.ones((1,) * k[2], k[1]) for k in keys]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(fn(*ops)).dtype


def result_dtype(fn, *xs):
    keys = tuple(("weak", x.dtype, 0) if x.weak else
                 ("strong", x.dtype, x.ndim) for x in xs)
    return _np_dtype(fn, keys)


def _compute_dtype(dtype):
    if dtype == np.bool_:
        return np.dtype(np.int32)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return np.dtype(dtype)


def contract(a, b, out_dtype, batch=((), ()), contract=((), ())):
    """dot_general in the dtype that reproduces NumPy's result for `out_dtype`."""
    comp = _compute_dtype(out_dtype)
    r = host_product(a, b, out_dtype, batch, contract)
    if r is not None:
        return r
    a, b = cast_to(a, comp), cast_to(b, comp)
    if not batch[0] and not batch[1]:
        a, ca = _untransposed(a, contract[0])
        b, cb = _untransposed(b, contract[1])
        contract = (ca, cb)
    r = dot_general(a, b, batch=batch, contract=contract, dtype=comp)
    return cast_to(r, out_dtype)


def _untransposed(x, dims):
    """A transposed matrix operand as the matrix it transposes, contracted along the
    matching axis: `A.T @ y` would otherwise copy A transposed in full before the
    product (a 3000 x 3000 matrix: a 72 MB copy per call, half the time of A @ x +
    A.T @ y). The operand has one free axis, so the result's axes keep their order."""
    op = defining_op(x.ir) if x.ir is not None and x.ndim == 2 else None
    if op is None or op.name != "stablehlo.transpose":
        return x, dims
    perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    source = AbstractArray(x.shape[::-1], x.dtype, ir=op.operands[0], deps=x.deps)
    return source, tuple(perm[d] for d in dims)


def _scale(a, b, out_dtype):
    """Elementwise product (dot/inner with a 0-d operand)."""
    a, b = cast_to(a, out_dtype), cast_to(b, out_dtype)
    shape = broadcast_shapes(a.shape, b.shape)
    a, b = _bcast(a, shape), _bcast(b, shape)
    return E.bitwise_and(a, b) if out_dtype == np.bool_ else E.multiply(a, b)


def _bcast(x, shape):
    """Broadcast with broadcast_in_dim (never a splat constant: complex splats fail)."""
    if x.shape == tuple(shape):
        return x
    return S.broadcast_in_dim(x, shape=tuple(shape),
                              dims=tuple(range(len(shape) - x.ndim, len(shape))))


def _strong(x):
    return cast_to(x, x.dtype, weak=False)


def _out(name, result, out):
    if out is not None:
        return store_out(name, out, result, casting="no")
    return result


# --- dot -----------------------------------------------------------------------------------

@implements(np.dot, method="dot", family="products")
def dot(a, b, out=None):
    a, b = asarray(a), asarray(b)
    dt = result_dtype(np.dot, a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _out("dot", _strong(_scale(a, b, dt)), out)
    rc = 0 if b.ndim == 1 else b.ndim - 2
    if a.shape[-1] != b.shape[rc]:
        numpy_error(np.dot, a, b)
    return _out("dot", contract(a, b, dt, contract=((a.ndim - 1,), (rc,))), out)


@implements(np.inner, family="products")
def inner(a, b):
    a, b = asarray(a), asarray(b)
    dt = result_dtype(np.inner, a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _strong(_scale(a, b, dt))
    if a.shape[-1] != b.shape[-1]:
        numpy_error(np.inner, a, b)
    return contract(a, b, dt, contract=((a.ndim - 1,), (b.ndim - 1,)))


@implements(np.vdot, family="products")
def vdot(a, b):
    a, b = asarray(a), asarray(b)
    dt = result_dtype(np.vdot, a, b)
    if a.size != b.size:
        numpy_error(np.vdot, a, b)
    a, b = S.reshape(a, shape=(a.size,)), S.reshape(b, shape=(b.size,))
    if a.dtype.kind == "c":
        a = _complex(_real(a), E.negate(_imag(a)))
    return contract(a, b, dt, contract=((0,), (0,)))


@implements(np.outer, family="products")
def outer(a, b, out=None):
    a, b = asarray(a), asarray(b)
    dt = result_dtype(np.outer, a, b)
    a = S.reshape(cast_to(a, dt), shape=(a.size, 1))
    b = S.reshape(cast_to(b, dt), shape=(1, b.size))
    return _out("outer", _scale(a, b, dt), out)


# --- matmul ----------------------------------------------------------------------------------

@implements(np.matmul, family="products")
def matmul(a, b, out=None, *, dtype=None, casting="same_kind", **kwargs):
    """np.matmul: NumPy's promotion and 1-d rules (a vector operand gets a temporary axis
    that is removed again), batch dimensions broadcast, and NumPy's own error for a
    0-d operand."""
    a, b = asarray(a), asarray(b)
    if kwargs:
        raise UnsupportedFunctionError(f"np.matmul keyword(s) {sorted(kwargs)} not supported")
    if a.ndim == 0 or b.ndim == 0:
        numpy_error(np.matmul, a, b)
    if dtype is not None:
        dt = np.dtype(dtype)
    else:
        dt = result_dtype(np.matmul, a, b)
    a2 = S.reshape(a, shape=(1,) + a.shape) if a.ndim == 1 else a
    b2 = S.reshape(b, shape=b.shape + (1,)) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        numpy_error(np.matmul, a, b)
    try:
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        numpy_error(np.matmul, a, b)
        raise
    nb = len(batch)
    if nb and b2.ndim == 2:
        r = _stack_times_matrix(a2, b2, batch, dt)
    elif nb and a2.ndim == 2:
        r = _matrix_times_stack(a2, b2, batch, dt)
    else:
        a2 = _broadcast_batch(a2, batch)
        b2 = _broadcast_batch(b2, batch)
        r = contract(a2, b2, dt, batch=(tuple(range(nb)), tuple(range(nb))),
                     contract=((nb + 1,), (nb,)))
    shape = batch + ((a.shape[-2],) if a.ndim > 1 else ()) + ((b.shape[-1],) if b.ndim > 1
                                                              else ())
    if r.shape != shape:
        r = S.reshape(r, shape=shape)
    r = _strong(r)
    if out is not None:
        return store_out("matmul", out, r, casting=casting)
    return r


def _stack_times_matrix(a, b, batch, dt):
    """A stack of matrices times one matrix as one product of a tall matrix: broadcasting
    `b` over the batch and multiplying batch by batch was a batched dot of many small
    products (a (140, 120, 1, 160) stack times a 160 x 160 matrix: 24x NumPy's time) and
    materialised the broadcast."""
    m, k = a.shape[-2:]
    a = _broadcast_batch(a, batch)
    flat = S.reshape(a, shape=(int(np.prod(batch)) * m, k))
    r = contract(flat, b, dt, contract=((1,), (0,)))
    return S.reshape(r, shape=tuple(batch) + (m, b.shape[1]))


def _matrix_times_stack(a, b, batch, dt):
    """One matrix times a stack: contracted against every matrix of the stack at once,
    the batch axes moved back in front of the result's rows."""
    b = _broadcast_batch(b, batch)
    nb = len(batch)
    r = contract(a, b, dt, contract=((1,), (nb,)))      # (m, *batch, n)
    return S.transpose(r, perm=tuple(range(1, nb + 1)) + (0, nb + 1))


def _broadcast_batch(x, batch):
    shape = tuple(batch) + x.shape[-2:]
    if x.shape == shape:
        return x
    return S.broadcast_in_dim(x, shape=shape,
                              dims=tuple(range(len(shape) - x.ndim, len(shape))))


__all__ = ["dot", "inner", "vdot", "outer", "matmul", "contract"]
