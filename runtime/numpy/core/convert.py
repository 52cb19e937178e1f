"""Casting and broadcasting of abstract arrays (NumPy rules)."""
from __future__ import annotations

import platform

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.lowering import structural as S

from npxla.runtime.lowering.elementwise_extra import real as _real_part
from npxla.runtime.lowering.elementwise import bitwise_and, compare
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
        if x.dtype.kind == "f" and dtype in _X86_INT_CASTS:
            out = _x86_float_to_int(x, dtype)
        else:
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


# Float -> int casts out of range (and of NaN, inf) are NumPy's C casts on the host CPU.
# On x86 those are `cvttsd2si`/`cvttss2si`: the value truncated toward zero when it
# fits the 64- or 32-bit signed integer, the "integer indefinite" (INT_MIN) otherwise;
# NumPy's 8- and 16-bit targets convert to int32 that way and keep its low bits. XLA's
# convert saturates instead (NaN -> 0, 1e20 -> INT_MAX), so these targets are emitted
# as NumPy's hardware computes them. (Unsigned 32/64-bit targets follow other
# instruction sequences and stay platform-dependent: docs/semantics.md.)
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")
_X86_INT_CASTS = frozenset(np.dtype(t) for t in (
    np.int64, np.int32, np.int16, np.int8, np.uint16, np.uint8)) if _X86 else frozenset()


def _x86_float_to_int(x: AbstractArray, dtype) -> AbstractArray:
    if x.dtype.itemsize < 4:          # float16: the bounds are not representable in it
        x = S.convert(x, dtype=np.dtype(np.float32))
    wide = np.dtype(np.int64) if dtype == np.int64 else np.dtype(np.int32)
    bits = wide.itemsize * 8
    lo = S.broadcast_in_dim(as_abstract(np.array(-2.0 ** (bits - 1), x.dtype)),
                            shape=x.shape, dims=())
    hi = S.broadcast_in_dim(as_abstract(np.array(2.0 ** (bits - 1), x.dtype)),
                            shape=x.shape, dims=())
    fits = bitwise_and(compare(x, lo, direction="GE"), compare(x, hi, direction="LT"))
    zero = S.broadcast_in_dim(as_abstract(np.zeros((), x.dtype)), shape=x.shape, dims=())
    indefinite = S.broadcast_in_dim(as_abstract(np.array(np.iinfo(wide).min, wide)),
                                    shape=x.shape, dims=())
    out = S.select(fits, S.convert(S.select(fits, x, zero), dtype=wide), indefinite)
    return out if dtype == wide else S.convert(out, dtype=dtype)    # keeps the low bits


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
