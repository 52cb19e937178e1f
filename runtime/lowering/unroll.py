"""Scalar loops run several iterations per trip of their `stablehlo.while`.

A staged loop whose carried state is all scalars (`s -= L[i, j] * x[j]`, a checksum's
two sums, a bit-counting `while v: v &= v - 1`) does a few nanoseconds of arithmetic
per iteration, and XLA:CPU adds a fixed cost per trip: the condition, one kernel per
fusion of the body and the copies of the carried tuple (3.6 ns per trip for
`s += x[k] * x[k]`, of which the arithmetic is a fraction). Running `UNROLL` copies of
the body per trip divides that cost.

A counted loop (`for j in range(i)`: the next trip's predicate is exactly `k + 1 < n`,
with `n` fixed before the loop) knows at each trip how many trips remain, so it
becomes two loops: one whose trips run the copies unguarded while that many trips
remain, then the loop itself for the rest. Nothing runs that the loop would not run,
and the copies' recurrence is the loop's own chain of ops (against the guarded copies
below: `s += x[k] * x[k]` 1.82 -> 1.27 ns per iteration, `forward_subst_scalar` 0.18 ->
0.14 ms).

A counted loop that a check or a `break` may also end (`for k in range(indptr[i],
indptr[i + 1]): s += data[k] * x[indices[k]]`, whose reads are bounds-checked) runs its
copies unguarded too, and takes a whole trip of copies back when one of them would have
ended the loop: the loop itself then reruns those iterations one by one and ends where
it would have, raising the same error (CSR mat-vec 5.6 -> 4.0 ms, Adler-32 and CRC-32
0.85-0.88x). The checks' payloads and codes are not carried through such trips.

Other loops (a `while` on data) only know after a
trip whether another follows, and npxla's loops are rotated (the body computes the
predicate of the next trip, which the condition region returns), so the copies after
the first are guarded: copy c + 1 runs
on copy c's state, and every carried value takes the new state only where copy c's
predicate held (`select(p_c, new, old)`). A trip that ends the loop early leaves the
later copies' work unused; since the state is the one the loop had when its predicate
turned false, the result is exactly the loop's, bit for bit, in the same order of
operations.

Guarded copies after the end compute on values the loop never reaches. That is safe only
for operations without effects that cannot run forever: XLA defines every pure op on
every input (integer division by zero, out-of-range slices clamp), but a nested
`while` could spin on a garbage value and a custom call may be a host callback (a
`print`, a random draw) that must run exactly as often as in Python. Bodies holding
either are left alone, as are large bodies (the saving is per trip, the cost per op)
and loops known to run fewer trips than copies.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.counted import static_trip_count
from npxla.runtime.lowering.proven_checks import prove_trips
from npxla.runtime.lowering.build import int_constant_op, less_than
from npxla.runtime.lowering.ssa import (defining_op, inside, int_constant, is_scalar,
                                        itemsize, operation, remap, while_loops)

# body copies per trip, by the body's size in ops (nested regions counted, constants
# not): (most ops, copies). Measured on the loop kernels: bodies of 13-14 ops run 1.5-2.8x
# faster with 8 copies (xorshift_popcount, forward_subst_scalar); bodies of 27-56 ops,
# latency-bound chains through a table lookup or a modulo (crc32, adler32, csr_matvec),
# ran 5-8% slower with 4, the selects adding to the chain what the trips saved
UNROLL = ((24, 8),)
# the same for a counted loop, whose copies run unguarded (no select chain): larger
# bodies gain too. The inner loops of an edit-distance and a Needleman-Wunsch table
# (38-50 ops, a one-row array carried, `rows`) ran 1.1-1.3 -> 0.71-0.85 ms with 4 or 8
UNROLL_COUNTED = ((24, 8), (96, 4))
# carried arrays up to this size may be updated by the copies of a counted loop's body
_SMALL_BYTES = 1 << 16
# ops that must not run on values the loop would never have reached
_UNSAFE = frozenset({"stablehlo.while", "stablehlo.custom_call", "stablehlo.infeed",
                     "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv",
                     "stablehlo.rng", "stablehlo.all_reduce", "stablehlo.all_gather",
                     "stablehlo.all_to_all", "stablehlo.collective_permute",
                     "stablehlo.reduce_scatter", "stablehlo.collective_broadcast"})


def unroll_scalar_loops(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many loops changed."""
    changed = 0
    for loop in while_loops(module):
        counted = _counted(loop)
        if counted is not None:
            _fold_counter_bounds(loop, counted[0])
            counted = _counted(loop)          # (a folded compare may have been an exit)
        copies = _copies(loop, counted)
        if copies > 1:
            if counted is None:
                _unroll(loop, copies)
            else:
                _unroll_counted(loop, copies, *counted)
            changed += 1
    return changed


def _counted(loop):
    """(counter position, bound, exits) of a rotated loop whose next trip's predicate is
    `k + 1 < n`, with `n` a constant or defined outside the loop (`for j in range(i)`),
    and'ed with `exits`: the other values that may end it sooner (a check that fired, a
    `break`; none for a plain count). None for any other loop."""
    p = _predicate_position(loop)
    if p is None:
        return None
    body = loop.regions[1].blocks[0]
    ends = list(list(body.operations)[-1].operands)
    leaves = _conjuncts(ends[p], loop)
    for test in leaves:
        found = _count_test(defining_op(test), body, ends, p, loop)
        if found is not None:
            return found + ([v for v in leaves if v != test],)
    return None


def _steady(loop, exits) -> set:
    """Positions of carried values that a trip no exit ends leaves as they were: a
    check's payload (`select(fired, value, old)`), and its code (`select(fired_1, 1,
    select(fired_2, 2, .. 0))`, which the exit `code == 0` reads) where it starts at
    the code for none. Copies that take none of their trips back need not carry them:
    XLA then drops their computation from the unrolled trip."""
    body = loop.regions[1].blocks[0]
    ends = list(list(body.operations)[-1].operands)
    fired, codes = set(), {}
    for e in exits:
        op = defining_op(e)
        if op is None or op.name != "stablehlo.compare" or \
                hlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value != "EQ":
            continue
        flags, last = _select_chain(op.operands[0])
        if flags and last is not None and last == int_constant(op.operands[1]):
            fired.update(flags)
            codes[op.operands[0]] = last
    steady = set()
    for j, end in enumerate(ends):
        op = defining_op(end)
        if end in codes and int_constant(loop.operands[j]) == codes[end]:
            steady.add(j)
        elif op is not None and op.name == "stablehlo.select" and \
                op.operands[0] in fired and op.operands[2] == body.arguments[j]:
            steady.add(j)
    return steady


def _select_chain(value):
    """(predicates, the last value) of `select(p1, c1, select(p2, c2, .. c0))` with
    integer constants c1.. all unlike c0; ([], None) otherwise."""
    flags, taken = [], []
    op = defining_op(value)
    while op is not None and op.name == "stablehlo.select":
        flags.append(op.operands[0])
        taken.append(int_constant(op.operands[1]))
        value = op.operands[2]
        op = defining_op(value)
    last = int_constant(value)
    if last is None or None in taken or last in taken:
        return [], None
    return flags, last


def _fold_counter_bounds(loop, k):
    """Compares of the counter `k` of a counted loop that no trip can make hold become
    false: a trip runs only while `k < n <= INT64_MAX` and `k` counts up from a
    constant start, so `k > INT64_MAX - 1` (whether `k + 1` overflows, the check a
    Python int's increment carries) and `k < start` are never true. XLA then drops the
    check and its share of the loop's check code on every trip."""
    start = int_constant(loop.operands[k])
    if start is None:
        return
    arg = loop.regions[1].blocks[0].arguments[k]
    top = (1 << (ir.IntegerType(ir.RankedTensorType(arg.type).element_type).width - 1)) - 1
    if start >= top:
        return
    for use in list(arg.uses):
        op = operation(use.owner)
        if op.name != "stablehlo.compare" or op.operands[0] != arg:
            continue
        c = int_constant(op.operands[1])
        direction = hlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value
        if c is None or "compare_type" not in op.attributes or \
                hlo.ComparisonTypeAttr(op.attributes["compare_type"]).value != "SIGNED":
            continue
        never = {"GT": c >= top - 1, "GE": c >= top, "LT": c <= start,
                 "LE": c < start}.get(direction, False)
        if never:
            with ir.InsertionPoint(op), op.location:
                false = int_constant_op(False, op.results[0].type)
            op.results[0].replace_all_uses_with(false)


def _conjuncts(value, loop, depth=4):
    """The operands of the tree of `stablehlo.and`s (of i1) made in `loop`'s body that
    computes `value`."""
    op = defining_op(value)
    if depth and op is not None and op.name == "stablehlo.and" and inside(value, loop) \
            and ir.RankedTensorType(value.type).element_type == ir.IntegerType.get_signless(1):
        return [v for x in op.operands for v in _conjuncts(x, loop, depth - 1)]
    return [value]


def _count_test(test, body, ends, p, loop):
    """(counter position, bound) if `test` is `k + 1 < n` of a carried counter `k`."""
    if test is None or test.name != "stablehlo.compare" or \
            hlo.ComparisonDirectionAttr(test.attributes["comparison_direction"]).value != "LT":
        return None
    step, bound = test.operands
    kind = test.attributes["compare_type"] if "compare_type" in test.attributes else None
    if kind is None or hlo.ComparisonTypeAttr(kind).value != "SIGNED" or \
            not ir.IntegerType(ir.RankedTensorType(step.type).element_type).is_signless:
        return None                          # (a signed count, as `less_than` rebuilds it)
    add = defining_op(step)
    if add is None or add.name != "stablehlo.add" or (
            inside(bound, loop) and int_constant(bound) is None):
        return None
    for a, b in (add.operands, reversed(list(add.operands))):
        if int_constant(b) == 1 and isinstance(a.owner, ir.Block) and a.owner == body:
            k = ir.BlockArgument(a).arg_number
            if ends[k] == step and k != p:
                return k, bound
    return None


def _unroll_counted(loop, copies, k, bound, exits):
    """A counted loop as two: `copies` body copies per trip, unguarded, while that many
    trips remain (`k + copies <= n`), then the loop itself for the rest. Every copy
    runs a trip the loop runs, so nothing is computed that the loop would not (no
    select chains the copies: they cost a latency-bound recurrence one op per trip).

    A loop that `exits` may also end (a check that fired, a `break`) takes a trip of
    copies back when one of them would have ended it: the state is the trip's start
    again and the loop itself runs those iterations, one by one, to the same end, bit
    for bit (its checks then name the offending value). The copies after such an exit
    computed on values the loop never reaches, which `_UNSAFE` makes harmless; only
    scalars are carried (`_copies`), so taking a trip back costs a select per value.

    Where the index checks of the body are proven for a run of trips
    (`proven_checks`), the copies leave them out and stop where that run does. (A
    loop of single proven trips for the rest of the run, before the loop itself,
    changed nothing measurable on CSR rows of 4-256 elements.)"""
    proof = prove_trips(loop, k)
    with ir.InsertionPoint(loop), loop.location:
        if inside(bound, loop):            # a constant of the body: one before the loop
            bound = defining_op(bound).clone(ip=ir.InsertionPoint(loop)).results[0]
        if proof is not None:
            bound = proof.limit(bound, loop.operands[k])
    _run_ahead(loop, copies, k, bound, exits, proof)


def _run_ahead(loop, copies, k, bound, exits, proof):
    """A loop of `copies` body copies per trip while `k + copies <= bound`, inserted
    before `loop`, which then starts from the state it leaves."""
    p = _predicate_position(loop)
    body = loop.regions[1].blocks[0]
    ops = list(body.operations)
    ret, ops = ops[-1], ops[:-1]
    n = len(loop.operands)
    with ir.InsertionPoint(loop), loop.location:
        start = loop.operands[k]
        last = hlo.AddOp(start, int_constant_op(copies - 1, start.type)).result
        first = hlo.AndOp(loop.operands[p], less_than(last, bound)).result
        types = [v.type for v in loop.operands] + [first.type]
        main = hlo.WhileOp(types, list(loop.operands) + [first])
    cond = main.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.ReturnOp([cond.arguments[n]])
    block = main.regions[1].blocks.append(*types)
    start = state = list(block.arguments)[:n]
    stayed = []
    with ir.InsertionPoint(block), loop.location:
        for _ in range(copies):
            state, stays = _copy_body(body, ops, ret, state, ir.InsertionPoint(block),
                                      exits, proof)
            stayed += stays
        last = hlo.AddOp(state[k], int_constant_op(copies - 1, state[k].type)).result
        more = less_than(last, bound)
        if stayed:
            ok = stayed[0]
            for v in stayed[1:]:
                ok = hlo.AndOp(ok, v).result
            steady = _steady(loop, exits)
            state = [old if j in steady else hlo.SelectOp(ok, new, old).result
                     for j, (new, old) in enumerate(zip(state, start))]
            more = hlo.AndOp(ok, more).result
        hlo.ReturnOp(state + [more])
    for i in range(n):          # the loop itself runs the trips left
        loop.operands[i] = main.results[i]


def _copies(loop, counted) -> int:
    """How many body copies a trip of `loop` (`_counted`'s answer for it: `counted`)
    should run (1: leave it alone)."""
    if _predicate_position(loop) is None:
        return 1
    if not all(is_scalar(v) for v in loop.operands) and (
            counted is None or counted[2] or not _arrays_only_written(loop)):
        return 1
    size = _body_size(loop.regions[1].blocks[0])
    if size is None:
        return 1
    table = UNROLL if counted is None else UNROLL_COUNTED
    copies = next((k for limit, k in table if size <= limit), 1)
    trips = static_trip_count(loop)
    if trips is not None and trips[0] < 2 * copies:
        return 1
    return copies


def _arrays_only_written(loop) -> bool:
    """Whether every array `loop` carries is small (`_SMALL_BYTES`) and only written
    in its body, by one `dynamic_update_slice` whose result the trip ends with (a row
    written element by element, its reads forwarded, `rows.privatise_rows`): the
    copies then update it in turn, in place. A body that also reads such an array
    must keep each old value alive until the copies after it are done, and ran twice
    as slow unrolled (Gauss-Seidel along a row: 0.99 -> 1.95 ms)."""
    body = loop.regions[1].blocks[0]
    ret = list(body.operations)[-1]
    for arg, init in zip(body.arguments, loop.operands):
        t = ir.RankedTensorType(init.type)
        if t.rank == 0:
            continue
        if int(np.prod(t.shape)) * itemsize(t) > _SMALL_BYTES:
            return False
        users = [operation(u.owner) for u in arg.uses]
        if len(users) != 1 or users[0].name != "stablehlo.dynamic_update_slice" or \
                users[0].operands[0] != arg:
            return False
        written = [operation(u.owner) for u in users[0].results[0].uses]
        if written != [operation(ret)]:
            return False
    return True


def _predicate_position(loop):
    """The carried predicate the condition region returns (a rotated loop), or None."""
    cond = loop.regions[0].blocks[0]
    ops = list(cond.operations)
    if len(ops) != 1 or len(ops[0].operands) != 1:
        return None
    value = ops[0].operands[0]
    if not isinstance(value.owner, ir.Block):
        return None
    return ir.BlockArgument(value).arg_number


def _body_size(block):
    """Ops in `block` and its nested regions, or None if one may not be speculated."""
    size = 0
    for op in block.operations:
        if op.name in _UNSAFE:
            return None
        size += op.name != "stablehlo.constant"      # constants cost nothing per trip
        for region in op.regions:
            for inner in region.blocks:
                n = _body_size(inner)
                if n is None:
                    return None
                size += n
    return size


def _unroll(loop, copies):
    p = _predicate_position(loop)
    body = loop.regions[1].blocks[0]
    ops = list(body.operations)
    ret, ops = ops[-1], ops[:-1]
    state = list(ret.operands)
    for _ in range(copies - 1):
        new, _ = _copy_body(body, ops, ret, state, ir.InsertionPoint(ret))
        go = state[p]
        with ir.InsertionPoint(ret):
            state = [hlo.SelectOp(go, n, s).result for n, s in zip(new, state)]
    for k, v in enumerate(state):
        ret.operands[k] = v


def _copy_body(body, ops, ret, state, ip, also=(), proof=None):
    """The body's `ops` copied at `ip`, its arguments read as `state`; returns the values
    the copy's trip ends with (and, with `also`, the copy's values of those too). With
    a `proof`, the checks and wraps it proves are left out of the copy."""
    mapping = {a: v for a, v in zip(body.arguments, state)}
    for at, op in enumerate(ops):
        if proof is not None:
            with ip:
                proven = proof.replacement(at, op, lambda v: mapping.get(v, v))
            if proven is not None:
                mapping[op.results[0]] = proven
                continue
        copy = op.clone(ip=ip)
        remap(copy, mapping)
        for old, new in zip(op.results, copy.results):
            mapping[old] = new
    ends = [mapping.get(v, v) for v in ret.operands]
    return ends, [mapping.get(v, v) for v in also]
