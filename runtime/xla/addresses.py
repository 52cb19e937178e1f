"""Where a NumPy array's data starts, read in a tenth of the usual time.

The per-call path asks it of every large argument (is it 64-byte aligned, so XLA may
use it in place; at what offset does its aligned superset start), and NumPy's own
answers build objects each time: `a.ctypes.data` 1.4 µs, `a.__array_interface__`
1.1 µs here, out of a 15 µs call. The data pointer is the first field after the object
header in NumPy's array struct (`PyArrayObject_fields`, part of its C ABI since 1.7),
and CPython's `id` is the object's address, so one ctypes read gives it (0.12 µs).
Both facts are checked on arrays of several kinds when this module loads; where either
fails (another Python implementation or array layout) the documented interface is used.
"""
from __future__ import annotations

import ctypes

import numpy as np

_OFFSET = object.__basicsize__          # the object header: refcount and type
_read = ctypes.c_size_t.from_address


def _fast(array) -> int:
    return _read(id(array) + _OFFSET).value


def _slow(array) -> int:
    return array.__array_interface__["data"][0]


def _agrees() -> bool:
    base = np.arange(64.0).reshape(8, 8)
    samples = [base, base[3:, 1:], base.T, base[::2], np.zeros(0), np.float32(1) * base,
               np.ones((), np.int8)]
    try:
        return all(_fast(a) == _slow(a) for a in samples)
    except Exception:  # pragma: no cover - ctypes refused the read
        return False


data_address = _fast if _agrees() else _slow
"""The address of `array`'s first element (an `np.ndarray`)."""
