"""`converted_call`: decides, per call, between a lowering, conversion and a plain call."""
from __future__ import annotations

import types

import numpy as np

from transpiler.errors import UnsupportedOperationError
from transpiler.pyct.loader import RUNTIME_NAME

from ..trace import current_trace
from ..numpy.registry import call_entry, has_abstract, lookup

_LIBRARY_PREFIXES = ("numpy", "jax", "jaxlib", "scipy", "builtins", "math", "transpiler",
                     "runtime", "gast", "functools", "itertools", "operator", "collections")


def _is_user_function(f) -> bool:
    """A plain Python function from user code that has not been converted yet
    (functions defined inside converted code close over the runtime name)."""
    if not isinstance(f, types.FunctionType) or RUNTIME_NAME in f.__code__.co_freevars \
            or RUNTIME_NAME in f.__code__.co_names:    # converted code (e.g. npxla convert)
        return False
    module = f.__module__ or ""
    return not module.startswith(_LIBRARY_PREFIXES)


_ITERATION = {range: "traced_range", enumerate: "traced_enumerate", zip: "traced_zip"}
_MUTATORS = {
    list: {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
           "__setitem__", "__delitem__", "__iadd__"},
    dict: {"update", "pop", "popitem", "clear", "setdefault", "__setitem__", "__delitem__"},
    set: {"add", "update", "discard", "remove", "pop", "clear", "difference_update",
          "intersection_update", "symmetric_difference_update"},
}


_GENERATORS = (np.random.Generator, np.random.RandomState, np.random.BitGenerator)


def _refuse_random(f):
    """NumPy's random streams live in Python objects that a compiled program cannot
    advance: the global state (np.random.rand) and generator objects alike."""
    owner = getattr(f, "__self__", None)
    name = getattr(f, "__name__", "?")
    if owner is np.random.mtrand._rand or name in _GLOBAL_STATE:
        what = f"np.random.{name} uses NumPy's global random state"
    elif isinstance(owner, _GENERATORS):
        what = f"{type(owner).__name__}.{name} draws from a NumPy random generator"
    elif (getattr(f, "__module__", None) or "").startswith("numpy.random"):
        what = f"np.random.{name} creates a NumPy random generator"
    else:
        return
    raise UnsupportedOperationError(
        f"{what}, which a compiled function cannot reproduce",
        hint="draw the random numbers outside the jitted function (with the same generator "
             "or seed) and pass them in as an argument")


_GLOBAL_STATE = {"seed", "get_state", "set_state"}


def _record(fn):
    trace = current_trace()
    if trace is not None:
        trace.dependencies.append(fn)


def converted_call(f, args, kwargs):
    kwargs = kwargs or {}
    if f is print:
        from .printing import runtime_print
        return runtime_print(*args, **kwargs)
    special = _ITERATION.get(f) if type(f) is type else None
    if special is not None:
        from . import iteration
        return getattr(iteration, special)(*args, **kwargs)
    owner = getattr(f, "__self__", None)
    if type(owner) in _MUTATORS and getattr(f, "__name__", "") in _MUTATORS[type(owner)]:
        from .loops import refuse_container_mutation
        refuse_container_mutation(f"{type(owner).__name__}.{f.__name__}()")
        return f(*args, **kwargs)
    entry = lookup(f)
    if entry is not None:
        if has_abstract(args, kwargs) or (entry.creates and current_trace() is not None):
            return call_entry(entry, f, args, kwargs, explicit=True)
        return f(*args, **kwargs)
    _refuse_random(f)
    from ..jitted import JittedFunction
    if isinstance(f, JittedFunction):
        _record(f.__wrapped__)
        return f.converted(*args, **kwargs)
    if _is_user_function(f):
        from transpiler.conversion import convert
        _record(f)
        return convert(f)(*args, **kwargs)
    if isinstance(f, types.MethodType) and _is_user_function(f.__func__):
        from transpiler.conversion import convert
        _record(f.__func__)
        return convert(f.__func__)(f.__self__, *args, **kwargs)
    return f(*args, **kwargs)
