"""Gram matrices (`X.T @ X`, `X @ X.T`) through NumPy's own BLAS call, on the CPU.

NumPy sees that the two operands of `X.T @ X` are one buffer, one of them transposed,
and calls BLAS `syrk`, which computes one triangle of the symmetric result: half the
multiplications of a general product. XLA has no such routine and its CPU dot (Eigen)
computes the whole product, so covariance-style code ran at 2.3x NumPy's time
(`X.T @ X` for X of 20000 x 500: NumPy 73-90 ms, XLA's dot 165-195 ms, this machine).
None of XLA:CPU's library options (oneDNN, XNNPACK, YNNPACK) does better.

So a large Gram product on the CPU is a host callback that runs NumPy's `matmul` on
the operand: 92 ms for the example above, with the copy of X that XLA makes for the
callback, and bit-identical to NumPy's result (the same routine), which XLA's dot is
not. Only for large products (the callback costs tens of microseconds and disables the
on-disk cache for the program), never in programs split over devices (they cannot call
back) or compiled for an accelerator (whose own BLAS is faster than a trip to the host).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from npxla.runtime.staging.trace import current_trace
from npxla.runtime.lowering.callbacks import emit_pure_callback

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
MIN_SIDE = 64             # the result is at least 64 x 64 (syrk's saving is the triangle)
MIN_MACS = 1 << 25        # ~2-4 ms of XLA's dot here; smaller products stay in XLA


def gram(a, b, dtype, batch, dims):
    """`a @ b` as NumPy's syrk through a host callback when it is a large `X.T @ X` or
    `X @ X.T` on the CPU, else None."""
    trace = current_trace()
    if trace is None or not trace.host_library or batch != ((), ()) or \
            dims != ((1,), (0,)) or a.ndim != 2 or b.ndim != 2:
        return None
    dtype = np.dtype(dtype)
    if dtype not in _FLOATS or a.dtype != dtype or b.dtype != dtype or \
            a.const is not None or b.const is not None:
        return None
    if _transpose_of(a, b):
        x, form = b, _XtX()           # X.T @ X
    elif _transpose_of(b, a):
        x, form = a, _XXt()           # X @ X.T
    else:
        return None
    side, inner = a.shape[0], a.shape[1]
    if side < MIN_SIDE or side * side * inner < MIN_MACS:
        return None
    (out,) = emit_pure_callback(trace, form, [x], [((side, side), dtype)])
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


class _XtX:
    """XLA calls it with X (a host copy) and takes the result it returns."""
    __slots__ = ()

    def __call__(self, x):
        return (np.ascontiguousarray(x.T @ x),)


class _XXt:
    __slots__ = ()

    def __call__(self, x):
        return (np.ascontiguousarray(x @ x.T),)
