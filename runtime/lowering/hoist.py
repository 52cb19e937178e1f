"""Products inside a staged loop that take one row (or column) of a loop-invariant
array, picked by the loop counter, times another loop-invariant array - `Z[:, i] @ Z`,
`A[i] @ B`, `W @ X[:, j]` - computed for every row at once before the loop.

Legacy code fills a matrix one row or column per iteration (a correlation matrix column
by column, a projection row by row). Staged as written, each iteration is a
matrix-vector product that streams the whole invariant matrix from memory: 99
iterations over a 10000 x 100 matrix read it 99 times (correlation_loop: 33 ms, NumPy
20 ms). One matrix-matrix product before the loop reads it once, at BLAS-3 speed, and
each iteration then reads its row of the result.

The rewrite runs on the finished module: a `dot_general` in a `while` body whose
operands are a loop-invariant value (defined outside the loop) and a `dynamic_slice`
of one, of size 1 along one axis (the picked row) and full along the others, seen
through reshapes. It is exact in what it selects: `dynamic_slice` clamps its start the
same way into the original array and into the product, so every iteration reads the
products of the row it would have sliced. The values may differ in the last bits (a
matrix-matrix product sums in another order than a matrix-vector one, as NumPy's BLAS
calls do). It is done only where it pays: the loop has a static trip count of at least
half the rows (its counter is the rotated loop's `i += 1; go on while i < N`, and the
row index is computed from the counter alone), and the product of every row stays
within `_MAX_GROWTH` times the arrays it is made of and `_MAX_BYTES`. Loops are taken
inner first, so `for i: for j: C[i, j] = A[i] @ B[:, j]` becomes one matrix product.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.trace import constant
from npxla.runtime.lowering.counted import static_trip_count
from npxla.runtime.lowering.ssa import (copied_before, defining_op, inside, int_constant,
                                        itemsize, while_loops)

# pure ops that only select or move data, which `_invariant` sees through
_MOVES = frozenset({"stablehlo.constant", "stablehlo.reshape", "stablehlo.dynamic_slice",
                    "stablehlo.slice", "stablehlo.transpose", "stablehlo.broadcast_in_dim",
                    "stablehlo.convert"})
_AFFINE = frozenset({"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply",
                     "stablehlo.convert"})
# the product of every row may hold at most this many times the elements of the larger
# of its two operands (a loop that fills an n x m result from n x k and k x m operands
# computes as many products itself), and at most _MAX_BYTES
_MAX_GROWTH = 16
_MAX_BYTES = 1 << 28


def hoist_loop_products(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many products moved."""
    moved = 0     # inner loops first, so a product moved out of one may move on out of the next
    for loop in while_loops(module):
        trips = static_trip_count(loop)
        if trips is None:
            continue
        body = loop.regions[1].blocks[0]
        counter = body.arguments[trips[1]]
        for op in [o for o in body.operations if o.name == "stablehlo.dot_general"]:
            moved += _hoist(op, loop, counter, trips[0])
    return moved


# --- the loop ---------------------------------------------------------------------------


def _invariant(value, loop, depth=0) -> bool:
    """Whether `value` is the same in every iteration of `loop`: defined outside it, or
    computed in its body (not in a nested region) by a pure op that moves data
    (`a[i]` sliced inside an inner loop at an outer index) from such values."""
    if not inside(value, loop):
        return True
    op = defining_op(value)
    if op is None or depth > 8 or op.parent != loop or op.name not in _MOVES:
        return False
    return all(_invariant(v, loop, depth + 1) for v in op.operands)


def _counter_only(value, counter, depth=0) -> bool:
    """Whether `value` is computed from the loop counter (and constants) alone, using it."""
    if value == counter:
        return True
    op = defining_op(value)
    if op is None or depth > 8 or op.name not in _AFFINE:
        return False
    uses = [_counter_only(v, counter, depth + 1) for v in op.operands]
    return any(uses) and all(u or int_constant(v) is not None
                             for u, v in zip(uses, op.operands))


# --- the product ------------------------------------------------------------------------

def _picked_row(value, loop, counter):
    """(array, axis, index) where `value` is, through reshapes, a dynamic_slice of the
    loop-invariant `array` of size 1 along `axis` (full along every other) at an index
    computed from the counter; else None."""
    while (op := defining_op(value)) is not None and op.name == "stablehlo.reshape":
        value = op.operands[0]
    op = defining_op(value)
    if op is None or op.name != "stablehlo.dynamic_slice":
        return None
    array = op.operands[0]
    if not _invariant(array, loop):
        return None
    shape = list(ir.RankedTensorType(array.type).shape)
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
    axes = [a for a, (s, n) in enumerate(zip(sizes, shape)) if s != n]
    if len(axes) != 1 or sizes[axes[0]] != 1:
        return None
    index = op.operands[1 + axes[0]]
    if not _counter_only(index, counter):
        return None
    return array, axes[0], index


def _hoist(dot, loop, counter, trips) -> int:
    dims = hlo.DotDimensionNumbers(dot.attributes["dot_dimension_numbers"])
    if list(dims.lhs_batching_dimensions) or list(dims.rhs_batching_dimensions):
        return 0
    contracting = [list(dims.lhs_contracting_dimensions),
                   list(dims.rhs_contracting_dimensions)]
    for side in (0, 1):
        other = dot.operands[1 - side]
        picked = _picked_row(dot.operands[side], loop, counter)
        if picked is None or not _invariant(other, loop):
            continue
        array, axis, index = picked
        plan = _plan(dot, side, array, axis, contracting)
        if plan is None or 2 * trips < ir.RankedTensorType(array.type).shape[axis]:
            continue
        _rewrite(dot, loop, side, array, other, axis, index, plan, contracting[1 - side])
        return 1
    return 0


def _plan(dot, side, array, axis, contracting):
    """The array's axes that the product contracts, in the operand's order, or None
    where the operand is not the picked row with its axes in the array's order."""
    operand = ir.RankedTensorType(dot.operands[side].type).shape
    full = list(ir.RankedTensorType(array.type).shape)
    rest = [a for a in range(len(full)) if a != axis]
    # the operand's non-unit axes must be the array's other non-unit axes, in order
    kept = [a for a in rest if full[a] != 1]
    wide = [j for j, n in enumerate(operand) if n != 1]
    if [operand[j] for j in wide] != [full[a] for a in kept]:
        return None
    to_array = dict(zip(wide, kept))
    if any(j not in to_array for j in contracting[side]):
        return None
    other = ir.RankedTensorType(dot.operands[1 - side].type)
    grown = int(np.prod(full, dtype=np.int64)) // max(
        int(np.prod([full[to_array[j]] for j in contracting[side]], dtype=np.int64)), 1)
    grown *= int(np.prod(other.shape, dtype=np.int64)) // max(int(np.prod(
        [other.shape[j] for j in contracting[1 - side]], dtype=np.int64)), 1)
    limit = _MAX_GROWTH * max(int(np.prod(full, dtype=np.int64)),
                              int(np.prod(other.shape, dtype=np.int64)))
    if grown > limit or grown * itemsize(dot.result.type) > _MAX_BYTES:
        return None
    return [to_array[j] for j in contracting[side]]


def _rewrite(dot, loop, side, array, other, axis, index, array_contract, other_contract):
    full = list(ir.RankedTensorType(array.type).shape)
    other_t = ir.RankedTensorType(other.type)
    array_free = [a for a in range(len(full)) if a not in array_contract]
    other_free = [a for a in range(other_t.rank) if a not in other_contract]
    free_shapes = [[full[a] for a in array_free], [other_t.shape[a] for a in other_free]]
    elem = ir.RankedTensorType(dot.result.type).element_type
    if side == 0:
        shape = free_shapes[0] + free_shapes[1]
        pos = array_free.index(axis)
        operands, contract = (array, other), (array_contract, other_contract)
    else:
        shape = free_shapes[1] + free_shapes[0]
        pos = len(other_free) + array_free.index(axis)
        operands, contract = (other, array), (other_contract, array_contract)
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=[], rhs_batching_dimensions=[],
        lhs_contracting_dimensions=list(contract[0]),
        rhs_contracting_dimensions=list(contract[1]))
    precision = dot.attributes["precision_config"] if "precision_config" in dot.attributes \
        else None
    with loop.location:
        operands = [copied_before(v, loop) for v in operands]
    with ir.InsertionPoint(loop), loop.location:
        every = hlo.DotGeneralOp(ir.RankedTensorType.get(shape, elem), *operands,
                                 dims,
                                 precision_config=precision).result
    with ir.InsertionPoint(dot), dot.location:
        width = ir.IntegerType(ir.RankedTensorType(index.type).element_type).width
        zero = constant(np.zeros((), f"int{width}"))
        starts = [index if d == pos else zero for d in range(len(shape))]
        sizes = [1 if d == pos else n for d, n in enumerate(shape)]
        row = hlo.DynamicSliceOp(every, starts, sizes).result
        result = hlo.ReshapeOp(dot.result.type, row).result
    dot.result.replace_all_uses_with(result)
    dot.erase()

