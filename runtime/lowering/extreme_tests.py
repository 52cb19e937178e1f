"""A whole-array maximum or minimum that is only compared with a scalar, tested in one
pass over the data: `np.max(np.abs(x * x - a)) > tol` as "no element is NaN and some
element is above tol".

The convergence test of legacy iterative code is such a comparison (`while
np.max(np.abs(x_new - x)) > tol`, `if abs(d).max() < eps: break`). A float max or min
is NaN-propagating (`reduce.reduce`): the reduction, a sum that says whether a NaN may
be there, and under it the exact NaN test. XLA cannot fuse the reduced expression into
all three, so it writes it to memory on every iteration and reads it back twice or
three times (`newton_sqrt` at 10^6 doubles: 46 ms against `jax.jit`'s 16, whose max
skips NaN).

The comparison needs none of that: with R the NaN-propagating max of X and t a scalar,

    R <  t  <=>  every x < t           R >  t  <=>  no x is NaN and some x > t
    R <= t  <=>  every x <= t          R >= t  <=>  no x is NaN and some x >= t

(a NaN fails every comparison, on either side, as R would be NaN; a NaN t fails them
all too), and the same with the directions swapped for a min. The left column is one
`and` reduction of a fused compare; the right one a `max` reduction of a fused code per
element (2 for a NaN, 1 where the comparison holds, else 0) that must come out 1. Both
read X once, fused with the expression it is made of, and write nothing.

The rewrite runs on the finished module. It takes the patterns `reduce.reduce` emits
for a float max or min over every axis (with or without its guarding `stablehlo.if`)
whose only reader is a `stablehlo.compare` with a 0-d operand on the other side, seen
through widening float conversions (a float32 maximum compared with a float64
tolerance); anything else keeps the reduction as it was. The max, its guard and its
NaN test are left unread; `dead.erase_dead` removes them once every rewrite has run
(erasing an `if` here would leave the bindings' wrappers of the ops inside it, which
this walk still holds, pointing at freed memory).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.trace import constant
from npxla.runtime.lowering.reduce import _binary_body, _cmp, _reduce_lowering
from npxla.runtime.lowering.ssa import defining_op, is_scalar, operation, ops_named

_EXTREME = {"stablehlo.maximum": "max", "stablehlo.minimum": "min"}
# the compare's direction with the reduction on its left, when it is on the right
_SWAPPED = {"GT": "LT", "GE": "LE", "LT": "GT", "LE": "GE"}
# (kind, direction) whose test is "every element" (the others: "no NaN, some element")
_EVERY = frozenset({("max", "LT"), ("max", "LE"), ("min", "GT"), ("min", "GE")})


def fold_extreme_tests(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many tests changed."""
    changed = 0
    for op in ops_named(module, "stablehlo.compare"):
        direction = hlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value
        if direction not in _SWAPPED or not all(is_scalar(v) for v in op.operands):
            continue
        for side in (0, 1):
            found = _extreme(op.operands[side])
            if found is None:
                continue
            x, kind, widened = found
            d = direction if side == 0 else _SWAPPED[direction]
            with op.location, ir.InsertionPoint(op):
                test = _one_pass(x, kind, d, op.operands[1 - side], widened)
            op.result.replace_all_uses_with(test)
            op.erase()
            changed += 1
            break
    return changed


def _only_use(value):
    """The op that is `value`'s only reader, else None."""
    uses = list(value.uses)
    return operation(uses[0].owner) if len(uses) == 1 else None


def _extreme(value):
    """(X, "max" or "min", the float type it is widened to or None) when `value` is
    the NaN-propagating max or min of X over all its axes, read only by the compare
    (through widening conversions), else None."""
    widened = None
    op = defining_op(value)
    while op is not None and op.name == "stablehlo.convert":
        src = ir.RankedTensorType(op.operands[0].type).element_type
        dst = ir.RankedTensorType(op.result.type).element_type
        if not (isinstance(src, ir.FloatType) and isinstance(dst, ir.FloatType)
                and dst.width >= src.width) or _only_use(op.result) is None:
            return None
        widened = widened or dst
        value = op.operands[0]
        op = defining_op(value)
    if op is None or _only_use(value) is None:
        return None
    if op.name == "stablehlo.if":
        found = _guarded(op)
    elif op.name == "stablehlo.select":
        found = _with_nan(op)
    else:
        return None
    if found is None:
        return None
    return found[0], found[1], widened


def _guarded(op):
    """(X, kind, its reduction) of `reduce._extreme_lowering`'s guarded form: if the sum
    of X is NaN, `_with_nan`'s select, else the bare reduction."""
    then, other = (r.blocks[0] for r in op.regions)
    rets = [list(b.operations)[-1] for b in (then, other)]
    if len(op.results) != 1 or any(len(r.operands) != 1 for r in rets):
        return None
    select = defining_op(rets[0].operands[0])
    if select is None or select.name != "stablehlo.select":
        return None
    found = _with_nan(select)
    if found is None or rets[1].operands[0] != found[2].result:
        return None
    x = found[0]
    test = defining_op(op.operands[0])          # compare NE (sum of X) with itself
    if test is None or test.name != "stablehlo.compare" or \
            test.operands[0] != test.operands[1]:
        return None
    probe = _full_reduction(test.operands[0], "stablehlo.add")
    return found if probe is not None and probe[0] == x else None


def _with_nan(select):
    """(X, kind, its reduction) of `reduce._with_nans`: select(any(X != X), NaN, R)."""
    hit, nan, fast = select.operands
    found = _full_reduction(fast, *_EXTREME)
    if found is None:
        return None
    x, name, reduction = found
    ne = _full_reduction(hit, "stablehlo.or")
    if ne is None:
        return None
    test = defining_op(ne[0])
    if test is None or test.name != "stablehlo.compare" or \
            test.operands[0] != x or test.operands[1] != x or not _is_nan(nan):
        return None
    return x, _EXTREME[name], reduction


def _full_reduction(value, *bodies):
    """(X, body op name, the reduce op) when `value` is a one-operand `reduce` of X over
    every axis whose body is one of `bodies` and whose init is that body's identity for
    the extremes (anything for the others: their results are only tested)."""
    op = defining_op(value)
    if op is None or op.name != "stablehlo.reduce" or len(op.operands) != 2:
        return None
    x, init = op.operands
    xt = ir.RankedTensorType(x.type)
    if xt.rank == 0 or 0 in xt.shape or not isinstance(xt.element_type, ir.FloatType) \
            and bodies != ("stablehlo.or",):
        return None
    if len(ir.DenseI64ArrayAttr(op.attributes["dimensions"])) != xt.rank:
        return None
    inner = list(op.regions[0].blocks[0].operations)
    if len(inner) != 2 or inner[0].name not in bodies:
        return None
    name = inner[0].name
    if name in _EXTREME:
        want = -np.inf if name == "stablehlo.maximum" else np.inf
        if _float_constant(init) != want:
            return None
    return x, name, op


def _float_constant(value):
    op = defining_op(value)
    if op is None or op.name != "stablehlo.constant":
        return None
    try:
        return float(ir.DenseFPElementsAttr(op.attributes["value"])[0])
    except (ValueError, TypeError):
        return None


def _is_nan(value) -> bool:
    op = defining_op(value)
    if op is not None and op.name == "stablehlo.broadcast_in_dim":
        value = op.operands[0]
    v = _float_constant(value)
    return v is not None and v != v


def _one_pass(x, kind, direction, t, widened):
    """The i1 result of `R direction t` (R: the max or min of `x`) from one reduction."""
    xt = ir.RankedTensorType(x.type)
    shape, axes = list(xt.shape), tuple(range(xt.rank))
    if widened is not None:
        x = hlo.ConvertOp(ir.RankedTensorType.get(shape, widened), x).result
        xt = ir.RankedTensorType(x.type)
    tb = hlo.BroadcastInDimOp(xt, t, []).result
    holds = _cmp(x, tb, direction, np.float64)
    i1 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    if (kind, direction) in _EVERY:
        true = constant(np.ones((), np.bool_))
        return _reduce_lowering([i1], holds, true, axes=axes, body=_binary_body("and"))[0]
    u8 = np.uint8
    codes_t = ir.RankedTensorType.get(shape, ir.IntegerType.get_unsigned(8))

    def filled(v):
        return hlo.BroadcastInDimOp(codes_t, constant(np.array(v, u8)), []).result
    code = hlo.SelectOp(holds, filled(1), filled(0)).result
    code = hlo.SelectOp(_cmp(x, x, "NE", np.float64), filled(2), code).result
    top = _reduce_lowering([ir.RankedTensorType.get([], codes_t.element_type)], code,
                           constant(np.zeros((), u8)), axes=axes,
                           body=_binary_body("max"))[0]
    return _cmp(top, constant(np.ones((), u8)), "EQ", u8)
