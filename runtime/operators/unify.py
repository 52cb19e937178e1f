"""Typing across control flow: one type per variable for all branches / iterations.

A staged `if` must give each output one static shape and dtype whichever branch runs,
and a staged loop must keep each carried value's type from one iteration to the next.
Dtypes are unified with NumPy 2 promotion (weak Python scalars as NEP 50 says); shapes
must agree exactly. Python values that are the same on every path stay Python values
(so they remain usable as static shapes); anything else that cannot become one array
type is a located error naming the variable.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from npxla.transpiler.base.catalogue import SHAPE_ON_TWO_PATHS
from npxla.transpiler.base.errors import (IntegerOverflowError, UndefinedVariableError,
                                          UnsupportedOperationError)

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.bounded import BoundedArray
from npxla.transpiler.base.dtypes import dtype_of_python_scalar, result_type
from npxla.runtime.staging.variables import Undefined, UndefinedReturnValue
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.staging.pytree import flatten
from npxla.runtime.staging.pytree import unflatten
from npxla.runtime.staging.pytypes import mask_state
from npxla.runtime.numpy.masked.standins import refuse_across_flow

_PY_SCALARS = (bool, int, float, complex)


@dataclass(frozen=True)
class ArrayType:
    shape: tuple
    dtype: np.dtype
    weak: bool

    @property
    def aval(self):
        return (self.shape, self.dtype)


@dataclass(frozen=True)
class PythonValue:
    value: object


def type_of(x):
    """ArrayType of an array-like leaf, None for other Python objects."""
    if type(x) is AbstractArray:
        if mask_state(x) is not None:       # the merged value would be a plain array
            refuse_across_flow()
        return ArrayType(x.shape, x.dtype, x.weak)
    if type(x) is BoundedArray:     # one static type per variable: its extent cannot vary
        x.refuse("keeping it in a variable across a staged branch or loop iteration")
    if type(x) in _PY_SCALARS:
        return ArrayType((), dtype_of_python_scalar(x), True)
    if isinstance(x, (np.ndarray, np.generic)):
        return ArrayType(np.shape(x), np.dtype(x.dtype), False)
    return None


def _same_python(a, b):
    if type(a) is not type(b):
        return False
    if a is b:
        return True
    if type(a) is BoundedArray:      # `==` would stage an array comparison
        return False
    if isinstance(a, (np.ndarray, np.generic)):
        return a.dtype == b.dtype and np.shape(a) == np.shape(b) and \
            bool(np.array_equal(a, b, equal_nan=True))
    try:
        return bool(a == b)
    except Exception:
        return False


def _describe(x):
    t = type_of(x)
    if t is not None:
        return f"an array of shape {t.shape} and dtype {t.dtype}" if type(x) is not int \
            else f"the Python int {x}"
    return f"{type(x).__name__} {x!r}" if len(repr(x)) < 40 else type(x).__name__


def unify(values, name: str, kind: str):
    """The common type of `values` (one per branch, or [before, after] for a loop).

    Returns PythonValue when every value is the same non-traced Python value, else an
    ArrayType. `kind` ("if" or "loop") only shapes the error messages."""
    present = [v for v in values if type(v) is not UndefinedReturnValue]
    if not present:
        return PythonValue(values[0])
    undefined = [v for v in present if type(v) is Undefined]
    if undefined and len(undefined) < len(present):
        raise _undefined_error(name, kind)
    if undefined or all(type(v) is not AbstractArray for v in present) and \
            all(_same_python(present[0], v) for v in present[1:]):
        return PythonValue(present[0])
    types = [type_of(v) for v in present]
    if any(t is None for t in types):
        odd = next(v for v, t in zip(present, types) if t is None)
        other = next(v for v in present if not _same_python(v, odd))
        raise UnsupportedOperationError(
            f"'{name}' is {_describe(odd)} on one path and {_describe(other)} on another "
            f"of a data-dependent {_KIND[kind]}; only arrays and numbers can change there",
            hint=f"give '{name}' the same value on every path, or make it an array")
    shapes = {t.shape for t in types}
    if len(shapes) > 1:
        a, b = sorted(shapes, key=str)[:2]
        raise SHAPE_ON_TWO_PATHS.error_for(name=name, a=a, b=b, kind=_KIND[kind],
                                           advice=_SHAPE_HINT[kind].format(name=name))
    dtype, weak = result_type(*[(t.dtype, t.weak) for t in types])
    if dtype.kind in "iu" and not weak:
        _check_int_range(present, types, dtype, name)
    return ArrayType(types[0].shape, dtype, weak)


def _check_int_range(values, types, dtype, name):
    """NEP 50: a Python int that the other path's integer dtype cannot hold is an
    OverflowError in NumPy, never a silent wrap."""
    info = np.iinfo(dtype)
    for v, t in zip(values, types):
        if not t.weak or t.dtype.kind not in "iu":
            continue
        c = v.const if type(v) is AbstractArray else v
        if c is not None and not info.min <= int(c) <= info.max:
            raise IntegerOverflowError(
                f"Python integer {int(c)} out of bounds for {dtype}: '{name}' is {dtype} "
                f"on another path of a data-dependent branch or loop",
                hint=f"make the {dtype} value wider (e.g. .astype(np.int64)) or the "
                     "Python integer smaller")


_KIND = {"if": "branch", "loop": "loop (the value before the loop and after an iteration "
                                   "differ)"}
_SHAPE_HINT = {
    "if": "make both branches produce the same shape (e.g. pad, or use np.where on "
          "full-size arrays)",
    "loop": "keep '{name}' the same shape in every iteration: preallocate it with its "
            "final shape and fill it with '{name}[i] = ...'",
}


def _undefined_error(name, kind):
    where = "only one path of a data-dependent branch" if kind == "if" else \
        "inside a data-dependent loop but not before it"
    return UndefinedVariableError(
        f"'{name}' is assigned on {where} and used afterwards; a compiled program needs "
        f"a value on every path",
        hint=f"assign '{name}' before the {'if' if kind == 'if' else 'loop'} "
             f"(e.g. {name} = 0.0 or {name} = np.zeros_like(...))")


def lift(value, t: ArrayType) -> AbstractArray:
    """`value` as an AbstractArray of type `t` (emitted at the current insertion point)."""
    x = as_abstract(value)
    if x.dtype != t.dtype:
        x = cast_to(x, t.dtype)
    if x.weak != t.weak:
        const = x.const
        x = AbstractArray(x.shape, x.dtype, ir=None if const is not None else x.ir,
                          const=const, weak=t.weak, deps=x.deps)
    return x


def zeros(t: ArrayType) -> AbstractArray:
    return AbstractArray(t.shape, t.dtype, const=np.zeros(t.shape, t.dtype), weak=t.weak)


# --- structure -----------------------------------------------------------------------
_UNSET_LEAF = -1


def index_tree(treedef, n):
    """The tree `treedef` describes, with leaf positions as leaves."""
    return unflatten(treedef, iter(range(n)))


def conform_unset(tree, like, leaves):
    """`tree` (an index tree) where an unset return value stands for a whole tuple,
    list or dict in `like`: expanded to that structure (leaves -1 = unset). A function
    whose data-dependent branch returns `x, 1` leaves the other path's return value
    unset until then."""
    if type(tree) is int and tree >= 0 and type(leaves[tree]) is UndefinedReturnValue \
            and type(like) in (tuple, list, dict):
        return _all_unset(like)
    if type(tree) in (tuple, list) and type(like) is type(tree) and len(tree) == len(like):
        return type(tree)(conform_unset(a, b, leaves) for a, b in zip(tree, like))
    if type(tree) is dict and type(like) is dict and tree.keys() == like.keys():
        return {k: conform_unset(tree[k], like[k], leaves) for k in tree}
    return tree


def _all_unset(like):
    if type(like) in (tuple, list):
        return type(like)(_all_unset(x) for x in like)
    if type(like) is dict:
        return {k: _all_unset(v) for k, v in like.items()}
    return _UNSET_LEAF


def reflatten(tree, leaves):
    """(treedef, leaves) of an index tree produced by `conform_unset`."""
    order: list = []
    treedef = flatten(tree, order, everything=True)
    return treedef, [UndefinedReturnValue() if k == _UNSET_LEAF else leaves[k] for k in order]
