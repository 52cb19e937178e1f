"""Large matrix products through NumPy's own BLAS call, on the CPU.

XLA:CPU multiplies matrices with Eigen; NumPy calls OpenBLAS. Two gaps measured here
(float64, medians):

- `X.T @ X` (X: 20000 x 500): NumPy sees one buffer and its transpose and calls `syrk`,
  which computes one triangle of the symmetric result: 73-90 ms. XLA computes the
  whole product: 165-195 ms (the same in `jax.jit`).
- general products: 1500^3 NumPy 84 ms, XLA 127 ms; 1000^3 23 / 33 ms.

None of XLA:CPU's library options (oneDNN, XNNPACK, YNNPACK) closes either. XLA can
call back into Python; its CPU callback hands each operand over as a NumPy array (a
copy) and takes the returned array as the result. So large products on the CPU are
NumPy's `matmul` called back from the program: `X.T @ X` 92 ms, 1500^3 107 ms, 1000^3
28 ms (the copies and XLA's idle worker threads cost the rest), and NumPy's result bit
for bit, which XLA's dot is not. Only large products go there (the callback costs tens
of microseconds, copies its operands, and keeps the program out of the on-disk cache):
a mat-vec would copy a big matrix to save nothing (4000 x 5000: XLA 7.4 ms, callback
38 ms). Never in programs split over devices (they cannot call back) or compiled for an
accelerator (whose own BLAS is faster than a trip to the host).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from npxla.runtime.staging.trace import current_trace
from npxla.runtime.lowering.callbacks import emit_pure_callback

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# `X.T @ X`: the result at least 64 x 64 (syrk's saving is the triangle) and ~2-4 ms of
# XLA's dot here
GRAM_MIN_SIDE = 64
GRAM_MIN_MACS = 1 << 25
# a general product: every side at least 256 (the operand copies are then under 1% of
# the work) and ~20 ms of XLA's dot; below, XLA's dot and the callback are even
GEMM_MIN_SIDE = 256
GEMM_MIN_MACS = 1 << 28


def host_product(a, b, dtype, batch, dims):
    """`a @ b` (2-D operands, a's last axis against b's first) computed by NumPy through
    a host callback when it is large enough to gain, else None."""
    trace = current_trace()
    if trace is None or not trace.host_library or batch != ((), ()) or \
            dims != ((1,), (0,)) or a.ndim != 2 or b.ndim != 2:
        return None
    dtype = np.dtype(dtype)
    if dtype not in _FLOATS or a.dtype != dtype or b.dtype != dtype or \
            a.const is not None or b.const is not None:
        return None
    (m, k), n = a.shape, b.shape[1]
    if _transpose_of(a, b):
        operands, call = [b], _gram_left       # X.T @ X
    elif _transpose_of(b, a):
        operands, call = [a], _gram_right      # X @ X.T
    else:
        operands, call = [a, b], _matmul
    if call is _matmul:
        if min(m, k, n) < GEMM_MIN_SIDE or m * k * n < GEMM_MIN_MACS:
            return None
    elif m < GRAM_MIN_SIDE or m * m * k < GRAM_MIN_MACS:
        return None
    (out,) = emit_pure_callback(trace, call, operands, [((m, n), dtype)])
    return out


def _transpose_of(t, x) -> bool:
    """Whether `t` is `x` transposed (the value of one `stablehlo.transpose` of x)."""
    if t.ir is None or x.ir is None:
        return False
    op = t.ir.owner                  # an operation, or a block for a block argument
    op = getattr(op, "operation", op)
    if getattr(op, "name", None) != "stablehlo.transpose" or op.operands[0] != x.ir:
        return False
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"])) == [1, 0]


# XLA calls these with host copies of the operands and takes the array returned
def _gram_left(x):
    return (np.ascontiguousarray(x.T @ x),)


def _gram_right(x):
    return (np.ascontiguousarray(x @ x.T),)


def _matmul(a, b):
    return (np.ascontiguousarray(a @ b),)
