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
* Numba's `@guvectorize` functions (generalised ufuncs, `"(),(n)->()"`) run their
  Python function in a staged loop over the loop dimensions, as Numba's compiled loop
  does: each call gets views of its inputs' core dimensions and of its outputs, which
  it writes (a core of `()` is a 1-element array, as Numba passes it). Inputs are
  broadcast and cast to the first loop type they cast to safely.

The helpers' code objects are not registered as the user's, so an error inside them
names the user's call of the NumPy function, not a line of this file; their arguments
are checked first, in NumPy's words. The registry keeps lowerings of the same
functions (`numpy/arrays/apply.py`, `numpy/arrays/extras.py`) for calls from code that
is not converted.
"""
from __future__ import annotations

import operator
import re

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.catalogue import UNSUPPORTED_FUNCTION
from npxla.transpiler.base.origin import forget_code
from npxla.transpiler.conversion import convert
from npxla.runtime.numpy.arrays.extras import piecewise_conditions
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.staging.pytypes import as_scalar


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


def _gufunc(kernel, arrays, scalars, in_shapes, in_types, out_shapes, out_types,
            loop_shape):
    ins = [np.broadcast_to(np.expand_dims(a.astype(t, copy=False), -1) if scalar
                           else a.astype(t, copy=False), shape)
           for a, scalar, shape, t in zip(arrays, scalars, in_shapes, in_types)]
    outs = [np.zeros(shape, t) for shape, t in zip(out_shapes, out_types)]
    m = 1
    for n in loop_shape:
        m *= n
    for i in range(m):
        idx = np.unravel_index(i, loop_shape)
        kernel(*[a[idx] for a in ins], *[o[idx] for o in outs])
    return outs


def apply_along_axis(operators, func1d, axis, arr, *args, **kwargs):
    arr = as_array(arr)
    axis = normalize_axis_index(operator.index(axis), arr.ndim)
    if any(n == 0 for i, n in enumerate(arr.shape) if i != axis):
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    return _converted(_apply_along_axis, operators)(func1d, axis, arr, args, kwargs)


def piecewise(operators, x, condlist, funclist, *args, **kw):
    x, conds = piecewise_conditions(x, condlist, funclist)
    return _converted(_piecewise, operators)(x, conds, funclist, args, kw)


def gufunc(operators, parts, args, kwargs):
    """A call of Numba's `@guvectorize` function (`provenance.gufunc_parts`) on traced
    arrays: NumPy's checks of the layout, then the converted loop."""
    kernel, signature, loop_types, nin = parts
    name = kernel.__name__
    if kwargs or len(args) != nin:
        raise UNSUPPORTED_FUNCTION.error_for(
            fn=name, why=f"a @guvectorize function compiles when it is given its {nin} "
            "input(s) only, without output arrays or keywords", instead="")
    in_cores, out_cores = _layout(signature)
    arrays = [as_array(a) for a in args]
    in_types, out_types = _loop_types(name, [a.dtype for a in arrays], loop_types,
                                      len(out_cores))
    sizes: dict = {}
    loops = []
    for i, (a, core) in enumerate(zip(arrays, in_cores)):
        if a.ndim < len(core):
            raise ValueError(f"{name}: Input operand {i} does not have enough dimensions "
                             f"(has {a.ndim}, gufunc core with signature {signature} "
                             f"requires {len(core)})")
        for k, (d, n) in enumerate(zip(core, a.shape[a.ndim - len(core):])):
            if sizes.setdefault(d, n) != n:
                raise ValueError(f"{name}: Input operand {i} has a mismatch in its core "
                                 f"dimension {k}, with gufunc signature {signature} (size "
                                 f"{n} is different from {sizes[d]})")
        loops.append(a.shape[:a.ndim - len(core)])
    loop_shape = np.broadcast_shapes(*loops)
    in_shapes = [loop_shape + (_core_shape(c, sizes, signature) or (1,)) for c in in_cores]
    out_shapes = [loop_shape + (_core_shape(c, sizes, signature) or (1,)) for c in out_cores]
    scalars = [not core for core in in_cores]
    outs = _converted(_gufunc, operators)(kernel, arrays, scalars, in_shapes, in_types,
                                          out_shapes, out_types, loop_shape)
    outs = [o.reshape(loop_shape) if not core else o for o, core in zip(outs, out_cores)]
    outs = [as_scalar(o) if o.ndim == 0 else o for o in outs]   # a ufunc's 0-d results
    return outs[0] if len(outs) == 1 else tuple(outs)


def _layout(signature):
    """`"(),(n)->(n)"` -> ([(), ("n",)], [("n",)])."""
    def cores(part):
        return [tuple(d.strip() for d in group.split(",") if d.strip())
                for group in re.findall(r"\(([^)]*)\)", part)]
    ins, _, outs = signature.partition("->")
    return cores(ins), cores(outs)


def _core_shape(core, sizes, signature):
    shape = []
    for d in core:
        if d.isdigit():
            shape.append(int(d))
        elif d in sizes:
            shape.append(sizes[d])
        else:
            raise ValueError(f"output core dimension {d!r} of gufunc signature "
                             f"{signature} is not given by an input")
    return tuple(shape)


def _loop_types(name, dtypes, loop_types, nout):
    """(input dtypes, output dtypes) of the first loop the inputs cast to safely, as a
    ufunc picks its loop; a gufunc compiled lazily (no loops yet) keeps the inputs'."""
    if not loop_types:
        return dtypes, [np.result_type(*dtypes)] * nout
    for spec in loop_types:
        ins, _, outs = spec.partition("->")
        if all(np.can_cast(d, np.dtype(c), "safe") for d, c in zip(dtypes, ins)):
            return [np.dtype(c) for c in ins], [np.dtype(c) for c in outs]
    raise TypeError(f"ufunc '{name}' not supported for the input types, and the inputs "
                    "could not be safely coerced to any supported types according to the "
                    "casting rule ''safe''")


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
