"""Windows of a shifted argument read straight from its superset, so loops need no copy.

`superset.shifted_module` passes an unaligned argument as the flat, aligned memory
around it and slices the argument back at the program's start. Where a `while` loop
reads the argument (a triangular solve reading row i of L in iteration i), XLA carries
that slice into the loop as a value of its own, so it copies the whole argument first,
at a fraction of memcpy's speed: slower than the aligned copy the superset was meant to
avoid. A window whose elements are contiguous in row-major order (`sizes` of 1 up to
one axis, then whole trailing axes: a row, a run of rows, one element) is one run of the
flat buffer, though. So each such `dynamic_slice` or `slice` of the argument reads its
run from the superset itself, at the offset its (clamped) start indices give, and is
reshaped back; a loop then carries only the superset parameter, which it reads in place.
Other uses keep the sliced-back value.
"""
from __future__ import annotations

import numpy as np


def contiguous(sizes, shape) -> bool:
    """Whether a window of `sizes` in an array of `shape` is one row-major run."""
    axis = next((j for j, z in enumerate(sizes) if z != 1), len(sizes))
    return all(z == d for z, d in zip(sizes[axis + 1:], shape[axis + 1:]))


def read_windows(value, flat, k, shape, hlo, ir):
    """Rewrite the contiguous `dynamic_slice`/`slice` uses of `value` (the argument of
    `shape`, sliced back from `flat`, the superset block argument whose elements k..
    hold it) to read the superset."""
    strides = [int(np.prod(shape[j + 1:])) for j in range(len(shape))]
    for use in list(value.uses):
        op = use.owner
        name = op.operation.name if hasattr(op, "operation") else op.name
        if use.operand_number != 0 or name not in ("stablehlo.dynamic_slice", "stablehlo.slice"):
            continue
        op = op.operation if hasattr(op, "operation") else op
        result = op.results[0]
        sizes = list(ir.RankedTensorType(result.type).shape)
        if name == "stablehlo.slice":
            starts = list(ir.DenseI64ArrayAttr(op.attributes["start_indices"]))
            steps = list(ir.DenseI64ArrayAttr(op.attributes["strides"]))
            if any(s != 1 for s in steps) or not contiguous(sizes, shape):
                continue
            with ir.InsertionPoint(op), op.location:
                begin = k + sum(s * t for s, t in zip(starts, strides))
                run = hlo.SliceOp(flat, [begin], [begin + int(np.prod(sizes))], [1]).result
                value = hlo.ReshapeOp(result.type, run).result
        else:
            if not contiguous(sizes, shape):
                continue
            with ir.InsertionPoint(op), op.location:
                offset = _offset(list(op.operands)[1:], sizes, shape, strides, k, hlo, ir)
                run = hlo.DynamicSliceOp(flat, [offset], [int(np.prod(sizes))]).result
                value = hlo.ReshapeOp(result.type, run).result
        result.replace_all_uses_with(value)
        op.erase()


def _offset(starts, sizes, shape, strides, k, hlo, ir):
    """k + sum(clamp(start_j, 0, shape_j - sizes_j) * stride_j) as an i64 scalar: the
    clamp is dynamic_slice's own, so the run is exactly the window it would read."""
    i64 = ir.IntegerType.get_signless(64)

    def const(v):
        return hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(v, np.int64))).result

    total = const(k)
    for start, z, d, stride in zip(starts, sizes, shape, strides):
        if z == d:
            continue                        # the start is clamped to 0
        if ir.RankedTensorType(start.type).element_type != i64:
            start = hlo.ConvertOp(ir.RankedTensorType.get([], i64), start).result
        start = hlo.ClampOp(const(0), start, const(d - z)).result
        if stride != 1:
            start = hlo.MulOp(start, const(stride)).result
        total = hlo.AddOp(total, start).result
    return total
