"""Structural operations on an abstract array's *value*: copies, never views.

Why a module of its own: view-making functions (shape.py, arrange.py), array creation
(coercion.py, creation.py) and indexing all need the same few value-level building
blocks (a fresh handle, a reshape, a slice along one axis, a concatenation). Living
below all of them, these keep those modules free of import cycles.

Every result is a new handle: writes to it never reach the input, and writes to the
input never reach it. On a known constant the operation runs in NumPy (`fold_or_lower`)
so constants stay exact and usable as shapes; otherwise it lowers to one StableHLO
primitive.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.windows import joined_windows
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to

_VOID = np.dtype([])


def fresh(x: AbstractArray, weak: bool = False) -> AbstractArray:
    """A new handle holding `x`'s current value (a copy: later writes to either handle
    do not reach the other)."""
    c = x.const                        # refreshes a view before its value is read
    return AbstractArray(x.shape, x.dtype, ir=x._ir if c is not None else x.ir, const=c,
                         weak=weak, deps=x.deps)


def shape_standin(shape):
    """An ndarray of `shape` that holds no memory: NumPy's shape logic, for free."""
    return np.empty(shape, _VOID)


def fold_or_lower(x, np_fn, prim_fn):
    """`np_fn` on a known constant, else the primitive; the result is never weak."""
    c = x.const
    if c is not None:
        out = AbstractArray.from_const(np.asarray(np_fn(c)), weak=False)
        out.deps = x.deps
        return out
    out = prim_fn(x)
    out.weak = False
    return out


def reshape_value(x: AbstractArray, shape) -> AbstractArray:
    shape = tuple(shape)
    if x.shape == shape:
        return fresh(x)
    return fold_or_lower(x, lambda c: c.reshape(shape), lambda v: S.reshape(v, shape=shape))


def transpose_value(x: AbstractArray, perm) -> AbstractArray:
    perm = tuple(perm)
    if perm == tuple(range(x.ndim)):
        return fresh(x)
    return fold_or_lower(x, lambda c: c.transpose(perm), lambda v: S.transpose(v, perm=perm))


def broadcast_value(x, shape):
    if x.shape == shape:
        return fresh(x)
    return fold_or_lower(x, lambda c: np.broadcast_to(c, shape),
                         lambda v: broadcast_to_shape(v, shape))


def concat_values(arrays, axis, dtype):
    """`np.concatenate(arrays, axis)` cast to `dtype` (shapes already checked)."""
    arrays = [cast_to(a, dtype, weak=False) for a in arrays]
    if all(a.const is not None for a in arrays):
        out = AbstractArray.from_const(np.concatenate([a.const for a in arrays], axis=axis),
                                       weak=False)
        for a in arrays:
            out.deps = out.deps | a.deps
        return out
    nonempty = [a for a in arrays if a.shape[axis] != 0] or arrays[:1]
    if len(nonempty) == 1:
        return fresh(nonempty[0])
    parts = joined_windows(nonempty) if axis == 0 else nonempty
    return parts[0] if len(parts) == 1 else S.concatenate(*parts, axis=axis)


def concat_axis(parts, axis):
    """Parts of one dtype joined along `axis`."""
    return concat_values(list(parts), axis, parts[0].dtype)


def slice_axis(x, axis, start, stop, step=1):
    """`x[..., start:stop:step, ...]` along `axis` (static, 0 <= start <= stop, step > 0),
    as a new value."""
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, stop, step
    if starts == [0] * x.ndim and limits == list(x.shape) and step == 1:
        return fresh(x)
    index = (slice(None),) * axis + (slice(start, stop, step),)
    return fold_or_lower(x, lambda c: c[index], lambda v: S.static_slice(
        v, start=tuple(starts), limit=tuple(limits), strides=tuple(strides)))


def reverse_value(x, axes):
    axes = tuple(a for a in axes if x.shape[a] > 1)
    if not axes:
        return fresh(x)
    return fold_or_lower(x, lambda c: np.flip(c, axes), lambda v: S.reverse(v, axes=axes))


def stretch_axis(x, axis, n):
    """A size-1 axis broadcast to `n` (a new value)."""
    shape = x.shape[:axis] + (n,) + x.shape[axis + 1:]
    if shape == x.shape:
        return fresh(x)
    dims = tuple(range(x.ndim))
    return fold_or_lower(x, lambda c: np.broadcast_to(c, shape),
                         lambda v: S.broadcast_in_dim(v, shape=shape, dims=dims))
