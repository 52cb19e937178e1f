"""np.take / np.put, the *_along_axis pair, np.ix_, np.extract / np.compress, and the
traced-condition forms of the last two (bounded_results.py computes those).

Why a module of its own: these are NumPy *functions* expressed as advanced indices
(`value_at`, `scatter_last`), with their own argument rules (clip modes, intp casts of
indices, NumPy repeating `put` values), separate from the item-access machinery.
`put` and `put_along_axis` keep NumPy's last-write-wins on repeated indices.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.errors import DataDependentShapeError

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.numpy.indexing import bounded_results
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.indexing.fancy import refuse_outside_array, value_at
from npxla.runtime.numpy.indexing.fancy_plan import normalise, reshaped, scatter_last
from npxla.runtime.numpy.reductions.reductions import asarray, static
from npxla.runtime.numpy.core.registry import implements
from npxla.runtime.numpy.core.values import reshape_value

_I64 = np.dtype(np.int64)


def _clipmode(mode):
    mode = static(mode, "mode")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return mode


def _int_indices(ind):
    """np.take/np.put cast their indices to intp (unsafe: bools and floats too)."""
    ind = asarray(ind)
    return ind if ind.dtype.kind in "iu" else cast_to(ind, _I64)


def _target(a, what):
    if not is_abstract(a):
        if isinstance(a, np.ndarray):
            refuse_outside_array()
        raise TypeError(f"{what}: argument 1 must be numpy.ndarray, not {type(a).__name__}")
    return a


def _wrapped(ind, n, axis, mode):
    """Indices for mode='wrap'/'clip' (in range by construction); 'raise' leaves them."""
    if mode == "raise":
        return ind
    if n == 0 and ind.size:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    return normalise(ind, n, axis, mode)


@implements(np.take, method="take", family="indexing",
            notes="mode='raise' checks traced indices at run time (IndexError)")
def take(a, indices, axis=None, out=None, mode="raise"):
    a = asarray(a)
    mode = _clipmode(mode)
    if axis is None:
        a, axis = reshape_value(a, (a.size,)), 0
    else:
        axis = normalize_axis_index(static(axis, "axis"), a.ndim)
    ind = _wrapped(_int_indices(indices), a.shape[axis], axis, mode)
    if ind.ndim == 0 and ind.const is not None:
        ind = int(ind.const)
    result = value_at(a, (slice(None),) * axis + (ind,))
    if out is not None:
        _target(out, "take").assign(result)
        return out
    return result


@implements(np.put, method="put", family="indexing", fold=False,
            notes="repeated indices: the last value wins, as in NumPy")
def put(a, ind, v, mode="raise"):
    a = _target(a, "put")
    mode = _clipmode(mode)
    ind = _int_indices(ind)
    ind = reshape_value(ind, (ind.size,))
    v = asarray(v)
    v = reshape_value(cast_to(v, a.dtype), (v.size,))
    if ind.size == 0 or v.size == 0:
        return None
    if a.const is not None and ind.const is not None and v.const is not None:
        new = a.const.copy()
        np.put(new, ind.const, v.const, mode=mode)
        a.assign(as_abstract(new))
        return None
    if v.size != ind.size:              # NumPy repeats v to the length of ind
        v = value_at(v, np.arange(ind.size) % v.size)
    if mode != "raise" and a.size == 0:
        raise IndexError("cannot replace in an empty array")
    idx = normalise(ind, a.size, 0, mode)
    flat = reshape_value(a, (a.size,))
    new = scatter_last(flat, reshaped(idx, (ind.size, 1)), v)
    a.assign(reshaped(new, a.shape))
    return None


def _along_axis(arr, indices, axis, what):
    arr, indices = asarray(arr), asarray(indices)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return reshape_value(arr, (arr.size,)), indices, 0
    axis = normalize_axis_index(static(axis, "axis"), arr.ndim)
    if arr.ndim != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return arr, indices, axis


def _along_axis_index(shape, indices, axis):
    """NumPy's fancy index for *_along_axis: aranges on the other axes."""
    ones = (1,) * len(shape)
    return tuple(indices if d == axis else
                 np.arange(n).reshape(ones[:d] + (n,) + ones[d + 1:])
                 for d, n in enumerate(shape))


@implements(np.take_along_axis, family="indexing")
def take_along_axis(arr, indices, axis=-1):
    arr, indices, axis = _along_axis(arr, indices, axis, "take_along_axis")
    return value_at(arr, _along_axis_index(arr.shape, indices, axis))


@implements(np.put_along_axis, family="indexing", fold=False,
            notes="repeated indices: the last value wins, as in NumPy")
def put_along_axis(arr, indices, values, axis):
    target = _target(arr, "put_along_axis")
    arr, indices, axis = _along_axis(target, indices, axis, "put_along_axis")
    index = _along_axis_index(arr.shape, indices, axis)
    if arr is target:
        target[index] = values
    else:                               # axis=None: the flattened array
        flat = reshape_value(target, (target.size,))
        flat[index] = values
        target.assign(reshaped(flat, target.shape))


@implements(np.ix_, family="indexing", notes="boolean arguments must be constants")
def ix_(*args):
    out = []
    for k, new in enumerate(args):
        new = asarray(new)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.size == 0 and new.dtype.kind not in "iu":
            new = cast_to(new, np.intp)
        elif new.dtype == np.bool_:
            if new.const is None:
                _refuse_count("np.ix_ with a boolean array",
                              "pass integer index arrays, or select with np.where")
            new = as_abstract(np.nonzero(new.const)[0])
        shape = [1] * len(args)
        shape[k] = new.size
        out.append(reshape_value(new, shape))
    return tuple(out)


def _refuse_count(what, hint):
    raise DataDependentShapeError(
        f"{what} returns as many elements as there are True/non-zero entries, which "
        "depends on the data, and XLA needs every shape at compile time", hint=hint)


@implements(np.extract, family="indexing",
            notes="a traced condition gives an array whose length is known at run time")
def extract(condition, arr):
    cond = asarray(condition).const
    if cond is None:
        return bounded_results.extract(condition, arr)
    arr = asarray(arr)
    return value_at(reshape_value(arr, (arr.size,)), np.nonzero(np.ravel(cond))[0])


@implements(np.compress, family="indexing",
            notes="a traced condition gives an array whose length is known at run time")
def compress(condition, a, axis=None, out=None):
    cond = asarray(condition).const
    if cond is None:
        return bounded_results.compress(condition, a, axis, out)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    return take(a, np.nonzero(cond)[0], axis=axis, out=out)
