"""The NumPy behaviour of abstract arrays, installed on the class by the NumPy layer.

`AbstractArray` (staging) is a leaf class that knows handles, views and switches but no
NumPy: its operators (`+`, `<`, `+=` ...), indexing, methods and properties (through
`__getattr__` and the registry) and NumPy's own entry points (`__array_ufunc__`,
`__array_function__`) are set here, so NumPy calls on staged values reach the registry
and the staging model never imports the layer above it.
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.catalogue import TRACED_KEY

from npxla.runtime.staging import abstract
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.pytypes import is_marked, python_type
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import refuse_write
from npxla.runtime.numpy.indexing.indexing import getitem, setitem
from npxla.runtime.numpy.core.registry import (bound_method, dispatch, dispatch_ufunc,
                                               missing_attribute, register_method)
from npxla.runtime.numpy.core.speculate import assumed_bool
from npxla.runtime.numpy.core.text import text_refusal
from npxla.runtime.numpy.core.values import fresh
from npxla.runtime.numpy.ndarray.item import item
from npxla.runtime.numpy.ufuncs.math_ufuncs import scalar_power


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    return dispatch_ufunc(ufunc, method, inputs, kwargs)


def __array_function__(self, func, types, args, kwargs):
    return dispatch(func, args, kwargs)


def __getattr__(self, name):
    return bound_method(self, name)


def _python_value(x, what):
    """The value NumPy code holds for a known `x` (a Python scalar for a weak one, a
    0-d array where one is marked); a traced one has no text while compiling:
    specialised on the Python int arguments it comes from, else refused."""
    c = x.const
    if c is None:
        raise text_refusal(x.deps, what)
    if c.ndim:
        return c
    return c.item() if x.weak else (np.array(c) if is_marked(x) else c[()])


def __str__(self):
    """`"%s" % x`, `str.join`, plain `str(x)` in library code: NumPy's text, not the
    handle's repr (which stays for debugging)."""
    return str(_python_value(self, "str()"))


def __format__(self, spec):
    return format(_python_value(self, "format()"), spec)


def __hash__(self):
    """An ndarray is unhashable (NumPy's TypeError); a 0-d value stands for a NumPy or
    Python scalar, which hashes by value (`tuple(row)` as a dict key, pyentrp's
    `weighted_permutation_entropy`): a traced one has no value while compiling, so it is
    refused, located (a ConcretizationError, itself a TypeError), or its loop unrolled."""
    if self.shape or is_marked(self):
        raise TypeError("unhashable type: 'numpy.ndarray'")
    c = self.const
    if c is None:          # (the positions it comes from: a loop index is unrolled)
        raise TRACED_KEY.error_for(deps=self.deps)
    return hash(c.item() if self.weak else c[()])


def _operator(np_name, reflected=False):
    bounds = _RANGE_RULES.get(np_name)

    def op(self, other):
        if np_name == "multiply" and type(other) in (list, tuple) and self.ndim == 0 and \
                self.dtype.kind in "iub":
            # `[1] * n`: Python repeats the list (through `__index__`, which needs the
            # value: a traced Python int is then specialised), NumPy is not involved
            return other * self.__index__()
        fn = getattr(np, np_name)
        args = (other, self) if reflected else (self, other)
        out = dispatch(fn, args, {})
        if np_name == "power" and out.const is None and all(map(_scalar, args)):
            exact = scalar_power(*args, out.dtype)       # the C library's pow, as NumPy's
            out = out if exact is None else fresh(exact, weak=out.weak)
        k = _known_int(other)
        if bounds is not None and self._range is not None and k is not None:
            lo, hi = bounds(self._range, k, reflected)
            out._range = (min(lo, hi), max(lo, hi))
        return out
    op.__name__ = np_name
    return op


def _scalar(x) -> bool:
    """Whether `x` stands for a NumPy or Python scalar (not an array, not a 0-d one)."""
    if type(x) is AbstractArray:
        return x.ndim == 0 and not is_marked(x)
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _known_int(x):
    """`x` as a Python int when it is one, or a 0-d integer constant (a Python int
    argument specialised), else None."""
    if type(x) is int:
        return x
    if type(x) is AbstractArray and not x.shape and x.dtype.kind in "iu" and \
            x.const is not None:
        return int(x.const)
    return None


# how a static integer range maps through `x op k` (k a Python int)
_RANGE_RULES = {
    "add": lambda r, k, _: (r[0] + k, r[1] + k),
    "subtract": lambda r, k, refl: (k - r[1], k - r[0]) if refl else (r[0] - k, r[1] - k),
    "multiply": lambda r, k, _: (r[0] * k, r[1] * k),
}


def _inplace(np_name):
    rebinding = _operator(np_name)

    def op(self, other):
        if self.ndim == 0 and self._view is None and not is_marked(self):
            # 0-d values are (immutable) NumPy scalars in NumPy code: `s += 1` rebinds;
            # a 0-d *array* (an argument, np.array(2.0)) is updated in place
            return rebinding(self, other)
        dispatch(getattr(np, np_name), (self, other), {"out": self})
        return self
    return op


def _unary(np_name):
    def op(self):
        return dispatch(getattr(np, np_name), (self,), {})
    return op


_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift", "divmod": "divmod",
}
for _py, _np in _BINARY.items():
    setattr(AbstractArray, f"__{_py}__", _operator(_np))
    setattr(AbstractArray, f"__r{_py}__", _operator(_np, reflected=True))
    if _py != "divmod":
        setattr(AbstractArray, f"__i{_py}__", _inplace(_np))
for _py, _np in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                 "eq": "equal", "ne": "not_equal"}.items():
    setattr(AbstractArray, f"__{_py}__", _operator(_np))
for _py, _np in {"neg": "negative", "pos": "positive", "abs": "absolute",
                 "invert": "invert"}.items():
    setattr(AbstractArray, f"__{_py}__", _unary(_np))


def is_integer(self):
    """`float.is_integer()` / `np.floating.is_integer()` of a scalar (NumPy 2 gives it
    to float and integer scalars; an ndarray has no such method)."""
    if not hasattr(python_type(self), "is_integer"):
        raise missing_attribute(self, "is_integer")
    if self.dtype.kind != "f":
        return True
    finite = dispatch(np.isfinite, (self,), {})
    whole = dispatch(np.equal, (self, dispatch(np.floor, (self,), {})), {})
    return fresh(dispatch(np.logical_and, (finite, whole), {}), weak=True)   # a Python bool


register_method("is_integer", is_integer)
AbstractArray.__bool__ = assumed_bool
AbstractArray.item = lambda self, *args: item(self, args)
register_method("item", AbstractArray.item)       # (listed as supported by the docs)
AbstractArray.__hash__ = __hash__
AbstractArray.__array_ufunc__ = __array_ufunc__
AbstractArray.__array_function__ = __array_function__
AbstractArray.__getitem__ = getitem
AbstractArray.__setitem__ = setitem
AbstractArray.__getattr__ = __getattr__
AbstractArray.__str__ = __str__
AbstractArray.__format__ = __format__
abstract.numpy_layer.where = lambda cond, a, b: dispatch(np.where, (cond, a, b), {})
abstract.numpy_layer.conform = lambda value, dtype, shape: broadcast_to_shape(
    cast_to(value, dtype), shape)
abstract.numpy_layer.refuse_write = refuse_write
