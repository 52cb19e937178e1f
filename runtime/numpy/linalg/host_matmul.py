"""Large matrix products through NumPy's own BLAS call, on the CPU.

XLA:CPU multiplies matrices with Eigen; NumPy calls OpenBLAS. Two gaps measured here
(float64, medians):

- `X.T @ X` (X: 20000 x 500): NumPy sees one buffer and its transpose and calls `syrk`,
  which computes one triangle of the symmetric result: 73-90 ms. XLA computes the
  whole product: 165-195 ms (the same in `jax.jit`).
- general products: 1500^3 NumPy 84 ms, XLA 127 ms; 1000^3 23 / 33 ms.

None of XLA:CPU's library options (oneDNN, XNNPACK, YNNPACK) closes either. XLA can
call back into Python; jaxlib's buffer callback hands over views of XLA's own buffers,
operands and results (`emit_library_callback`). So large products on the CPU are NumPy's
`matmul` writing into the result buffer (`np.matmul(a, b, out=...)`, still `syrk` for
`X.T @ X`), and NumPy's result bit for bit, which XLA's dot is not. A centred Gram
product (`X = data - mean`) hands over the data and the mean instead of X: NumPy centres
them in memory it owns, where XLA's temporary X (80 MB for 20000 x 500) cost ~45 ms of
page faults. `covariance` at 20000 x 500: 192 ms with the copying callback, 114-148 ms
now (NumPy 108-129 ms). Only large products go there (the callback costs about 17
µs, a few more per trip inside a loop).

Matrix-vector products of a matrix of 2**18 elements or more (2**20 in a loop or a
branch) go there too. NumPy's `gemv` runs on both cores where XLA's runs on one, and
the callback reads an unaligned matrix in place (`superset_callbacks`), transposed ones
as NumPy's own view (`A.T @ y`), so the result is NumPy's bit for bit. Medians here,
float64: 1024 x 1024 `A @ x` 0.13 against XLA's 0.28 ms (NumPy 0.06), 2048 x 2048 0.56
against 0.76 (0.30), `A.T @ y` 0.47 against 0.60 (0.35); `MATVEC_LIMITS` has the mid
sizes. Smaller matrices stay in XLA: the callback costs 10-25 µs however small the
product, and in a loop it pays that every trip (`power_iteration` at 500 x 500: 0.82
against 0.42 ms).
Never in programs split over devices (they cannot call back) or compiled for an
accelerator (whose own BLAS is faster than a trip to the host).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.lowering.callbacks import emit_library_callback, library

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# `X.T @ X`: from about 4M multiply-adds on, `syrk` through the callback wins even for
# thin X (covariance programs, medians, NumPy / XLA's dot / callback: 632 x 158 474 /
# 1040 / 598 µs, 20000 x 50 3.4 / 7.4 / 4.4 ms, 20000 x 16 0.90 / 1.57 / 0.99 ms,
# 2000 x 50 296 / 443 / 358 µs; at 1000 x 100 510 against 522, a tie)
GRAM_MIN_SIDE = 16
GRAM_MIN_MACS = 1 << 22
# a general product, by where it is staged: (least side, least multiply-adds). In the
# function's own body, from ~0.4 ms of XLA's dot: the callback (now on the calling
# thread, read in place) was 0.60-1.03x XLA's time on 16 shapes of 2^18-2^28
# multiply-adds, float64 and float32, geometric mean ~0.92 (1024 x 256 x 256 float64
# 2.5-3.8 -> 1.6-3.7 ms, 16 x 1024 x 1024 2.0 -> 1.6), and it gives NumPy's bits. In a
# loop body or a branch, only from ~20 ms of XLA's dot: `X = tanh(X @ W)` 20 times
# measured 0.95-1.17x XLA's time at 128-384, where the BLAS threads and XLA's take
# turns every trip.
GEMM_LIMITS = {"body": (16, 1 << 22), "nested": (256, 1 << 28)}
# a matrix-vector product: the matrix's least elements, by where it is staged. In the
# body, medians µs per call of `alpha * (A @ x) + beta * y`, XLA's dot / the callback
# (NumPy): 256^2 35 / 64 (11), 362^2 74 / 75 (21), 512^2 102 / 98 (35), 724^2 121 / 97
# (36), 1000^2 225 / 126 (63). In a loop the callback's fixed cost comes every trip
# (20 steps of `x = A @ x; x /= norm(x)`, 512^2 0.79-0.83 / 0.88-1.36 ms, 724^2 2.28 /
# 0.92), and a product in a loop that `hoist` would turn into one matrix product before
# it must stay a dot (`correlation_loop`, `Z[:, i] @ Z[:, i + 1:]` on 10000 x 100: 6-10
# ms as one product, 14-19 ms as a callback per trip), so loops keep the old bound.
MATVEC_LIMITS = {"body": 1 << 18, "nested": 1 << 20}


def host_product(a, b, dtype, batch, dims):
    """`a @ b` (2-D operands, or a matrix and a vector; a's last axis against b's first)
    computed by NumPy through a host callback when it is large enough to gain, else
    None."""
    trace = current_trace()
    if trace is None or not trace.host_library or batch != ((), ()) or \
            dims != ((a.ndim - 1,), (0,)) or sorted((a.ndim, b.ndim)) not in ([1, 2], [2, 2]):
        return None
    dtype = np.dtype(dtype)
    if dtype not in _FLOATS or a.dtype != dtype or b.dtype != dtype or \
            a.const is not None or b.const is not None:
        return None
    if a.ndim == 1 or b.ndim == 1 or a.shape[0] == 1 or b.shape[1] == 1:
        return _matvec(trace, a, b, dtype)
    (m, k), n = a.shape, b.shape[1]
    if _transpose_of(a, b):
        operands, call = [b], _gram_left       # X.T @ X
    elif _transpose_of(b, a):
        operands, call = [a], _gram_right      # X @ X.T
    else:
        operands, call = [a, b], _matmul
    if call is _matmul:
        least_side, least_macs = GEMM_LIMITS["nested" if _nested() else "body"]
        if min(m, k, n) < least_side or m * k * n < least_macs:
            return None
    elif m < GRAM_MIN_SIDE or m * m * k < GRAM_MIN_MACS:
        return None
    else:
        centred = _centring(operands[0])
        if centred is not None:
            operands, call = centred, _CENTRED[call]
    (out,) = emit_library_callback(trace, ("product", _NAMES[call]), operands,
                                   [((m, n), dtype)])
    return out


def _nested() -> bool:
    """Whether the op being staged is inside a region (a loop body, a branch) rather
    than the function's own body."""
    owner = ir.InsertionPoint.current.block.owner
    return owner is not None and owner.operation.name != "func.func"


def _centring(x):
    """[X, v] when `x` is `X - v` with `v` broadcast along X's rows (a centring: `data -
    data.mean(axis=0)`), else None."""
    op = _producer(x.ir)
    if op is None or op.name != "stablehlo.subtract":
        return None
    big, row = op.operands
    spread = _producer(row)
    if spread is None or spread.name != "stablehlo.broadcast_in_dim":
        return None
    v = spread.operands[0]
    shape = ir.RankedTensorType(v.type).shape
    dims = list(ir.DenseI64ArrayAttr(spread.attributes["broadcast_dimensions"]))
    if not ((shape == [x.shape[1]] and dims == [1]) or
            (shape == [1, x.shape[1]] and dims == [0, 1])):
        return None
    return [AbstractArray(x.shape, x.dtype, ir=big, deps=x.deps),
            AbstractArray(tuple(shape), x.dtype, ir=v, deps=x.deps)]


def _matvec(trace, a, b, dtype):
    """`a @ b` where one of them is a vector, or a row or a column (matmul's form of
    one), by NumPy's `gemv`, or None for a small matrix. A transposed matrix goes in as
    the matrix it transposes."""
    left = b.ndim == 1 or (a.ndim == 2 and b.shape[-1] == 1 and a.shape[0] > 1)
    matrix = a if left else b
    if matrix.ndim != 2 or matrix.size < MATVEC_LIMITS["nested" if _nested() else "body"]:
        return None
    original = _transposed(matrix)
    operands = [a, b]
    if original is not None:
        operands[0 if left else 1] = original
    call = _MATVEC[(left, original is not None)]
    shape = a.shape[:-1] + b.shape[1:]
    (out,) = emit_library_callback(trace, ("product", _NAMES[call]), operands,
                                   [(shape, dtype)])
    return out


def _transposed(x):
    """The matrix `x` transposes (`x` the value of one 2-D `stablehlo.transpose`), as an
    operand for the host, or None."""
    if x.ir is None:
        return None
    op = _producer(x.ir)
    if op is None or op.name != "stablehlo.transpose" or \
            list(ir.DenseI64ArrayAttr(op.attributes["permutation"])) != [1, 0]:
        return None
    return AbstractArray(x.shape[::-1], x.dtype, ir=op.operands[0], deps=x.deps)


def _producer(value):
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _transpose_of(t, x) -> bool:
    """Whether `t` is `x` transposed (the value of one `stablehlo.transpose` of x)."""
    original = _transposed(t)
    return original is not None and x.ir is not None and original.ir == x.ir


# XLA calls these with views of the operands' buffers and of the result's, to fill
def _gram_left(outs, x):
    np.matmul(x.T, x, out=outs[0])


def _gram_right(outs, x):
    np.matmul(x, x.T, out=outs[0])


def _matmul(outs, a, b):
    np.matmul(a, b, out=outs[0])


# matrix-vector products (NumPy's matmul calls gemv for a row or a column), keyed by
# (matrix on the left, matrix passed untransposed)
_MATVEC = {
    (True, False): _matmul,
    (True, True): lambda outs, a, b: np.matmul(a.T, b, out=outs[0]),
    (False, False): _matmul,
    (False, True): lambda outs, a, b: np.matmul(a, b.T, out=outs[0]),
}


# the centred forms: NumPy subtracts into memory it owns (huge pages: 80 MB in ~20 ms,
# where a temporary XLA allocates costs ~45 ms of page faults) and the product follows
def _centred_gram_left(outs, x, v):
    y = x - v
    np.matmul(y.T, y, out=outs[0])


def _centred_gram_right(outs, x, v):
    y = x - v
    np.matmul(y, y.T, out=outs[0])


_CENTRED = {_gram_left: _centred_gram_left, _gram_right: _centred_gram_right}

# every product callback by the name a stored program's recipe gives it
_CALLS = {"matmul": _matmul, "gram_left": _gram_left, "gram_right": _gram_right,
          "centred_gram_left": _centred_gram_left,
          "centred_gram_right": _centred_gram_right,
          "matvec_left_t": _MATVEC[(True, True)], "matvec_right_t": _MATVEC[(False, True)]}
_NAMES = {fn: name for name, fn in _CALLS.items()}
library("product")(_CALLS.__getitem__)
