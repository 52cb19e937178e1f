"""A run-time zero XLA cannot see through, and values passed through it.

XLA's code generators may contract a multiply and the add that reads it into one FMA
(one rounding, where NumPy rounds twice) and its simplifier may fold arithmetic it can
see. A float whose bits pass through an integer `or`/`xor` with `replica_id()` (0 in
every program npxla runs: one replica) is neither: no backend knows the operand is
zero. Lowerings use this through `lowering.rounding`; staging's own emitters (large
constants written as `iota` arithmetic, `structured_constants`) use it directly.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.trace import current_trace
from npxla.runtime.staging.types import tensor_type

# float dtype width -> the unsigned dtype its bits are viewed as
BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def behind_zero(value: ir.Value, dtype, combine) -> ir.Value:
    """`value` (a float of `dtype`) with its bits combined (`hlo.OrOp`, `hlo.XorOp`)
    with the opaque zero; unchanged outside a function being built."""
    trace = current_trace()
    if trace is None or trace.block is None:
        return value
    bits = np.dtype(BITS[np.dtype(dtype).itemsize])
    shape = ir.RankedTensorType(value.type).shape
    zero = opaque_zero(trace, bits)
    if shape:
        zero = hlo.BroadcastInDimOp(tensor_type(shape, bits), zero, []).result
    as_int = hlo.BitcastConvertOp(tensor_type(shape, bits), value).result
    return hlo.BitcastConvertOp(value.type, combine(as_int, zero).result).result


def opaque_zero(trace, bits: np.dtype) -> ir.Value:
    """A 0-d zero of `bits` made in the entry function's prelude, so that it dominates
    every use, inside loops and branches too (regions may use values from above)."""
    zero = trace.opaque_zeros.get(bits)
    if zero is None:
        def make():
            replica = hlo.ReplicaIdOp().result
            return replica if bits == np.uint32 else \
                hlo.ConvertOp(tensor_type((), bits), replica).result
        zero = trace.opaque_zeros[bits] = in_prelude(trace, make)
    return zero


def in_prelude(trace, build):
    """`build()` with its ops appended to the *prelude*: the ops at the top of the
    entry function that depend on nothing the function computes (opaque zeros, large
    constants). Appended in order, so that a prelude op may use an earlier one; inserted
    at the block's beginning instead, a constant made after a zero went above it."""
    ops = trace.block.operations
    count = trace.prelude_ops
    before = len(ops)
    point = ir.InsertionPoint(ops[count]) if count < before else ir.InsertionPoint(trace.block)
    with point:
        result = build()
    trace.prelude_ops = count + len(trace.block.operations) - before
    return result
