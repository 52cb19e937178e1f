"""Building ops into a finished StableHLO module: the few constructions the rewrites
that run after staging (`maps`, `lanes`) share, on raw `ir.Value`s (the primitives of
this layer work on traced arrays instead)."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

def int_constant_op(number, t) -> ir.Value:
    """A constant `number` of the integer (or bool) tensor type `t`: signless, unsigned
    or i1, of any width (a number outside the type's range wraps, as the type does)."""
    elem = ir.IntegerType(ir.RankedTensorType(t).element_type)
    if elem.width == 1:
        array = np.array(bool(number))
    else:
        dtype = np.dtype(f"{'u' if elem.is_unsigned else 'i'}{elem.width // 8}")
        array = np.array(number % (1 << elem.width)).astype(np.uint64).astype(dtype)
    return hlo.ConstantOp(ir.DenseElementsAttr.get(array, type=ir.RankedTensorType(t))).result


def gather_at(source, starts, sizes, collapse=False) -> ir.Value:
    """The `sizes` pieces of `source` at n start positions, one per element of the
    n-long index vectors `starts` (one per axis of `source`), clamped into the array as
    `dynamic_slice` clamps a start: shape `(n,) + sizes`, or `(n,)` with `collapse` (all
    sizes 1)."""
    n = ir.RankedTensorType(starts[0].type).shape[0]
    i64 = ir.IntegerType.get_signless(64)
    columns = []
    for index in starts:
        if ir.IntegerType(ir.RankedTensorType(index.type).element_type).width != 64:
            index = hlo.ConvertOp(ir.RankedTensorType.get([n], i64), index).result
        columns.append(hlo.ReshapeOp(ir.RankedTensorType.get([n, 1], i64), index).result)
    rank = len(sizes)
    indices = columns[0] if rank == 1 else hlo.ConcatenateOp(columns, 1).result
    axes = list(range(rank))
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=[] if collapse else [a + 1 for a in axes],
        collapsed_slice_dims=axes if collapse else [], operand_batching_dims=[],
        start_indices_batching_dims=[], start_index_map=axes, index_vector_dim=1)
    return hlo.GatherOp(source, indices, dnums, list(sizes), indices_are_sorted=False).result


def less_than(a, b) -> ir.Value:
    """`a < b` of signed integers."""
    return hlo.CompareOp(a, b, hlo.ComparisonDirectionAttr.get("LT"),
                         compare_type=hlo.ComparisonTypeAttr.get("SIGNED")).result


def combine_lanes(values, how, init=None) -> ir.Value:
    """`values` (one per lane) combined by the op `how` ("stablehlo.minimum", ...)
    into a scalar, starting from `init` (False if None)."""
    t = ir.RankedTensorType(values.type)
    scalar = ir.RankedTensorType.get([], t.element_type)
    if init is None:
        init = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(False), type=scalar)).result
    op = hlo.ReduceOp([scalar], [values], [init], [0])
    block = op.body.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([ir.Operation.create(how, results=[scalar],
                                          operands=list(block.arguments)).results[0]])
    return op.results[0]


def lane_loop(lanes, state, trip) -> list:
    """A scalar `while` over the lanes 0 .. lanes - 1 in order (at least one), carrying
    the values `state`: `trip(lane, state)` builds one trip's ops and returns (the lane it
    handled, at or after `lane`, and the new state); the next trip starts after it.
    Returns the state after the last trip."""
    i1 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    i64 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(64))
    go = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(True), type=i1)).result
    types = [i1, i64] + [v.type for v in state]
    loop = hlo.WhileOp(types, [go, int_constant_op(0, i64)] + list(state))
    cond = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.ReturnOp([cond.arguments[0]])
    body = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body):
        lane, ends = trip(body.arguments[1], list(body.arguments)[2:])
        nxt = hlo.AddOp(lane, int_constant_op(1, i64)).result
        hlo.ReturnOp([less_than(nxt, int_constant_op(lanes, i64)), nxt] + list(ends))
    return list(loop.results)[2:]
