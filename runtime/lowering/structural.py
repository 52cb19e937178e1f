"""Shape-moving primitives: convert, broadcast, reshape, transpose, slices, select, iota."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.inplace import update_slice


convert = Primitive(
    "convert",
    typing=lambda a, *, dtype: (a[0], np.dtype(dtype)),
    lowering=lambda t, x, *, dtype: hlo.ConvertOp(t, x).result,
)


def _broadcast_typing(a, *, shape, dims):
    if len(dims) != len(a[0]):
        raise ValueError("broadcast_in_dim: one dimension per operand axis")
    return (tuple(shape), a[1])


broadcast_in_dim = Primitive(
    "broadcast_in_dim",
    typing=_broadcast_typing,
    lowering=lambda t, x, *, shape, dims: hlo.BroadcastInDimOp(t, x, list(dims)).result,
)


def _reshape_typing(a, *, shape):
    if int(np.prod(shape, dtype=np.int64)) != int(np.prod(a[0], dtype=np.int64)):
        raise ValueError(f"cannot reshape array of shape {a[0]} into shape {tuple(shape)}")
    return (tuple(shape), a[1])


reshape = Primitive(
    "reshape",
    typing=_reshape_typing,
    lowering=lambda t, x, *, shape: hlo.ReshapeOp(t, x).result,
)

transpose = Primitive(
    "transpose",
    typing=lambda a, *, perm: (tuple(a[0][p] for p in perm), a[1]),
    lowering=lambda t, x, *, perm: hlo.TransposeOp(x, list(perm)).result,
)


def _slice_typing(a, *, start, limit, strides):
    shape = tuple(max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(start, limit, strides))
    return (shape, a[1])


static_slice = Primitive(
    "slice",
    typing=_slice_typing,
    lowering=lambda t, x, *, start, limit, strides: hlo.SliceOp(
        x, list(start), list(limit), list(strides)).result,
)

reverse = Primitive(
    "reverse",
    typing=lambda a, *, axes: a,
    lowering=lambda t, x, *, axes: hlo.ReverseOp(x, list(axes)).result,
)


def _dynamic_slice_typing(a, *idx, sizes):
    return (tuple(sizes), a[1])


dynamic_slice = Primitive(
    "dynamic_slice",
    typing=_dynamic_slice_typing,
    lowering=lambda t, x, *idx, sizes: hlo.DynamicSliceOp(x, list(idx), list(sizes)).result,
)

dynamic_update_slice = Primitive(
    "dynamic_update_slice",
    typing=lambda a, upd, *idx: a,
    lowering=lambda t, x, upd, *idx: update_slice(x, upd, idx),
)


def _select_typing(pred, a, b):
    return a


select = Primitive(
    "select",
    typing=_select_typing,
    lowering=lambda t, p, a, b: hlo.SelectOp(p, a, b).result,
)

iota = Primitive(
    "iota",
    typing=lambda *, shape, dtype, dim: (tuple(shape), np.dtype(dtype)),
    lowering=lambda t, *, shape, dtype, dim: hlo.IotaOp(t, dim).result,
)


def _concat_typing(*avals, axis):
    shape = list(avals[0][0])
    shape[axis] = sum(a[0][axis] for a in avals)
    return (tuple(shape), avals[0][1])


concatenate = Primitive(
    "concatenate",
    typing=_concat_typing,
    lowering=lambda t, *xs, axis: hlo.ConcatenateOp(list(xs), axis).result,
)


def _pad_typing(a, v, *, low, high, interior):
    shape = tuple(lo + hi + n + max(0, n - 1) * it
                  for n, lo, hi, it in zip(a[0], low, high, interior))
    return (shape, a[1])


pad = Primitive(
    "pad",
    typing=_pad_typing,
    lowering=lambda t, x, v, *, low, high, interior: hlo.PadOp(
        x, v, list(low), list(high), list(interior)).result,
)
