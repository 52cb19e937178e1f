"""The Python type a staged value stands for, so `isinstance`/`type` answer as NumPy would.

Inside staging every array is an `AbstractArray`, but user code asks questions about the
value NumPy would hold (`isinstance(x, np.ndarray)`, `type(s) is float`). The answer
follows from what the handle records:

- an array with dimensions is an `np.ndarray`;
- a *weak* 0-d value stands for a Python scalar (`bool`, `int`, `float`, `complex`);
- any other 0-d value is a NumPy scalar of its dtype (`np.float64`): that is what NumPy
  returns from reductions, ufuncs, integer indexing and scalar arithmetic, i.e. from
  almost every operation, so it is the default;
- except a 0-d value that NumPy keeps as a 0-d `np.ndarray`: a 0-d array argument (or
  global array), and the result of array-creating calls (`np.asarray`, `np.array`,
  `np.zeros(())`, `x.copy()` of a 0-d array, ...). Those handles are *marked* here.

A mark belongs to the handle (its identity), so in-place updates keep it; a new handle
made by control flow (the merged value of a data-dependent `if`) is unmarked, i.e. a
NumPy scalar (see docs/semantics.md).

A handle of any shape may also stand for an `np.ma.MaskedArray` that masks nothing
(`np.ma.asarray(x)` of a plain array, `np.ma.atleast_2d(x)`): `mark_masked` records
which mask NumPy's array holds, `NOMASK` (`mask is np.ma.nomask`) or `FALSE` (a boolean
array of the data's shape, all False). The NumPy layer (`runtime/numpy/masked/`) keeps
these marks as NumPy would and refuses whatever would mask an element.
"""
from __future__ import annotations

import weakref

import numpy as np

from npxla.runtime.staging.bounded import BoundedArray
from npxla.runtime.staging.abstract import AbstractArray

# id(handle) -> weak reference to it: handles are unhashable (arrays), so no WeakSet
_MARKED: dict = {}

_PYTHON_SCALARS = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _forget(key, table=_MARKED):
    return lambda _ref: table.pop(key, None)


def mark_ndarray(handle) -> None:
    """Record that 0-d `handle` is a 0-d `np.ndarray`, not a NumPy scalar."""
    if type(handle) is AbstractArray and not handle.shape and not handle.weak:
        key = id(handle)
        _MARKED[key] = weakref.ref(handle, _forget(key))


def is_marked(handle) -> bool:
    ref = _MARKED.get(id(handle))
    return ref is not None and ref() is handle


def python_type(x) -> type:
    """`type(x)` of the value NumPy code would hold where staging holds `x`."""
    if type(x) is not AbstractArray:
        return np.ndarray if type(x) is BoundedArray else type(x)
    if _MASKED and mask_state(x) is not None:
        return np.ma.MaskedArray
    if x.shape:
        return np.ndarray
    if x.weak:
        return _PYTHON_SCALARS.get(x.dtype.kind, x.dtype.type)
    return np.ndarray if is_marked(x) else x.dtype.type


def is_ndarray(x) -> bool:
    """Whether NumPy holds an array (an `np.ndarray`, or a masked array) where staging
    holds `x`, rather than a scalar."""
    t = python_type(x)
    return t is np.ndarray or t is np.ma.MaskedArray


# --- masked arrays that mask nothing --------------------------------------------------
NOMASK = "nomask"        # `x.mask is np.ma.nomask`
FALSE = "false"          # `x.mask` is a boolean array of x's shape, all False

# id(handle) -> (weak reference to it, NOMASK or FALSE)
_MASKED: dict = {}


def mark_masked(handle, state) -> None:
    """Record that `handle` is an `np.ma.MaskedArray` whose mask is `state` (NOMASK or
    FALSE); None removes the mark."""
    key = id(handle)
    if state is None:
        _MASKED.pop(key, None)
        return
    assert state in (NOMASK, FALSE), state
    _MASKED[key] = (weakref.ref(handle, _forget(key, _MASKED)), state)


def mask_state(handle):
    """NOMASK or FALSE for a handle that stands for a masked array, else None."""
    hit = _MASKED.get(id(handle))
    if hit is None or hit[0]() is not handle:
        return None
    return hit[1]


def any_masked(leaves) -> bool:
    """Whether any of the handles `leaves` stands for a masked array."""
    return bool(_MASKED) and any(mask_state(x) is not None for x in leaves)


def scalar_copy(x):
    """A new handle with `x`'s value (for `np.asarray(s)` of a NumPy scalar `s`: NumPy
    makes a new 0-d array, so marking must not turn `s` itself into an array)."""
    c = x.const
    if c is not None:
        return AbstractArray(x.shape, x.dtype, const=np.array(c), deps=x.deps)
    return AbstractArray(x.shape, x.dtype, ir=x.ir, deps=x.deps)


def as_scalar(x):
    """`x` as a NumPy scalar (a copy when `x` is a handle marked as a 0-d array)."""
    return scalar_copy(x) if type(x) is AbstractArray and is_marked(x) else x
