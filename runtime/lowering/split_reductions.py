"""Large integer reductions, merged and split so that XLA:CPU fuses what they reduce.

XLA:CPU rewrites a `reduce` of more than 32 elements into a tree of `reduce_window`s
(32 at a time), and a `reduce_window` takes no producer into its fusion: what the
reduce folds is first written out whole. `count += lo <= x[i] < hi` over 10^6
doubles (the loop becomes `reduce(select(...))`) writes an 8 MB int64 array of ones
and zeros on every call, often into fresh pages, and reads it back. Measured here in
`jax.jit` models (medians of 30-60 interleaved calls, arguments on the device):

- A reduce of several inputs at once (variadic) is not turned into a tree. A loop
  keeping three sums of one array (`total += v[i]; squares += v[i] * v[i]; mixed ^=
  v[i]`) is three reductions of 10^6 int64: 2.3-3.6 ms as three, 0.8-1.0 ms as one
  reduce of three inputs (one pass, `v * v` fused).
- A reduce over rows of 16 (`reshape(n / 16, 16)`), whose partial results go through
  an `optimization_barrier` before the reduce over the rows (without it XLA folds the
  two reduces back into one), fuses its producer: the count above 1.5-2.2 -> 0.9-1.3
  ms, `sum(v * v)` 1.6-2.3 -> 1.0-1.25 ms. Rows of 8, 16 and 32 measured the same;
  from 64 on the tree comes back.
- Adding a few blocks of the input elementwise first (XLA vectorises that loop) and
  reducing their sum in rows: the count 0.5-0.65 ms with 8 blocks. In npxla, one
  process per variant, 4 alternations, 60 calls each, NumPy arguments: 4 blocks
  against none, `int_moments` 0.66-0.89 against 0.85-2.05 ms and `count_in_band`
  1.66-1.85 against 1.58-2.45 ms; 8 blocks were slower on `int_moments` (1.7-2.3 ms:
  XLA fuses the blocks into the rows' reduce). Before this rewrite: 5.6-7.8 and
  3.7-4.0 ms.

So, on CPU, reductions that reduce at least `MIN_ELEMENTS` elements per result with
an order-free integer op (add, multiply, and, or, xor, max, min: the same result in
any order, wrapping included) are first merged with their siblings (the same shape and
axes, in the same block, where one place lies after every input and before every use)
into one reduce, siblings that reduce values made alike sharing one input (a user's
`mask.sum()` and the count that `x[mask]` takes, `numpy/indexing/bounded_index`),
then, where the reduced axes are the innermost (contiguous) ones, split: `WAYS` blocks combined elementwise, their rows of `ROW` reduced, the partial
results behind a barrier reduced, and the few elements left over reduced on their own.
Float reductions keep their form: NumPy's order of a float sum is pairwise, which
their lowering reproduces (`numpy/reductions/pairwise`), and a float max/min goes to
YNNPACK (`reduce.py`).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.ssa import (ELEMENTWISE, defining_op, int_constant, is_integer,
                                        operation, ops_named)

# reduced elements per result from which a reduction is merged and split
MIN_ELEMENTS = 4096
# the number of blocks added elementwise first, and the length of the rows of their
# sum reduced next (XLA keeps a reduce of up to 32 elements whole)
WAYS = 4
ROW = 16
# order-free ops and, for those that count an element more than once if it is
# repeated, the init value the split may use more than once (their identity)
_ORDER_FREE = {"stablehlo.add": 0, "stablehlo.xor": 0, "stablehlo.multiply": 1,
               "stablehlo.and": None, "stablehlo.or": None, "stablehlo.maximum": None,
               "stablehlo.minimum": None}
# ops without effects or regions that a merge may move up to where it needs their value
_MOVABLE = ELEMENTWISE | {f"stablehlo.{n}" for n in (
    "reshape slice dynamic_slice broadcast_in_dim constant convert transpose "
    "concatenate iota pad reverse").split()}


def split_reductions(module: ir.Module) -> int:
    """Merge and split the large order-free integer reductions of `module`; returns how
    many reductions were rewritten."""
    changed = 0
    blocks: dict = {}
    for op in ops_named(module, "stablehlo.reduce"):
        if _kinds(op) is not None and _reduced_size(op) >= MIN_ELEMENTS:
            blocks.setdefault(op.block, []).append(op)
    for block, ops in blocks.items():
        for op in _merged(block, ops):
            changed += 1
            if _contiguous(op):
                _split(op)
    return changed


def _kinds(op):
    """The op each result of the integer reduction `op` folds with (one per input), if
    every one is order-free and folds its own input alone; else None."""
    n = len(op.results)
    body = op.regions[0].blocks[0]
    args = list(body.arguments)
    inner = [operation(o) for o in body.operations]
    if not all(is_integer(ir.RankedTensorType(v.type).element_type) for v in op.results):
        return None
    ret = inner[-1]
    kinds = []
    for k, value in enumerate(ret.operands):
        folder = value.owner
        if isinstance(folder, ir.Block):
            return None
        folder = operation(folder)
        if folder.name not in _ORDER_FREE or \
                {a for a in folder.operands} != {args[k], args[n + k]}:
            return None
        kinds.append(folder.name)
    if len(inner) != n + 1:
        return None
    return kinds


def _reduced_size(op) -> int:
    shape = ir.RankedTensorType(op.operands[0].type).shape
    return int(np.prod([shape[d] for d in _dims(op)], dtype=np.int64))


def _dims(op) -> list:
    return [int(d) for d in ir.DenseI64ArrayAttr(op.attributes["dimensions"])]


def _contiguous(op) -> bool:
    """Whether `op` reduces the innermost axes of its inputs (a row-major suffix)."""
    rank = ir.RankedTensorType(op.operands[0].type).rank
    dims = sorted(_dims(op))
    return dims == list(range(rank - len(dims), rank))


def _merged(block, ops) -> list:
    """`ops` (reductions in `block`) with the siblings among them merged into one
    reduction each; the reductions left, merged or not."""
    position = {operation(o): i for i, o in enumerate(block.operations)}
    groups: dict = {}
    out = []
    for op in sorted(ops, key=lambda o: position[o]):
        if len(op.results) > 1:
            out.append(op)
            continue
        key = (str(op.operands[0].type), tuple(sorted(_dims(op))))
        groups.setdefault(key, []).append(op)
    for members in groups.values():
        while members:
            group, members = _take(members, block, position)
            out.append(_merge(group, block) if len(group) > 1 else group[0])
            position = {operation(o): i for i, o in enumerate(block.operations)}
    return out


def _take(members, block, position):
    """The first member and those after it that can join it, and the rest. The merged
    reduction goes before the first use of any member's result; a member joins where
    its inputs are computed before that place, or can be (pure ops without regions,
    moved up: `total += v[i]` reduced and used before `squares += v[i] * v[i]`'s
    product is computed)."""
    group, rest = [members[0]], []
    limit = _first_use(members[0], block, position)
    for op in members[1:]:
        trial = min(limit, _first_use(op, block, position))
        if _movable_inputs(group + [op], trial, position) is not None:
            group.append(op)
            limit = trial
        else:
            rest.append(op)
    if len(group) > 1:
        at = list(block.operations)[limit]
        for moved in _movable_inputs(group, limit, position):
            moved.move_before(at)
    return group, rest


def _movable_inputs(group, limit, position):
    """The ops at or after position `limit` that compute the inputs of `group`, in
    block order, when all of them can move before it; else None."""
    needed: dict = {}
    members = {operation(op) for op in group}

    def need(value) -> bool:
        owner = value.owner
        if isinstance(owner, ir.Block) or operation(owner) not in position:
            return True
        op = operation(owner)
        if op in members:           # an input computed from a sibling's result
            return False
        if position[op] < limit or op in needed:
            return True
        if op.name not in _MOVABLE or len(op.regions):
            return False
        needed[op] = position[op]
        return all(need(v) for v in op.operands)

    if not all(need(v) for op in group for v in op.operands):
        return None
    return sorted(needed, key=needed.get)


def _first_use(op, block, position) -> int:
    """The position in `block` of the first op that reads a result of `op` (the op
    holding the reader where it is nested); the block's terminator where nothing reads
    them (a result left for `erase_dead`)."""
    first = len(position) - 1
    for result in op.results:
        for use in result.uses:
            user = operation(use.owner)
            while user.block != block:
                user = operation(user.parent)
            first = min(first, position[user])
    return first


def _merge(group, block):
    """One reduction of all the inputs of `group`, placed before the first use of any
    of their results; the group's results read it."""
    position = {operation(o): i for i, o in enumerate(block.operations)}
    first_use = min(_first_use(op, block, position) for op in group)
    ops = list(block.operations)
    slots, unique = [], []      # a reduction of what another one reduces reads its result
    for op in group:
        key = (op.operands[0], op.operands[1], _kinds(op)[0])
        slot = next((j for j, other in enumerate(unique) if _same_reduction(key, other)),
                    None)
        if slot is None:
            slot = len(unique)
            unique.append(key)
        slots.append(slot)
    with ir.InsertionPoint(ops[first_use]), group[0].location:
        merged = _reduce([k[0] for k in unique], [k[1] for k in unique],
                         _dims(group[0]), [k[2] for k in unique])
    for op, slot in zip(group, slots):
        op.results[0].replace_all_uses_with(merged.results[slot])
        op.erase()
    return merged


def _same_reduction(a, b) -> bool:
    """Whether two (input, init, kind) reduce the same values the same way: the same
    kind, and inputs and inits that are one value or made alike (a mask converted twice:
    `mask.sum()` beside the count that `x[mask]` takes)."""
    return a[2] == b[2] and _same_value(a[0], b[0], 4) and _same_value(a[1], b[1], 4)


def _attributes(op) -> dict:
    attributes = op.attributes
    return {name: str(attributes[name]) for name in attributes}


def _same_value(a, b, depth) -> bool:
    """Whether `a` and `b` are one value, or made by the same pure ops (`_MOVABLE`: no
    effects, no regions; a random draw or a callback twice is two values) from the
    same values, looking `depth` ops up."""
    if a == b:
        return True
    x, y = defining_op(a), defining_op(b)
    if x is None or y is None or depth == 0 or x.name != y.name or \
            x.name not in _MOVABLE or len(x.results) != 1 or a.type != b.type or \
            len(x.operands) != len(y.operands) or _attributes(x) != _attributes(y):
        return False
    return all(_same_value(u, v, depth - 1) for u, v in zip(x.operands, y.operands))


def _reduce(inputs, inits, dims, kinds):
    """A reduce of `inputs` over `dims`, each folded with its op in `kinds`."""
    types = [ir.RankedTensorType(v.type) for v in inputs]
    scalars = [ir.RankedTensorType.get([], t.element_type) for t in types]
    outs = [ir.RankedTensorType.get([d for i, d in enumerate(t.shape) if i not in dims],
                                    t.element_type) for t in types]
    op = hlo.ReduceOp(outs, list(inputs), list(inits), list(dims))
    body = op.body.blocks.append(*scalars, *scalars)
    n = len(inputs)
    with ir.InsertionPoint(body):
        args = list(body.arguments)
        hlo.ReturnOp([ir.Operation.create(kind, results=[scalars[k]],
                                          operands=[args[k], args[n + k]]).results[0]
                      for k, kind in enumerate(kinds)])
    return op


def _split(op):
    """`op` as `WAYS` blocks of its (flattened) reduced axes combined elementwise, a
    reduce of rows of `ROW` of that, the partial results behind a barrier, their reduce,
    and the rest (fewer than `WAYS * ROW` elements per result) folded in."""
    kinds = _kinds(op)
    inputs, inits = list(op.operands[:len(kinds)]), list(op.operands[len(kinds):])
    if not all(_reusable(init, kind) for init, kind in zip(inits, kinds)):
        return
    shape = list(ir.RankedTensorType(inputs[0].type).shape)
    kept = len(shape) - len(_dims(op))
    # the kept axes flattened into one (none for a whole reduction: its slices are then
    # slices of the flat array, which `superset_heads` can see through)
    outer = [int(np.prod(shape[:kept], dtype=np.int64))] if kept else []
    size = _reduced_size(op)
    head = size // (WAYS * ROW) * (WAYS * ROW)
    last = len(outer)
    with ir.InsertionPoint(op), op.location:
        flat = [_reshaped(v, outer + [size]) for v in inputs]
        folded = [_fold(v, head, kind) for v, kind in zip(flat, kinds)]
        rows = [_reshaped(v, outer + [head // WAYS // ROW, ROW]) for v in folded]
        partial = _reduce(rows, inits, [last + 1], kinds).results
        held = hlo.OptimizationBarrierOp(list(partial)).results
        totals = list(_reduce(held, inits, [last], kinds).results)
        if head < size:
            rest = _reduce([_cut(v, head, size) for v in flat], inits, [last], kinds).results
            totals = [ir.Operation.create(kind, results=[t.type], operands=[t, r]).results[0]
                      for kind, t, r in zip(kinds, totals, rest)]
        results = [_reshaped(t, ir.RankedTensorType(r.type).shape)
                   for t, r in zip(totals, op.results)]
    for old, new in zip(op.results, results):
        old.replace_all_uses_with(new)
    op.erase()


def _fold(value, head, kind):
    """The `WAYS` consecutive blocks of the first `head` elements of the last axis of
    `value` combined elementwise by `kind`, as a balanced tree (each block sliced from
    `value` itself)."""
    k = head // WAYS
    parts = [_cut(value, r * k, (r + 1) * k) for r in range(WAYS)]
    while len(parts) > 1:
        parts = [ir.Operation.create(kind, results=[parts[i].type],
                                     operands=[parts[i], parts[i + 1]]).results[0]
                 for i in range(0, len(parts), 2)]
    return parts[0]


def _reusable(init, kind) -> bool:
    """Whether `init` may start each of the split's reductions: an idempotent op's any
    value, else the op's identity."""
    identity = _ORDER_FREE[kind]
    return identity is None or int_constant(init) == identity


def _reshaped(value, shape):
    t = ir.RankedTensorType(value.type)
    if list(t.shape) == list(shape):
        return value
    return hlo.ReshapeOp(ir.RankedTensorType.get(list(shape), t.element_type), value).result


def _cut(value, start, stop):
    """Elements `start:stop` of the last axis of the 1-d or 2-d `value`."""
    t = ir.RankedTensorType(value.type)
    if (start, stop) == (0, t.shape[-1]):
        return value
    lead = list(t.shape[:-1])
    return hlo.SliceOp(value, [0] * len(lead) + [start], lead + [stop],
                       [1] * t.rank).result
