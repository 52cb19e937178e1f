"""1-D cross-correlation as one `stablehlo.convolution` (HIGHEST precision for floats).

`correlate_1d(a, v, padding=(lo, hi))`: `out[k] = sum_m a_pad[k + m] * v[m]`, where
`a_pad` is `a` with `lo` zeros before and `hi` after; the result has
`len(a) + lo + hi - len(v) + 1` elements. No conjugation, no kernel flip.

XLA's GPU convolution takes float operands only: bool, integer and complex operands
failed to compile there (UNIMPLEMENTED; the first GPU run, docs/devices.md). Off the
CPU, a complex correlation is four real ones, and a bool or integer one the sum of
the kernel's taps, each a shifted slice of `a_pad` times one element of `v`: the
products and sums NumPy's integer loop makes, wrapping alike (bool: `and`, `or`).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.core import Primitive
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.trace import current_trace
from npxla.transpiler.base.errors import UnsupportedFunctionError


def _typing(a, v, *, padding, highest):
    (n,), (m,) = a[0], v[0]
    if a[1] != v[1]:
        raise ValueError(f"correlate_1d: operand dtypes differ ({a[1]}, {v[1]})")
    return ((n + padding[0] + padding[1] - m + 1,), a[1])


def _lowering(t, a, v, *, padding, highest):
    a_type, v_type = ir.RankedTensorType(a.type), ir.RankedTensorType(v.type)
    out_type = ir.RankedTensorType(t)
    as3 = [ir.RankedTensorType.get([1, 1, x.shape[0]], x.element_type)
           for x in (a_type, v_type, out_type)]
    lhs = hlo.ReshapeOp(as3[0], a).result
    rhs = hlo.ReshapeOp(as3[1], v).result
    dims = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=[2],
        kernel_input_feature_dimension=1, kernel_output_feature_dimension=0,
        kernel_spatial_dimensions=[2], output_batch_dimension=0,
        output_feature_dimension=1, output_spatial_dimensions=[2])
    precision = None
    if highest:
        highest = hlo.PrecisionAttr.get("HIGHEST")
        precision = ir.ArrayAttr.get([highest, highest])
    pad = ir.DenseIntElementsAttr.get(np.asarray([padding], np.int64),
                                      type=ir.IntegerType.get_signless(64))
    out = hlo.ConvolutionOp(as3[2], lhs, rhs, dims, 1, 1, padding=pad,
                            precision_config=precision).result
    return hlo.ReshapeOp(out_type, out).result


_correlate = Primitive("correlate_1d", typing=_typing, lowering=_lowering)


def correlate_1d(a, v, *, padding):
    padding = tuple(padding)
    if a.dtype.kind == "f" or _native_everywhere():
        return _correlate(a, v, padding=padding, highest=a.dtype.kind in "fc")
    if a.dtype.kind == "c":
        ar, ai, vr, vi = X.real(a), X.imag(a), X.real(v), X.imag(v)
        part = lambda x, y: correlate_1d(x, y, padding=padding)   # noqa: E731
        return X.complex_(E.subtract(part(ar, vr), part(ai, vi)),
                          E.add(part(ar, vi), part(ai, vr)))
    return _by_taps(a, v, padding)


# kernels longer than this are refused off the CPU for bool and integer operands (one
# slice, product and sum per tap)
MAX_TAPS = 1024


def _native_everywhere() -> bool:
    """Whether the program is for the CPU, whose convolution takes every dtype."""
    trace = current_trace()
    return trace is None or trace.platform == "cpu"


def _by_taps(a, v, padding):
    (n,), (m,) = a.shape, v.shape
    if m > MAX_TAPS:
        raise UnsupportedFunctionError(
            f"a correlation or convolution of {a.dtype} arrays with a kernel of {m} "
            f"elements (more than {MAX_TAPS}) is not supported off the CPU; use float "
            "operands (np.convolve(a.astype(np.float64), v.astype(np.float64)))")
    length = n + padding[0] + padding[1] - m + 1
    zero = AbstractArray.from_const(np.zeros((), a.dtype), weak=False)
    a_pad = S.pad(a, zero, low=(padding[0],), high=(padding[1],), interior=(0,))
    times, plus = (E.bitwise_and, E.bitwise_or) if a.dtype == np.bool_ else \
        (E.multiply, E.add)
    out = None
    for j in range(m):
        window = S.static_slice(a_pad, start=(j,), limit=(j + length,), strides=(1,))
        tap = S.broadcast_in_dim(
            S.reshape(S.static_slice(v, start=(j,), limit=(j + 1,), strides=(1,)),
                      shape=()), shape=(length,), dims=())
        term = times(window, tap)
        out = term if out is None else plus(out, term)
    return out
