"""Refusing arguments XLA cannot hold, by name, before staging builds anything.

XLA tensors hold numbers and booleans only, with no mask and ndarray's operators. An object, string, bytes, void (structured)
or datetime array passed in would otherwise fail deep inside MLIR type construction and
read as an npxla bug; the user needs to hear which argument it was and what to do.
"""
from __future__ import annotations

import inspect

import numpy as np

from npxla.transpiler.base.errors import DTypeError

from npxla.runtime.staging.pytree import plain_masked

_UNSUPPORTED_KINDS = {"O": "object", "U": "string", "S": "bytes", "V": "structured/void",
                      "M": "datetime64", "m": "timedelta64"}


def _bad_leaf(value, path):
    """(path, dtype) of the first array in `value` XLA cannot hold, else None."""
    t = type(value)
    if t in (list, tuple) or (isinstance(value, tuple) and hasattr(t, "_fields")):
        for i, item in enumerate(value):
            hit = _bad_leaf(item, f"{path}[{i}]")
            if hit is not None:
                return hit
    elif t is dict:
        for k, item in value.items():
            hit = _bad_leaf(item, f"{path}[{k!r}]")
            if hit is not None:
                return hit
    elif isinstance(value, np.ma.MaskedArray):
        if plain_masked(value) and value.dtype.kind not in _UNSUPPORTED_KINDS:
            return None             # masks nothing: compiled as a masked array
        return path, "a masked array (np.ma) with a mask", (
            "XLA arrays carry no mask, so the mask would be silently dropped (only masked "
            "arrays whose mask is np.ma.nomask compile, such as np.ma.asarray(x) of a "
            "plain array); pass x.filled(value), or np.ma.getdata(x) and "
            "np.ma.getmaskarray(x) as two arguments")
    elif isinstance(value, np.matrix):
        return path, "an np.matrix", (
            "its operators differ from ndarray's (* is a matrix product); pass "
            "np.asarray(x) and write @ for the product")
    elif isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in _UNSUPPORTED_KINDS:
        kind = _UNSUPPORTED_KINDS[value.dtype.kind]
        return path, f"a NumPy array of dtype {value.dtype} ({kind})", (
            "convert it before the call (e.g. x.astype(np.float64)), or keep "
            f"{kind} arrays out of the jitted function")
    return None


def _names(fn, n_positional):
    fn = getattr(fn, "__wrapped_original__", fn)     # a converted function's original
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [None] * n_positional
    names = []
    for i in range(n_positional):
        if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY,
                                                   params[i].POSITIONAL_OR_KEYWORD):
            names.append(params[i].name)
        else:
            names.append(None)
    return names


def refuse_unsupported_arguments(fn, args, kwargs):
    """Raise a DTypeError naming the first argument of `fn` that XLA cannot hold."""
    names = None
    for i, value in enumerate(args):
        hit = _bad_leaf(value, "")
        if hit is not None:
            names = names or _names(fn, len(args))
            label = f"argument {names[i]!r}" if names[i] else f"positional argument {i}"
            _refuse(label, *hit)
    for name, value in kwargs.items():
        hit = _bad_leaf(value, "")
        if hit is not None:
            _refuse(f"argument {name!r}", *hit)


def _refuse(label, path, what, hint):
    where = f"{label}{path}" if not path else f"{label} (element {path})"
    raise DTypeError(f"{where} is {what}; compiled code works on numeric and boolean "
                     "NumPy arrays only", hint=hint)
