"""`stablehlo.dot_general`: batch + contracting dimensions, HIGHEST precision for floats."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.core import Primitive


def _free(ndim, *used):
    taken = set().union(*used)
    return [i for i in range(ndim) if i not in taken]


def _dot_typing(lhs, rhs, *, batch, contract, dtype):
    (lb, rb), (lc, rc) = batch, contract
    for i, j in list(zip(lb, rb)) + list(zip(lc, rc)):
        if lhs[0][i] != rhs[0][j]:
            raise ValueError(f"dot_general: dimension {i} of {lhs[0]} != dimension {j} "
                             f"of {rhs[0]}")
    shape = ([lhs[0][i] for i in lb] + [lhs[0][i] for i in _free(len(lhs[0]), lb, lc)]
             + [rhs[0][i] for i in _free(len(rhs[0]), rb, rc)])
    return (tuple(shape), np.dtype(dtype))


def _dot_lowering(t, lhs, rhs, *, batch, contract, dtype):
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(batch[0]), rhs_batching_dimensions=list(batch[1]),
        lhs_contracting_dimensions=list(contract[0]),
        rhs_contracting_dimensions=list(contract[1]))
    precision = None
    if np.dtype(dtype).kind in "fc":
        highest = hlo.PrecisionAttr.get("HIGHEST")
        precision = ir.ArrayAttr.get([highest, highest])
    return hlo.DotGeneralOp(t, lhs, rhs, dims, precision_config=precision).result


dot_general = Primitive("dot_general", typing=_dot_typing, lowering=_dot_lowering)
"""`dot_general(lhs, rhs, batch=((lhs dims), (rhs dims)), contract=(...), dtype=out)`:
result axes are batch, then lhs free axes, then rhs free axes (operands share `dtype`)."""
