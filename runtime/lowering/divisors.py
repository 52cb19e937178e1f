"""Float divisors XLA could prove to be broadcasts, made into values it cannot.

XLA's algebraic simplifier turns `a / broadcast(b)` into `a * broadcast(1 / b)`: two
roundings where NumPy's division has one, so about a quarter of the quotients differ
from NumPy's in the last bit. npxla's `exact` divisor already carries a zero that
depends on the dividend (1 only where it is NaN), which is no broadcast while the
dividend is none. But a dividend XLA proves to be a broadcast makes that zero one too:
a loop over columns turned into array work (`maps`, `lanes`) divides a row that
starts as the same scalar in every lane, `s / (abs(s) + 1.0)`, and XLA folds the
whole divisor into `broadcast(abs(s) + 1.0)`.

So a float division whose divisor is built only from broadcasts and constants (through
elementwise ops and moves that keep a broadcast one) gets `replica_id() & iota` or'ed
into its divisor's bits: zero at run time (one replica), different in every lane as
far as XLA can tell, so never a broadcast. Divisors that read data some other way (an
argument, a loop's carried value, a reduction) are left alone: the rewrite cannot
apply to them.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.ssa import ELEMENTWISE, defining_op, ops_named

# ops whose result is a broadcast (or a constant) whenever their array operands are
_KEEPS = ELEMENTWISE | frozenset({
    "stablehlo.reshape", "stablehlo.transpose", "stablehlo.slice",
    "stablehlo.dynamic_slice", "stablehlo.reverse", "stablehlo.pad"})
_UNIFORM = frozenset({"stablehlo.constant", "stablehlo.broadcast_in_dim"})
# the ops followed back from one divisor, at most (a longer chain counts as uniform)
_BUDGET = 256


def spread_divisors(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many divisors
    changed."""
    changed = 0
    zero = None
    for op in ops_named(module, "stablehlo.divide"):
        divisor = op.operands[1]
        t = ir.RankedTensorType(divisor.type)
        if not isinstance(t.element_type, ir.FloatType) or t.rank == 0 or \
                max(t.shape) < 2 or not _may_be_broadcast(divisor, [_BUDGET]):
            continue
        if zero is None:
            zero = _replica_zero(module)
        with ir.InsertionPoint(op), op.location:
            op.operands[1] = _spread(divisor, t, zero)
        changed += 1
    return changed


def _may_be_broadcast(value, budget) -> bool:
    """Whether XLA could fold `value` (rank >= 1) into a broadcast or a constant."""
    budget[0] -= 1
    if budget[0] < 0:
        return True
    op = defining_op(value)
    if op is None:                      # an argument, a loop's carried value
        return False
    if op.name in _UNIFORM:
        return True
    if op.name not in _KEEPS:
        return False
    arrays = [v for v in op.operands if ir.RankedTensorType(v.type).rank > 0]
    return all(_may_be_broadcast(v, budget) for v in arrays)


def _replica_zero(module: ir.Module) -> ir.Value:
    """`replica_id()` (a u32 zero the compiler cannot see) at the top of `main`."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.operation.attributes["sym_name"]).value == "main":
            block = op.operation.regions[0].blocks[0]
            with ir.InsertionPoint.at_block_begin(block), ir.Location.unknown():
                return hlo.ReplicaIdOp().result
    raise LookupError("the module has no main function")


def _spread(divisor, t, zero) -> ir.Value:
    """`divisor` with `zero & iota` or'ed into its bits."""
    width = t.element_type.width
    bits = ir.IntegerType.get_unsigned(width)
    ity = ir.RankedTensorType.get(t.shape, bits)
    scalar = hlo.ConvertOp(ir.RankedTensorType.get([], bits), zero).result
    # numbered in row-major order: an iota along one axis would be a broadcast of a
    # smaller iota, and the divisor with it
    count = int(np.prod(t.shape))
    flat = hlo.IotaOp(ir.RankedTensorType.get([count], bits), 0).result
    lanes = hlo.AndOp(hlo.ReshapeOp(ity, flat).result,
                      hlo.BroadcastInDimOp(ity, scalar, []).result).result
    as_bits = hlo.BitcastConvertOp(ity, divisor).result
    return hlo.BitcastConvertOp(divisor.type, hlo.OrOp(as_bits, lanes).result).result
