"""Whose code a callable is: legacy code (converted), a library's or npxla's own.

`converted_call` converts legacy code and calls library functions as they are. Module
*names* cannot tell them apart (a user's `numpy_utils.py` starts with "numpy", the
standard library's `random` and `logging` start with nothing special), so the decision
is made from where the module's file lives (`libraries.is_converted_file`): the
standard library, compiled extensions, npxla's own packages and the installed packages
npxla provides or that are not NumPy code (`libraries.NOT_CONVERTED`) are libraries;
every other Python file, installed or not, is legacy code ("user", converted). A module without a file is a built-in module (library)
unless it is the interactive `__main__` (user). The answer is cached per module.
"""
from __future__ import annotations

import functools
import os
import sys
import types

from npxla.transpiler.base import errors as _errors
from npxla.transpiler.base.libraries import is_converted_file
from npxla.transpiler.pyct.loader import RUNTIME_NAME

USER, LIBRARY, NPXLA = "user", "library", "npxla"

_NPXLA_DIRS = tuple(os.path.realpath(p) + os.sep for p in (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),     # runtime/
    os.path.dirname(os.path.abspath(_errors.__file__))))             # transpiler/
_CACHE: dict = {}          # (module name, file) -> USER / LIBRARY / NPXLA


@functools.lru_cache(maxsize=4096)
def origin_of_file(path: str) -> str:
    """USER, LIBRARY or NPXLA for a source file path."""
    if os.path.realpath(path).startswith(_NPXLA_DIRS):
        return NPXLA
    return USER if is_converted_file(path) else LIBRARY


def origin_of_module(name) -> str:
    """USER, LIBRARY or NPXLA for a module name (`__module__` of a function or class)."""
    if not name:
        return USER                 # exec'd code without a module: typed in by the user
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    key = (name, path)
    hit = _CACHE.get(key)
    if hit is None:
        if path:
            hit = origin_of_file(path)
        elif name == "__main__" or module is None:
            hit = USER              # the interactive interpreter, or a module gone
        else:
            hit = LIBRARY           # built-in and frozen modules (math, sys, _random)
        _CACHE[key] = hit
    return hit


def is_library_module(module) -> bool:
    """Whether module object `module` belongs to a library or npxla (not to the user)."""
    return origin_of_module(getattr(module, "__name__", None)) != USER


def is_user_function(f) -> bool:
    """A plain Python function of the user's that has not been converted yet (functions
    defined inside converted code close over the runtime name)."""
    if not isinstance(f, types.FunctionType) or RUNTIME_NAME in f.__code__.co_freevars \
            or RUNTIME_NAME in f.__code__.co_names:    # converted code (e.g. npxla convert)
        return False
    return origin_of_module(f.__module__) == USER


# compiled-function wrappers of JIT compilers that keep the plain Python function they
# compiled: (module of the wrapper's class or a base class, class name, attributes to the
# function, whether the wrapper applies it elementwise: Numba's `@vectorize`)
_COMPILED_WRAPPERS = (("numba.core.dispatcher", "Dispatcher", ("py_func",), False),
                      ("numba.np.ufunc.dufunc", "DUFunc", ("_dispatcher", "py_func"), True))


def compiled_original(f, elementwise=False):
    """The plain Python function behind a JIT compiler's wrapper (Numba's `@njit`
    keeps it as `py_func`), else None; with `elementwise`, also that of a wrapper that
    applies it to each element (`@vectorize`: the same function on scalars). Packages
    written for Numba call their own `@njit` helpers; converted in their place, those
    helpers are staged into the same program instead of being called with traced
    arrays, which Numba cannot type."""
    for cls in type(f).__mro__:
        for module, name, path, each in _COMPILED_WRAPPERS:
            if cls.__name__ == name and cls.__module__ == module and (elementwise or
                                                                        not each):
                original = f
                for attr in path:
                    original = getattr(original, attr, None)
                return original if isinstance(original, types.FunctionType) else None
    return None


def gufunc_parts(f):
    """(Python function, layout signature, loop type strings, number of inputs) of
    Numba's `@guvectorize` wrapper `f` (a generalised ufunc: the function is called on
    the core dimensions of each element of the loop dimensions, writing its outputs
    into the arrays it is given), else None."""
    for cls in type(f).__mro__:
        if cls.__name__ == "GUFunc" and cls.__module__ == "numba.np.ufunc.gufunc":
            fn = getattr(getattr(f, "_dispatcher", None), "py_func", None)
            ufunc = getattr(f, "ufunc", None)
            if not isinstance(fn, types.FunctionType) or ufunc is None:
                return None
            return fn, f.signature, tuple(ufunc.types), ufunc.nin
    return None


def is_library_callable(f) -> bool:
    """A callable from a library other than Python's builtins (whose conversions, such
    as `bool(x)`, raise their own errors) and npxla itself."""
    if isinstance(f, types.MethodType):
        f = f.__func__
    module = getattr(f, "__module__", None) or getattr(type(f), "__module__", None)
    if module in (None, "builtins"):
        return False
    return origin_of_module(module) == LIBRARY
