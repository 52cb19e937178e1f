"""Roundings nothing can fuse with, removed from the finished module.

`rounding.rounded` passes every float product (and quotient, power, sum with a
constant) through an integer `or` with an opaque zero, so that no later add can fuse
with it into one FMA and XLA's simplifier cannot fold it with the op that reads it. The
`or` is one instruction in an elementwise loop, but it is an operand XLA:CPU's fast
paths do not take: a reduction over it is no longer handed to YNNPACK as one fused
pass, so `np.max(a * b)` of 1M doubles first writes `a * b` to memory (8 MB, fresh
pages on every call) and then reads it for the max and for the NaN probe; NumPy did
the same work in 0.6-0.7 ms, npxla in 1.1-1.7.

Most roundings protect against nothing: what reads the product cannot fuse with it.
A compare, a conversion to an integer, a max or min reduction (or a `reduce` whose
body only adds, compares and selects: sums already take the bare product, see
`rounding.unrounded`), or a result the program returns, see the rounded value and the
bare one alike. So a rounding whose every reader is one of those, or moves its value on
(a select, a pad, a reshape, a slice...) only to such readers, is dropped: its readers
read the product itself. Values read by anything else (an add, a multiply, a loop's
next iteration, a branch) keep it. `rounding.hidden`'s values, which use an `xor`
instead, are never touched: error-free transformations need them hidden from XLA's
algebra as well.
"""
from __future__ import annotations

from jaxlib.mlir import ir

from npxla.runtime.lowering.ssa import defining_op, operation, ops_named

# readers that see a rounded value and the bare product alike
_FINAL = frozenset({"stablehlo.compare", "stablehlo.is_finite"})
# readers that pass (some of) their operands on unchanged in value: safe when their own
# readers are; {op: operand positions that pass on (None: all)}
_MOVES = {"stablehlo.abs": None, "stablehlo.negate": None, "stablehlo.select": (1, 2),
          "stablehlo.pad": (0,), "stablehlo.reshape": None, "stablehlo.transpose": None,
          "stablehlo.slice": None, "stablehlo.broadcast_in_dim": None,
          "stablehlo.concatenate": None, "stablehlo.dynamic_slice": (0,),
          "stablehlo.dynamic_update_slice": (0, 1), "stablehlo.reverse": None}
# the ops a reduction's body may hold for its inputs to be safe: picking ones (max, min,
# argmax's compares and selects), and for a `reduce` also adds (sums take the bare
# product already); a `reduce_window` sum is left alone (a window's sum may be one whose
# order is NumPy's, which a fused product would change)
_PICKING = frozenset({"stablehlo.maximum", "stablehlo.minimum", "stablehlo.compare",
                      "stablehlo.select", "stablehlo.and", "stablehlo.or", "stablehlo.not",
                      "stablehlo.constant", "stablehlo.return"})
_REDUCING = {"stablehlo.reduce": _PICKING | {"stablehlo.add"},
             "stablehlo.reduce_window": _PICKING}
# readers followed, at most, per rounding (a value moved on through many ops keeps it)
_BUDGET = 64


def drop_unneeded_rounding(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many roundings went."""
    dropped = 0
    for op in ops_named(module, "stablehlo.or"):
        parts = _rounding(op)
        if parts is None:
            continue
        product, rounded = parts
        if _all_safe(rounded, [_BUDGET]):
            rounded.replace_all_uses_with(product)
            dropped += 1
    return dropped


def _rounding(op):
    """(the product, the rounded value) when `op` is the `or` of a rounding, else None."""
    inner = defining_op(op.operands[0])
    if inner is None or inner.name != "stablehlo.bitcast_convert" or \
            not _opaque_zero(op.operands[1]):
        return None
    uses = list(op.result.uses)
    if len(uses) != 1:
        return None
    outer = operation(uses[0].owner)
    if outer.name != "stablehlo.bitcast_convert":
        return None
    product, rounded = inner.operands[0], outer.result
    if product.type != rounded.type:
        return None
    return product, rounded


def _opaque_zero(value) -> bool:
    """Whether `value` is `rounding`'s zero: `replica_id`, converted, broadcast."""
    op = defining_op(value)
    for name in ("stablehlo.broadcast_in_dim", "stablehlo.convert"):
        if op is not None and op.name == name:
            op = defining_op(op.operands[0])
    return op is not None and op.name == "stablehlo.replica_id"


def _all_safe(value, budget) -> bool:
    return all(_safe(use, budget) for use in value.uses)


def _safe(use, budget) -> bool:
    budget[0] -= 1
    if budget[0] < 0:
        return False
    op = operation(use.owner)
    name = op.name
    if name in _FINAL:
        return True
    if name == "stablehlo.convert":
        return not isinstance(ir.RankedTensorType(op.result.type).element_type,
                              (ir.FloatType, ir.ComplexType))
    if name == "func.return":
        parent = op.parent
        return parent is not None and parent.name == "func.func" and \
            ir.StringAttr(parent.attributes["sym_name"]).value == "main"
    if name in _REDUCING:
        inputs = len(op.operands) // 2
        body = op.regions[0].blocks[0]
        return use.operand_number < inputs and \
            all(inner.name in _REDUCING[name] for inner in body.operations)
    if name in _MOVES:
        positions = _MOVES[name]
        if positions is not None and use.operand_number not in positions:
            return False
        return all(_all_safe(r, budget) for r in op.results)
    return False
