"""1-D cross-correlation as one `stablehlo.convolution` (HIGHEST precision for floats).

`correlate_1d(a, v, padding=(lo, hi))`: `out[k] = sum_m a_pad[k + m] * v[m]`, where
`a_pad` is `a` with `lo` zeros before and `hi` after; the result has
`len(a) + lo + hi - len(v) + 1` elements. No conjugation, no kernel flip.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.core import Primitive


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
    return _correlate(a, v, padding=tuple(padding), highest=a.dtype.kind in "fc")
