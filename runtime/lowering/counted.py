"""Counted loops in a finished module: how many trips a rotated `while` makes, and the
ranges its counter and the integers computed from it take. Shared by the rewrites that
reason about trips (`hoist`, `lanes`, `maps`, `rows`, `unroll`)."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.ssa import defining_op, inside, int_constant


def static_trip_count(loop, at_most=False):
    """(trips, counter position) of a rotated counted loop, else None: the condition
    region returns the carried predicate p, and the body ends with
    `k' = k + 1; p' = k' < N` with k starting at a constant and N a constant."""
    # at_most: the predicate may also be `and(k' < N, c)` (a check or a break that may
    # end the loop sooner): the count is then the most trips the loop runs
    counted = _counted(loop, at_most)
    if counted is None:
        return None
    bound, k, start = counted
    bound = int_constant(bound)
    if bound is None or bound <= start:
        return None
    return bound - start, k


def max_trip_count(loop):
    """(the most trips, counter position) of a rotated counted loop whose bound N may
    be computed at run time but lies in a range known here (`interval`: `for j in
    range(i)` inside `for i in range(n)` makes at most n - 1 trips), else None. Like
    `static_trip_count(at_most=True)`, the loop may make fewer."""
    counted = _counted(loop, True)
    if counted is None:
        return None
    bound, k, start = counted
    if inside(bound, loop):
        return None              # (a bound the trips change)
    known = interval(bound)
    if known is None or known[1] <= start:
        return None
    return known[1] - start, k


def _counted(loop, at_most):
    """(N, counter position, start) of a rotated loop ending its body with `k' = k + 1;
    p' = k' < N` (with `at_most`, maybe `and`-ed with a check), k starting at a
    constant; else None."""
    rotated = _rotated(loop)
    if rotated is None:
        return None
    p, body, ends = rotated
    test = defining_op(ends[p])
    if at_most and test is not None and test.name == "stablehlo.and":
        test = next((t for t in map(defining_op, test.operands) if _less_than(t)), None)
    return _counter_test(test, body, ends, loop)


def counted_terms(loop):
    """(N, counter position, start, predicate position, other terms) of a rotated loop
    whose next-trip predicate is `k' < N` and-ed with any number of other i1 values
    (checks, breaks: `other terms`, the values the body computes, for the caller to
    prove), k stepping by one from a constant; else None."""
    rotated = _rotated(loop)
    if rotated is None:
        return None
    p, body, ends = rotated
    terms, pending = [], [ends[p]]
    while pending:
        value = pending.pop()
        op = defining_op(value)
        if op is not None and op.name == "stablehlo.and" and inside(value, loop):
            pending.extend(op.operands)
        else:
            terms.append(value)
    for test in terms:
        counted = _counter_test(defining_op(test), body, ends, loop)
        if counted is not None:
            return counted + (p, [t for t in terms if t != test])
    return None


def _rotated(loop):
    """(predicate position, body, the body's returned values) of a rotated loop, whose
    condition region returns a carried predicate; else None."""
    cond = loop.regions[0].blocks[0]
    ret = list(cond.operations)[-1]
    if len(ret.operands) != 1 or not isinstance(ret.operands[0], ir.BlockArgument):
        return None
    body = loop.regions[1].blocks[0]
    return (ir.BlockArgument(ret.operands[0]).arg_number, body,
            list(list(body.operations)[-1].operands))


def _counter_test(test, body, ends, loop):
    """(N, k, start) where `test` is `k' < N` with k' = k + 1 the next counter value,
    else None."""
    if not _less_than(test):
        return None
    step = defining_op(test.operands[0])
    if step is None or step.name != "stablehlo.add":
        return None
    a, b = step.operands
    if int_constant(b) != 1:
        a, b = b, a
    if int_constant(b) != 1 or not isinstance(a, ir.BlockArgument):
        return None
    k = ir.BlockArgument(a).arg_number
    if ir.BlockArgument(a).owner != body or ends[k] != test.operands[0]:
        return None
    start = int_constant(loop.operands[k])
    return None if start is None else (test.operands[1], k, start)


def _less_than(op) -> bool:
    return op is not None and op.name == "stablehlo.compare" and \
        hlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value == "LT"


def interval(value, depth=0):
    """(lo, hi) bounds of an integer scalar: constants, +, -, * by a constant, and the
    counters of enclosing counted loops; None where unknown."""
    k = int_constant(value)
    if k is not None:
        return (k, k)
    if depth > 16:
        return None
    op = defining_op(value)
    if op is None:
        return counter_range(value)
    if op.name in ("stablehlo.add", "stablehlo.subtract", "stablehlo.multiply"):
        a, b = (interval(v, depth + 1) for v in op.operands)
        if a is None or b is None:
            return None
        if op.name == "stablehlo.add":
            return (a[0] + b[0], a[1] + b[1])
        if op.name == "stablehlo.subtract":
            return (a[0] - b[1], a[1] - b[0])
        products = [x * y for x in a for y in b]
        return (min(products), max(products))
    return None


def counter_range(value):
    """The range of a block argument that is the counter of its counted loop."""
    block = value.owner
    loop = block.owner
    if not isinstance(loop, ir.Operation):
        loop = getattr(loop, "operation", None)
    if loop is None or loop.name != "stablehlo.while" or \
            block != loop.regions[1].blocks[0]:
        return None
    trips = static_trip_count(loop, at_most=True)
    if trips is None or ir.BlockArgument(value).arg_number != trips[1]:
        return None
    start = int_constant(loop.operands[trips[1]])
    return (start, start + trips[0] - 1)
