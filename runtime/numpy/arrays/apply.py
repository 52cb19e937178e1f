"""`np.apply_along_axis` and `np.apply_over_axes`: NumPy's Python loops over a function
the caller gives, run while staging.

`apply_along_axis` calls `func1d` once per 1-d slice, as NumPy does (a slice is a view:
a function that writes into it writes into the array), and assembles the results the
way NumPy's buffer does: the first result fixes the shape and dtype, later ones are
broadcast to that shape and cast to that dtype (unsafe casting, as an assignment into
the buffer), and the result's axes replace `axis`.

Jitted code does not reach this lowering: `converted_call` runs the converted NumPy-code
version in operators/numpy_callbacks.py, whose loop over the slices is staged (one
traced call of the function). This one, for calls from code that is not converted,
unrolls the loop (a call per slice); a user function passed here is still converted
(`operators/call.py` routes it).
"""
from __future__ import annotations

import itertools
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.runtime.staging.abstract import is_abstract
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import dispatch, implements

_FAMILY = "extras"


def _np(fn, *args, **kwargs):
    return dispatch(fn, args, kwargs)


def _as_result(value):
    """`np.asanyarray(value)` of a result: Python numbers become float64 / int64 /
    complex128 / bool arrays as in NumPy."""
    if is_abstract(value):
        return as_array(value)
    return as_array(np.asarray(value))


@implements(np.apply_along_axis, family=_FAMILY,
            notes="the function is called on each 1-d slice in a staged loop (one traced "
                  "call however many slices; a slice is a view, writes reach the array); "
                  "results are assembled as NumPy does")
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    arr = as_array(arr)
    nd = arr.ndim
    axis = normalize_axis_index(operator.index(axis), nd)
    view = _np(np.moveaxis, arr, axis, -1)
    outer = view.shape[:-1]
    if any(n == 0 for n in outer):
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    indices = list(itertools.product(*(range(n) for n in outer)))
    first = _as_result(func1d(view[indices[0]], *args, **kwargs))
    results = [first]
    for ind in indices[1:]:
        res = _as_result(func1d(view[ind], *args, **kwargs))
        if res.dtype != first.dtype:
            res = cast_to(res, first.dtype)
        if res.shape != first.shape:
            res = _np(np.broadcast_to, res, first.shape)   # NumPy's assignment errors
        results.append(res)
    buff = _np(np.stack, results)
    buff = _np(np.reshape, buff, outer + first.shape)
    dims = list(range(buff.ndim))
    res_nd = first.ndim
    permute = dims[:axis] + dims[buff.ndim - res_nd:] + dims[axis:buff.ndim - res_nd]
    return _np(np.transpose, buff, permute)


@implements(np.apply_over_axes, family=_FAMILY)
def apply_over_axes(func, a, axes):
    val = as_array(a)
    nd = val.ndim
    if np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = nd + axis
        res = func(val, axis)
        res = _as_result(res)
        if res.ndim == val.ndim:
            val = res
        else:
            res = _np(np.expand_dims, res, axis)
            if res.ndim == val.ndim:
                val = res
            else:
                raise ValueError("function is not returning an array of the correct shape")
    return val
