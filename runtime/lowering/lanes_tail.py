"""The last lanes of a masked loop finished one at a time.

A nested loop whose condition differs between lanes (`while n != 1:` of a Collatz
count, a Newton iteration until converged) runs in `lanes` while any lane goes on, every
trip costing the work of all lanes, finished or not. Where the trip counts are skewed,
most trips run for a few stragglers: Collatz step counts of 20,000 numbers average 108
trips and reach 327, so the lanes did three times the work of the loop as written, and
ran slower than it (6.1 ms as a scalar loop, 10.6 ms as lanes).

So the lanes run only while more than a `1 / SHARE` of them go on. Then each lane still
running finishes alone: a scalar loop over the lanes runs the original nested loop (its
ops as staged, cloned) from that lane's carried values, which are exactly the values the
loop as written had after the same number of trips, and writes the lane's final values
back. A finished lane costs a scalar test (`_next_running` skips it). The values are the
loop's, bit for bit: every lane runs the same ops in the same order, some trips as a
lane and the rest alone. Measured in npxla (medians, separate processes): the 20,000
Collatz counts 10.7-11.2 -> 5.4-5.9 ms (as a scalar loop 7.0), the escape counts of
`examples/mandelbrot_loops.py` at 300 x 300 10.0-10.4 -> 8.6-9.4 ms. The share: a half
left the escape counts at 14.5 ms (half the pixels still run when the lanes stop), an
eighth or a sixteenth cost the Collatz counts 10-25%.

It applies to a masked loop directly in the body being run as lanes (not inside another
masked one) whose carried values, and the body values it reads, are uniform, one value
per lane, or a shared array in its own layout; other loops keep all their trips as
lanes.
"""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.build import (combine_lanes, int_constant_op, lane_loop,
                                          less_than)
from npxla.runtime.lowering.lanes_plan import UNIFORM, Shared
from npxla.runtime.lowering.ssa import inside, operation, remap

# the lanes run while more than this share of them (1 / SHARE) go on
SHARE = 4


def applies(emitter, op, carried, mask_at) -> bool:
    """Whether the masked loop `op` (carried kinds `carried`) may finish its last lanes
    alone."""
    plan = emitter.plan
    if mask_at is None or emitter.masks or emitter.lanes // SHARE < 1 or \
            operation(op).parent != operation(plan.loop):
        return False
    if not all(_per_lane_or_whole(plan, k) for k in carried):
        return False
    return all(_per_lane_or_whole(plan, plan.kind(v)) for v in _captured(op, plan.loop))


def _per_lane_or_whole(plan, kind) -> bool:
    if isinstance(kind, Shared):
        return not plan.moved(kind)
    return kind == UNIFORM or _one_per_lane(kind)


def _one_per_lane(kind) -> bool:
    """Whether values of `kind` hold one value per lane (`lanes_plan.Plan`'s kinds)."""
    return kind is None or isinstance(kind, int)


def _captured(op, loop) -> list:
    """The values of `loop`'s body that the ops inside `op`'s regions read."""
    found = []

    def visit(inner):
        for v in inner.operands:
            if not inside(v, op) and inside(v, loop) and v not in found:
                found.append(v)
        return ir.WalkResult.ADVANCE

    for region in operation(op).regions:
        for block in region.blocks:
            for inner in block.operations:
                operation(inner).walk(visit)
    return found


def going_on(go, lanes):
    """The masked loop's condition: more than `lanes // SHARE` of the lanes' predicates
    `go` hold."""
    scalar = ir.RankedTensorType.get([], ir.IntegerType.get_signless(32))
    counts = hlo.ConvertOp(ir.RankedTensorType.get([lanes], scalar.element_type), go).result
    running = combine_lanes(counts, "stablehlo.add", int_constant_op(0, scalar))
    return less_than(int_constant_op(lanes // SHARE, scalar), running)


def finish(emitter, op, carried, mask_at, results) -> list:
    """The masked loop's results after each lane still running has finished alone:
    `results` are its lanes' carried values when the lanes stopped."""
    lanes = emitter.lanes
    zero = [int_constant_op(0, ir.RankedTensorType.get([], ir.IntegerType.get_signless(64)))]

    def trip(lane, state):
        lane = _next_running(lane, state[mask_at], lanes)
        return lane, _alone(emitter, op, carried, state, lane, zero)

    return lane_loop(lanes, results, trip)


def _next_running(lane, go, lanes):
    """The first lane from `lane` on whose predicate in `go` holds, or `lanes` if none
    does: finished lanes cost a scalar test each, not a pass through the loop's values.
    (Past the last running lane, `_alone` runs the last lane again: it has finished, so
    its loop runs no trip and its values are written back unchanged.)"""
    i64 = lane.type
    i1 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    search = hlo.WhileOp([i64], [lane])
    cond = search.regions[0].blocks.append(i64)
    with ir.InsertionPoint(cond):
        at = cond.arguments[0]
        done = hlo.NotOp(hlo.ReshapeOp(i1, hlo.DynamicSliceOp(go, [at], [1]).result)
                         .result).result
        hlo.ReturnOp([hlo.AndOp(less_than(at, int_constant_op(lanes, i64)), done).result])
    body = search.regions[1].blocks.append(i64)
    with ir.InsertionPoint(body):
        hlo.ReturnOp([hlo.AddOp(body.arguments[0], int_constant_op(1, i64)).result])
    return search.results[0]


def _alone(emitter, op, carried, state, lane, zero) -> list:
    """The carried values after lane `lane` has run the original loop `op` to its end
    from its values in `state`."""
    plan = emitter.plan
    alone = [_pick(s, lane, zero) if _one_per_lane(k) else s
             for s, k in zip(state, carried)]
    mapping = {}
    for v in _captured(op, plan.loop):
        kind = plan.kind(v)
        if kind == UNIFORM or isinstance(kind, Shared):
            mapping[v] = emitter._value(v)
        else:
            shape = list(ir.RankedTensorType(v.type).shape)
            mapping[v] = _pick(emitter._lanes(v, shape), lane, zero)
    copy = operation(op).clone(ip=ir.InsertionPoint.current)
    remap(copy, mapping)
    for i, v in enumerate(alone):
        copy.operands[i] = v
    ends = []
    for s, k, r in zip(state, carried, copy.results):
        if _one_per_lane(k):
            t = ir.RankedTensorType(s.type)
            row = hlo.ReshapeOp(ir.RankedTensorType.get([1] + list(t.shape)[1:],
                                                        t.element_type), r).result
            ends.append(hlo.DynamicUpdateSliceOp(s, row, [lane] + zero * (t.rank - 1)).result)
        else:
            ends.append(r)
    return ends


def _pick(vector, lane, zero):
    """Lane `lane`'s value of a per-lane `vector`."""
    t = ir.RankedTensorType(vector.type)
    piece = hlo.DynamicSliceOp(vector, [lane] + zero * (t.rank - 1),
                               [1] + list(t.shape)[1:]).result
    return hlo.ReshapeOp(ir.RankedTensorType.get(list(t.shape)[1:], t.element_type),
                         piece).result
