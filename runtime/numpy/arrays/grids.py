"""Coordinate grids: meshgrid, indices, and `np.mgrid`/`np.ogrid` items with traced
bounds (plus `np.result_type`, which NumPy's grid code calls on those bounds).

Why a module of its own: `np.mgrid[...]` is NumPy code running on our values, so its
support needs `grid_item` (NumPy's `nd_grid.__getitem__` steps redone on abstract
arrays) and a `result_type` that recognises being called from inside NumPy's grid code;
neither belongs with the element-rearranging functions.

`meshgrid(copy=False)` returns views (read-only where broadcast); grid sizes must be
static (they decide the shape).
"""
from __future__ import annotations

import math
import sys

import numpy as np

from npxla.transpiler.base.errors import UnsupportedOperationError

from npxla.runtime.staging.abstract import AbstractArray, is_abstract
from npxla.transpiler.base.dtypes import weak_standin
from npxla.runtime.numpy.arrays.arrange import static_int
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions.reductions import static
from npxla.runtime.numpy.core.registry import implements
from npxla.runtime.numpy.arrays.shape import broadcast_view, reshape_view
from npxla.runtime.numpy.core.values import concat_axis, fresh, reshape_value


# --- meshgrid / indices / mgrid / ogrid ---------------------------------------------------

@implements(np.meshgrid, family="creation", fold=False,
            notes="copy=False gives views (read-only where broadcast)")
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    indexing = static(indexing, "indexing")
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    shapes = []
    for i, x in enumerate(xi):
        s = [1] * ndim
        s[i] = as_array(x).size
        shapes.append(s)
    if indexing == "xy" and ndim > 1:
        shapes[0] = [1, as_array(xi[0]).size] + [1] * (ndim - 2)
        shapes[1] = [as_array(xi[1]).size, 1] + [1] * (ndim - 2)
    output = [reshape_view(as_array(x), tuple(s)) for x, s in zip(xi, shapes)]
    full = tuple(np.broadcast_shapes(*[tuple(s) for s in shapes])) if ndim else ()
    if copy:
        if sparse:
            return tuple(fresh(o) for o in output)
        return tuple(fresh(broadcast_to_shape(o, full)) for o in output)
    if sparse:
        return tuple(output)
    return tuple(o if o.shape == full else broadcast_view(o, full) for o in output)


@implements(np.indices, family="creation", creates=True,
            notes="dimensions must be static; the result is a constant")
def indices(dimensions, dtype=int, sparse=False):
    dims = tuple(static_int(d, "dimensions") for d in dimensions)
    result = np.indices(dims, dtype=static(dtype, "dtype"), sparse=static(sparse, "sparse"))
    if isinstance(result, tuple):
        return tuple(AbstractArray.from_const(r, weak=False) for r in result)
    return AbstractArray.from_const(result, weak=False)


def _promotion_standin(v):
    """What `np.result_type` sees for a grid bound (traced Python scalars stay weak)."""
    if not is_abstract(v):
        return v
    if v.const is not None:
        return v.const.item() if v.weak and v.ndim == 0 else v.const
    return weak_standin(v.dtype) if v.weak else v.dtype


def _is_complex_step(step):
    return isinstance(step, (complex, np.complexfloating)) or (
        is_abstract(step) and step.dtype.kind == "c")


@implements(np.result_type, family="casts",
            notes="dtypes are static, so traced arrays are fine (traced Python scalars "
                  "promote as Python scalars); used by np.mgrid/np.ogrid")
def result_type(*arrays_and_dtypes):
    caller = sys._getframe(1)
    for _ in range(6):
        if caller is None or caller.f_code is _ND_GRID_ITEM:
            break
        caller = caller.f_back
    if caller is not None and caller.f_code is _ND_GRID_ITEM and isinstance(
            caller.f_locals.get("key"), tuple):
        # nd_grid.__getitem__ would next write traced values into a NumPy array, and its
        # `except TypeError` would turn any error into a confusing AttributeError.
        raise UnsupportedOperationError(
            "np.mgrid/np.ogrid with several slices whose bounds are traced values cannot "
            "be compiled (NumPy builds the grid in a NumPy array)",
            hint="use np.meshgrid(np.linspace(a, b, n), ..., indexing='ij') (sparse=True "
                 "for np.ogrid), or index the grid with one slice at a time")
    return np.result_type(*[_promotion_standin(v) for v in arrays_and_dtypes])


_ND_GRID_ITEM = type(np.mgrid).__getitem__.__code__


def grid_item(grid, key):
    """`np.mgrid[key]` / `np.ogrid[key]` whose slice bounds are traced values (the same
    steps as NumPy's `nd_grid.__getitem__`). A complex step (`5j`) gives the number of
    points, so only the bounds are traced; a real step needs static bounds (the bounds
    decide the length)."""
    if not isinstance(key, tuple):
        start = 0 if key.start is None else key.start
        step = key.step
        if _is_complex_step(step):
            step_float = abs(static(step, "an np.mgrid step"))
            step = length = int(step_float)
            if step != 1:
                step = (key.stop - start) / float(step - 1)
            typ = np.result_type(*[_promotion_standin(v) for v in (start, key.stop,
                                                                   step_float)])
            base = AbstractArray.from_const(np.arange(0, length, 1, dtype=typ), weak=False)
            return base * step + start
        bounds = [static(v, "an np.mgrid bound") for v in (start, key.stop, step)]
        return AbstractArray.from_const(np.arange(*bounds), weak=False)
    size, num_list = [], [0]
    for k in key:
        start = 0 if k.start is None else k.start
        step = 1 if k.step is None else k.step
        if _is_complex_step(step):
            step = abs(static(step, "an np.mgrid step"))
            size.append(int(step))
        else:
            stop, start_s, step_s = (static(v, "an np.mgrid bound")
                                     for v in (k.stop, start, step))
            size.append(math.ceil((stop - start_s) / step_s))
        num_list += [start, k.stop, step]
    typ = np.result_type(*[_promotion_standin(v) for v in num_list])
    if grid.sparse:
        nn = [np.arange(n, dtype=typ) for n in size]
    else:
        nn = list(np.indices(size, typ))
    out = []
    for k, kk in enumerate(key):
        start = 0 if kk.start is None else kk.start
        step = 1 if kk.step is None else kk.step
        if _is_complex_step(step):
            step = int(abs(static(step, "an np.mgrid step")))
            if step != 1:
                step = (kk.stop - start) / float(step - 1)
        value = AbstractArray.from_const(nn[k], weak=False) * step + start
        out.append(as_array(value) if grid.sparse else cast_to(value, typ))
    if grid.sparse:
        return tuple(reshape_value(o, tuple(n if i == k else 1 for i, n in enumerate(size)))
                     for k, o in enumerate(out))
    return concat_axis([reshape_value(o, (1,) + o.shape) for o in out], 0)
