"""Item access on abstract arrays: `x[index]` and `x[index] = value`.

Basic indices (ints, slices, None, ...) are parsed into regions (slicing.py); indices
with integer/boolean arrays or boolean scalars are advanced (fancy_plan.py, fancy.py).

Reads of basic indices are *views* (writes through them reach the base) except a full
integer index, which NumPy returns as a scalar copy. Stores check a scalar against an
integer array's range as NumPy does (`_check_scalar_fits`).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.staging.pytypes import as_scalar, is_marked, mark_ndarray
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.numpy.indexing import bounded_fancy, bounded_index, fancy
from npxla.runtime.numpy.ndarray import bounded as bounded_methods
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.indexing.fancy_plan import (basic_index, classify, const_index, is_basic,
                                                     is_const)
from npxla.runtime.numpy.reductions.reductions import asarray
from npxla.runtime.numpy.core.registry import dispatch, register_method
from npxla.runtime.numpy.indexing.slicing import Region, as_static, is_int, parse, read_at, write_at
from npxla.runtime.numpy.core.layouts import indexed_layouts, set_path_layouts


def _is_scalar_copy(index, r: Region):
    """A full integer index returns a scalar copy in NumPy, not a 0-d view."""
    entries = index if isinstance(index, tuple) else (index,)
    return not r.out_shape and all(is_int(as_static(e)) or is_abstract(e) for e in entries)


def _leading_ints(index):
    """(integers, the rest) of `x[n, ix]`: integers before an index array of run-time
    length, which select what `x[n][ix]` selects (the integers take the view first);
    else None."""
    if not isinstance(index, tuple):
        return None
    k = 0
    while k < len(index) and not is_bounded(index[k]) and _is_integer(index[k]):
        k += 1
    if k == 0 or k == len(index) or not is_bounded(index[k]):
        return None
    return index[:k], index[k:]


def _is_integer(entry) -> bool:
    if isinstance(entry, (bool, np.bool_)):
        return False
    if isinstance(entry, (int, np.integer)):
        return True
    return is_abstract(entry) and entry.ndim == 0 and entry.dtype.kind in "iu"


def _scalar_mask(index):
    """A traced 0-d boolean index (`x[~bad]` of 0-d arrays, pymap3d's `ecef2geodetic` of
    scalars) as the 1-element mask of NumPy's meaning: a new leading axis of length 1
    or 0, i.e. `x[None][m]`; else None."""
    if type(index) is tuple and len(index) == 1:
        index = index[0]
    if type(index) is AbstractArray and index.ndim == 0 and index.dtype == np.bool_ and \
            index.const is None:
        return dispatch(np.reshape, (index, (1,)), {})
    return None


def getitem(x: AbstractArray, index):
    if is_bounded(index):
        return bounded_index.gather_rows(x, index, getitem)
    mask = _scalar_mask(index)
    if mask is not None:
        return getitem(getitem(x, None), mask)
    peeled = _leading_ints(index)
    if peeled is not None:
        return getitem(getitem(x, peeled[0]), peeled[1])
    if bounded_fancy.applies(index):      # x[np.nonzero(m)]: a tuple of index arrays
        return bounded_fancy.read(x, index)
    if bounded_index.dynamic_slices(index, x.shape):
        return bounded_index.slice_dynamic(x, index, getitem)
    items = classify(index)
    if not is_basic(items):
        if x.const is not None and is_const(items):
            return as_abstract(np.array(x.const[const_index(items)]))
        selected = fancy.mask_among_basic(x, items)
        if selected is not None:          # x[m, 1], x[:, m]: compact, then index
            return bounded_index.getitem_bounded(*selected, getitem)
        return fancy.read(x, items)
    index = basic_index(items)
    r = parse(x, index)
    if _is_scalar_copy(index, r):      # a NumPy scalar, never the array itself
        return as_scalar(read_at(x, r, index))
    def write_back(base, new):
        return write_at(base, r, index, new)

    write_back.region = r              # for writes of part of the view (bounded_scatter)
    view = AbstractArray.view_of(x, lambda base: read_at(base, r, index), write_back)
    mark_ndarray(view)                 # `x[...]` of a 0-d array is a 0-d array
    lays = indexed_layouts(x, index)
    if lays is not None:               # `x[:, ::2]`: views of it differ
        set_path_layouts(view, lays)
    return view


def setitem(x: AbstractArray, index, value):
    if not is_bounded(value):
        value = asarray(value)      # a list of traced scalars is an array too
        if value.weak or _basic(index):
            _check_scalar_fits(x.dtype, value)
    mask = _scalar_mask(index)
    if mask is not None:                  # x[m0] = v: into the view x[None]
        setitem(getitem(x, None), mask, value)
        return
    peeled = _leading_ints(index)
    if peeled is not None:                # y[n, ix] = v: into the view y[n]
        setitem(getitem(x, peeled[0]), peeled[1], value)
        return
    if bounded_fancy.applies(index):      # y[np.nonzero(m)[0]] = v
        bounded_fancy.write(x, index, value)
        return
    if bounded_index.dynamic_slices(index, x.shape):
        bounded_index.assign(bounded_index.slice_dynamic(x, index, getitem), value)
        return
    if is_bounded(value):
        _store_bounded(x, index, value)
        return
    items = classify(index)
    if not is_basic(items):
        if x.const is not None and value.const is not None and is_const(items):
            new = x.const.copy()
            new[const_index(items)] = value.const
            x.assign(as_abstract(new))
            return
        fancy.write(x, items, value)
        return
    index = basic_index(items)
    x.assign(write_at(x, parse(x, index), index, value))


def _store_bounded(x, index, value):
    """`x[index] = value` for a value whose length is only known at run time: through a
    boolean mask it fills the selected places in order; into a view it must match."""
    items = classify(index)
    masks = [v for k, v in items if k == "bool" and v.const is None]
    if masks:
        items = _drop_trailing_full(items)
        if len(items) != 1:
            value.refuse("assigning it through a mask combined with other indices")
        bounded_index.mask_assign(x, masks[0], value)
        return
    target = getitem(x, index)
    if not is_abstract(target) or target._view is None:
        value.refuse("assigning it to a single element")
    bounded_index.assign(target, value)


def _drop_trailing_full(items):
    """`x[m, ...]`, `x[m, :]`: trailing Ellipsis and full slices select what `x[m]`
    selects, in the same order."""
    items = list(items)
    while len(items) > 1 and (items[-1][0] == "ellipsis" or items[-1][0] == "slice" and
                              items[-1][1] == slice(None)):
        items.pop()
    return items


def _basic(index) -> bool:
    """Whether `index` is basic (integers, slices): NumPy checks a NumPy scalar stored
    through one as `int(v)` would, and casts it unchecked (INT_MIN for NaN or inf)
    through a mask or an index array; a Python scalar is checked either way."""
    try:
        return is_basic(classify(index))
    except Exception:     # an index only the store itself can judge: checked
        return True


def _check_scalar_fits(dtype, value):
    """NumPy converts a *scalar* stored into an integer array like `int(v)` would, and
    raises when that int does not fit (`int8_array[0] = 1000.7` is an OverflowError,
    NaN a ValueError); arrays are cast without a check, and so are NumPy scalars stored
    into unsigned arrays (NumPy wraps those). Constants are tried with NumPy itself;
    traced scalars get run-time checks."""
    if dtype.kind not in "iu" or value.shape or is_marked(value) or \
            value.dtype.kind not in "fiu" or np.can_cast(value.dtype, dtype) or \
            (dtype.kind == "u" and not value.weak):
        return
    if value.const is not None:
        probe = np.zeros((), dtype)
        probe[()] = value.const.item() if value.weak else value.const[()]
        return
    info = np.iinfo(dtype)
    v, high = value, None
    if value.dtype.kind == "f":
        check(dispatch(np.isnan, (value,), {}), "cannot convert float NaN to integer",
              error=ValueError)
        v = dispatch(np.trunc, (value,), {})
        # against max + 1, a power of two every float type holds exactly: max itself
        # rounds up to it in float32 (2147483647 -> 2**31), and 2**31 would pass
        high = dispatch(np.greater_equal, (v, float(info.max + 1)), {})
    low = dispatch(np.less, (v, info.min), {})
    if high is None:
        high = dispatch(np.greater, (v, info.max), {})
    check(dispatch(np.logical_or, (low, high), {}),
          f"Python integer out of bounds for {dtype}", error=OverflowError)


def fill(x: AbstractArray, value):
    """`x.fill(value)`: every element of `x` (and so of its aliases and views, and of the
    caller's array when `x` is an argument) becomes `value`. NumPy converts the value as
    `x[()] = value` of one element does (`int(v)` into integer arrays, None is NaN in
    a float array): a Python or NumPy scalar is converted by NumPy itself on a 0-d
    probe, so its errors are NumPy's; a traced 0-d value is stored as setitem stores
    it. An array of any other rank is NumPy's ValueError (a list, the probe's error)."""
    if is_bounded(value) or isinstance(value, np.ndarray) and value.ndim != 0 or \
            is_abstract(value) and value.ndim != 0:
        raise ValueError("setting an array element with a sequence.")
    if is_abstract(value) and value.const is not None:
        value = value.const.item() if value.weak else value.const[()]
    if not is_abstract(value):
        probe = np.zeros((), x.dtype)
        probe.fill(value)
        value = as_abstract(probe)
    setitem(x, Ellipsis, value)


register_method("fill", fill, fold=False)
bounded_methods.install(getitem, setitem)
