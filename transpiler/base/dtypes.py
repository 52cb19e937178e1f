"""NumPy 2 dtype rules (NEP 50), derived from NumPy itself rather than re-tabulated.

A *weak* value is a traced Python scalar: it takes part in promotion like a Python
`int`/`float`/`complex`/`bool` would, so `np.float32(1) + x_python_float` stays float32.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

_WEAK_STANDIN = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}
_PY_TYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}

DEFAULT_INT = np.dtype(np.int64)
_DEFAULT_FOR = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
DEFAULT_FLOAT = np.dtype(np.float64)
DEFAULT_COMPLEX = np.dtype(np.complex128)


def weak_standin(dtype):
    """The Python scalar that promotes like a weak value of `dtype`."""
    return _WEAK_STANDIN[np.dtype(dtype).kind]


def weak_pytype(dtype):
    return _PY_TYPE[np.dtype(dtype).kind]


def dtype_of_python_scalar(value) -> np.dtype:
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return DEFAULT_INT
    if isinstance(value, float):
        return DEFAULT_FLOAT
    if isinstance(value, complex):
        return DEFAULT_COMPLEX
    raise TypeError(f"not a Python scalar: {value!r}")


@lru_cache(maxsize=4096)
def _result_type(keys):
    # keys hold dtypes or Python *types* (0, 0.0 and False hash alike, types do not)
    return np.result_type(*[_WEAK_STANDIN_BY_TYPE[k] if isinstance(k, type) else k
                            for k in keys])


_WEAK_STANDIN_BY_TYPE = {bool: False, int: 0, float: 0.0, complex: 0j}


def result_type(*operands) -> tuple[np.dtype, bool]:
    """(dtype, weak) of combining operands given as (dtype, weak) pairs."""
    keys = tuple(weak_pytype(d) if w else np.dtype(d) for d, w in operands)
    weak = all(w for _, w in operands)
    if weak:
        keys = tuple(np.dtype(_DEFAULT_FOR[k]) for k in keys)
    return _result_type(keys), weak


@lru_cache(maxsize=4096)
def ufunc_loop(ufunc, keys):
    """Operand and result dtypes NumPy's ufunc machinery picks for these inputs.

    `keys` holds dtypes (strong) or Python types (weak). Returns (in_dtypes, out_dtypes)
    or raises TypeError exactly where NumPy has no loop.
    """
    if all(isinstance(k, type) for k in keys):
        # All operands weak: NumPy would pick object loops for Python ints (arbitrary
        # precision); compute in the default dtypes and keep the result weak instead.
        keys = tuple(np.dtype(_DEFAULT_FOR[k]) for k in keys)
    sig = tuple(keys) + (None,) * ufunc.nout
    try:
        dts = ufunc.resolve_dtypes(sig)
    except Exception as e:  # numpy raises its own _UFuncNoLoopError (a TypeError)
        raise TypeError(str(e)) from None
    return dts[: ufunc.nin], dts[ufunc.nin:]


def ufunc_key(dtype, weak):
    # resolve_dtypes rejects the Python type `bool`; a weak bool promotes like np.bool_.
    dtype = np.dtype(dtype)
    return weak_pytype(dtype) if weak and dtype.kind != "b" else dtype
