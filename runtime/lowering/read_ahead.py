"""Reads of a loop-carried array taken one trip ahead, so that XLA updates it in place.

A loop that updates a carried array in place (`D[i + 1, j + 1] = d + min(D[i, j], ...)`)
is one `dynamic_update_slice` per trip, which XLA:CPU runs in the array's own buffer as
long as every read of the old array happens before the write. XLA fuses a read of one
element into each kernel that uses it, though, and when a kernel also uses the *new*
array (a `break` on `D[i + 1, j + 1] > limit`, a check code mixing flags from before and
after the write), the old array must outlive the write: XLA then copies the whole array
on every trip. dtaidistance's `warping_paths` (a 201 x 181 table, two copies a trip)
ran 17x slower than NumPy that way.

So where some value of the trip depends both on the written array and on an element
read from the array before the write, those element reads move a trip ahead: each
becomes a carried value, read from the array before the loop for the first trip and,
at the end of every trip, from the array that trip leaves, at the indices the next trip
would compute (the index ops are copied with the next trip's state). The trip itself
then reads no old element at all: every kernel that reads the array reads the new one.
The values are the same: the next trip would read that same array at those same
indices. After the last trip the read is wasted (a `dynamic_slice` clamps, so an index
past the end reads some element and nothing uses it; the checks on the index stay in
the trip that uses the value).

Applies to arrays whose trip ends with a chain of `dynamic_update_slice`s of the carried
value and whose other uses in the trip are `dynamic_slice`s of at most `MAX_ELEMENTS`
elements, at indices computed (by ops without regions or effects) from the trip's
carried values, constants and values from outside the loop, and not from the array.

The same move serves a trip that computes the whole array anew from its old elements
and some of its rows or columns: Floyd-Warshall's `D = np.minimum(D, D[:, k, None] +
D[None, k, :])`. XLA fuses the row and column reads into the kernel that computes the
new array, which then reads the old one at other positions than it writes, so it
writes a new buffer and XLA copies it into the loop's own every trip (200 x 200: a
320 KB copy a trip). With the row and column taken a trip ahead, the kernel reads the
old array only element by element at the position it writes, and XLA runs it in the
array's own buffer. So an array of at least `WHOLE_MIN_ELEMENTS` whose other uses in
the trip are all same-shaped elementwise ops has its `dynamic_slice`s (of at most a
`WHOLE_MAX_SHARE` of it, together) moved too.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.ssa import (ELEMENTWISE, affine, defining_op, int_constant,
                                        operation, rebuilt_loop, remap, while_loops)

MAX_ELEMENTS = 16
_DS, _DUS = "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice"
# ops an index may be computed with (copied to the end of the trip and before the loop)
_PURE_BUDGET = 64
_IMPURE = frozenset({"stablehlo.while", "stablehlo.if", "stablehlo.case",
                     "stablehlo.custom_call", "stablehlo.rng", "stablehlo.infeed",
                     "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv"})
# a closure over the trip's ops larger than this is not searched (counts as a conflict)
_CLOSURE_BUDGET = 4096
# arrays computed anew each trip: the smallest, and the largest share of it read ahead
WHOLE_MIN_ELEMENTS = 1024
WHOLE_MAX_SHARE = 0.25


def read_ahead(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many reads moved."""
    moved = 0
    for loop in while_loops(module):
        for k in range(len(loop.operands)):
            body = loop.regions[1].blocks[0]
            reads = _plan(loop, body, k) or _plan_whole(loop, body, k)
            if reads:
                loop = _rewrite(loop, k, reads)
                moved += len(reads)
    return moved


def _plan(loop, body, k):
    """The element reads of carried array `k` to take a trip ahead, or None."""
    arg = body.arguments[k]
    t = ir.RankedTensorType(arg.type)
    if t.rank == 0:
        return None
    ret = terminator(body)
    chain = write_chain(ret.operands[k], arg)
    if not chain:
        return None
    _merge_nested_reads(body, arg)
    reads = []
    for use in arg.uses:
        op = operation(use.owner)
        if op == chain[-1]:
            continue
        if operation(op.parent) != operation(loop) or op.name != _DS or \
                use.operand_number != 0 or \
                int(np.prod(ir.RankedTensorType(op.results[0].type).shape)) > MAX_ELEMENTS:
            return None
        if not all(_index_ops(v, body, arg, [_PURE_BUDGET]) is not None
                   for v in op.operands[1:]):
            return None
        reads.append(op)
    if not reads or not _conflict(reads, chain):
        return None
    return reads


def _plan_whole(loop, body, k):
    """The window reads of carried array `k` to take a trip ahead when the trip computes
    the array anew from them and its old elements (used only by same-shaped elementwise
    ops), else None."""
    arg = body.arguments[k]
    t = ir.RankedTensorType(arg.type)
    size = int(np.prod(t.shape)) if t.rank else 0
    if size < WHOLE_MIN_ELEMENTS or terminator(body).operands[k] == arg:
        return None
    reads, read_elements = [], 0
    for use in arg.uses:
        op = operation(use.owner)
        if operation(op.parent) != operation(loop):
            return None
        if op.name == _DS and use.operand_number == 0:
            if not all(_index_ops(v, body, arg, [_PURE_BUDGET]) is not None
                       for v in op.operands[1:]):
                return None
            reads.append(op)
            read_elements += int(np.prod(ir.RankedTensorType(op.results[0].type).shape))
        elif op.name not in ELEMENTWISE or any(
                ir.RankedTensorType(r.type).shape != t.shape for r in op.results):
            return None
    if not reads or read_elements > WHOLE_MAX_SHARE * size:
        return None
    return reads


def _merge_nested_reads(body, arg):
    """Reads of `arg` inside a branch of the trip (`if k == n: k = searchsorted(P[out[i,
    t]], ..)` reads `out[i, t]` again) at the same indices as a read at the top of the
    trip before that branch are that read: SSA values, the same old array and indices."""
    ops = [operation(op) for op in body.operations]
    position = {op: at for at, op in enumerate(ops)}
    top = {}
    for use in list(arg.uses):
        op = operation(use.owner)
        if op.name == _DS and use.operand_number == 0 and op in position:
            top.setdefault(read_key(op), op)
    for use in list(arg.uses):
        op = operation(use.owner)
        if op.name != _DS or use.operand_number != 0 or op in position:
            continue
        outer = op
        while outer is not None and outer not in position:
            outer = operation(outer.parent) if outer.parent is not None else None
        same = top.get(read_key(op))
        if outer is not None and same is not None and position[same] < position[outer]:
            op.results[0].replace_all_uses_with(same.results[0])
            op.erase()


def read_key(op):
    return (tuple(op.operands), tuple(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"])))


def terminator(block):
    return list(block.operations)[-1]


def write_chain(end, arg):
    """The `dynamic_update_slice`s from `end` back to `arg` (each writing into the one
    before), last write first; [] if `end` is not made that way."""
    chain = []
    value = end
    while value != arg:
        op = defining_op(value)
        if op is None or op.name != _DUS:
            return []
        chain.append(op)
        value = op.operands[0]
    return chain


def _index_ops(value, body, arg, budget):
    """The ops of `body` that compute `value` (each after the ops it reads), or None
    where one reads `arg` or may not be copied."""
    ops, seen = [], {}
    owner = operation(body.owner)

    def visit(v):
        op = defining_op(v)
        if op is None or operation(op.parent) != owner:
            return arg is None or v != arg
        if op in seen:
            return True
        seen[op] = op
        budget[0] -= 1
        if budget[0] < 0 or op.name in _IMPURE or len(op.regions):
            return False
        if not all(visit(x) for x in op.operands):
            return False
        ops.append(op)
        return True

    if not visit(value):
        return None
    return ops                      # operands before their users


def _conflict(reads, chain) -> bool:
    """Whether XLA would have to keep the array as it was before the first write: some
    op of the trip uses both the written array (after the first write) and, other than
    through the writes, a value computed from an old element read; or an op computed
    from a read does not feed the writes (XLA fuses the read into that op, which it
    may then run after the write: quantecon's sample paths, whose reads of `out[i, t]`
    also feed the bounds checks of `P[out[i, t]]`, copied `out` twice a trip)."""
    writes = set(chain)
    new = closure([chain[-1]], stop=set())
    if new is None:
        return True
    # (old elements a barrier holds are read before the first write: `bundled_reads`)
    held = {operation(op) for op in chain[-1].block.operations
            if op.name == "stablehlo.optimization_barrier"}
    old = closure(reads, stop=writes | held)
    if old is None:
        return True
    if any(op in new and op.name != "stablehlo.return" for op in old if op not in writes):
        return True
    feeding = _ancestors(chain, reads)
    return feeding is None or any(op not in feeding and op.name != "stablehlo.return"
                                  for op in old if op not in writes)


def _ancestors(chain, reads):
    """The trip's ops the writes of `chain` are computed from (stopping at the reads),
    or None past the budget. (Values a nested region reads are not followed: an op
    missed here only makes `_conflict` answer yes, and a read move that XLA did not
    need costs a carried element.)"""
    owner = operation(chain[0].parent)

    def sources(op):
        return [source for source in map(defining_op, op.operands)
                if source is not None and operation(source.parent) == owner]
    return _walk(chain, set(reads), sources)


def closure(starts, stop):
    """The trip's ops reachable from `starts` through uses (nested uses count as their
    enclosing op), not going through ops in `stop`; None past the budget. (Ops are
    compared by `==` and hashed: the same op may come back as another Python object.)"""
    owner = operation(starts[0].parent)

    def users(op):
        out = []
        for result in op.results:
            for use in result.uses:
                user = operation(use.owner)
                while user.parent is not None and operation(user.parent) != owner:
                    user = operation(user.parent)
                if user.parent is not None:
                    out.append(user)
        return out
    return _walk(starts, stop, users)


def _walk(starts, stop, step):
    """The ops reachable from `starts` by `step` (an op's next ops), not going on from
    ops in `stop` other than the starts; None past the budget."""
    begin = set(starts)
    found, todo = set(), list(starts)
    while todo:
        op = todo.pop()
        if op in found:
            continue
        found.add(op)
        if len(found) > _CLOSURE_BUDGET:
            return None
        if op in stop and op not in begin:
            continue
        todo += step(op)
    return found


def _rewrite(loop, k, reads):
    """`loop` rebuilt with one more carried value per read; returns the new loop."""
    body = loop.regions[1].blocks[0]
    ret = terminator(body)
    firsts = []
    with ir.InsertionPoint(loop), loop.location:
        before = defining_op(loop.operands[k])      # `x[i, 0] = v` just before the loop
        for op in reads:                    # the first trip's reads, before the loop
            firsts.append(_forwarded(op, body, list(loop.operands), before) or
                          _read_at(op, body, list(loop.operands), loop.operands[k]))
    new, (_, body) = rebuilt_loop(loop, list(loop.operands) + firsts)
    n = len(loop.operands)
    ret = terminator(body)
    ends = list(ret.operands)
    with ir.InsertionPoint(ret), ret.location:
        last = defining_op(ends[k])                 # the trip's last write
        nexts = [_forwarded(op, body, ends, last) or _read_at(op, body, ends, ends[k])
                 for op in reads]
        hlo.ReturnOp(ends + nexts)
    ret.erase()
    for j, op in enumerate(reads):
        op.results[0].replace_all_uses_with(body.arguments[n + j])
        op.erase()
    for old, value in zip(loop.results, new.results):
        old.replace_all_uses_with(value)
    loop.erase()
    return new.operation


def _forwarded(op, body, state, write):
    """The update of `write` (the trip's last write) where the read `op`, taken with the
    carried values `state`, reads exactly the element(s) it wrote, else None: `x[t + 1]
    = f(x[t])` hands the next trip the value it wrote, so that no op reads the array the
    write updates (XLA fused such a read with the write and copied the array again)."""
    if write is None or write.name != _DUS or write.operands[1].type != op.results[0].type:
        return None
    starts = _starts_at(op, body, state)
    if all(same_index(a, b) for a, b in zip(starts, list(write.operands)[2:])):
        return write.operands[1]
    return None


def _form(index):
    """`affine`'s (base, offset) of an index, a constant base folded into the offset."""
    base, offset = affine(index)
    k = int_constant(base)
    return (None, offset + k) if k is not None else (base, offset)


def same_index(a, b) -> bool:
    """Whether indices `a` and `b` are one value: the same base and offset (compared
    apart: an `ir.Value` refuses `== None`, which a tuple comparison would ask when
    one base is a constant, `T[a[j], j]` against a write at `T[i, j]`)."""
    (base_a, off_a), (base_b, off_b) = _form(a), _form(b)
    if off_a != off_b or (base_a is None) != (base_b is None):
        return False
    return base_a is None or base_a == base_b


def _read_at(op, body, state, array):
    """A copy, at the insertion point, of the read `op` of `body` (and of the ops
    computing its indices) with the trip's carried values taken from `state` and the
    array from `array`."""
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
    return hlo.DynamicSliceOp(array, _starts_at(op, body, state), sizes).result


def _starts_at(op, body, state):
    """The start indices of the read `op`, computed at the insertion point from the
    carried values `state` (the ops computing them copied there)."""
    mapping = {a: v for a, v in zip(body.arguments, state)}
    for v in op.operands[1:]:
        for index_op in _index_ops(v, body, None, [_PURE_BUDGET]):
            if index_op.results[0] in mapping:
                continue
            copy = index_op.clone()
            remap(copy, mapping)
            for a, b in zip(index_op.results, copy.results):
                mapping[a] = b
    return [mapping.get(v, v) for v in op.operands[1:]]
