"""`np.asarray` semantics for operands: Python scalars, NumPy arrays, abstract arrays and
nested lists of any of them become (strong) abstract arrays.

Why a module of its own: almost every family turns its arguments into arrays first, and
array creation (creation.py), the scalar-type casts (casts.py) and shape manipulation
(shape.py) all need it; coercing a list of traced values builds the array with
reshapes and a concatenation (values.py). Kept below all of them, it breaks what used to
be a casts -> creation -> shape -> casts import cycle.
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.stacked import stack_of
from npxla.runtime.numpy.core.layouts import laid_out_like
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.values import concat_values, fresh, reshape_value, shape_standin

_VOID = np.dtype([])


def const_array(value, deps=frozenset()):
    """A strong constant abstract array of `value`, depending on `deps`."""
    out = AbstractArray.from_const(np.asarray(value), weak=False)
    out.deps = deps
    return out


def as_array(x) -> AbstractArray:
    """`np.asarray(x)` for one operand: Python scalars (traced or not) become strong
    arrays of their default dtype, as NumPy's array coercion does."""
    if type(x) is AbstractArray:
        return cast_to(x, x.dtype, weak=False) if x.weak else x
    if isinstance(x, (list, tuple)):
        return array_impl(x)
    return as_abstract(np.asarray(x))


def _leaves(obj, out):
    if isinstance(obj, (list, tuple)):
        return [_leaves(o, out) for o in obj]
    out.append(obj)
    shape = obj.shape if type(obj) is AbstractArray else np.shape(obj)
    return shape_standin(shape)


def _reject_object(dtype):
    if dtype == object:
        raise UnsupportedFunctionError("object arrays are not supported in compiled code")


def _build(obj, dt):
    if not isinstance(obj, (list, tuple)):
        return cast_to(as_array(obj), dt, weak=False)
    stack = stack_of(obj)
    if stack is not None:          # the rows of one array (a staged comprehension)
        out = cast_to(stack, dt, weak=False)
        return fresh(out) if out is stack else out
    parts = [_build(o, dt) for o in obj]
    if not parts:
        return const_array(np.zeros((0,), dt))
    parts = [reshape_value(p, (1,) + p.shape) for p in parts]
    return concat_values(parts, 0, dt)


def array_impl(obj, dtype=None, *, copy=True, ndmin=0):
    """`np.array` / `np.asarray` of nested lists of (abstract) arrays and scalars.

    NumPy's contract: an abstract array is returned itself when no conversion or copy
    is needed (`copy=None`/`False`), `copy=False` raises where a copy is unavoidable,
    the dtype of a nested list is the result type of its leaves, ragged nesting raises
    NumPy's own ValueError (checked on shape stand-ins of the leaves), object arrays
    are refused, and `ndmin` prepends size-1 axes."""
    ndmin = operator.index(ndmin)
    if type(obj) is AbstractArray:
        dt = obj.dtype if dtype is None else np.dtype(dtype)
        if not obj.weak and dt == obj.dtype and obj.ndim >= ndmin and not copy:
            return obj
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        out = cast_to(obj, dt, weak=False)
        out = laid_out_like(fresh(out) if out is obj else out, obj)     # order 'K'
    else:
        leaves: list = []
        structure = _leaves(obj, leaves)
        if not any(type(x) is AbstractArray for x in leaves):
            const = np.array(obj, dtype=dtype)
            _reject_object(const.dtype)
            out = const_array(const)
        else:
            np.array(structure, dtype=_VOID)                           # NumPy's errors
            dt = np.result_type(*[as_array(x).dtype for x in leaves]) if dtype is None \
                else np.dtype(dtype)
            _reject_object(dt)
            out = _build(obj, dt)
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
    if out.ndim < ndmin:
        out = reshape_value(out, (1,) * (ndmin - out.ndim) + out.shape)
    return out
