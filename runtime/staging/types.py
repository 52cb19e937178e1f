"""NumPy dtype <-> MLIR tensor type mapping."""
from __future__ import annotations


import numpy as np
from jaxlib.mlir import ir

_SIGNLESS_INT = {np.dtype(f"int{b}"): b for b in (8, 16, 32, 64)}
_UNSIGNED_INT = {np.dtype(f"uint{b}"): b for b in (8, 16, 32, 64)}


def _element_type(dtype: np.dtype) -> ir.Type:
    if dtype == np.bool_:
        return ir.IntegerType.get_signless(1)
    if dtype in _SIGNLESS_INT:
        return ir.IntegerType.get_signless(_SIGNLESS_INT[dtype])
    if dtype in _UNSIGNED_INT:
        return ir.IntegerType.get_unsigned(_UNSIGNED_INT[dtype])
    if dtype == np.float16:
        return ir.F16Type.get()
    if dtype == np.float32:
        return ir.F32Type.get()
    if dtype == np.float64:
        return ir.F64Type.get()
    if dtype == np.complex64:
        return ir.ComplexType.get(ir.F32Type.get())
    if dtype == np.complex128:
        return ir.ComplexType.get(ir.F64Type.get())
    raise TypeError(f"dtype {dtype} is not supported by XLA lowering")


# ir types belong to their context, so cached ones are only valid in it. Only the newest
# context's are kept: a cache keyed by every context ever used kept each staging run's
# context (~0.5 MB) alive for the life of the process.
_ELEMENTS = [None, {}]      # [context, {dtype: ir type}]


def element_type(dtype) -> ir.Type:
    ctx = ir.Context.current
    cache = _ELEMENTS[1]
    if _ELEMENTS[0] is not ctx:
        cache = {}
        _ELEMENTS[:] = [ctx, cache]
    dtype = np.dtype(dtype)
    t = cache.get(dtype)
    if t is None:
        t = cache[dtype] = _element_type(dtype)
    return t


def tensor_type(shape, dtype) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), element_type(dtype))


def hlo_type_name(dtype) -> str:
    """Short type spelling used by signatures (f64, i64, u8, c128, pred)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return "pred"
    return {"f": "f", "i": "i", "u": "u", "c": "c"}[dtype.kind] + str(dtype.itemsize * 8)


def element_count(t) -> int | None:
    """Elements of a ranked tensor type (None for tokens, tuples and unranked types)."""
    if not isinstance(t, ir.RankedTensorType):
        return None
    n = 1
    for d in t.shape:
        n *= d
    return n


_LOWERED = tuple(np.dtype(d) for d in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"))


def dtype_of(t) -> np.dtype:
    """The NumPy dtype of a ranked tensor type's elements (inverse of `element_type`)."""
    et = ir.RankedTensorType(t).element_type
    for dtype in _LOWERED:
        if element_type(dtype) == et:
            return dtype
    raise TypeError(f"no NumPy dtype for MLIR element type {et}")
