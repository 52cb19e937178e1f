"""Questions about a value's type, answered for the value NumPy code would hold.

`isinstance(x, np.ndarray)`, `type(x) is float`, `hasattr(x, "shape")`, `np.isscalar(x)`
asked of an `AbstractArray` would describe npxla's handle; user code must get the answer
for the ndarray, NumPy scalar or Python scalar it stands for (`pytypes.python_type`), or
it takes the other branch than NumPy does. `converted_call` sends these builtins here.

The second half keeps the ndarray-or-scalar distinction of 0-d results: NumPy returns a
0-d *array* from array-creating calls (`np.asarray(s)`, `np.array(2.0)`, `x.copy()` of a
0-d array) and a NumPy *scalar* from everything else, so `mark_result` marks the former.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import BoundedArray
from npxla.runtime.operators.fstrings import concrete_text
from npxla.runtime.staging.pytypes import (is_marked, is_ndarray, mark_ndarray,
                                           python_type, scalar_copy)

NOT_HANDLED = object()


def _isinstance(obj, classinfo):
    return issubclass(python_type(obj), classinfo)


def _type(*args):
    if len(args) != 1:
        return type(*args)          # type(name, bases, dict) creates a class
    return python_type(args[0])


def _hasattr(obj, name):
    if not isinstance(name, str):
        return hasattr(obj, name)   # Python's own TypeError
    return hasattr(python_type(obj), name)


def _getattr(obj, name, *default):
    if isinstance(name, str) and not hasattr(python_type(obj), name):
        if default:
            return default[0]
        raise AttributeError(f"'{python_type(obj).__name__}' object has no attribute "
                             f"'{name}'")
    return getattr(obj, name, *default)


def _isscalar(element):
    return not is_ndarray(element)


def _to_text(convert):
    def text(obj, *rest):
        c = obj.const
        if c is None:
            concrete_text(obj, f"{convert.__name__}()")
        value = c if obj.ndim else (c.item() if obj.weak else c[()])
        if python_type(obj) is np.ndarray and not obj.ndim:
            value = np.array(c)
        return convert(value, *rest)
    return text


_TEXT = []        # the handlers of str, repr, format and ascii
_HANDLERS = {
    isinstance: _isinstance, type: _type, hasattr: _hasattr, getattr: _getattr,
    np.isscalar: _isscalar, str: _to_text(str), repr: _to_text(repr),
    np.iterable: lambda x: x.ndim > 0,
    np.iscomplexobj: lambda x: x.dtype.kind == "c",
    np.isrealobj: lambda x: x.dtype.kind != "c",
    format: _to_text(format), ascii: _to_text(ascii),
}
_TEXT.extend(_HANDLERS[f] for f in (str, repr, format, ascii))


def answer(f, args, kwargs):
    """The result of `f(*args, **kwargs)` when `f` is a type question about a traced
    value (its first argument), else NOT_HANDLED."""
    try:
        handler = _HANDLERS.get(f)
    except TypeError:               # unhashable callable
        return NOT_HANDLED
    if handler is None or not args or kwargs:
        return NOT_HANDLED
    if type(args[0]) is BoundedArray:
        if handler in _TEXT:
            concrete_text(args[0], f"{f.__name__}()")
        return handler(*args)
    if type(args[0]) is not AbstractArray:
        return NOT_HANDLED
    return handler(*args)


# --- 0-d results: array or scalar --------------------------------------------------------
# Functions whose 0-d result is a 0-d array whatever they are given (besides the
# registry's creation functions), and functions/methods whose 0-d result is an array
# exactly when their input is one (`np.reshape(s, ())` of a NumPy scalar is a scalar).
_ALWAYS_ARRAY = frozenset({"np.where", "np.broadcast_to", "np.asarray_chkfinite",
                           "np.require", "np.atleast_1d", "np.atleast_2d", "np.atleast_3d"})
_FOLLOWS_INPUT = frozenset({"np.reshape", "np.squeeze", "np.transpose", "np.real",
                            "np.imag", "np.moveaxis", "np.swapaxes", "np.expand_dims"})
_METHODS_FOLLOWING_SELF = frozenset({"copy", "reshape", "squeeze", "transpose", "view",
                                     "astype", "swapaxes"})


def mark_result(entry, args, result):
    """Mark the 0-d result of registry call `entry(*args)` as an array where NumPy gives
    one. Returns the result (a fresh handle where marking would change an input)."""
    if type(result) is not AbstractArray or result.shape or result.weak:
        return result
    first = args[0] if args else None
    if entry.creates or entry.name in _ALWAYS_ARRAY:
        wanted = True
    elif entry.name in _FOLLOWS_INPUT:
        wanted = is_ndarray(first)
    else:
        wanted = False
    return _as_kind(result, wanted)


def _as_kind(result, array):
    """`result` as a 0-d array (`array`) or a NumPy scalar. An operation may hand back
    an input handle unchanged (`np.asarray(s)`, `a.sum()` of a 0-d array): it is then
    copied, so the input keeps its own kind."""
    if array == is_ndarray(result):
        return result
    if array or is_marked(result):
        result = scalar_copy(result)
    if array:
        mark_ndarray(result)
    return result


def mark_method_result(method, result):
    """`x.copy()`, `x.reshape(())`, `x.astype(...)` of a 0-d array are 0-d arrays."""
    if type(result) is not AbstractArray or result.shape or result.weak:
        return result
    owner = _method_owner(method)
    wanted = getattr(method, "__name__", "") in _METHODS_FOLLOWING_SELF and \
        owner is not None and is_ndarray(owner)
    return _as_kind(result, wanted)


def _method_owner(method):
    """The array an ndarray method made by `registry.bound_method` is bound to."""
    code = getattr(method, "__code__", None)
    cells = getattr(method, "__closure__", None)
    if code is None or not cells or "self" not in code.co_freevars:
        return None
    value = cells[code.co_freevars.index("self")].cell_contents
    return value if type(value) is AbstractArray else None
