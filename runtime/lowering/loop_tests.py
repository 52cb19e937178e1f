"""A `while` loop's exit test over whole arrays, read from the carried arrays in the
loop's condition instead of computed at the end of its body.

The converter stages `while test(x): x = step(x)` rotated: the first test before the
loop, the body computing `step` and then the next test from its results, the condition
region reading the carried flag. XLA then fuses the test with the step: `while
np.max(np.abs(x * x - a)) > tol: x = 0.5 * (x + a / x)` computed `a / x` into a
buffer of its own, the new `x` in place of the old one, and the test again from the old
`x` and that quotient, so the old `x` was first copied. 10^6 doubles: 61 ms, against
18 ms with the same test in the condition (where it can only read the carried `x`).

So where the body's flag is a pure function of the values the body hands on (and of
values fixed during the loop), and that function reduces an array of at least
`_MIN_ELEMENTS` elements, the function is computed in the condition region from the
carried values. The first test keeps the flag computed before the loop: a new carried
flag, true only on entry, picks it (a `stablehlo.if`, so that the test is not computed
twice); the body then hands its old flag on unchanged, and XLA drops it and the ops that
computed it. The loop's result for the flag was false (the loop only ends on a false
test) and is replaced by that constant.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.trace import constant
from npxla.runtime.lowering.ssa import (cloned, defining_op, inside, operation,
                                        rebuilt_loop, while_loops)

# the smallest array a test must reduce for the move to pay (below, the test is cheap
# next to the `if` it costs per trip)
_MIN_ELEMENTS = 4096
# the most ops a test may be made of
_BUDGET = 400
# ops that must run where and as often as the program says
_EFFECTS = frozenset(f"stablehlo.{n}" for n in (
    "custom_call rng rng_bit_generator send recv infeed outfeed all_reduce all_gather "
    "all_to_all collective_permute reduce_scatter").split())


def move_tests_to_cond(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many tests moved."""
    return sum(_move(loop) for loop in while_loops(module))


def _terminator(block):
    return list(block.operations)[-1]


def _move(loop) -> bool:
    cond, body = (loop.regions[r].blocks[0] for r in range(2))
    cond_ops = list(cond.operations)
    if len(cond_ops) != 1:
        return False
    flag = cond_ops[0].operands[0]
    if not isinstance(flag.owner, ir.Block):
        return False
    p = ir.BlockArgument(flag).arg_number
    ends = list(_terminator(body).operands)
    sources = {}        # body value -> the carried position it is the next value of
    for q, v in enumerate(ends):
        if q != p:
            sources.setdefault(v, q)
    for q, a in enumerate(body.arguments):
        if ends[q] == a and q != p:         # handed on unchanged: fixed during the loop
            sources.setdefault(a, q)
    ops = _slice(ends[p], body, sources, loop)
    if not ops or not any(_reduces_large(op) for op in ops):
        return False
    _rewrite(loop, p, ops, sources)
    return True


def _reduces_large(op) -> bool:
    """Whether `op`, or an op in its regions (a test behind `and`'s short circuit), is
    a reduction of `_MIN_ELEMENTS` or more."""
    if op.name == "stablehlo.reduce":
        t = ir.RankedTensorType(op.operands[0].type)
        if int(np.prod(t.shape, dtype=np.int64)) >= _MIN_ELEMENTS:
            return True
    return any(_reduces_large(inner) for region in op.regions for block in region.blocks
               for inner in block.operations)


def _reads(op):
    """The values `op` reads: its operands, and those its regions read from outside."""
    values = list(op.operands)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                values += [v for v in _reads(inner) if not inside(v, op)]
    return values


def _pure(op) -> bool:
    if op.name in _EFFECTS:
        return False
    return all(_pure(inner) for region in op.regions for block in region.blocks
               for inner in block.operations)


def _slice(value, body, sources, loop):
    """The body's ops that compute `value` from the values in `sources` and values
    defined outside `loop`, in the body's order; None when it reads anything else (a
    carried value the trip changed before handing it on, an effect) or is too large."""
    found = set()          # each op by its first result (values hash; op wrappers may not)
    todo, seen = [value], set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if v != value and v in sources or not inside(v, loop):
            continue
        op = defining_op(v)
        if op is None:
            return None                     # a carried value the trip changes
        if operation(op.parent) != operation(loop):
            return None                     # (inside an op of the body: read through it)
        if not _pure(op):
            return None
        key = op.results[0]
        if key not in found:
            found.add(key)
            if len(found) > _BUDGET:
                return None
            todo += _reads(op)
    return [op for op in body.operations if len(op.results) and op.results[0] in found]


def _rewrite(loop, p, ops, sources):
    n = len(loop.operands)
    i1 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    with ir.InsertionPoint(loop), loop.location:
        operands = list(loop.operands) + [constant(np.ones((), np.bool_))]
    new, (cond, body) = rebuilt_loop(loop, operands)
    old_ret = _terminator(body)
    ends = list(old_ret.operands)
    test = ends[p]
    with ir.InsertionPoint(old_ret), old_ret.location:
        hlo.ReturnOp(ends[:p] + [body.arguments[p]] + ends[p + 1:] +
                     [constant(np.zeros((), np.bool_))])
    old_ret.erase()
    # the sources as the body's new block has them: its ops moved, its arguments new
    old_args = {a: k for k, a in enumerate(loop.regions[1].blocks[0].arguments)}
    mapping = {}
    for v, q in sources.items():
        if v in old_args:
            v = body.arguments[old_args[v]]
        mapping[v] = cond.arguments[q]
    cond_ret = _terminator(cond)
    with ir.InsertionPoint(cond_ret), cond_ret.location:
        pick = hlo.IfOp([i1], cond.arguments[n])
        with ir.InsertionPoint(pick.true_branch.blocks.append()):
            hlo.ReturnOp([cond.arguments[p]])
        branch = pick.false_branch.blocks.append()
        mapping = cloned(ops, mapping, ir.InsertionPoint(branch))
        with ir.InsertionPoint(branch):
            hlo.ReturnOp([mapping[test]])
        hlo.ReturnOp([pick.result])
    cond_ret.erase()
    with ir.InsertionPoint(new), loop.location:
        done = constant(np.zeros((), np.bool_))
    for k, (old, value) in enumerate(zip(loop.results, list(new.results)[:n])):
        old.replace_all_uses_with(done if k == p else value)
    loop.erase()
