"""Cumulative (prefix) reductions: `stablehlo.reduce_window` over a window that covers
everything up to each element (padding n - 1 identity values in front). XLA rewrites
this form into an efficient scan (as JAX's cumsum relies on); the program stays one op.

`kind`: add, mul, max, min (NaN-propagating, as NumPy's maximum/minimum), fmax, fmin
(NaN-skipping; their identity is NaN), and, or, xor.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.reduce import identity
from npxla.runtime.lowering.sort import _cmp

_BINARY = {"add": hlo.AddOp, "mul": hlo.MulOp, "max": hlo.MaxOp, "min": hlo.MinOp,
           "and": hlo.AndOp, "or": hlo.OrOp, "xor": hlo.XorOp}


def _combine(kind, a, b, dtype):
    if kind in ("fmax", "fmin"):
        best = _BINARY[kind[1:]](a, b).result
        if np.dtype(dtype).kind != "f":
            return best
        a_nan, b_nan = _cmp(a, a, "NE", dtype), _cmp(b, b, "NE", dtype)
        return hlo.SelectOp(a_nan, b, hlo.SelectOp(b_nan, a, best).result).result
    return _BINARY[kind](a, b).result


def _lowering(t, x, init, *, kind, axis, dtype):
    shape = ir.RankedTensorType(x.type).shape
    n = shape[axis]
    window = [n if i == axis else 1 for i in range(len(shape))]
    pad = np.array([[n - 1 if i == axis else 0, 0] for i in range(len(shape))], np.int64)
    op = hlo.ReduceWindowOp([t], [x], [init], window, window_strides=[1] * len(shape),
                            padding=ir.DenseIntElementsAttr.get(pad))
    scalar = ir.RankedTensorType.get([], ir.RankedTensorType(x.type).element_type)
    block = op.body.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        a, b = block.arguments
        hlo.ReturnOp([_combine(kind, a, b, dtype)])
    return op.results[0]


cumulative_p = Primitive("cumulative", typing=lambda x, init, *, kind, axis, dtype: x,
                         lowering=_lowering)


def cumulative(x: AbstractArray, *, kind: str, axis: int) -> AbstractArray:
    """Inclusive prefix reduction of `x` along `axis` with the binary op `kind`."""
    if kind in ("fmax", "fmin"):
        fill = np.array(np.nan, x.dtype) if x.dtype.kind == "f" else identity(kind[1:],
                                                                              x.dtype)
    elif kind == "xor":
        fill = np.zeros((), x.dtype)
    elif kind == "add" and x.dtype.kind in "fc":
        # -0.0 is addition's exact identity: a prefix starting at -0.0 stays -0.0, as
        # NumPy's running sum does (+0.0 + -0.0 would be +0.0)
        fill = np.array(-0.0, x.dtype)
    else:
        fill = identity(kind, x.dtype)
    init = AbstractArray.from_const(np.asarray(fill, x.dtype), weak=False)
    return cumulative_p(x, init, kind=kind, axis=axis, dtype=x.dtype)
