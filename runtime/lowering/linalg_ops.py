"""Linear-algebra and FFT primitives that StableHLO has as ops.

`cholesky(a, lower)`, `triangular_solve(a, b, left_side, lower, unit_diagonal,
transpose_a)` and `fft(x, fft_type, fft_length)` work on the trailing axes; leading axes
are batch axes. The factorizations StableHLO lacks (LU, QR, eigh, SVD, eig) are borrowed
from JAX: runtime/lowering/borrowed.py.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.core import Primitive

cholesky = Primitive(
    "cholesky",
    typing=lambda a, *, lower: a,
    lowering=lambda t, a, *, lower: hlo.CholeskyOp(a, lower=lower).result,
)


def _triangular_solve_lowering(t, a, b, *, left_side, lower, unit_diagonal, transpose_a):
    return hlo.TriangularSolveOp(a, b, left_side, lower, unit_diagonal,
                                 hlo.TransposeAttr.get(transpose_a)).result


triangular_solve = Primitive(
    "triangular_solve",
    typing=lambda a, b, **_: b,
    lowering=_triangular_solve_lowering,
)
"""Solves op(a) x = b (left_side) or x op(a) = b; `transpose_a` is "NO_TRANSPOSE",
"TRANSPOSE" or "ADJOINT"; only the `lower` (or upper) triangle of `a` is read."""


def _complex_of(dtype):
    return np.result_type(dtype, np.complex64)


def _real_of(dtype):
    return np.dtype(np.dtype(dtype).type(0).real.dtype)


def _fft_typing(x, *, fft_type, fft_length):
    shape, dtype = list(x[0]), x[1]
    k = len(fft_length)
    if fft_type == "RFFT":
        shape[-1] = fft_length[-1] // 2 + 1
        return (tuple(shape), _complex_of(dtype))
    if fft_type == "IRFFT":
        shape[-k:] = fft_length
        return (tuple(shape), _real_of(dtype))
    return (tuple(shape), dtype)


fft = Primitive(
    "fft",
    typing=_fft_typing,
    lowering=lambda t, x, *, fft_type, fft_length: hlo.FftOp(
        x, hlo.FftTypeAttr.get(fft_type), list(fft_length)).result,
)
"""FFT over the last len(fft_length) axes (1 to 3). FFT/IFFT: complex -> complex (IFFT
divides by the product of the lengths); RFFT: real -> complex, last axis n//2+1;
IRFFT: complex (last axis n//2+1) -> real with the last axes fft_length."""
