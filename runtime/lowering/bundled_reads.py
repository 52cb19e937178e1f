"""Old elements that a trip's later writes need, read into one buffer before its first
write, so that XLA updates the loop's array in place.

A swap (`t = A[i, j]; A[i, j] = A[j, i]; A[j, i] = t`, `x[i], x[n - 1 - i] = x[n - 1 -
i], x[i]`) is two `dynamic_update_slice`s of the carried array, the second writing a
value read from the array before the first. XLA fuses each read into the kernel that
uses it, so the read of `A[i, j]` runs inside the second write's kernel, after the first
write has changed the buffer in place; to keep the old value XLA then copies the whole
array, twice a trip. Reversing 100,001 elements that way took 2.3 s (NumPy's Python
loop: 30 ms).

So when a write after the first takes a value computed from an old element, all the
trip's old-element reads, and the first write's update, go through one buffer: their
elements concatenated and passed through an `optimization_barrier`, then sliced back
out. XLA cannot fold the slices into the reads across the barrier, and it keeps the
concatenation as a buffer of its own (it has several users). The first write now
depends on that buffer, so every old read runs before it, and each write runs in the
array's own buffer. The barrier alone, around each read or around all of them as a
tuple, does not do it: XLA still fused each read into its write (checked on the
optimised HLO of jaxlib 0.10; `tests/runtime/test_bundled_reads.py` holds XLA to it).
The values are the same elements: only the order in which XLA may run the reads changes.

Applies to a carried array whose trip ends with a chain of `dynamic_update_slice`s of
it, whose other uses in the trip are `dynamic_slice`s at the top of the trip (not in a
nested region), before the first write, of at most `MAX_SHARE` of the array together;
`read_ahead` handles the loops where a read's value meets the written array elsewhere.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.dead import pure
from npxla.runtime.lowering.read_ahead import closure
from npxla.runtime.lowering.ssa import operation, while_loops

_DS, _DUS = "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice"
# the old elements bundled, as a share of the array (a row swap of a matrix: 2 rows)
MAX_SHARE = 0.25


def bundle_old_reads(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many trips' reads
    were bundled."""
    done = 0
    for loop in while_loops(module):
        body = loop.regions[1].blocks[0]
        position = None              # the trip's ops in order (again after a rewrite)
        for k in range(len(loop.operands)):
            first = _single_write(body.arguments[k], body)
            if first is None:
                continue
            if position is None:
                position = {operation(op): at for at, op in enumerate(body.operations)}
            plan = _plan(body.arguments[k], first, position)
            if plan is not None:
                _bundle(*plan)
                position = None
                done += 1
    return done


def _single_write(arg, body):
    """The trip's one `dynamic_update_slice` of the carried array `arg`, when the
    array is also read (else None)."""
    t = ir.RankedTensorType(arg.type)
    if t.rank == 0:
        return None
    writes, reads = [], 0
    for use in arg.uses:
        op = operation(use.owner)
        if op.name == _DUS and use.operand_number == 0:
            writes.append(op)
        else:
            reads += 1
    if len(writes) != 1 or not reads or writes[0].block != body:
        return None
    return writes[0]


def _plan(arg, first, position):
    """(reads, first write, ops to move after the bundle) of the carried array `arg`
    whose trip writes it first with `first`, or None."""
    t = ir.RankedTensorType(arg.type)
    feeding = _ancestors(first, position)
    reads, elements = [], 0
    for use in arg.uses:
        op = operation(use.owner)
        if op == first:
            continue
        top = _top(op, first)
        if top in feeding and top != op:
            continue          # read inside an op the first write waits for (a search loop)
        if op.name != _DS or use.operand_number != 0 or op not in position or \
                position[op] > position[first]:
            return None
        reads.append(op)
        elements += int(np.prod(ir.RankedTensorType(op.results[0].type).shape))
    if not reads or elements > MAX_SHARE * int(np.prod(t.shape)):
        return None
    old = closure(reads, stop={first})
    if old is None or not any(position.get(op, -1) > position[first] for op in old):
        return None
    # the ops between the reads and the first write that are computed from a read and
    # do not feed the first write move after the bundle, reading its slices
    ops = sorted(position, key=position.get)
    moved = [op for op in ops[min(position[r] for r in reads):position[first]]
             if op in old and op not in feeding and op not in reads]
    if not all(pure(op) for op in moved):
        return None
    return reads, first, moved


def _ancestors(first, position):
    """The ops of the trip that `first` is computed from (regions not followed)."""
    found, todo = set(), [first]
    while todo:
        op = todo.pop()
        for v in op.operands:
            owner = v.owner
            if isinstance(owner, ir.Block):
                continue
            source = operation(owner)
            if source in position and source not in found:
                found.add(source)
                todo.append(source)
    return found


def _bundle(reads, first, moved):
    """One concatenation of the reads' elements and the first write's update, through
    a barrier, before `first`; the ops in `moved`, the first write and the ops after
    it take slices of it."""
    values = [op.results[0] for op in reads] + [first.operands[1]]
    with ir.InsertionPoint(first), first.location:
        flat, sizes = [], []
        for v in values:
            shape = ir.RankedTensorType(v.type)
            n = int(np.prod(shape.shape))
            sizes.append(n)
            flat.append(hlo.ReshapeOp(ir.RankedTensorType.get([n], shape.element_type),
                                      v).result)
        joined = hlo.ConcatenateOp(flat, 0).result
        held = hlo.OptimizationBarrierOp([joined]).results[0]
        parts, at = [], 0
        for v, n in zip(values, sizes):
            piece = hlo.SliceOp(held, [at], [at + n], [1]).result
            parts.append(hlo.ReshapeOp(v.type, piece).result)
            at += n
    for op in moved:
        op.move_before(first)
    later = set(moved)
    for op, part in zip(reads, parts):
        for use in list(op.results[0].uses):
            user = _top(operation(use.owner), first)
            if user in later or user == first or first.is_before_in_block(user):
                operation(use.owner).operands[use.operand_number] = part
    first.operands[1] = parts[-1]


def _top(op, first):
    """`op`, or the op of `first`'s block that holds it in a region."""
    while op.block != first.block:
        op = operation(op.parent)
    return op
