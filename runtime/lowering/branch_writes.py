"""Writes made under a data-dependent `if` in a loop, staged as writes of the trip that
keep the old elements where the branch was not taken, so that XLA updates the array in
place.

`if s != 0: A[i] /= s`, `if x[j] > x[j + 1]: swap`, `if p != k: swap rows k and p`
stage as a `stablehlo.if` whose taken branch returns the array with a
`dynamic_update_slice` and whose other branch returns it as it was. XLA:CPU runs such a
conditional on a copy of the whole array, every trip: a row normalisation of a 120 x
120 matrix copied 14,400 elements per row, a bubble sort the whole vector per compare.

Here the branches' work is done on every trip and each write becomes
`A = dynamic_update_slice(A, select(taken, update, old), at)`, where `old` is what the
array held there before the `if` (read before any of the writes, so that `bundled_reads`
can put it ahead of the first; the true branch's own earlier writes kept the array as
it was where the branch was not taken). Where the branch was not taken the write puts
back the elements that were there, so the array ends the trip exactly as the `if`
would have left it, and a write that reads the elements it replaces runs in place.
Values the `if` returns beside the array (a check's flag, a counter) are
`select(taken, value of the taken branch, value of the other)`. The writes of the false
branch follow those of the true branch (on what they left, where the true branch wrote
the array too), so two writes to one place end as the taken branch's; one write of each
branch at the same place is one write of the selected update. Ops that read what a
branch's write made run after that write. Inner `if`s go first, so the body of a loop
with a `break` (staged as `if not broken: ...`) becomes plain writes too.

Running a branch that was not taken must not be observable: its ops are pure (no host
callback, no loop that might not end, nothing random), and XLA defines every pure op on
every input (a slice or an index out of range clamps, integer division by zero gives a
value), so nothing is raised or printed that Python would not; the checks a branch
computes are selected with the rest. It pays where the copy costs more than the
branches: the arrays written hold at least `MIN_ELEMENTS` elements and both branches
together compute at most `MAX_SHARE` of their size.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.dead import pure
from npxla.runtime.lowering.read_ahead import read_key, same_index
from npxla.runtime.lowering.ssa import (cloned, defining_op, in_loop, inside, operation,
                                        ops_named, used_values)

_DUS = "stablehlo.dynamic_update_slice"
MIN_ELEMENTS = 32
MAX_SHARE = 0.5


def convert_branch_writes(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many `if`s went."""
    done = 0
    for op in ops_named(module, "stablehlo.if"):      # inner ones first
        if in_loop(op):
            plan = _plan(op)
            if plan is not None:
                _convert(op, *plan)
                done += 1
    return done


def _elements(value) -> int:
    try:
        return int(np.prod(ir.RankedTensorType(value.type).shape))
    except ValueError:
        return -1


def _plan(op):
    """(per result: the (base, true chain, false chain) of a written array or None,
    the branches' ops to run) for an `if` to convert, or None."""
    branches = [op.regions[r].blocks[0] for r in range(2)]
    for b in branches:
        _erase_unread(b)
    rets = [list(b.operations)[-1] for b in branches]
    kinds, chained, written = [], set(), 0
    for k, result in enumerate(op.results):
        if _elements(result) < 0:
            return None
        values = [ret.operands[k] for ret in rets]
        chains = [_chain(v, b) for v, b in zip(values, branches)]
        if all(c is not None for c in chains) and chains[0][0] == chains[1][0] and \
                (chains[0][1] or chains[1][1]):
            kinds.append(chains[0][0:1] + (chains[0][1], chains[1][1]))
            for c in chains:
                chained.update(c[1])
            written += _elements(result)
        else:
            kinds.append(None)
    if written < MIN_ELEMENTS:
        return None
    work = 0
    ops = []
    for b in branches:
        for inner in list(b.operations)[:-1]:
            inner = operation(inner)
            if inner in chained:
                work += 2 * _elements(inner.operands[1])
                continue
            if not pure(inner) and inner.name != _DUS:
                return None
            work += sum(max(_elements(r), 0) for r in inner.results)
            ops.append(inner)
    for kind, result in zip(kinds, op.results):
        if kind is None:
            work += _elements(result)
    if work > MAX_SHARE * written:
        return None
    # (an op of a branch that reads what a write of it made runs after that write, on
    # the guarded array: `_convert`)
    return kinds, ops


def _erase_unread(block):
    """Drop the branch's pure ops whose values nothing reads (a re-read of the row just
    written, left by the converter), which would otherwise count as readers of an array
    between two writes."""
    for inner in reversed(list(block.operations)[:-1]):
        inner = operation(inner)
        if not len(inner.regions) and (pure(inner) or inner.name == _DUS) and \
                not any(len(list(r.uses)) for r in inner.results):
            inner.erase()


def _chain(value, block):
    """(base, writes first to last) when `value` is made in `block` by a chain of
    `dynamic_update_slice`s of a value from outside the `if` (no writes: the value
    itself), else None."""
    writes = []
    while True:
        op = defining_op(value)
        if op is None or op.block != block:
            break
        if op.name != _DUS:
            return None
        writes.append(op)
        value = op.operands[0]
    if inside(value, operation(block.owner)):
        return None
    return value, tuple(reversed(writes))


def _convert(op, kinds, ops):
    """`op` replaced by its branches' ops and guarded writes before it: first the ops
    that read no array a branch wrote, then each branch's writes in order (the true
    branch's, then the false branch's on what those left), each followed by the ops
    of its branch that read what it wrote."""
    pred = op.operands[0]
    branches = [op.regions[r].blocks[0] for r in range(2)]
    rets = [list(b.operations)[-1] for b in branches]
    writes = {w: (taken, k) for k, kind in enumerate(kinds) if kind is not None
              for taken, chain in ((True, kind[1]), (False, kind[2])) for w in chain}
    after = _after_writes(ops, set(writes))
    ip = ir.InsertionPoint(op)
    mapping = cloned([o for o in ops if o not in after], {}, ip)

    def mapped(v):
        return mapping.get(v, v)
    current = {k: kind[0] for k, kind in enumerate(kinds) if kind is not None}
    arrays = list(current.values())       # and each array a write leaves
    single = {}
    with ip, op.location:
        for k, kind in enumerate(kinds):
            if kind is not None:
                both = _one_place(kind[1], kind[2], mapped)
                if both is not None and not any(w in after for w in kind[1] + kind[2]):
                    single[k] = both      # `if: A[i] = u else: A[i] = v`: one write
                    update = hlo.SelectOp(pred, *both[0]).result
                    current[k] = hlo.DynamicUpdateSliceOp(kind[0], update,
                                                          both[1]).result
        # where a branch's write keeps the old elements, the array there is the
        # `if`'s own unless the true branch wrote it too: those elements are read
        # before any write, where their indices allow
        kept = {}
        for w, (taken, k) in writes.items():
            if k not in single and (taken or not kinds[k][1]) and \
                    not any(defining_op(v) in after for v in list(w.operands)[2:]):
                kept[w] = _read(kinds[k][0], w, mapped)
        for b in branches:
            for inner in list(b.operations)[:-1]:
                inner = operation(inner)
                if inner in writes:
                    taken, k = writes[inner]
                    if k not in single:
                        old = kept.get(inner)
                        if old is None:
                            old = _read(current[k], inner, mapped)
                        current[k] = _guarded(pred, taken, current[k], old, inner,
                                              mapped)
                        arrays.append(current[k])
                    mapping[inner.results[0]] = current[k]
                elif inner in after:
                    mapping = cloned([inner], mapping, ip)
        out = [current[k] if kind is not None else
               hlo.SelectOp(pred, *(mapped(ret.operands[k]) for ret in rets)).result
               for k, kind in enumerate(kinds)]
    for result, value in zip(op.results, out):
        result.replace_all_uses_with(value)
    block = op.block
    op.erase()
    for array in arrays:
        _merge_reads(array, block)


def _read(array, write, mapped):
    """The elements of `array` that `write` replaces."""
    update = mapped(write.operands[1])
    return hlo.DynamicSliceOp(array, [mapped(v) for v in list(write.operands)[2:]],
                              ir.RankedTensorType(update.type).shape).result


def _guarded(pred, taken, current, kept, write, mapped):
    """`write` of `current` where its branch (`taken`: the true one) was taken; the
    elements `kept` where not (read from the array before the `if` where the writes
    before this one kept it as it was: XLA then finds no read of an array between two
    writes of it, which it would copy)."""
    update = mapped(write.operands[1])
    starts = [mapped(v) for v in list(write.operands)[2:]]
    chosen = hlo.SelectOp(pred, update, kept) if taken else \
        hlo.SelectOp(pred, kept, update)
    return hlo.DynamicUpdateSliceOp(current, chosen.result, starts).result


def _after_writes(ops, writes):
    """The ops of `ops` that read, through others or in their regions, what one of
    `writes` made."""
    made = {r for w in writes for r in w.results}
    after = set()
    for o in ops:                     # (in branch order: operands before users)
        if any(v in made for v in used_values(o)):
            after.add(o)
            made.update(o.results)
    return after


def _one_place(t_writes, f_writes, mapped):
    """((true update, false update), starts) when each branch writes once, the same
    shape at the same place; else None."""
    if len(t_writes) != 1 or len(f_writes) != 1:
        return None
    (wt,), (wf,) = t_writes, f_writes
    ut, uf = mapped(wt.operands[1]), mapped(wf.operands[1])
    st = [mapped(v) for v in list(wt.operands)[2:]]
    sf = [mapped(v) for v in list(wf.operands)[2:]]
    if ut.type != uf.type or not all(same_index(a, b) for a, b in zip(st, sf)):
        return None
    return (ut, uf), st


def _merge_reads(array, block):
    """The reads of `array` in `block` at the same indices as an earlier one (the
    branches' own reads, now beside the trip's) made that one: one element read once,
    which `read_ahead` then need not carry several times."""
    first = {}
    for use in list(array.uses):
        read = operation(use.owner)
        if read.name != "stablehlo.dynamic_slice" or use.operand_number != 0 or \
                read.block != block:
            continue
        key = read_key(read)
        seen = first.get(key)
        if seen is None:
            first[key] = read
            continue
        keep, drop = (seen, read) if seen.is_before_in_block(read) else (read, seen)
        drop.results[0].replace_all_uses_with(keep.results[0])
        drop.erase()
        first[key] = keep
