"""Integer reductions a counted loop carries, computed for all trips at once.

`for i in range(n): s += x[i]` over an integer array, `if x[i] > 0: count += 1`,
`bits |= flags[i]`: the loop carries an integer that each trip combines with a value
computed from the counter alone (a map value, see `maps`) by an operation that is
associative and commutative on fixed-width integers: `+`, `*`, `&`, `|`, `^` (two's
complement wraps, as NumPy's integers do, so any order gives the same bits). The loop's
result is then the carried start combined with one `reduce` over the values of all
trips. Staged as written, each trip pays XLA:CPU's per-trip loop code; the `reduce`
reads the values as a vector. Medians per call, the loop before -> the reduce after:
an int64 sum over 2 * 10^4 elements 0.07-0.11 -> 0.06-0.09 ms, 2 * 10^5 0.42 -> 0.29,
2 * 10^6 2.4-3.2 -> 1.2-1.4; a count of positive floats 0.17-0.21 -> 0.08-0.12, 0.75 ->
0.27-0.33, 4.9-6.1 -> 2.1-2.6. Below `MIN_TRIPS` the reduce's own kernels cost more
than the unrolled loop (2,000 elements: 0.03-0.04 -> 0.03-0.09 ms), so shorter loops
stay.

Left in the loop: float sums and products (their rounding depends on the order), and
max and min, integer or float, which are order-free too but which XLA:CPU reduces more
slowly than the unrolled loop runs its chain of selects (an int64 maximum over 2 * 10^6
elements: 3.9 ms as the loop, 7.5-9.0 as a `reduce`, whose integer form is a chain of
windowed reductions; a float maximum with NumPy's NaN and signed-zero rules 3.3 ->
11-12 ms).

The forms, with v, c and p map values (or values fixed before the loop) and s the
carried integer, which nothing else in the trip reads and whose new value only the
next trip reads:

- `s' = s OP v`, either operand order;
- `s' = select(p, s OP c, s)`, and `select(p, s, s OP c)`: the trips where p holds (does
  not hold) combine c, the others nothing.

The loop must make exactly its counted trips: its next-trip predicate is `k' < N`,
and-ed only with terms proven to hold. A Python int counter's overflow check (`c >
2**63 - 2`, tested before `c += 1`, which ends the loop with an error) is proven false
when the counter's constant start plus what the trips can add stays within the bound,
and a carried flag that such proven checks leave at its start value is that constant.
Where N is computed at run time but lies in a known range (`for j in range(i)` inside
`for i in range(n)`), the values are computed for the most trips and those at or past N
count as the operation's identity. A loop left with nothing to carry is erased.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.build import int_constant_op
from npxla.runtime.lowering.counted import counted_terms, interval
from npxla.runtime.lowering.dead import pure
from npxla.runtime.lowering.maps import Vectoriser, map_ops
from npxla.runtime.lowering.ssa import (defining_op, inside, int_constant, is_integer,
                                        is_scalar, operation, while_loops)

# the combining ops, by the kind of reduction they make
_KINDS = {"stablehlo.add": hlo.AddOp, "stablehlo.multiply": hlo.MulOp,
          "stablehlo.and": hlo.AndOp, "stablehlo.or": hlo.OrOp, "stablehlo.xor": hlo.XorOp}
# fewer trips than this stay a loop (see the module doc)
MIN_TRIPS = 8192
_MAX_BYTES = 1 << 26


class _Carry:
    """One carried reduction: its position, combining op, the per-trip term (`value`,
    or `picked` where `when` says the trip combines it), and the body ops it used."""

    def __init__(self, position, kind, value=None, when=None, picked=None, holds=True):
        self.position, self.kind = position, kind
        self.value, self.when, self.picked, self.holds = value, when, picked, holds
        self.checks = []            # compares of the carried value against a constant


def reduce_loop_carries(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many loops changed."""
    changed = 0
    for loop in while_loops(module):     # inner loops first: erasing one is safe
        if _rewrite(loop):
            changed += 1
            if not any(len(list(r.uses)) for r in loop.results) and all(
                    op.name == "stablehlo.return" or pure(op)
                    for op in loop.regions[1].blocks[0].operations):
                loop.erase()         # it makes its counted trips: nothing is lost
    return changed


def _rewrite(loop) -> bool:
    terms = counted_terms(loop)
    if terms is None:
        return False
    bound, k, start, p, others = terms
    limit = int_constant(bound)
    if limit is None:
        if inside(bound, loop) or (known := interval(bound)) is None:
            return False
        limit, masked = known[1], True
    else:
        masked = False
    trips = limit - start
    if trips < MIN_TRIPS or trips * 8 > _MAX_BYTES:
        return False
    body = loop.regions[1].blocks[0]
    ret = operation(list(body.operations)[-1])
    ends = list(ret.operands)
    counter = body.arguments[k]
    ops = [op.operation for op in body.operations]
    maps = map_ops(ops, body, counter)
    values = {counter}
    for op in maps:
        values.update(op.results)

    def fixed(v):
        return v in values or not inside(v, loop) and is_scalar(v)

    carries = []
    for j, arg in enumerate(body.arguments):
        if j in (k, p) or not is_scalar(arg):
            continue
        carry = _match(j, arg, ends[j], fixed) \
            if is_integer(ir.RankedTensorType(arg.type).element_type) else None
        if carry is not None:
            carries.append(carry)
    if not carries:
        return False
    facts = _proven(loop, body, carries, trips, (k, p))
    carries = [c for c in carries if all(cmp.result in facts for cmp in c.checks)]
    if not carries or any(_value(t, facts) != 1 for t in others):
        return False
    with ir.InsertionPoint(loop):
        vectors = Vectoriser(loop, counter, start, trips, maps)
        mask = None
        if masked:
            n = hlo.BroadcastInDimOp(ir.RankedTensorType.get(
                [trips], ir.RankedTensorType(bound.type).element_type), bound, []).result
            mask = hlo.CompareOp(vectors.of(counter), n, hlo.ComparisonDirectionAttr.get("LT"),
                                 compare_type=hlo.ComparisonTypeAttr.get("SIGNED")).result
        results = [(c.position, _total(c, loop, vectors, trips, mask)) for c in carries]
    for cmp, known in facts.items():      # the proven checks, as the constants they are
        if isinstance(cmp, ir.Value) and not isinstance(cmp, ir.BlockArgument):
            with ir.InsertionPoint(defining_op(cmp)):
                cmp.replace_all_uses_with(int_constant_op(known, cmp.type))
    for j, total in results:
        loop.results[j].replace_all_uses_with(total)
        ret.operands[j] = body.arguments[j]
    for j, arg in enumerate(body.arguments):    # carried flags the checks left unchanged
        if arg in facts:
            loop.results[j].replace_all_uses_with(loop.operands[j])
    return True


def _match(j, arg, new, fixed):
    """The `_Carry` of position j when the trip's new value `new` combines the carried
    `arg` with a map value in one of the module doc's forms, else None."""
    op = defining_op(new)
    if op is None:
        return None
    used = {op}
    carry = None
    if op.name in _KINDS:
        other = _other(op, arg)
        if other is not None and fixed(other):
            carry = _Carry(j, op.name, value=other)
    elif op.name == "stablehlo.select":
        p, a, b = op.operands
        if b == arg or a == arg:
            step = defining_op(a if b == arg else b)
            if step is not None and step.name in _KINDS and fixed(p):
                c = _other(step, arg)
                if c is not None and fixed(c):
                    used.add(step)
                    carry = _Carry(j, step.name, when=p, picked=c, holds=b == arg)
    if carry is None or not _only_carried(new):
        return None
    for use in arg.uses:        # nothing else reads the carried value, but its checks
        reader = operation(use.owner)
        if reader in used:
            continue
        if reader.name == "stablehlo.compare" and carry.kind == "stablehlo.add" and \
                any(int_constant(v) is not None for v in reader.operands):
            carry.checks.append(reader)
            continue
        return None
    for step in used:
        if step != op and \
                any(operation(u.owner) not in used for u in step.results[0].uses):
            return None
    return carry


def _only_carried(new) -> bool:
    """Whether the trip's new value is read by nothing but the next trip (the body's
    return): `out[i] = s` after `s += x[i]` needs every trip's partial sum."""
    return all(operation(u.owner).name == "stablehlo.return" for u in new.uses) and \
        len(list(new.uses)) == 1


def _other(op, arg):
    a, b = op.operands
    return b if a == arg else a if b == arg else None


def _proven(loop, body, carries, trips, skip) -> dict:
    """Values the trips cannot change, as Python ints: each overflow check of a summed
    counter whose range over the trips keeps it false (or true), and each carried value
    that stays at its constant start once those checks are known."""
    facts = {}
    for carry in carries:
        span = _span(carry, loop)
        if span is None:
            continue
        lo, hi = span[0] + min(span[2], 0) * (trips - 1), span[1] + max(span[3], 0) * (trips - 1)
        for cmp in carry.checks:
            known = _compare_range(cmp, body.arguments[carry.position], lo, hi)
            if known is not None:
                facts[cmp.result] = known
    taken = {c.position for c in carries}
    for _ in range(2):                    # a flag set from another flag: twice
        for j, arg in enumerate(body.arguments):
            start = int_constant(loop.operands[j])
            if j in skip or j in taken or start is None or arg in facts:
                continue
            ends = list(list(body.operations)[-1].operands)
            if _value(ends[j], {**facts, arg: start}) == start:
                facts[arg] = start
    return facts


def _span(carry, loop):
    """(start lo, start hi, least term, greatest term) of a summed counter with a
    constant start and constant terms, else None."""
    start = int_constant(loop.operands[carry.position])
    if start is None:
        return None
    if carry.value is not None:
        step = int_constant(carry.value)
        return None if step is None else (start, start, step, step)
    step = int_constant(carry.picked)
    return None if step is None else (start, start, min(step, 0), max(step, 0))


def _compare_range(cmp, arg, lo, hi):
    """The compare's constant value when `arg` lies in [lo, hi], else None."""
    x, y = cmp.operands
    direction = hlo.ComparisonDirectionAttr(cmp.attributes["comparison_direction"]).value
    if y == arg:
        x, y = y, x
        direction = {"GT": "LT", "LT": "GT", "GE": "LE", "LE": "GE"}.get(direction, direction)
    bound = int_constant(y)
    if x != arg or bound is None:
        return None
    outcomes = {_COMPARE[direction](v, bound) for v in (lo, hi)}
    if direction in ("EQ", "NE") and lo <= bound <= hi:
        return None
    return int(outcomes.pop()) if len(outcomes) == 1 else None


_COMPARE = {"GT": lambda a, b: a > b, "GE": lambda a, b: a >= b, "LT": lambda a, b: a < b,
            "LE": lambda a, b: a <= b, "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b}


def _value(value, facts, depth=0):
    """The Python int a scalar integer value is, from constants and `facts`, or None."""
    if value in facts:
        return facts[value]
    k = int_constant(value)
    if k is not None or depth > 32:
        return k
    op = defining_op(value)
    if op is None:
        return None
    args = op.operands
    if op.name == "stablehlo.select":
        p = _value(args[0], facts, depth + 1)
        if p is not None:
            return _value(args[1] if p else args[2], facts, depth + 1)
        a, b = (_value(v, facts, depth + 1) for v in args[1:])
        return a if a is not None and a == b else None
    known = [_value(v, facts, depth + 1) for v in args]
    if op.name == "stablehlo.and" and 0 in known:
        return 0
    if None in known:
        return None
    if op.name == "stablehlo.compare":
        direction = hlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value
        return int(_COMPARE[direction](*known))
    if op.name in ("stablehlo.and", "stablehlo.or", "stablehlo.xor"):
        a, b = known
        return {"stablehlo.and": a & b, "stablehlo.or": a | b, "stablehlo.xor": a ^ b}[op.name]
    if op.name == "stablehlo.convert":
        return known[0]
    return None


def _total(carry, loop, vectors, trips, mask):
    """The carried start combined with the reduction of every trip's term."""
    start = loop.operands[carry.position]
    identity = int_constant_op(_IDENTITY[carry.kind], start.type)
    vec_t = ir.RankedTensorType.get([trips], ir.RankedTensorType(start.type).element_type)
    none = hlo.BroadcastInDimOp(vec_t, identity, []).result
    if carry.value is not None:
        terms = vectors.of(carry.value)
    else:
        picked = vectors.of(carry.picked)
        when = vectors.of(carry.when)
        terms = hlo.SelectOp(when, picked, none).result if carry.holds else \
            hlo.SelectOp(when, none, picked).result
    if mask is not None:
        terms = hlo.SelectOp(mask, terms, none).result
    return _KINDS[carry.kind](start, _reduced(terms, identity, carry.kind)).result


def _reduced(vector, init, kind):
    scalar = ir.RankedTensorType(init.type)
    op = hlo.ReduceOp([scalar], [vector], [init], [0])
    block = op.body.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([_KINDS[kind](*block.arguments).result])
    return op.results[0]


# each op's identity (all ones for `&`: -1, which a constant of any width wraps to)
_IDENTITY = {"stablehlo.add": 0, "stablehlo.or": 0, "stablehlo.xor": 0,
             "stablehlo.multiply": 1, "stablehlo.and": -1}
