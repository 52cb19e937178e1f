"""Linear-algebra and FFT primitives that StableHLO has as ops.

`cholesky(a, lower)`, `triangular_solve(a, b, left_side, lower, unit_diagonal,
transpose_a)` and `fft(x, fft_type, fft_length)` work on the trailing axes; leading axes
are batch axes. The factorizations StableHLO lacks (LU, QR, eigh, SVD, eig) are borrowed
from JAX: runtime/lowering/borrowed.py.

`cholesky_factor` and `solve_triangular` are what the NumPy/SciPy layers call: on the CPU
(LAPACK dtypes) they borrow LAPACK ?potrf and BLAS ?trsm (SciPy's own routines: faster
than XLA's CPU expansions and with LAPACK's rounding, NaN propagation and `info`); on
other platforms they emit the StableHLO ops above.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.borrowed import borrow, has_lapack
from npxla.runtime.lowering import structural as S
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


_TRANS = {"NO_TRANSPOSE": "N", "TRANSPOSE": "T", "ADJOINT": "C"}


def cholesky_factor(a, lower):
    """(factor, info) of (..., n, n) `a`: the factor in its `lower` (or upper) triangle, the
    other triangle unspecified; `info` LAPACK potrf's int32 per matrix (0, or the order of
    the first leading minor that is not positive definite), or None where XLA's cholesky
    ran (then a failed factor holds NaN). Only the chosen triangle of `a` is read."""
    if has_lapack(a.dtype):
        c, info = borrow("potrf", a, lower=bool(lower))
        return c, info
    return cholesky(a, lower=bool(lower)), None


def solve_triangular(a, b, *, lower, unit_diagonal=False, transpose_a="NO_TRANSPOSE"):
    """x with op(a) x = b, (..., n, n) `a` and (..., n, k) `b` of one dtype and batch
    shape; only the `lower` (upper) triangle of `a` is read."""
    if has_lapack(a.dtype) and a.dtype == b.dtype and a.shape[:-2] == b.shape[:-2]:
        trans = _TRANS[transpose_a]
        if trans == "C" and a.dtype.kind != "c":
            trans = "T"
        if trans != "C":
            # BLAS reads `a` column-major: hand it a's transpose (in row-major storage the
            # same bytes, so XLA copies nothing) with the other triangle and the other op
            perm = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
            a, lower, trans = S.transpose(a, perm=perm), not lower, \
                {"N": "T", "T": "N"}[trans]
        (x,) = borrow("trsm", a, b, lower=bool(lower), unit=bool(unit_diagonal),
                      trans=trans)
        return x
    return triangular_solve(a, b, left_side=True, lower=lower, unit_diagonal=unit_diagonal,
                            transpose_a=transpose_a)


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
