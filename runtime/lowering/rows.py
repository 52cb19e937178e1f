"""A loop that writes one row of a carried array carries that row alone.

`for j in range(1, m + 1): D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, ...)` (an
edit-distance table, a Needleman-Wunsch score table, a Gauss-Seidel sweep along row
`i`) writes row `i` of `D` and reads rows `i - 1` and `i`. Staged as written, the inner
`while` carries all of `D` and updates it in place; every read of `D` must then be taken
before the trip's write, so XLA:CPU runs each read as a kernel of its own (an
edit-distance trip was six kernels, three of them reads). The reads of row `i - 1` read
a row the loop never writes.

So when the only write to a carried array in the body is one `dynamic_update_slice`
at a row index fixed for the loop, and every other use of the array is a
`dynamic_slice` one row high, the loop carries that row instead: it is sliced out
before the loop, reads of the same row index read the carried row, reads of rows
proved to be other rows read the array as it was before the loop (unchanged there,
and no longer carried, so XLA fuses those reads into the ops that use them), and the
row goes back into the array after the loop.

Exactness: `dynamic_slice` and `dynamic_update_slice` clamp a start into the array.
The carried row is sliced and written back at the same (clamped) row index as every
write of the loop, so it is the row the loop writes whatever that index is. A read at
another index is moved to the array from before the loop only when both indices are
proved to lie in the array and to differ: the rows are affine in the counters of
enclosing counted loops (`counted.static_trip_count`), whose ranges bound them
(`counted.interval`), and the read's index is the write's plus a nonzero constant, or the
two ranges do not meet.
"""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.build import int_constant_op
from npxla.runtime.lowering.counted import interval, static_trip_count
from npxla.runtime.lowering.ssa import (affine, defining_op, inside, int_constant,
                                        operation, rebuilt_loop, while_loops)

_DS, _DUS = "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice"


def privatise_rows(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many loops changed."""
    changed = 0
    for loop in while_loops(module):
        while True:
            plan = _plan(loop)
            if plan is None:
                break
            position = plan[0]
            loop = _rewrite(loop, *plan)
            loop = _forward(loop, position)
            changed += 1
    return changed


def _plan(loop):
    """(position, write, own reads, other reads) of the first carried array of `loop`
    that can carry one row (see the module doc), else None."""
    cond = loop.regions[0].blocks[0]
    body = loop.regions[1].blocks[0]
    ret = list(body.operations)[-1]
    for p, arg in enumerate(body.arguments):
        t = _ranked(arg.type)
        if t is None or t.rank < 2 or list(cond.arguments[p].uses):
            continue
        write = defining_op(ret.operands[p])
        if write is None or write.name != _DUS or write.operands[0] != arg or \
                write.parent != loop or _uses(write.results[0]) != [ret]:
            continue
        row = write.operands[2]
        if inside(row, loop) or ir.RankedTensorType(write.operands[1].type).shape[0] != 1:
            continue
        own, other = [], []
        for user in _uses(arg):
            if user == write:
                continue
            if user.parent == loop and not any(list(r.uses) for r in user.results):
                own.append(user)           # dead (a branch's write a select replaced)
                continue
            if user.name != _DS or user.parent != loop or user.operands[0] != arg or \
                    ir.DenseI64ArrayAttr(user.attributes["slice_sizes"])[0] != 1:
                break
            if user.operands[1] == row:
                own.append(user)
            elif _other_row(user.operands[1], row, t.shape[0]):
                other.append(user)
            else:
                break
        else:
            if own or other:
                return p, write, own, other
    return None


def _ranked(t):
    try:
        return ir.RankedTensorType(t)
    except ValueError:
        return None


def _uses(value) -> list:
    return [operation(u.owner) for u in value.uses]


def _other_row(index, row, rows) -> bool:
    """Whether `index` and `row` are proved to be different rows in [0, rows)."""
    a, b = interval(index), interval(row)
    if a is None or b is None or a[0] < 0 or b[0] < 0 or a[1] >= rows or b[1] >= rows:
        return False
    base_a, off_a = affine(index)
    base_b, off_b = affine(row)
    if base_a == base_b:
        return off_a != off_b
    return a[1] < b[0] or b[1] < a[0]


def _rewrite(loop, p, write, own, other):
    """The loop rebuilt to carry row `write.operands[2]` of its array `p`; returns the
    new loop."""
    full = loop.operands[p]
    t = ir.RankedTensorType(full.type)
    row = write.operands[2]

    def at_row_zero(value):           # the other start indices of a whole row
        return [int_constant_op(0, value.type) for _ in range(t.rank - 1)]

    with ir.InsertionPoint(loop), loop.location:
        operands = list(loop.operands)
        operands[p] = hlo.DynamicSliceOp(full, [row] + at_row_zero(row),
                                         [1] + list(t.shape[1:])).result
    new, _ = rebuilt_loop(loop, operands)
    # reads of the written row read the carried row (its row 0); the write updates it
    for op in own + [write]:
        if not any(list(r.uses) for r in op.results):
            op.erase()
            continue
        _at_row_zero(op, op.operands[0])
    # rows the loop never writes, as before the loop: a row index fixed for the loop
    # reads a row sliced out before it (XLA sizes a kernel's threads by its operands,
    # and a gather from the whole array was split over threads for 500 elements)
    rows_before = {}
    for op in other:
        index = op.operands[1]
        if inside(index, new):
            op.operands[0] = full
            continue
        source = rows_before.get(index)
        if source is None:
            with ir.InsertionPoint(loop), loop.location:
                source = rows_before[index] = hlo.DynamicSliceOp(
                    full, [index] + at_row_zero(index), [1] + list(t.shape[1:])).result
        _at_row_zero(op, source)
    with ir.InsertionPoint(loop), loop.location:
        results = list(new.results)
        results[p] = hlo.DynamicUpdateSliceOp(full, results[p],
                                              [row] + at_row_zero(row)).result
    for old, value in zip(loop.results, results):
        old.replace_all_uses_with(value)
    loop.erase()
    return new.operation


def _at_row_zero(op, source):
    """`op` (a one-row read or write) rebuilt on `source`, a one-row array, at its row 0."""
    first = 1 if op.name == _DS else 2
    with ir.InsertionPoint(op), op.location:
        starts = [int_constant_op(0, op.operands[first].type)] + list(op.operands[first + 1:])
        if op.name == _DS:
            sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
            rebuilt = hlo.DynamicSliceOp(source, starts, sizes).result
        else:
            rebuilt = hlo.DynamicUpdateSliceOp(source, op.operands[1], starts).result
    op.results[0].replace_all_uses_with(rebuilt)
    op.erase()



def _forward(loop, p):
    """`loop` with the reads of its carried row `p` that need no carried row replaced;
    returns the loop (a new one where a value is forwarded).

    In a counted loop whose counter `c` makes the write column `c + w`, the trip reads
    the row as the trips before left it: columns `c + w + d` with `d >= 0` are not
    written yet and hold the row from before the loop (`u[i, j + 1]` of a Gauss-Seidel
    sweep), and column `c + w - 1` holds what the trip before wrote (`D[i, j - 1]`),
    which is carried as a scalar (the first trip reads the row before the loop). Only
    where the columns are proved inside the row for every trip."""
    trips = static_trip_count(loop, at_most=True)
    body = loop.regions[1].blocks[0]
    ret = list(body.operations)[-1]
    write = defining_op(ret.operands[p])
    row_t = ir.RankedTensorType(loop.operands[p].type)
    if trips is None or row_t.rank != 2 or write is None or write.name != _DUS or \
            list(ir.RankedTensorType(write.operands[1].type).shape) != [1, 1]:
        return loop
    count, k = trips
    counter = body.arguments[k]
    start = int_constant(loop.operands[k])
    base, w = affine(write.operands[3])
    if base != counter:
        return loop
    piece = write.operands[1].type
    previous, ahead = [], []
    for op in _uses(body.arguments[p]):
        if op.name != _DS or op.parent != loop or op.results[0].type != piece or \
                int_constant(op.operands[1]) != 0:
            continue
        base, r = affine(op.operands[2])
        if base != counter or start + min(r, w) < 0 or \
                start + count - 1 + max(r, w) >= row_t.shape[1]:
            continue
        if r == w - 1:
            previous.append(op)
        elif r >= w:
            ahead.append(op)
    for op in ahead:                       # not written yet: the row before the loop
        op.operands[0] = loop.operands[p]
    if not previous:
        return loop
    scalar = ir.RankedTensorType.get([], row_t.element_type)
    with ir.InsertionPoint(loop), loop.location:
        index = loop.operands[k]
        first = hlo.DynamicSliceOp(loop.operands[p], [
            int_constant_op(0, index.type), int_constant_op(start + w - 1, index.type)],
            [1, 1]).result
        operands = list(loop.operands) + [hlo.ReshapeOp(scalar, first).result]
    new, blocks = rebuilt_loop(loop, operands)
    last = blocks[1].arguments[len(operands) - 1]
    with ir.InsertionPoint(blocks[1].operations[0]), loop.location:
        as_piece = hlo.ReshapeOp(piece, last).result
    for op in previous:
        op.results[0].replace_all_uses_with(as_piece)
        op.erase()
    with ir.InsertionPoint(ret), ret.location:
        value = hlo.ReshapeOp(scalar, write.operands[1]).result
        hlo.ReturnOp(list(ret.operands) + [value])
    ret.erase()
    for old, value in zip(loop.results, new.results):
        old.replace_all_uses_with(value)
    loop.erase()
    return new.operation
