"""Writes made under a data-dependent `if` in a loop, staged as writes of the trip that
keep the old elements where the branch was not taken, so that XLA updates the array in
place.

`if s != 0: A[i] /= s`, `if x[j] > x[j + 1]: swap`, `if p != k: swap rows k and p`
stage as a `stablehlo.if` whose taken branch returns the array with a
`dynamic_update_slice` and whose other branch returns it as it was. XLA:CPU runs such a
conditional on a copy of the whole array, every trip: a row normalisation of a 120 x
120 matrix copied 14,400 elements per row, a bubble sort the whole vector per compare.

Here the branches' work is done on every trip and each write becomes
`A = dynamic_update_slice(A, select(taken, update, dynamic_slice(A, at)), at)`: where
the branch was not taken, the write puts back the elements that were there, so the
array ends the trip exactly as the `if` would have left it, and a write that reads the
elements it replaces runs in place. Values the `if` returns beside the array (a check's
flag, a counter) are `select(taken, value of the taken branch, value of the other)`.
The writes of the false branch follow those of the true branch, each keeping the
elements where the false branch was not taken, so two writes to one place end as the
taken branch's.

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
from npxla.runtime.lowering.ssa import cloned, defining_op, inside, operation, ops_named

_DUS = "stablehlo.dynamic_update_slice"
MIN_ELEMENTS = 32
MAX_SHARE = 0.5


def convert_branch_writes(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many `if`s went."""
    done = 0
    for op in ops_named(module, "stablehlo.if"):      # inner ones first
        if _in_loop(op):
            plan = _plan(op)
            if plan is not None:
                _convert(op, *plan)
                done += 1
    return done


def _in_loop(op) -> bool:
    parent = op.parent
    while parent is not None:
        if operation(parent).name == "stablehlo.while":
            return True
        parent = operation(parent).parent
    return False


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
    # a chain's intermediate arrays feed only the next write of the chain
    for c in chained:
        for use in c.results[0].uses:
            user = operation(use.owner)
            if user not in chained and user.name != "stablehlo.return":
                return None
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
    """`op` replaced by its branches' ops and guarded writes before it."""
    pred = op.operands[0]
    rets = [list(op.regions[r].blocks[0].operations)[-1] for r in range(2)]
    with ir.InsertionPoint(op), op.location:
        mapping = cloned(ops, {}, ir.InsertionPoint(op))
        out = []
        for k, kind in enumerate(kinds):
            if kind is None:
                t, f = (mapping.get(ret.operands[k], ret.operands[k]) for ret in rets)
                out.append(hlo.SelectOp(pred, t, f).result)
                continue
            current = kind[0]
            for taken, writes in ((True, kind[1]), (False, kind[2])):
                for w in writes:
                    update = mapping.get(w.operands[1], w.operands[1])
                    starts = [mapping.get(v, v) for v in list(w.operands)[2:]]
                    sizes = ir.RankedTensorType(update.type).shape
                    kept = hlo.DynamicSliceOp(current, starts, sizes).result
                    chosen = hlo.SelectOp(pred, update, kept) if taken else \
                        hlo.SelectOp(pred, kept, update)
                    current = hlo.DynamicUpdateSliceOp(current, chosen.result,
                                                       starts).result
            out.append(current)
    for result, value in zip(op.results, out):
        result.replace_all_uses_with(value)
    op.erase()
