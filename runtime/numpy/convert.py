"""Casting and broadcasting of abstract arrays (NumPy rules)."""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.lowering import structural as S

from npxla.runtime.lowering.elementwise_extra import real as _real_part
from npxla.runtime.lowering.elementwise import compare
from npxla.transpiler.base.errors import ShapeMismatchError


def _ne_zero(x: AbstractArray) -> AbstractArray:
    zero = S.broadcast_in_dim(as_abstract(np.zeros((), x.dtype)), shape=x.shape, dims=())
    return compare(x, zero, direction="NE")


def cast_to(x, dtype, weak=False) -> AbstractArray:
    """`x.astype(dtype)` with NumPy's value semantics (bool is `!= 0`, complex->real
    drops the imaginary part)."""
    x = as_abstract(x)
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        if x.weak != weak:
            const = x.const
            out = AbstractArray(x.shape, x.dtype, ir=None if const is not None else x.ir,
                                const=const, weak=weak, deps=x.deps)
            return out
        return x
    c = x.const
    if c is not None:
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = AbstractArray.from_const(c.astype(dtype), weak=weak)
        out.deps = x.deps
        return out
    if dtype == np.bool_:
        out = _ne_zero(x)
    else:
        if x.dtype.kind == "c" and dtype.kind != "c":
            x = _real_part(x)
        out = S.convert(x, dtype=dtype) if x.dtype != dtype else x
    if weak:
        out.weak = True
    return out


def broadcast_shapes(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeMismatchError(
            "operands could not be broadcast together with shapes "
            + " ".join(str(tuple(s)) for s in shapes),
            hint="check the operands' shapes; NumPy broadcasting aligns trailing axes") from None


def broadcast_to_shape(x: AbstractArray, shape) -> AbstractArray:
    shape = tuple(shape)
    if x.shape == shape:
        return x
    out_shape = broadcast_shapes(x.shape, shape)
    if out_shape != shape:
        raise ShapeMismatchError(f"could not broadcast input array from shape {x.shape} "
                                 f"into shape {shape}")
    c = x.const
    if c is not None and c.size == 1:
        # a read-only broadcast view: no per-element memory, emitted as a splat
        return AbstractArray(shape, c.dtype, const=np.broadcast_to(c.reshape(()), shape),
                             weak=x.weak, deps=x.deps)
    # broadcast_in_dim expands size-1 axes itself; operand axes map to trailing axes.
    out = S.broadcast_in_dim(x, shape=shape, dims=tuple(range(len(shape) - x.ndim, len(shape))))
    out.weak = x.weak
    return out


def promote_operands(operands, dtypes):
    """Cast each operand to its dtype and broadcast all to the common shape."""
    shape = broadcast_shapes(*[o.shape for o in operands])
    return [broadcast_to_shape(cast_to(o, d), shape) for o, d in zip(operands, dtypes)], shape
