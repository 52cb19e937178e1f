"""`dynamic_update_slice` that XLA:CPU cannot turn into a wrong in-place loop.

XLA fuses a `dynamic_update_slice` with the ops computing its update and runs the fusion
in place in the operand's buffer. Before fusing a read of the operand into it, XLA checks
that the read is at the positions being written. In the jaxlib this project pins (0.10.x)
that check compares values, not buffers: when the operand is a reshape (an HLO bitcast)
of a value P and the update reads P, or reads the operand through a contiguous slice that
the simplifier rewrites into a slice of P, the read is fused and sees elements the loop
has already overwritten. `y = x.reshape(4, 4); y[0:3] *= y[0]` multiplied rows 1-2 by the
*updated* row 0 (found by the fuzzer; `jax.jit` with `lax.dynamic_update_slice` gives the
same wrong answer). An `optimization_barrier` does not help: XLA:CPU removes barriers
before fusion.

So when the operand is such a reshape and the update may read it, the write is staged as
`select(written, DUS(zeros, update), operand)`: the DUS writes into a fresh buffer, and
the select costs one pass over the operand, which the reshape that caused it already
paid. Other writes keep the in-place DUS (XLA's check is right for them: the fuzzer and
`tests/runtime/test_inplace_lowering.py` cover the shapes tried). Whether the update may
read the operand is a walk up its producers, bounded so that large unrolled programs stay
linear; a walk that runs out of budget, or meets an op with regions (whose bodies may
capture the operand), assumes it does."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.trace import constant
from npxla.runtime.staging.types import dtype_of, element_count

WALK_BUDGET = 256

# Ops XLA may turn into a bitcast of their operand (same elements, other shape/order).
_BITCASTS = frozenset({"stablehlo.reshape", "stablehlo.transpose",
                       "stablehlo.broadcast_in_dim"})


def update_slice(operand, update, starts):
    """The MLIR value of `operand` with `update` written at `starts`."""
    sources = _bitcast_sources(operand)
    if len(sources) > 1 and may_read(update, sources):
        return _written_through_select(operand, update, list(starts))
    return hlo.DynamicUpdateSliceOp(operand, update, list(starts)).result


def _bitcast_sources(value):
    """`value` and the values it is a same-size reshape/transpose/broadcast of."""
    chain = [value]
    while not isinstance(value.owner, ir.Block):
        op = value.owner.operation
        if op.name not in _BITCASTS or len(op.operands) != 1:
            break
        source = op.operands[0]
        if element_count(source.type) != element_count(value.type):
            break
        chain.append(source)
        value = source
    return chain


def may_read(value, targets, budget=WALK_BUDGET) -> bool:
    """Whether computing `value` may read one of `targets` (True when unsure)."""
    stack, seen = [value], set()
    while stack:
        v = stack.pop()
        if any(v == t for t in targets):
            return True
        owner = v.owner
        if isinstance(owner, ir.Block):
            continue
        op = owner.operation
        if op in seen:
            continue
        seen.add(op)
        if len(seen) > budget or len(op.regions):
            return True
        stack.extend(op.operands)
    return False


def _written_through_select(operand, update, starts):
    t = ir.RankedTensorType(operand.type)
    u = ir.RankedTensorType(update.type)
    zeros = constant(np.zeros(t.shape, dtype_of(t)))
    values = hlo.DynamicUpdateSliceOp(zeros, update, starts).result
    untouched = constant(np.zeros(t.shape, bool))
    written = hlo.DynamicUpdateSliceOp(untouched, constant(np.ones(u.shape, bool)),
                                       starts).result
    return hlo.SelectOp(written, values, operand).result
