"""The registry: NumPy functions, ufuncs, ndarray methods and builtins -> implementations.

Implementations receive the caller's arguments unchanged (abstract arrays, NumPy
arrays, Python values) and follow NumPy's semantics. The dispatcher folds calls whose
array arguments are all known constants by running NumPy itself, so constant
computations (`np.array(x.shape).prod()`) stay exact and usable as shapes.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.bounded import BoundedArray, bounded_layer
from npxla.runtime.staging.pytypes import any_masked, mask_state, python_type
from npxla.runtime.numpy.core.layouts import set_layout


@dataclass
class Entry:
    name: str            # public spelling, e.g. "np.sum"
    impl: Callable
    family: str
    creates: bool = False  # creation functions wrap results even without abstract inputs
    fold: bool = True      # constant-fold with NumPy when every array input is known
    notes: str = ""


_FUNCTIONS: dict = {}       # id(callable) -> Entry
_BY_NAME: dict = {}         # "np.sum" -> Entry
_METHODS: dict = {}         # "sum" -> impl(self, *args, **kwargs)
_NO_FOLD: set = set()       # methods/properties that must not be folded (views)
_UFUNC_METHODS: dict = {}   # ("add", "reduce") -> impl
_PROPERTIES: dict = {}      # "T" -> fn(self)
# names in libraries npxla does not import itself (SciPy): "scipy.linalg.inv" -> Entry,
# resolved to the callables once the user's code has imported their modules
_LAZY: dict = {}
_LAZY_MODULES = [0]         # len(sys.modules) when the lazy names were last resolved
_OBJECT_METHODS: dict = {}  # (id(object), method name) -> (object, Entry): norm.pdf


def _public_name(fn):
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__name__", repr(fn))
    if isinstance(fn, np.ufunc) or mod.startswith("numpy"):
        sub = {"numpy.linalg": "np.linalg.", "numpy.fft": "np.fft.",
               "numpy.ma": "np.ma.", "numpy.ma.core": "np.ma.",
               "numpy.ma.extras": "np.ma."}.get(mod, "np.")
        return sub + name
    if mod == "math":
        return "math." + name
    if mod == "builtins":
        return name
    return f"{mod}.{name}"


def implements(*functions, method: str | tuple | None = None, family: str = "misc",
               creates: bool = False, fold: bool = True, notes: str = ""):
    """Register `impl` for NumPy callables (and optionally as ndarray method(s))."""
    def register(impl):
        for fn in functions:
            entry = Entry(_public_name(fn), impl, family, creates, fold, notes)
            _FUNCTIONS[id(fn)] = (fn, entry)
            _BY_NAME[entry.name] = entry
        for m in ((method,) if isinstance(method, str) else (method or ())):
            register_method(m, impl, fold)
        return impl
    return register


def implements_lazy(*names, family: str = "scipy", notes: str = "", creates: bool = False,
                    fold: bool = True):
    """Register `impl` for the callables that `names` spell in a library npxla does not
    import (SciPy is optional, and imported only by the user's code): each is found
    once its module is in `sys.modules`. A name may end in an object's method
    (`scipy.stats.norm.pdf`)."""
    def register(impl):
        for name in names:
            entry = Entry(name, impl, family, creates, fold, notes)
            _LAZY[name] = entry
            _BY_NAME[name] = entry
        _LAZY_MODULES[0] = 0
        return impl
    return register


def _resolve_lazy():
    """Map the lazy names whose modules are now imported to their callables."""
    loaded = len(sys.modules)
    if loaded == _LAZY_MODULES[0]:
        return
    _LAZY_MODULES[0] = loaded
    for name, entry in _LAZY.items():
        module, _, attr = name.rpartition(".")
        mod = sys.modules.get(module)
        if mod is not None:
            fn = vars(mod).get(attr)
            if fn is not None:
                _FUNCTIONS.setdefault(id(fn), (fn, entry))
            continue
        module, _, owner = module.rpartition(".")
        mod = sys.modules.get(module)
        # the module's own dict: getattr would import a submodule SciPy loads lazily
        # (`scipy.signal`, 2.5 s) that the user's code never imported
        obj = vars(mod).get(owner) if mod is not None else None
        if obj is not None and not isinstance(obj, type(sys)):
            _OBJECT_METHODS.setdefault((id(obj), attr), (obj, entry))


def register_method(name, impl, fold=True):
    """`fold=False` for methods returning views: NumPy folding would break aliasing."""
    _METHODS[name] = impl
    (_NO_FOLD.discard if fold else _NO_FOLD.add)(name)


def register_property(name, fn, fold=True):
    _PROPERTIES[name] = fn
    (_NO_FOLD.discard if fold else _NO_FOLD.add)(name)


def register_ufunc_method(ufunc, method, impl):
    _UFUNC_METHODS[(ufunc.__name__, method)] = impl


def lookup(fn):
    hit = _FUNCTIONS.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    if _LAZY:
        _resolve_lazy()
        hit = _FUNCTIONS.get(id(fn))
        if hit is not None and hit[0] is fn:
            return hit[1]
        owner = getattr(fn, "__self__", None)
        if owner is not None:
            hit = _OBJECT_METHODS.get((id(owner), getattr(fn, "__name__", "")))
            if hit is not None and hit[0] is owner:
                return hit[1]
    return None


def entries():
    """Every registered callable: used by docs generation."""
    return dict(_BY_NAME), dict(_METHODS)


# --- dispatch -------------------------------------------------------------------------

def _leaves(tree, out):
    """The abstract arrays in `tree`, bounded arrays included (their `const` is None,
    so nothing folds them)."""
    if type(tree) is AbstractArray or type(tree) is BoundedArray:
        out.append(tree)
    elif isinstance(tree, (list, tuple)):
        for t in tree:
            _leaves(t, out)
    elif isinstance(tree, dict):
        for t in tree.values():
            _leaves(t, out)
    return out


def has_abstract(args, kwargs) -> bool:
    return bool(_leaves((args, kwargs), []))


def _to_const(tree):
    if type(tree) is AbstractArray:
        c = tree.const
        if tree.weak and c.ndim == 0:
            return c.item()
        return c
    if isinstance(tree, tuple):
        return tuple(_to_const(t) for t in tree)
    if isinstance(tree, list):
        return [_to_const(t) for t in tree]
    if isinstance(tree, dict):
        return {k: _to_const(v) for k, v in tree.items()}
    return tree


def wrap_result(tree, deps=frozenset()):
    """Lift NumPy results of a folded call to constant abstract arrays. An object
    array (`np.atleast_1d(f)` of a Python function, as scikit-learn-style helpers
    build) holds no numbers XLA could use: it stays the NumPy object it is, and
    Python indexes it."""
    if isinstance(tree, np.ndarray) and tree.dtype == object:
        return tree
    if isinstance(tree, (np.ndarray, np.generic)) or (
            isinstance(tree, (bool, int, float, complex))):
        out = as_abstract(tree)
        out.deps = deps
        if isinstance(tree, np.ndarray) and tree.ndim and not tree.flags.c_contiguous and \
                out is not tree and all(s % tree.itemsize == 0 for s in tree.strides):
            # NumPy's own layout (`np.ones((4, 4)).T * 2` is F-ordered): later
            # `ravel`/`reshape` copy where NumPy's would
            set_layout(out, strides=tuple(s // tree.itemsize for s in tree.strides))
        return out
    if isinstance(tree, tuple):
        return type(tree)(*[wrap_result(t, deps) for t in tree]) if hasattr(tree, "_fields") \
            else tuple(wrap_result(t, deps) for t in tree)
    if isinstance(tree, list):
        return [wrap_result(t, deps) for t in tree]
    return tree


def _deps_of(leaves):
    deps = frozenset()
    for leaf in leaves:
        deps = deps | leaf.deps
    return deps


def call_entry(entry: Entry, fn, args, kwargs, explicit=False):
    """`explicit`: a call written by the user (not an operator). NumPy returns strong
    scalars from explicit ufunc calls (`np.sqrt(2.0)` is np.float64) even on weak input."""
    if not explicit and fn is np.power:
        folded = _python_power(args, kwargs)
        if folded is not None:
            return folded
    result = _call_entry(entry, fn, args, kwargs)
    if explicit and isinstance(fn, np.ufunc):
        for leaf in _leaves(result, []):
            leaf.weak = False
    return result


def _python_power(args, kwargs):
    """`a ** b` of two Python scalars (constant weak handles, e.g. a specialised float
    argument) is Python's `**`: CPython's pow, not NumPy's loop, which rounds some
    float ** int differently (`1.3 ** 7`). None where Python's operator is not the
    answer (arrays, NumPy scalars, traced values) or raises."""
    if kwargs or len(args) != 2:
        return None
    values = []
    for a in args:
        if type(a) is AbstractArray:
            c = a.const
            if c is None or not a.weak or c.ndim != 0:
                return None
            values.append(c.item())
        elif type(a) in (int, float, bool):
            values.append(a)
        else:
            return None
    if not any(type(v) is float for v in values):
        return None           # int ** int: arithmetic's rules (negative exponents)
    try:
        out = values[0] ** values[1]
    except (ArithmeticError, ValueError):
        return None
    if type(out) is not float:
        return None
    return wrap_result(out, _deps_of([a for a in args if type(a) is AbstractArray]))


class MaskedRoutes:
    """Where a call that touches a masked array goes (`runtime/numpy/masked/` installs
    them; None until then): `call(entry, fn, args, kwargs)` for registered functions
    (entry None: an unregistered one), `attribute(self, name)` for an attribute of a
    masked array, `method(self, name, args, kwargs)` for an ndarray method given a
    masked argument, `ufunc_method(ufunc, method, inputs, kwargs)`. While `active`,
    a routed call computes its value and nothing it calls is routed again."""
    call = None
    attribute = None
    method = None
    ufunc_method = None
    active = 0


masked_routes = MaskedRoutes()


def _masked_route(leaves, entry=None) -> bool:
    return masked_routes.call is not None and not masked_routes.active and \
        (entry is None or entry.family != "masked") and any_masked(leaves)


def _call_entry(entry: Entry, fn, args, kwargs):
    leaves = _leaves((args, kwargs), [])
    if any(type(leaf) is BoundedArray for leaf in leaves):
        return bounded_layer.call(entry, fn, args, kwargs)
    if _masked_route(leaves, entry):
        return masked_routes.call(entry, fn, args, kwargs)
    out_kw = kwargs.get("out") if isinstance(kwargs, dict) else None
    if entry.fold and out_kw is None and all(leaf.const is not None for leaf in leaves):
        if leaves or entry.creates:
            result = wrap_result(fn(*_to_const(args), **_to_const(kwargs)), _deps_of(leaves))
            if isinstance(fn, np.ufunc) and leaves and all(x.weak for x in leaves):
                for leaf in _leaves(result, []):   # Python-scalar arithmetic stays weak
                    leaf.weak = leaf.ndim == 0
            return result
    result = entry.impl(*args, **kwargs)
    deps = _deps_of(leaves)
    if deps:
        for leaf in _leaves(result, []):
            leaf.deps = leaf.deps | deps
    return result


def dispatch(fn, args, kwargs):
    entry = lookup(fn)
    if entry is None:
        leaves = _leaves((args, kwargs), [])
        if _masked_route(leaves):
            return masked_routes.call(None, fn, args, kwargs)
        for leaf in leaves:
            if type(leaf) is BoundedArray:
                leaf.refuse(_public_name(fn))
        if all(leaf.const is not None for leaf in leaves):  # NumPy computes it exactly
            return wrap_result(fn(*_to_const(args), **_to_const(kwargs)), _deps_of(leaves))
        raise UnsupportedFunctionError(
            f"{_public_name(fn)} is not supported on traced arrays yet")
    return call_entry(entry, fn, args, kwargs)


def dispatch_ufunc(ufunc, method, inputs, kwargs):
    if method == "__call__":
        return dispatch(ufunc, inputs, kwargs)
    if _masked_route(_leaves((inputs, kwargs), [])):
        return masked_routes.ufunc_method(ufunc, method, inputs, kwargs)
    impl = _UFUNC_METHODS.get((ufunc.__name__, method))
    if impl is None:
        raise UnsupportedFunctionError(
            f"np.{ufunc.__name__}.{method} is not supported on traced arrays yet")
    return impl(*inputs, **kwargs)


def missing_attribute(x, name):
    """Python's AttributeError for the object NumPy code would hold where `x` is."""
    t = python_type(x)
    where = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
    return AttributeError(f"'{where}' object has no attribute '{name}'")


def bound_method(self: AbstractArray, name: str):
    if masked_routes.attribute is not None and not masked_routes.active and \
            mask_state(self) is not None:
        return masked_routes.attribute(self, name)
    prop = _PROPERTIES.get(name)
    if prop is not None:
        if self.const is not None and name not in _NO_FOLD:
            return wrap_result(getattr(self.const, name), self.deps)
        return prop(self)
    impl = _METHODS.get(name)
    if impl is None:
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnsupportedFunctionError(
            f"ndarray.{name} is not supported on traced arrays yet") if hasattr(
                np.ndarray, name) else missing_attribute(self, name)

    def method(*args, **kwargs):
        if _masked_route(_leaves((args, kwargs), [])):
            return masked_routes.method(self, name, args, kwargs)
        if name not in _NO_FOLD and self.const is not None and all(
                leaf.const is not None for leaf in _leaves((args, kwargs), [])):
            result = getattr(self.const, name)(*_to_const(args), **_to_const(kwargs))
            return wrap_result(result, self.deps)
        return impl(self, *args, **kwargs)
    method.__name__ = name
    return method
