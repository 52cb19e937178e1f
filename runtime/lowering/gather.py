"""Gather and scatter primitives (`stablehlo.gather` / `stablehlo.scatter`).

Both work on the layout advanced indexing produces: the operand's *indexed* axes come
first (`A`), the remaining axes after (`R`); `indices` has shape `B + (len(A),)` (one
index vector per batch position). `gather` reads the `R`-shaped slices at each index
vector (result `B + R`); `scatter` combines `B + R` updates into the operand with a
scalar combiner region (`kind`: replace, add, mul, max, min, and, or, xor). Indices
must already be in bounds: XLA clamps (gather) or drops (scatter) the rest.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.core import Primitive


def _split(operand_shape, indices_shape):
    k = indices_shape[-1]
    return tuple(indices_shape[:-1]), tuple(operand_shape[k:]), k


def _gather_typing(operand, indices):
    batch, rest, _ = _split(operand[0], indices[0])
    return (batch + rest, operand[1])


def _dims(operand, indices):
    """(window dims of the result/updates, leading indexed axes, their sizes R,
    index_vector_dim) of the MLIR values."""
    batch, rest, k = _split(tuple(ir.RankedTensorType(operand.type).shape),
                            tuple(ir.RankedTensorType(indices.type).shape))
    return list(range(len(batch), len(batch) + len(rest))), list(range(k)), rest, len(batch)


def _gather_lowering(t, operand, indices):
    window, axes, rest, ivd = _dims(operand, indices)
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=window, collapsed_slice_dims=axes, operand_batching_dims=[],
        start_indices_batching_dims=[], start_index_map=axes, index_vector_dim=ivd)
    return hlo.GatherOp(operand, indices, dnums, [1] * len(axes) + list(rest),
                        indices_are_sorted=False).result


gather = Primitive("gather", typing=_gather_typing, lowering=_gather_lowering)


_COMBINE = {"add": hlo.AddOp, "mul": hlo.MulOp, "max": hlo.MaxOp, "min": hlo.MinOp,
            "and": hlo.AndOp, "or": hlo.OrOp, "xor": hlo.XorOp}


def _scatter_typing(operand, indices, updates, *, kind, unique=False):
    batch, rest, _ = _split(operand[0], indices[0])
    if tuple(updates[0]) != batch + rest:
        raise ValueError(f"scatter: updates of shape {updates[0]} for {batch + rest}")
    return operand


def _scatter_lowering(t, operand, indices, updates, *, kind, unique=False):
    window, axes, _, ivd = _dims(operand, indices)
    dnums = hlo.ScatterDimensionNumbers.get(
        update_window_dims=window, inserted_window_dims=axes, input_batching_dims=[],
        scatter_indices_batching_dims=[], scattered_dims_to_operand_dims=axes,
        index_vector_dim=ivd)
    op = hlo.ScatterOp([t], [operand], indices, [updates], dnums,
                       indices_are_sorted=False, unique_indices=unique)
    scalar = ir.RankedTensorType.get([], ir.RankedTensorType(operand.type).element_type)
    block = op.update_computation.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        old, new = block.arguments
        hlo.ReturnOp([new if kind == "replace" else _COMBINE[kind](old, new).result])
    return op.results[0]


scatter = Primitive("scatter", typing=_scatter_typing, lowering=_scatter_lowering)


def combiner_kind(ufunc_name, dtype):
    """The scatter combiner that applies `ufunc` repeatedly (None: no combiner)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        table = {"add": "or", "multiply": "and", "maximum": "or", "minimum": "and",
                 "logical_or": "or", "logical_and": "and", "bitwise_or": "or",
                 "bitwise_and": "and", "bitwise_xor": "xor", "logical_xor": "xor"}
    else:
        table = {"add": "add", "multiply": "mul", "bitwise_and": "and",
                 "bitwise_or": "or", "bitwise_xor": "xor"}
        if dtype.kind != "c":
            table.update(maximum="max", minimum="min")
    return table.get(ufunc_name)
