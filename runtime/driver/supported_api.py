"""The supported-API table the linter reads (transpiler/base/supported.py), generated here.

The linter must not import JAX, so what `@jit` compiles is written out as a plain data
module. The facts come from two layers, the NumPy registry and the calls `converted_call`
routes itself (print, iteration builtins, type questions, logging, higher-order
builtins), which is why the generator sits in the driver, above both.
tests/lint/test_lint_supported.py checks that the committed file is current.
"""
from __future__ import annotations

import textwrap

import numpy as np

from npxla.runtime.numpy.ndarray import bounded as bounded_methods
from npxla.runtime.numpy.core import registry
from npxla.runtime.numpy.support_table import FOLDED, SUPPORTED, _registry, status_of
from npxla.runtime.operators import call, hostcalls, introspection
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import BoundedArray


SUPPORTED_PATH = "transpiler/base/supported.py"
SUPPORTED_COMMAND = "python -m npxla.runtime.driver.supported_api --write"

# NumPy namespaces whose callables are listed, as attribute paths from `np` ("" is np).
NUMPY_NAMESPACES = ("", "linalg", "fft", "emath", "lib.stride_tricks", "polynomial",
                    "polynomial.polynomial", "polynomial.chebyshev",
                    "polynomial.legendre", "polynomial.hermite", "polynomial.hermite_e",
                    "polynomial.laguerre")
UFUNC_METHOD_NAMES = ("accumulate", "at", "outer", "reduce", "reduceat")


def _handled_objects():
    """What `converted_call` routes to code of its own before any registry lookup or
    plain call (operators/call.py, introspection, hostcalls, higher_order)."""
    import functools
    import itertools
    import logging
    import warnings

    objs = [print] + list(call._ITERATION) + list(introspection._HANDLERS)
    objs += [warnings.warn] + [getattr(logging, m) for m in sorted(hostcalls._LOG_METHODS)
                               if callable(getattr(logging, m, None))]
    # higher_order.route: builtins that call a function for the user
    objs += [map, filter, sorted, functools.reduce, functools.partial, itertools.starmap]
    return objs


def _qualified(obj, default=None):
    """The qualified name the linter resolves `obj` to (`builtins.len`, `numpy.isscalar`,
    `functools.reduce`)."""
    import builtins
    import importlib
    for module_name in ("builtins", "numpy", "math", "functools", "itertools", "warnings",
                        "logging", "operator"):
        module = importlib.import_module(module_name)
        name = getattr(obj, "__name__", None)
        if name and getattr(module, name, None) is obj:
            return f"{module_name}.{name}"
    if getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
        return f"builtins.{obj.__name__}"
    return default


def _namespace(path):
    obj = np
    for part in path.split(".") if path else ():
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _public_callables(module):
    import types
    out = {}
    for name in dir(module):
        if name.startswith("_"):
            continue
        try:
            obj = getattr(module, name)
        except AttributeError:
            continue
        if isinstance(obj, types.ModuleType) or not callable(obj):
            continue
        if isinstance(obj, type) and issubclass(obj, (BaseException,)):
            continue
        out[name] = obj
    return out


def _takes_run_time_length(obj, entry) -> bool:
    """Whether the registered NumPy callable `obj` accepts an array whose length is only
    known at run time (`x[mask]`, `np.nonzero(m)[0]`, `np.unique(x)`): the bounded layer
    has a handler for it, or it is an elementwise ufunc (bounded_methods.call)."""
    if entry.name in bounded_methods.HANDLERS:
        return True
    return isinstance(obj, np.ufunc) and obj.signature is None


def _bounded_attributes(public):
    """ndarray methods and properties a run-time-length array has: its own attributes,
    those its `__getattr__` forwards (bounded_methods._METHODS, _PROPERTIES) and
    `astype`, which `__getattr__` implements itself."""
    own = {n for n in dir(BoundedArray) if not n.startswith("_")}
    names = own | set(bounded_methods._METHODS) | set(bounded_methods._PROPERTIES)
    return (names | {"astype"}) & public


def supported_tables() -> dict:
    """The tables of transpiler/base/supported.py, from the live registry and NumPy."""
    import builtins
    import math

    functions, methods, properties, ufunc_methods = _registry()
    handled = {_qualified(o) for o in _handled_objects()} - {None}
    supported, refused, unsupported, ufuncs = set(), {}, set(), set()
    complex_only, bounded = set(), set()
    for path in NUMPY_NAMESPACES:
        module = _namespace(path)
        if module is None:
            continue
        prefix = "numpy." + (path + "." if path else "")
        for name, obj in _public_callables(module).items():
            qual = prefix + name
            if isinstance(obj, np.ufunc):
                ufuncs.add(qual)
            if qual in handled:
                continue
            entry = registry.lookup(obj)
            status = FOLDED if entry is None else status_of(entry.impl)
            if status == SUPPORTED:
                supported.add(qual)
                if _takes_run_time_length(obj, entry):
                    bounded.add(qual)
                if "real results are assumed" in entry.notes or \
                        "real roots are assumed" in entry.notes:
                    complex_only.add(qual)
            elif status == FOLDED:
                unsupported.add(qual)
            else:
                refused[qual] = status[len("refused ("):-1]
    ufunc_supported = set()
    for qual in ufuncs:          # every name of a ufunc, aliases (np.abs) included
        ufunc = _namespace(qual[len("numpy."):])
        for m in UFUNC_METHOD_NAMES:
            impl = ufunc_methods.get((ufunc.__name__, m))
            if impl is not None and status_of(impl) == SUPPORTED:
                ufunc_supported.add(f"{qual}.{m}")
    # ndarray: registered methods and properties, and what AbstractArray itself has
    public = {n for n in dir(np.ndarray) if not n.startswith("_")}
    own = {n for n in vars(AbstractArray) if not n.startswith("_")} & public
    nd_supported, nd_refused = set(own), {}
    for name, impl in list(methods.items()) + list(properties.items()):
        status = status_of(impl)
        if status == SUPPORTED:
            nd_supported.add(name)
        elif status != FOLDED:
            nd_refused[name] = status[len("refused ("):-1]
    math_fns = _public_callables(math)
    math_supported = {f"math.{n}" for n, f in math_fns.items()
                      if registry.lookup(f) is not None}
    builtin_registered = {f"builtins.{n}" for n, f in _public_callables(builtins).items()
                          if registry.lookup(f) is not None}
    # builtins the bounded layer handles too (`sum(x[mask])`)
    bounded |= {f"builtins.{n}" for n, f in _public_callables(builtins).items()
                if registry.lookup(f) is not None and
                registry.lookup(f).name in bounded_methods.HANDLERS}
    return {
        "NUMPY_VERSION": np.__version__,
        "NUMPY_SUPPORTED": supported,
        "NUMPY_REFUSED": refused,
        "NUMPY_UNSUPPORTED": unsupported,
        "NUMPY_REAL_ASSUMED": complex_only,
        "NUMPY_RUN_TIME_LENGTH": bounded,
        "NUMPY_UFUNCS": ufuncs,
        "UFUNC_METHODS_SUPPORTED": ufunc_supported,
        "UFUNC_METHOD_NAMES": set(UFUNC_METHOD_NAMES),
        "NDARRAY_SUPPORTED": nd_supported,
        "NDARRAY_REFUSED": nd_refused,
        "NDARRAY_UNSUPPORTED": public - nd_supported - set(nd_refused),
        "NDARRAY_RUN_TIME_LENGTH": _bounded_attributes(public),
        "MATH_SUPPORTED": math_supported,
        "MATH_UNSUPPORTED": {f"math.{n}" for n in math_fns} - math_supported,
        "BUILTINS_REGISTERED": builtin_registered,
        "HANDLED_CALLS": handled,
        "SCIPY_SUPPORTED": {name for name in functions if name.startswith("scipy.")},
        "REFUSED_MODULES": {"random": "UnsupportedOperationError"},
    }


_TABLE_DOCS = {
    "NUMPY_VERSION": "The NumPy these tables were generated with.",
    "NUMPY_SUPPORTED": "NumPy callables (functions, ufuncs, scalar types; aliases included) "
                       "that compile on traced arrays.",
    "NUMPY_REFUSED": "NumPy callables registered only to refuse traced arrays, with the "
                     "error @jit raises.",
    "NUMPY_UNSUPPORTED": "The other public NumPy callables: NumPy computes them while "
                         "staging when every argument is a constant; given a traced array "
                         "@jit raises UnsupportedFunctionError (LibraryCallError, NPX002).",
    "NUMPY_REAL_ASSUMED": "Supported NumPy functions whose result dtype NumPy picks "
                          "from the data of a real input (real or complex): the program "
                          "assumes real results and checks them when it runs, which it "
                          "cannot do inside data-dependent branches and loops "
                          "(UnsupportedFunctionError there). Their registry notes say so.",
    "NUMPY_RUN_TIME_LENGTH": "Supported NumPy callables that also accept an array whose "
                             "length is only known at run time (x[mask], "
                             "np.nonzero(m)[0], np.unique(x), a slice with traced "
                             "bounds): from runtime/numpy/ndarray/bounded.py (HANDLERS, "
                             "elementwise ufuncs). The others raise ConcretizationError "
                             "(NPX115) on such an array.",
    "NUMPY_UFUNCS": "Every NumPy ufunc, by each of its public names.",
    "UFUNC_METHODS_SUPPORTED": "ufunc methods (`np.add.reduce`) that compile; the other "
                               "methods of UFUNC_METHOD_NAMES raise "
                               "UnsupportedFunctionError on traced arrays.",
    "UFUNC_METHOD_NAMES": "The methods every ufunc has.",
    "NDARRAY_SUPPORTED": "ndarray methods and properties that work on traced arrays.",
    "NDARRAY_REFUSED": "ndarray methods registered only to refuse, with the error.",
    "NDARRAY_UNSUPPORTED": "The other public ndarray attributes: UnsupportedFunctionError "
                           "on any array @jit creates or traces, constant or not.",
    "NDARRAY_RUN_TIME_LENGTH": "ndarray methods and properties an array whose length is "
                               "only known at run time has; the others raise "
                               "ConcretizationError (NPX115).",
    "MATH_SUPPORTED": "math functions that compile on traced values.",
    "MATH_UNSUPPORTED": "The other math callables: plain calls, which fail on traced "
                        "values (LibraryCallError).",
    "BUILTINS_REGISTERED": "Builtins with an implementation for traced values.",
    "HANDLED_CALLS": "Calls converted code routes to handlers of their own (print, range, "
                     "type questions, logging and warnings at run time, map/filter/"
                     "sorted/reduce/partial with the function converted).",
    "SCIPY_SUPPORTED": "SciPy functions (and methods of SciPy objects, scipy.stats.norm.pdf) "
                       "that compile on traced arrays (runtime/numpy/scipy/).",
    "REFUSED_MODULES": "Modules whose calls are refused outright (Python's random stream; "
                       "np.random is called when the program runs).",
}


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _literal(value, indent="    ", width=88):
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{indent}{_quote(k)}: {_quote(value[k])}," for k in sorted(value)]
        return "{\n" + "\n".join(items) + "\n}"
    names = sorted(value)
    if not names:
        return "frozenset()"
    lines, line = [], indent
    for n in names:
        piece = _quote(n) + ","
        if len(line) + len(piece) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    lines.append(line.rstrip())
    return "frozenset({\n" + "\n".join(lines) + "\n})"


def render_supported() -> str:
    """The source of transpiler/base/supported.py."""
    tables = supported_tables()
    out = [
        '"""What npxla\'s `@jit` compiles, by qualified name: generated from the runtime\'s',
        "registry so that the linter, which must not import JAX, knows it too.",
        "",
        f"Generated by `{SUPPORTED_COMMAND}`;",
        "do not edit by hand (tests/lint/test_lint_supported.py checks it is current).",
        "Names are as the linter resolves them: `numpy.linalg.norm`, `math.gamma`,",
        "`builtins.abs`; ndarray attributes are bare (`fill`, `T`).",
        '"""',
        "",
    ]
    for key, value in tables.items():
        out += [f"# {line}" for line in textwrap.wrap(_TABLE_DOCS[key], 86)]
        out.append(f"{key} = {_literal(value)}")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def write_supported(root=None) -> str:
    """Write transpiler/base/supported.py under the package root; returns its path."""
    import os
    root = root or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__))))
    path = os.path.join(root, SUPPORTED_PATH)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(render_supported())
    return path


if __name__ == "__main__":
    import sys
    if "--write" in sys.argv[1:]:
        print(write_supported())
    else:
        sys.stdout.write(render_supported())
