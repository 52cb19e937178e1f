"""`converted_call`: decides, per call, between a lowering, conversion and a plain call."""
from __future__ import annotations

import types

import numpy as np

from transpiler.errors import UnsupportedOperationError

from ..numpy.registry import call_entry, has_abstract, lookup

_LIBRARY_PREFIXES = ("numpy", "jax", "jaxlib", "scipy", "builtins", "math", "transpiler",
                     "runtime", "gast", "functools", "itertools", "operator", "collections")


def _is_user_function(f) -> bool:
    if not isinstance(f, types.FunctionType):
        return False
    module = f.__module__ or ""
    return not module.startswith(_LIBRARY_PREFIXES)


def converted_call(f, args, kwargs):
    kwargs = kwargs or {}
    entry = lookup(f)
    if entry is not None:
        if entry.creates or has_abstract(args, kwargs):
            return call_entry(entry, f, args, kwargs, explicit=True)
        return f(*args, **kwargs)
    module = getattr(f, "__module__", None) or ""
    if module.startswith("numpy.random") or (
            isinstance(f, types.BuiltinMethodType) and
            isinstance(getattr(f, "__self__", None), np.random.RandomState)):
        raise UnsupportedOperationError(
            f"np.random.{getattr(f, '__name__', '?')} uses NumPy's global random state, "
            "which a compiled function cannot reproduce",
            hint="draw the random numbers outside the jitted function and pass them in "
                 "as an argument")
    from ..jitted import JittedFunction
    if isinstance(f, JittedFunction):
        return f.converted(*args, **kwargs)
    if _is_user_function(f):
        from transpiler.conversion import convert
        return convert(f)(*args, **kwargs)
    if isinstance(f, types.MethodType) and _is_user_function(f.__func__):
        from transpiler.conversion import convert
        return convert(f.__func__)(f.__self__, *args, **kwargs)
    return f(*args, **kwargs)
