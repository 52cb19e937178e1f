"""Float products rounded where NumPy rounds them: no fused multiply-add.

NumPy evaluates `a * b + c` as two ufuncs, so the product is rounded to the dtype
before the sum. XLA's code generators (LLVM on CPU and GPU) are allowed to contract a
multiply followed by an add into one FMA instruction, which rounds once: the result
differs in the last bit, and after a cancellation (`a*x + b*x` with `a == -b`) or in
chaotic iterations it differs in every bit. XLA has no per-compile switch for the
contraction alone (its target options allow it unconditionally; `xla_cpu_max_isa`
below AVX2 only takes effect process-wide, and removes AVX2 everywhere).

So the product's bits pass through an integer `or` with a zero the compiler cannot
see: `replica_id()` converted to the product's width (0 in every program npxla runs,
which has one replica). An `fadd` whose operand is `bitcast(or(bitcast(a*b), z))` is
not an `fadd` of an `fmul`, so no backend can fuse them, and the `or` costs one integer
instruction per element, in the same fused loop. `jit(..., fast_math=True)` leaves the
products bare and lets XLA contract them.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.opaque import behind_zero
from npxla.runtime.staging.trace import current_trace


def rounded(value: ir.Value, dtype) -> ir.Value:
    """`value` (a float product just computed) as a value no later op can fuse with
    the multiply; unchanged for other dtypes, in fast-math traces, or outside one."""
    dtype = np.dtype(dtype)
    trace = current_trace()
    if dtype.kind != "f" or trace is None or trace.fast_math:
        return value
    return behind_zero(value, dtype, hlo.OrOp)


def hidden(value: ir.Value, dtype) -> ir.Value:
    """`value` (a float) as a value XLA cannot see through, fast math or not: neither
    fused with the op that made it nor folded algebraically with its neighbours
    (error-free transformations need both, `numpy/accurate_math.py`). Its bits pass
    through an `xor` where a rounding's pass through an `or`, so that
    `unneeded_rounding` tells them apart: a hidden value stays hidden whatever reads it."""
    return behind_zero(value, dtype, hlo.XorOp)


def unrounded(value: ir.Value) -> ir.Value:
    """The bare product behind a `rounded` one, else `value`. A sum reduction takes
    it: XLA's summation order already differs from NumPy's pairwise sum in the last
    bits, and a product hidden from the reduction would be written to memory in full
    before it is summed (`(a * a).sum()` took twice as long)."""
    outer = _defining(value, "stablehlo.bitcast_convert")
    hidden = outer and _defining(outer.operands[0], "stablehlo.or")
    inner = hidden and _defining(hidden.operands[0], "stablehlo.bitcast_convert")
    product = inner and _defining(inner.operands[0], "stablehlo.multiply")
    return product.result if product else value


def _defining(value: ir.Value, name: str):
    owner = value.owner
    return owner if isinstance(owner, ir.Operation) and owner.name == name else \
        (owner.operation if hasattr(owner, "operation") and owner.operation.name == name
         else None)
