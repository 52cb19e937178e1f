"""NumPy functions that call a function of the caller's for parts of an array
(`np.apply_along_axis`, `np.piecewise`), written here as plain NumPy code and converted
like the user's own, so that NumPy's Python loop and its tests on data compile:

* `apply_along_axis` calls `func1d` on each 1-d slice in a loop over the slices, which
  the converter stages like a user's loop: one traced call of `func1d`, however many
  slices (an unrolled loop would stage and compile one call per slice). A slice is a
  view, so a function writing into it writes into the array, as in NumPy. The first
  result fixes the shape and dtype of the buffer, the later ones are assigned into it
  (broadcast and cast as NumPy's assignment does).
* `piecewise` gives a function the elements its condition selects (an array whose
  length is data), and only when there are any (`if vals.size > 0`, a staged branch):
  a function of the whole selection (a norm, `x.max()`) sees what it sees in NumPy.

The helpers' code objects are not registered as the user's, so an error inside them
names the user's call of the NumPy function, not a line of this file; their arguments
are checked first, in NumPy's words. The registry keeps lowerings of the same
functions (`numpy/arrays/apply.py`, `numpy/arrays/extras.py`) for calls from code that
is not converted.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.origin import forget_code
from npxla.transpiler.conversion import convert
from npxla.runtime.numpy.arrays.extras import piecewise_conditions
from npxla.runtime.numpy.core.coercion import as_array


def _apply_along_axis(func1d, axis, arr, args, kwargs):
    view = np.moveaxis(arr, axis, -1)
    outer = view.shape[:-1]
    m = 1
    for n in outer:
        m *= n
    res = np.asanyarray(func1d(view[np.unravel_index(0, outer)], *args, **kwargs))
    buff = np.zeros((m,) + res.shape, res.dtype)
    buff[0] = res
    for i in range(1, m):
        buff[i] = np.asanyarray(func1d(view[np.unravel_index(i, outer)], *args, **kwargs))
    buff = buff.reshape(outer + res.shape)
    dims = list(range(buff.ndim))
    permute = dims[:axis] + dims[buff.ndim - res.ndim:] + dims[axis:buff.ndim - res.ndim]
    return buff.transpose(permute)


def _piecewise(x, conds, funclist, args, kw):
    y = np.zeros_like(x)
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y[cond] = func
        elif isinstance(func, np.ufunc) or x.ndim == 0:
            y = np.where(cond, np.asarray(func(x, *args, **kw)).astype(x.dtype), y)
        else:
            vals = x[cond]
            if vals.size > 0:
                y[cond] = func(vals, *args, **kw)
    return y


def apply_along_axis(operators, func1d, axis, arr, *args, **kwargs):
    arr = as_array(arr)
    axis = normalize_axis_index(operator.index(axis), arr.ndim)
    if any(n == 0 for i, n in enumerate(arr.shape) if i != axis):
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    return _converted(_apply_along_axis, operators)(func1d, axis, arr, args, kwargs)


def piecewise(operators, x, condlist, funclist, *args, **kw):
    x, conds = piecewise_conditions(x, condlist, funclist)
    return _converted(_piecewise, operators)(x, conds, funclist, args, kw)


# id(NumPy function) -> (the function, its converted implementation's entry); by id, as
# `converted_call` asks this of every callable, hashable or not
_BY_ID = {id(f): (f, impl) for f, impl in ((np.apply_along_axis, apply_along_axis),
                                          (np.piecewise, piecewise))}


def implementation(f):
    """The entry above for NumPy function `f`, or None."""
    hit = _BY_ID.get(id(f))
    return hit[1] if hit is not None and hit[0] is f else None

_DONE: dict = {}


def _converted(fn, operators):
    hit = _DONE.get(fn)
    if hit is None:
        hit = _DONE[fn] = convert(fn, operators)
        forget_code(hit.__code__)
    return hit
