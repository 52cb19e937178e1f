"""`converted_call`: decides, per call, between a lowering, conversion and a plain call.

In order: `print` and `range`/`enumerate`/`zip` (staged specially); container mutators
(refused under data-dependent control flow); registry functions given abstract arrays
(their lowering; the 0-d result is marked array or scalar as NumPy returns it);
questions about a value's type (`isinstance`, `type`, ... answered for the value NumPy
would hold, see `introspection`); `logging`/`warnings` (run at run time, `hostcalls`);
builtins that call a function for the user (`map`, `sorted(key=)`, ..., `higher_order`);
random streams (refused); jitted and user functions (converted, with recursion whose
depth depends on traced values refused); everything else is called as it is, and a
library call that cannot take the traced arrays it was given is named in the error.

Whose code a function is comes from where its module's file lives (`provenance`).
"""
from __future__ import annotations

import collections
import inspect
import sys
import types
import weakref

import numpy as np

from npxla.transpiler.base.errors import (ConcretizationError, LibraryCallError,
                                          RecursionDepthError, TranspileError,
                                          UnsupportedFunctionError)
from npxla.transpiler.base.catalogue import (ARRAY_SUBCLASS, LIBRARY_CALL, RANDOM_STATE,
                                             UNSUPPORTED_FUNCTION)
from npxla.transpiler.base.instead import NUMPY_INSTEAD, use_instead
from npxla.transpiler.base.origin import locate

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.numpy.core.extents import length as bounded_length
from npxla.runtime.numpy.core.registry import call_entry, has_abstract, lookup
from npxla.runtime.numpy.indexing.index_tricks import index_trick
from npxla.runtime.operators import (effects, fstrings, higher_order, hostcalls,
                                     introspection, numpy_callbacks, random_calls)
from npxla.transpiler.conversion import convert
from npxla.runtime.operators.provenance import (LIBRARY, compiled_original, gufunc_parts,
                                                is_library_callable, is_user_function,
                                                origin_of_module)
from npxla.runtime.operators.iteration import (traced_enumerate, traced_range,
                                               traced_reversed, traced_zip)
from npxla.runtime.operators.mutation import (made_in_region, note_created,
                                              refuse_container_mutation)
from npxla.runtime.operators.collected_appends import append_hook
from npxla.runtime.operators.printing import runtime_print

_is_user_function = is_user_function

# the `ag__` namespace converted code calls: this package, which registers itself on
# import (runtime/operators/__init__.py)
OPERATORS: list = []

_ITERATION = {range: traced_range, enumerate: traced_enumerate, zip: traced_zip,
              reversed: traced_reversed}
_MUTATORS = {
    list: {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
           "__setitem__", "__delitem__", "__iadd__"},
    dict: {"update", "pop", "popitem", "clear", "setdefault", "__setitem__", "__delitem__"},
    set: {"add", "update", "discard", "remove", "pop", "clear", "difference_update",
          "intersection_update", "symmetric_difference_update"},
    collections.deque: {"append", "appendleft", "extend", "extendleft", "pop", "popleft",
                        "remove", "clear", "rotate", "insert", "reverse"},
}


_GENERATORS = (np.random.Generator, np.random.RandomState, np.random.BitGenerator)
_GLOBAL_STATE = {"seed", "get_state", "set_state"}
_PY_RANDOM = sys.modules.get("random")


def _refuse_random(f):
    """Random streams live in Python objects that a compiled program cannot advance:
    NumPy's global state (np.random.rand), its generator objects, and Python's `random`
    module (run once while staging, its draw would be baked into the program)."""
    owner = getattr(f, "__self__", None)
    name = getattr(f, "__name__", "?")
    if owner is np.random.mtrand._rand or name in _GLOBAL_STATE and \
            (getattr(f, "__module__", None) or "").startswith("numpy.random"):
        what = f"np.random.{name} uses NumPy's global random state"
    elif isinstance(owner, _GENERATORS):
        what = f"{type(owner).__name__}.{name} draws from a NumPy random generator"
    elif (getattr(f, "__module__", None) or "").startswith("numpy.random"):
        what = f"np.random.{name} creates a NumPy random generator"
    elif _PY_RANDOM is not None and origin_of_module("random") == LIBRARY and (
            isinstance(owner, _PY_RANDOM.Random) or
            getattr(f, "__module__", None) == "random"):
        what = f"random.{name} draws from Python's random module"
    else:
        return
    raise RANDOM_STATE.error_for(what=what)


def _record(fn):
    trace = current_trace()
    if trace is not None:
        trace.dependencies.append(fn)


def _object_array(args) -> bool:
    """An object array among concrete arguments (`np.asarray(np.atleast_1d(f))` of a
    Python function): NumPy's own call makes the object array Python indexes later."""
    return any(isinstance(a, np.ndarray) and a.dtype == object for a in args)


_CONTAINERS = frozenset({list, dict, set, collections.deque})


def converted_call(f, args, kwargs):
    """Every call in converted code. The order matters: print and the iteration builtins
    first, then container mutations (refused inside staged regions), registered
    NumPy functions, questions about types, logging and warnings, builtins that call
    back, random streams (refused), jitted and user functions (converted), and last
    a plain call whose failure on traced arrays is reported with the library's name."""
    kwargs = kwargs or {}
    if f is print:
        return runtime_print(*args, **kwargs)
    if type(f) is type and f in _CONTAINERS:    # what a staged path makes is its own
        return note_created(f(*args, **kwargs))
    special = _ITERATION.get(f) if type(f) is type else None
    if special is not None:
        return special(*args, **kwargs)
    if f is len and len(args) == 1 and is_bounded(args[0]):
        return bounded_length(args[0])     # a traced count: the length is data
    owner = getattr(f, "__self__", None)
    if type(owner) in _MUTATORS and getattr(f, "__name__", "") in _MUTATORS[type(owner)]:
        kwargs = higher_order.with_routed_key(kwargs, converted_call)
        if f.__name__ == "append" and append_hook(owner, args, kwargs):
            return None                # a row of the array a staged loop fills
        recorder = effects.recorder()
        if recorder is not None:       # replayed after the run if `owner` outlives it
            return recorder.call(owner, f.__name__, args, kwargs)
        refuse_container_mutation(f"{type(owner).__name__}.{f.__name__}()", owner)
        return f(*args, **kwargs)
    if type(owner) is str and getattr(f, "__name__", "") == "join" and len(args) == 1:
        return fstrings.join(owner, args[0])     # f-strings among the items: deferred
    if owner is np.r_ or owner is np.c_:       # np.r_[a, b] (see numpy/index_tricks)
        result = index_trick(owner, args[0])
        return f(*args) if result is NotImplemented else result
    if f is setattr and len(args) == 3 and not kwargs and \
            not isinstance(args[0], AbstractArray):
        return set_attr(*args)
    impl = numpy_callbacks.implementation(f)
    if impl is not None and has_abstract(args, kwargs):
        return impl(OPERATORS[0], *args, **kwargs)
    entry = lookup(f)
    if entry is not None:
        if f is min or f is max:
            kwargs = higher_order.with_routed_key(kwargs, converted_call)
        if has_abstract(args, kwargs) or (entry.creates and current_trace() is not None
                                          and not _object_array(args)):
            args, kwargs = higher_order.routed_functions(args, kwargs, converted_call,
                                                         is_user_function)
            result = call_entry(entry, f, args, kwargs, explicit=True)
            out = kwargs.get("out")
            if out is not None and result is (out[0] if isinstance(out, tuple) and
                                              len(out) == 1 else out):
                return result           # NumPy hands `out=` back as it is
            return introspection.mark_result(entry, args, result)
        return f(*args, **kwargs)
    result = introspection.answer(f, args, kwargs)
    if result is not introspection.NOT_HANDLED:
        return result
    result = hostcalls.route(f, args, kwargs)
    if result is not hostcalls.NOT_HANDLED:
        return result
    result = higher_order.route(f, args, kwargs, converted_call)
    if result is not higher_order.NOT_HANDLED:
        return result
    result = random_calls.route(f, args, kwargs)
    if result is not random_calls.NOT_HANDLED:
        return result
    if current_trace() is not None:      # converted code run as Python draws as Python
        _refuse_random(f)
    if getattr(type(f), "__npxla_jitted__", False):     # a JittedFunction (the driver's)
        _record(f._fn)
        return f.converted(*args, **kwargs)
    if is_user_function(f):
        return _call_user(f, None, args, kwargs)
    parts = gufunc_parts(f)
    if parts is not None and has_abstract(args, kwargs):      # Numba's `@guvectorize`
        return numpy_callbacks.gufunc(OPERATORS[0], parts, args, kwargs)
    original = compiled_original(f, elementwise=_scalars(args, kwargs))
    if original is not None and is_user_function(original):     # a Numba `@njit` helper
        return _call_user(original, None, args, kwargs)
    if isinstance(f, types.MethodType) and is_user_function(f.__func__):
        return _call_user(f.__func__, f.__self__, args, kwargs)
    call = getattr(type(f), "__call__", None)
    if not isinstance(f, type) and is_user_function(call):   # a user's callable object
        return _call_user(call, f, args, kwargs)
    init = _user_class_init(f)
    if init is not None:        # a user's class: its __init__ converted like a method
        obj = object.__new__(f)
        _call_user(init, obj, args, kwargs)
        return obj
    init = _user_exception_init(f)
    if init is not None:        # a user's exception on a staged path: __init__ converted
        obj = note_created(f.__new__(f, *args))      # (`.args` set, as Python does)
        _call_user(init, obj, args, kwargs)
        return obj
    if getattr(f, "__module__", None) == "npxla.runtime.numpy.core.registry":   # x.copy() etc.
        return introspection.mark_method_result(f, f(*args, **kwargs))
    return _plain_call(f, args, kwargs)


def _user_class_init(f):
    """`f.__init__` when `f` is a user's class whose instances are made plainly (no
    `__new__` of its own or of a base, no metaclass with a `__call__` of its own, no
    builtin base such as list or Exception) and whose `__init__` has source; else None.
    Run as Python, such an `__init__` made real NumPy arrays (`self.buf =
    np.zeros(n)`), which a method could then not write traced values into; converted,
    they are arrays of the program like any other."""
    if not isinstance(f, type) or type(f).__call__ is not type.__call__ or \
            f.__new__ is not object.__new__ or \
            any(c.__module__ == "builtins" and c is not object for c in f.__mro__):
        return None
    init = f.__init__
    if not is_user_function(init) or init.__code__.co_filename.startswith("<"):
        return None                     # (a dataclass's generated __init__ has no file)
    return init


def _user_exception_init(f):
    """`f.__init__` when `f` is a user's exception class (no `__new__` of its own or of a
    user's base, no metaclass with a `__call__` of its own) whose `__init__` has source;
    else None; and None outside staged branches and loops, where the raise happens while
    staging and so, as in Python, now. Run as Python while a branch is traced, such an
    `__init__` ran once per staging with the message's placeholder text (`<traced
    int64>`) and its side effects (emd's `EMDSiftCovergeError` logs the message)
    happened whether or not the branch ran; converted, a log call is a host call of the
    branch, made with the run's values only when the program raises."""
    trace = current_trace()
    if trace is None or not getattr(trace, "scopes", ()):
        return None          # raised while staging: the call raises it now, as Python
    if not isinstance(f, type) or not issubclass(f, BaseException) or \
            type(f).__call__ is not type.__call__ or \
            any("__new__" in vars(c) for c in f.__mro__ if c.__module__ != "builtins"):
        return None
    init = f.__init__
    if not is_user_function(init) or init.__code__.co_filename.startswith("<"):
        return None
    return init


def _scalars(args, kwargs) -> bool:
    """Whether every argument is a scalar (a Python number or a 0-d array), which an
    elementwise function takes as its one element."""
    return all(not isinstance(a, (AbstractArray, np.ndarray, list, tuple)) or
               (isinstance(a, (AbstractArray, np.ndarray)) and a.ndim == 0)
               for a in (*args, *kwargs.values()))


# --- attribute and global stores (converted code calls these) ---------------------------
def set_attr(obj, name, value):
    """`obj.name = value`. An array's `shape` is NumPy's in-place reshape (the registry's
    `setattr`); a property's setter is converted and called; any other store is applied
    at once outside staging, and recorded for replay while staging (`effects`)."""
    if isinstance(obj, AbstractArray):
        return converted_call(setattr, (obj, name, value), None)
    prop = getattr(type(obj), name, None)
    if isinstance(prop, property) and prop.fset is not None:
        converted_call(prop.fset, (obj, value), None)
        return None
    recorder = effects.recorder()
    if recorder is None or made_in_region(obj):      # (an object the branch made)
        setattr(obj, name, value)
    else:
        recorder.set_attr(obj, name, value)
    return None


def set_global(name, value):
    """`global name; name = value` in the converted function calling this."""
    g = sys._getframe(1).f_globals
    recorder = effects.recorder()
    if recorder is None:
        g[name] = value
    else:
        recorder.set_global(g, name, value)


# --- user functions: conversion, and recursion --------------------------------------------
_ASYNC_FLAGS = inspect.CO_ASYNC_GENERATOR | inspect.CO_COROUTINE
_RECURSION_CHECK = 16      # levels of a function nested in itself before looking closer
_active: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # trace -> {fn: state}


def _call_user(fn, bound, args, kwargs):
    """Convert and call user function `fn` (with `bound` first when it is a method).

    A function that calls itself inside data-dependent control flow (its recursive call
    sits in a staged branch) never stops staging: each level stages both branches.
    Every level then adds region scopes of the trace, while recursion decided in Python
    (a static depth) adds none: that tells them apart. Python-int arguments of the
    recursive call are reported as the cause, so staging retries with them specialised.

    A generator function a jitted function calls (a helper yielding step sizes) is
    converted like any other function and runs lazily while staging, as it would under
    NumPy: the statements around its `yield`s stay Python statements (a condition on
    array data there is assumed and checked at run time, `staging.speculation`).
    Async functions and coroutines run as they are.
    """
    if fn.__code__.co_flags & _ASYNC_FLAGS:
        _record(fn)
        return fn(*args, **kwargs) if bound is None else fn(bound, *args, **kwargs)
    converted = convert(fn, OPERATORS[0])
    _record(fn)
    if bound is not None:
        args = (bound,) + tuple(args)
    trace = current_trace()
    if trace is None:
        return converted(*args, **kwargs)
    table = _active.setdefault(trace, {})
    scopes = len(getattr(trace, "scopes", ()))
    state = table.get(fn)
    if state is None:
        state = table[fn] = [0, scopes]
    elif state[0] >= _RECURSION_CHECK and scopes - state[1] >= state[0]:
        _refuse_recursion(fn, state[0], _scalar_deps((args, kwargs)))
    state[0] += 1
    try:
        return converted(*args, **kwargs)
    except RecursionError:
        if state[0] != 1:
            raise
        _refuse_recursion(fn, None, _scalar_deps((args, kwargs)))
    finally:
        state[0] -= 1
        if state[0] == 0:
            del table[fn]


def _refuse_recursion(fn, depth, deps):
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", "?"))
    if depth is None:
        message = (f"{name} recursed deeper than Python's recursion limit while being "
                   "staged; recursive functions are compiled by inlining every level")
    else:
        message = (f"{name} calls itself inside data-dependent control flow ({depth} "
                   "levels staged so far): a recursive function whose depth depends on "
                   "array data cannot be compiled")
    raise RecursionDepthError(message, deps=deps) from None


def _scalar_deps(tree):
    """Argument positions of the traced Python scalars in `tree`."""
    deps = frozenset()
    stack = [tree]
    while stack:
        x = stack.pop()
        if type(x) is AbstractArray:
            if x.weak and x.const is None:
                deps |= x.deps
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    return deps


# --- everything else: a plain call, named when it cannot take traced arrays ---------------
_NUMPY_CLASSES = frozenset({np.ndarray, np.ma.MaskedArray, np.matrix, np.memmap,
                            np.recarray, np.char.chararray})


def _plain_call(f, args, kwargs):
    if isinstance(f, type) and issubclass(f, np.ndarray) and f not in _NUMPY_CLASSES and \
            _traced(args, kwargs):
        # its __new__ makes an ndarray of the subclass around the data (ahrs' Quaternion)
        raise ARRAY_SUBCLASS.error_for(name=f.__qualname__)
    if not (has_abstract(args, kwargs) and is_library_callable(f)):
        return f(*args, **kwargs)
    try:
        return f(*args, **kwargs)
    except (ConcretizationError, UnsupportedFunctionError, TypeError, AttributeError) as e:
        # TypeError/AttributeError: the library met an AbstractArray where it expected
        # an ndarray (a TypeError NumPy itself would raise is re-raised under this name,
        # still a TypeError, with its text)
        tb = e.__traceback__
        if isinstance(e, (LibraryCallError, RecursionDepthError)) or \
                locate(tb.tb_next if tb is not None else None) is not None:
            raise       # named already, or raised by user code the library called back
        if not isinstance(e, TranspileError) and not _traced(args, kwargs):
            raise
        name = call_name(f)
        if name.startswith("numpy."):      # (a function of a NumPy submodule)
            name = "np." + name[len("numpy."):]
        instead = "" if isinstance(e, TranspileError) else f" ({type(e).__name__}: {e})"
        deps = getattr(e, "deps", frozenset())
        if name.startswith("np."):
            suggestion = NUMPY_INSTEAD.get(name[len("np."):])
            raise UNSUPPORTED_FUNCTION.error_for(
                cls=LibraryCallError, deps=deps, fn=name, why="npxla has no compiled "
                "version of it yet", instead=use_instead(suggestion) if suggestion
                else instead) from None
        raise LIBRARY_CALL.error_for(deps=deps, fn=name, lib=name.split(".")[0],
                                     instead=instead) from None


def _traced(args, kwargs):
    stack = [args, kwargs]
    while stack:
        x = stack.pop()
        if type(x) is AbstractArray:
            if x.const is None:
                return True
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    return False


def call_name(f) -> str:
    """How the user spells callable `f` (`np.isclose`, `scipy.special.erf`)."""
    if isinstance(f, types.MethodType):
        return f"{type(f.__self__).__name__}.{f.__func__.__name__}"
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    if getattr(np, getattr(f, "__name__", ""), None) is f:
        return f"np.{name}"
    module = getattr(f, "__module__", None)
    if module is None or "._" in module:
        # ufuncs of other libraries, and functions defined in a private module
        # (scipy.special._basic.zeta): the public module exporting it
        short = getattr(f, "__name__", "")
        package = (module or "").partition(".")[0]      # its own package's, first
        found = [mod_name for mod_name, mod in list(sys.modules.items())
                 if not mod_name.startswith("_") and "._" not in mod_name and
                 getattr(mod, "__dict__", {}).get(short) is f]
        module = min(found, key=lambda m: (package and m.partition(".")[0] != package,
                                           len(m))) if found else module
    return f"{module}.{name}" if module else name
