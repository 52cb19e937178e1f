"""The memory layouts NumPy gives arrays, as *stand-ins*, for its view-or-copy rules.

Whether `ravel`, `reshape` or `ascontiguousarray` return a view or a copy depends on
the array's strides, and a write through the result reaches the array only when it
is a view. Compiled arrays have no strides, so each handle carries a layout stand-in:
an ndarray over a one-byte buffer whose strides (in elements) mirror what NumPy's array
would have (never read, so any shape is free). C-contiguous unless set:

- arguments: their own strides (`driver/staging.py`);
- views made by indexing, transposes, flips...: derived from their base's stand-in;
- new arrays NumPy lays out like their inputs (order 'K'): ufunc results, `np.copy`,
  `astype`, `*_like` (`k_order_layout`: NumPy's own iterator decides, on small twins
  of the operands' stand-ins): `(a.T * 2).ravel()` copies, as in NumPy;
- the result of a data-dependent `if`: one stand-in per path (`set_path_layouts`).
  Where the paths disagree (`y = np.ones((4, 4)).T` on one, a C array on the other)
  a view-or-copy decision that differs between them becomes a copy whose writes are
  refused (`shape.path_dependent_copy`).
"""
from __future__ import annotations

import weakref

import numpy as np
from numpy.lib.stride_tricks import as_strided

from npxla.runtime.staging.abstract import AbstractArray

_BYTE = np.zeros(1, np.int8)
_LAYOUT: dict = {}          # id(handle) -> (weak reference, layout stand-in)
_PATHS: dict = {}           # id(handle) -> (weak reference, [stand-in per path])


def c_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def c_layout(shape):
    return as_strided(_BYTE, shape=shape, strides=c_strides(shape))


def _registered(table, x):
    hit = table.get(id(x))
    return hit[1] if hit is not None and hit[0]() is x else None


def _register(table, x, value):
    key = id(x)
    table[key] = (weakref.ref(x, lambda _r, k=key: table.pop(k, None)), value)


def layout(x: AbstractArray):
    """The layout stand-in of a handle (its first path's where paths differ)."""
    lay = _registered(_LAYOUT, x)
    if lay is None or lay.shape != x.shape:
        lay = c_layout(x.shape)
    return lay


def set_layout(x: AbstractArray, strides=None, lay=None):
    """Give handle `x` the layout of an array with these element strides (an argument)
    or the stand-in `lay` (a view made by indexing), so that later views and copies of
    it follow NumPy's rules for that layout."""
    if lay is None:
        lay = as_strided(_BYTE, shape=x.shape, strides=strides)
    if lay.shape == x.shape and lay.strides != c_strides(x.shape):
        _register(_LAYOUT, x, lay)     # (C, the default, is not recorded: `has_layout`)


def has_layout(x) -> bool:
    """Whether `x` may be laid out other than C-contiguously (quick: no stand-in)."""
    return type(x) is AbstractArray and (
        id(x) in _LAYOUT or id(x) in _PATHS or x._switch is not None)


def path_layouts(x: AbstractArray) -> list:
    """The stand-ins of the arrays `x` may be: one per path of the data-dependent
    regions that made it where they differ, else its one layout. A switch handle (an
    existing array on some paths) has its merged value's and each option's."""
    if x._switch is not None:
        fresh, options = x._switch
        out = path_layouts(fresh)
        for _, o in options:
            out += path_layouts(o)
        return _distinct(out)
    paths = _registered(_PATHS, x)
    if paths is not None and paths[0].shape == x.shape:
        return list(paths)
    return [layout(x)]


def set_path_layouts(x: AbstractArray, lays):
    """Give `x` these per-path stand-ins (nothing to record when all are C)."""
    lays = _distinct([lay for lay in lays if lay.shape == x.shape])
    if not lays or (len(lays) == 1 and lays[0].flags.c_contiguous and
                    lays[0].strides == c_strides(x.shape)):
        return
    set_layout(x, lay=lays[0])
    if len(lays) > 1:
        _register(_PATHS, x, lays)


def branch_layouts(merged: AbstractArray, values):
    """Give the merged result of a data-dependent `if` the layouts of the arrays its
    branches gave (`values`, one per branch; C-contiguous for a Python value or a
    scalar made into an array)."""
    if not merged.ndim or not any(has_layout(v) for v in values):
        return
    lays = []
    for v in values:
        lays += path_layouts(v) if type(v) is AbstractArray and v.shape == merged.shape \
            else [c_layout(merged.shape)]
    set_path_layouts(merged, lays)


def carried_layouts(current, value, shape):
    """The stand-ins a loop-carried array may have after one more trip that gave
    `value`: `current` (those it had entering the trip, or None for C alone) and
    `value`'s; None when that adds nothing (the loop's layouts have settled)."""
    if current is None and not has_layout(value):
        return None
    current = current or [c_layout(shape)]
    new = path_layouts(value) if type(value) is AbstractArray and value.shape == shape \
        else [c_layout(shape)]
    grown = _distinct(current + new)
    return grown if len(grown) > len(current) else None


def derived_layouts(x: AbstractArray, derive) -> list:
    """`derive` (stand-in -> stand-in of a view) applied on each path of `x`."""
    return [derive(lay) for lay in path_layouts(x)]


def _distinct(lays):
    seen, out = set(), []
    for lay in lays:
        key = (lay.shape, lay.strides)
        if key not in seen:
            seen.add(key)
            out.append(lay)
    return out


def indexed_layouts(x: AbstractArray, index):
    """The stand-ins of `x[index]` on each path (a basic index: ints, slices, None,
    ...), traced integers read as 0 (a position does not change strides); None when
    the index has anything else."""
    items = index if isinstance(index, tuple) else (index,)
    static = []
    for item in items:
        if item is None or item is Ellipsis or type(item) in (int, bool):
            static.append(item)
        elif type(item) is slice and all(v is None or type(v) is int
                                         for v in (item.start, item.stop, item.step)):
            static.append(item)
        elif isinstance(item, AbstractArray) and item.ndim == 0 and \
                item.dtype.kind in "iu":
            static.append(0)
        else:
            return None
    try:
        return derived_layouts(x, lambda lay: lay[tuple(static)])
    except (IndexError, TypeError, ValueError):
        return None


# --- order 'K': new arrays laid out like their inputs -----------------------------------

def laid_out_from(out, operands):
    """`out` (a new array NumPy makes in order 'K' from `operands`: a ufunc's result,
    `np.where`) with the layout NumPy gives it (`(a.T * 2).ravel()` is a copy)."""
    if type(out) is AbstractArray and out.ndim and not any(out is o for o in operands):
        lays = k_order_layout(operands, out.shape)
        if lays:
            set_path_layouts(out, lays)
    return out


def laid_out_like(out, source):
    """`out` (a new array NumPy makes in order 'K' from `source`: `np.copy`, `astype`,
    `np.array`, `*_like`) with `source`'s layout."""
    if type(source) is AbstractArray and getattr(out, "shape", None) == source.shape:
        return laid_out_from(out, [source])
    return out


def k_order_layout(operands, shape):
    """The stand-in of a new array of `shape` that NumPy allocates in order 'K' from
    `operands` (a ufunc's result, `np.copy`, `astype`, `*_like`), or None when it is
    C-contiguous or the operands' layouts are not known here. NumPy's iterator decides
    on small twins of the operands' stand-ins (extents cut to 2: only the order of the
    strides matters), so its tie rules are NumPy's own."""
    arrays = [o for o in operands if type(o) is AbstractArray and o.ndim]
    if not any(has_layout(o) for o in arrays) or 0 in shape:
        return None
    per_path = [path_layouts(o) for o in arrays]
    results = _distinct([_k_order(twins, shape) for twins in _combinations(per_path)])
    if all(r.flags.c_contiguous for r in results):
        return None
    return results


def _combinations(per_path):
    combos = [[]]
    for lays in per_path:
        combos = [c + [lay] for c in combos for lay in lays]
        if len(combos) > 16:         # many paths: the first of each is enough to know
            return [[lays[0] for lays in per_path]]
    return combos


def _k_order(lays, shape):
    twins = [_twin(lay) for lay in lays]
    try:
        it = np.nditer(twins + [None], flags=["refs_ok", "zerosize_ok"],
                       op_flags=[["readonly"]] * len(twins) + [["writeonly", "allocate"]],
                       order="K")
    except ValueError:
        return c_layout(shape)
    out = it.operands[-1]
    small = tuple(min(n, 2) for n in shape)
    if out.shape != small:
        return c_layout(shape)
    order = sorted(range(len(shape)), key=lambda ax: -abs(out.strides[ax]))
    strides = [0] * len(shape)
    acc = 1
    for ax in reversed(order):
        strides[ax] = acc
        acc *= max(shape[ax], 1)
    return as_strided(_BYTE, shape=shape, strides=tuple(strides))


def _twin(lay):
    """A real int8 array of extents at most 2 whose strides have `lay`'s order, signs
    and zeros (broadcast axes)."""
    shape = tuple(min(n, 2) for n in lay.shape)
    real = [ax for ax in range(lay.ndim) if lay.strides[ax] != 0 or shape[ax] == 1]
    order = sorted(real, key=lambda ax: -abs(lay.strides[ax]))
    buf = np.zeros(tuple(shape[ax] for ax in order), np.int8)
    dense = np.moveaxis(buf, range(len(order)), [real.index(ax) for ax in order])
    dense = np.expand_dims(dense, tuple(ax for ax in range(lay.ndim) if ax not in real))
    flips = tuple(ax for ax in real if lay.strides[ax] < 0)
    if flips:
        dense = np.flip(dense, flips)
    return np.broadcast_to(dense, shape)
