"""Values that two carried arrays' updates share, computed a trip ahead and carried.

Bisection over a whole array updates two arrays from one midpoint and one test:

    mid = 0.5 * (lo + hi); f = mid - e * np.sin(mid) - M
    lo = np.where(f < 0, mid, lo); hi = np.where(f < 0, hi, mid)

XLA:CPU fuses each update into a kernel of its own and computes `mid`, the sine and
the test again in each (it does not fuse sibling outputs into one kernel), and since
each kernel reads both `lo` and `hi`, the first to run cannot write in place: XLA
copies both arrays every trip. 100,000 elements, 40 trips, `jax.jit` with the same
math: 114-124 ms as written, 58-70 ms with `mid` and the test carried.

So where a pure elementwise value computed from the carried values feeds the updates
of two or more carried values, and what computes it holds an expensive op (a
transcendental function, a division, a root), the values at the edge of that shared
part (those some op outside it reads: `mid` and `f < 0` above) become carried values:
computed before the loop from its initial values, and at the end of every trip from
the values the trip hands on, with the same ops (copied). The trip then reads them
from the carried state, each update reads its own array only element by element, and
the shared work runs once a trip. The values are the same: the next trip would have
computed them from those same carried values. After the last trip the computation is
wasted (elementwise ops do not trap); a loop that runs no trip computes them once.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.ssa import (ELEMENTWISE, cloned, defining_op, inside,
                                        operation, rebuilt_loop, while_loops)

# ops XLA duplicates into every kernel that uses them, at a real cost
EXPENSIVE = frozenset(f"stablehlo.{n}" for n in (
    "sine cosine tan exponential exponential_minus_one log log_plus_one tanh logistic "
    "power atan2 sqrt rsqrt cbrt divide remainder").split())
# the ops a shared value may be computed with
_SHAREABLE = ELEMENTWISE | {"stablehlo.broadcast_in_dim", "stablehlo.constant",
                            "stablehlo.iota"}
# the smallest shared value worth a carried array, and the most values carried
MIN_ELEMENTS = 1024
MAX_VALUES = 4
# the most ops a loop body may hold for the search
_BUDGET = 2000


def carry_shared_values(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many values are
    carried now."""
    return sum(_rewrite(loop, *plan) for loop in while_loops(module)
               for plan in [_plan(loop)] if plan)


def _plan(loop):
    """(the edge values, the ops computing them in body order), or None."""
    body = loop.regions[1].blocks[0]
    ops = list(body.operations)
    if len(ops) > _BUDGET:
        return None
    ret = ops[-1]
    index = {op: at for at, op in enumerate(ops)}
    reach = [0] * len(ops)               # the returned values each op feeds, as bits
    for at in range(len(ops) - 2, -1, -1):
        bits = 0
        for result in ops[at].results:
            for use in result.uses:
                user = _top(operation(use.owner), loop)
                if user is None:
                    continue
                if user == ret:
                    bits |= 1 << use.operand_number
                else:
                    bits |= reach[index[user]]
        reach[at] = bits
    carried = _carried_dependence(ops, index, body, loop)
    shared = {at for at, op in enumerate(ops[:-1])
              if carried[at] and bin(reach[at]).count("1") >= 2 and _array(op)}
    edge = []
    for at in sorted(shared):
        users = {_top(operation(u.owner), loop) for r in ops[at].results for u in r.uses}
        if any(u is None or u == ret or index[u] not in shared for u in users) and \
                _large(ops[at]):
            edge.append(ops[at])
    if not edge or len(edge) > MAX_VALUES:
        return None
    cone = _cone(edge, ops, index, loop)
    if cone is None or not any(_expensive(op) for op in cone):
        return None
    return edge, cone


def _expensive(op) -> bool:
    """Whether XLA pays for `op` again in each kernel it is duplicated into: the
    `EXPENSIVE` ops, and the absolute value of a complex number (a scaled root)."""
    if op.name in EXPENSIVE:
        return True
    return op.name == "stablehlo.abs" and isinstance(
        ir.RankedTensorType(op.operands[0].type).element_type, ir.ComplexType)


def _top(op, loop):
    """The op of `loop`'s body that holds `op` (itself, or the op whose region it is
    in), or None."""
    owner = operation(loop)
    while op.parent is not None and operation(op.parent) != owner:
        op = operation(op.parent)
    return op if op.parent is not None else None


def _carried_dependence(ops, index, body, loop):
    """Per op (`index`: an op's position in `ops`): whether it is shareable and computed
    from a carried value (with only shareable ops, carried values and values from
    outside the loop)."""
    args = set(body.arguments)
    pure = [False] * len(ops)
    carried = [False] * len(ops)
    for at, op in enumerate(ops[:-1]):
        if op.name not in _SHAREABLE or len(op.regions):
            continue
        ok, reads_carried = True, False
        for v in op.operands:
            if v in args:
                reads_carried = True
                continue
            if not inside(v, loop):
                continue
            source = defining_op(v)
            k = index.get(source) if source is not None else None
            if k is None or not pure[k]:
                ok = False
                break
            reads_carried |= carried[k]
        pure[at] = ok
        carried[at] = ok and reads_carried
    return carried


def _array(op) -> bool:
    return all(isinstance(r.type, ir.RankedTensorType) and
               ir.RankedTensorType(r.type).rank > 0 for r in op.results)


def _large(op) -> bool:
    return all(int(np.prod(ir.RankedTensorType(r.type).shape)) >= MIN_ELEMENTS
               for r in op.results)


def _cone(edge, ops, index, loop):
    """The body's ops that compute the `edge` values, in body order."""
    found, todo = set(), list(edge)
    while todo:
        op = todo.pop()
        if index[op] in found:
            continue
        found.add(index[op])
        for v in op.operands:
            source = defining_op(v)
            if source is not None and inside(v, loop):
                if source not in index:
                    return None
                todo.append(source)
    return [ops[at] for at in sorted(found)]


def _rewrite(loop, edge, cone):
    old_body = loop.regions[1].blocks[0]
    n = len(loop.operands)
    with ir.InsertionPoint(loop), loop.location:
        before = cloned(cone, dict(zip(old_body.arguments, loop.operands)),
                         ir.InsertionPoint(loop))
        firsts = [before[op.results[0]] for op in edge]
    new, (_, body) = rebuilt_loop(loop, list(loop.operands) + firsts)
    ret = list(body.operations)[-1]
    ends = list(ret.operands)
    with ir.InsertionPoint(ret), ret.location:
        after = cloned(cone, dict(zip(body.arguments[:n], ends)), ir.InsertionPoint(ret))
        nexts = [after[op.results[0]] for op in edge]
        hlo.ReturnOp(ends + nexts)
    ret.erase()
    for j, op in enumerate(edge):
        op.results[0].replace_all_uses_with(body.arguments[n + j])
    for old, value in zip(loop.results, list(new.results)[:n]):
        old.replace_all_uses_with(value)
    loop.erase()
    return len(edge)
