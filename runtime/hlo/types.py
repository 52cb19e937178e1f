"""NumPy dtype <-> MLIR tensor type mapping."""
from __future__ import annotations

from functools import lru_cache

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


def element_type(dtype) -> ir.Type:
    # ir types belong to the active context, so the cache is keyed on it too.
    return _cached_element(np.dtype(dtype), ir.Context.current)


@lru_cache(maxsize=None)
def _cached_element(dtype, _ctx):
    return _element_type(dtype)


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
