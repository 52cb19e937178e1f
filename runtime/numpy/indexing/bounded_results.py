"""NumPy functions whose result size depends on the data: np.nonzero (and the
one-argument np.where), np.flatnonzero, np.argwhere, np.unique, np.compress and
np.extract. Each is computed into a buffer as long as its bound (every element
selected) with a traced count; inside the function the result is a bounded array, and
returned from it, the caller gets exactly NumPy's array (`driver.jitted.trim`).
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index


from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.staging.bounded import BoundedArray, is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.indexing.bounded_index import compact
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions.reductions import asarray
from npxla.runtime.numpy.core.registry import dispatch, implements
from npxla.runtime.numpy.ufuncs.bounded import bind, elementwise

_I64 = np.dtype(np.int64)


def _truth(a):
    a = asarray(a)
    return a if a.dtype == np.bool_ else dispatch(np.not_equal, (a, 0), {})


def _positions(mask_flat):
    """The flat indices where `mask_flat` holds, in order (a bounded int64 vector)."""
    n = mask_flat.shape[0]
    return compact(S.iota(shape=(n,), dtype=_I64, dim=0), mask_flat)


@implements(np.flatnonzero, family="indexing")
def flatnonzero(a):
    return _positions(S.reshape(_truth(a), shape=(asarray(a).size,)))


def _coordinates(a):
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead.")
    flat = flatnonzero(a)
    coords, stride = [], 1
    for n in reversed(a.shape):
        coords.append(dispatch(np.remainder, (dispatch(np.floor_divide, (flat, stride), {}),
                                              n), {}) if n != a.size else
                      dispatch(np.floor_divide, (flat, stride), {}))
        stride *= n
    return tuple(reversed(coords)), flat


@implements(np.nonzero, method="nonzero", family="indexing")
def nonzero(a):
    coords, _ = _coordinates(a)
    return coords


def where_indices(condition):
    """np.where(condition): np.nonzero of it."""
    return nonzero(condition)


@implements(np.argwhere, family="indexing")
def argwhere(a):
    a = asarray(a)
    if a.ndim == 0:         # one row with no coordinates where a is true
        count = cast_to(_truth(a), _I64)
        empty = broadcast_to_shape(as_abstract(np.zeros((), _I64)), (1, 0))
        return BoundedArray(empty, (B.Extent(0, count), None))
    coords, flat = _coordinates(a)
    columns = [S.reshape(c.buf, shape=c.buf.shape + (1,)) for c in coords]
    buf = columns[0] if len(columns) == 1 else S.concatenate(*columns, axis=1)
    return BoundedArray(buf, (flat.ext[0], None))


@implements(np.unique, family="indexing")
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True):
    """The sorted distinct values: the first element of each run of equal values after
    a (stable) sort, compacted; NaNs count as one value (equal_nan). The index of each
    value's first occurrence, the inverse (each element's value number, in the input's
    shape, as NumPy 2 returns it) and the counts come from the same runs."""
    a = asarray(ar)
    extras = [(return_index, _first_indices), (return_inverse, _inverse),
              (return_counts, _counts)]
    if axis is not None:
        if a.ndim != 1:
            return _unique_rows(a, axis, extras)
        normalize_axis_index(operator.index(axis), 1)     # 1-d: as without axis
    n = a.size
    flat = S.reshape(a, shape=(n,))
    order = dispatch(np.argsort, (flat,), {"kind": "stable"}) \
        if return_index or return_inverse else None
    s = dispatch(np.sort, (flat,), {}) if order is None else dispatch(np.take, (flat, order), {})
    if n == 0:
        out = [s] + [as_abstract(np.zeros(a.shape if f is _inverse else 0, _I64))
                     for wanted, f in extras if wanted]
        return _results(out)
    first = S.concatenate(as_abstract(np.ones(1, np.bool_)), _starts_run(s, equal_nan), axis=0)
    out = [compact(s, first)] + [f(first, order, a.shape) for wanted, f in extras if wanted]
    return _results(out)


def _results(out):
    """np.unique's return: the values alone, or a tuple with the arrays asked for."""
    return out[0] if len(out) == 1 else tuple(out)


def _unique_rows(a, axis, extras):
    """`np.unique(a, axis=k)`: the distinct subarrays along axis k, as NumPy finds them
    (the axis moved first, the rest flattened into rows compared as records): rows in
    lexicographic order (a stable `lexsort` with column 0 as the primary key), each the
    first of its run of equal rows, then given back their shape and the axis its place.
    NaN rows never equal one another (`equal_nan` does not apply) and -0.0 equals 0.0;
    the inverse is 1-D."""
    axis = normalize_axis_index(operator.index(axis), a.ndim)
    moved = dispatch(np.moveaxis, (a, axis, 0), {}) if axis else a
    n, rest = moved.shape[0], moved.shape[1:]
    m = int(np.prod(rest, dtype=np.int64))
    wanted = [f for want, f in extras if want]
    if m == 0:                      # every row is the same empty record
        k = min(n, 1)
        values = broadcast_to_shape(as_abstract(np.zeros((), a.dtype)), (k,) + rest)
        static = {_first_indices: np.zeros(k, _I64), _inverse: np.zeros(n, _I64),
                  _counts: np.full(k, n, _I64)}
        return _results([_axis_back(values, axis)] +
                        [as_abstract(static[f]) for f in wanted])
    rows2 = S.reshape(moved, shape=(n, m))
    keys = tuple(rows2[:, j] for j in reversed(range(m)))
    order = dispatch(np.lexsort, (keys,), {})
    s = dispatch(np.take, (rows2, order), {"axis": 0})
    if n == 0:
        out = [_axis_back(S.reshape(s, shape=(0,) + rest), axis)]
        return _results(out + [as_abstract(np.zeros(0, _I64)) for _ in wanted])
    differs = dispatch(np.any, (dispatch(np.not_equal, (s[1:], s[:-1]), {}),), {"axis": 1})
    first = S.concatenate(as_abstract(np.ones(1, np.bool_)), differs, axis=0)
    rows = compact(s, first)
    values = BoundedArray(S.reshape(rows.buf, shape=(n,) + rest),
                          rows.ext[:1] + (None,) * len(rest), rows.extent_deps)
    out = [_axis_back(values, axis)] + [f(first, order, (n,)) for f in wanted]
    return _results(out)


def _axis_back(values, axis):
    """Values computed with the unique axis first, that axis put back in place."""
    if not axis:
        return values
    if not is_bounded(values):
        return dispatch(np.moveaxis, (values, 0, axis), {})
    ext = list(values.ext[1:])
    ext.insert(axis, values.ext[0])
    buf = dispatch(np.moveaxis, (values.buf, 0, axis), {})
    return BoundedArray(buf, ext, values.extent_deps)


def _starts_run(s, equal_nan):
    """Where s[1:] differs from s[:-1] (NaN equal to NaN when `equal_nan`)."""
    later, earlier = s[1:], s[:-1]
    new = dispatch(np.not_equal, (later, earlier), {})
    if equal_nan and s.dtype.kind in "fc":
        both = dispatch(np.logical_and, (dispatch(np.isnan, (later,), {}),
                                         dispatch(np.isnan, (earlier,), {})), {})
        new = dispatch(np.logical_and, (new, dispatch(np.logical_not, (both,), {})), {})
    return new


def _first_indices(first, order, shape):
    """The position in the input of each value's first occurrence: the stable sort
    keeps equal values in input order, so a run's first element is the earliest."""
    return compact(order, first)


def _inverse(first, order, shape):
    """Each input element's value number: its run's number in sorted order, put back
    in input order by the inverse permutation of the sort."""
    group = E.subtract(dispatch(np.cumsum, (cast_to(first, _I64),), {}),
                       broadcast_to_shape(as_abstract(np.int64(1)), first.shape))
    rank = dispatch(np.argsort, (order,), {"kind": "stable"})
    return S.reshape(dispatch(np.take, (group, rank), {}), shape=shape)


def _counts(first, order, shape, end=None):
    """Each run's length: the distance from its start to the next run's start (the
    last run ends at `end`, default the end of the sorted values)."""
    n = first.shape[0]
    end = n if end is None else end
    starts = _positions(first)
    pos = S.iota(shape=(n,), dtype=_I64, dim=0)
    nxt = S.concatenate(S.static_slice(starts.buf, start=(1,), limit=(n,), strides=(1,)),
                        as_abstract(np.array([n], _I64)), axis=0)
    last = E.compare(pos, broadcast_to_shape(B.traced(B.sub(starts.ext[0].count, 1)), (n,)),
                     "EQ")
    nxt = S.select(last, broadcast_to_shape(B.traced(end), (n,)), nxt)
    return BoundedArray(E.subtract(nxt, starts.buf), starts.ext)


def unique_bounded(b: BoundedArray, return_index=False, return_inverse=False,
                   return_counts=False, axis=None, *, equal_nan=True):
    """np.unique of a 1-d array of run-time length (`np.unique(labels[mask])`): sorted
    with the padding last (stable, after real NaNs), runs started only inside the
    run-time length, then compacted like the static case; counts end at that length."""
    if b.ndim != 1 or return_index or return_inverse:
        b.refuse("np.unique of it with return_index=, return_inverse= or more than one "
                 "dimension")
    if axis is not None:
        normalize_axis_index(operator.index(axis), 1)
    e = b.ext[0]
    front = B.at_front(b)
    n = b.bound[0]
    if n == 0:
        return _results([front.buf] +
                        ([as_abstract(np.zeros(0, _I64))] if return_counts else []))
    s = dispatch(np.sort, (B.filled(front, B.sorts_last(b.dtype)),), {"kind": "stable"})
    inside = E.compare(S.iota(shape=(n,), dtype=_I64, dim=0),
                       broadcast_to_shape(B.traced(e.count), (n,)), "LT")
    first = S.concatenate(as_abstract(np.ones(1, np.bool_)), _starts_run(s, equal_nan), axis=0)
    first = E.bitwise_and(first, inside)
    out = [compact(s, first)]
    if return_counts:
        out.append(_counts(first, None, (n,), end=e.count))
    return _results(out)


def compress(condition, a, axis=None, out=None):
    a = asarray(a)
    cond = _truth(condition)
    if out is not None or cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    if axis is None:
        a = S.reshape(a, shape=(a.size,))
        axis = 0
    axis = normalize_axis_index(operator.index(axis), a.ndim)
    n = a.shape[axis]
    if cond.shape[0] > n:
        raise IndexError(f"index {n} is out of bounds for axis {axis} with size {n}")
    if cond.shape[0] < n:
        cond = S.concatenate(cond, as_abstract(np.zeros(n - cond.shape[0], np.bool_)),
                             axis=0)
    moved = dispatch(np.moveaxis, (a, axis, 0), {})
    picked = compact(moved, cond)
    buf = dispatch(np.moveaxis, (picked.buf, 0, axis), {})
    ext = [None] * a.ndim
    ext[axis] = picked.ext[0]
    return BoundedArray(buf, ext)


def extract(condition, arr):
    arr = asarray(arr)
    cond = _truth(condition)
    if cond.size != arr.size:
        raise ValueError("np.extract needs a condition with as many elements as the array "
                         f"({cond.size} and {arr.size})")
    return compact(S.reshape(arr, shape=(arr.size,)), S.reshape(cond, shape=(cond.size,)),
                   keep=True)


# --- positions of true elements of an array of run-time length --------------------------
def _truth_bounded(b: BoundedArray):
    """`b`'s truth values with its valid elements at the front of the buffer and the
    padding False: its positions there are its own (the buffer's row-major order over
    the valid box is NumPy's over the array)."""
    front = B.at_front(b)
    false = broadcast_to_shape(as_abstract(np.bool_(False)), front.bound)
    return S.select(B.valid_mask(front), _truth(front.buf), false)


def _nonzero_bounded(fn, args, kwargs):
    coords, _ = _coordinates(_truth_bounded(_arg(fn, args, kwargs, "a")))
    return coords


def _flatnonzero_bounded(fn, args, kwargs):
    b = _arg(fn, args, kwargs, "a")
    if b.ndim != 1:
        b.refuse("np.flatnonzero of a multi-dimensional array")
    return flatnonzero(_truth_bounded(b))


def _argwhere_bounded(fn, args, kwargs):
    return argwhere(_truth_bounded(_arg(fn, args, kwargs, "a")))


def _where_bounded(fn, args, kwargs):
    if len(args) == 1 and not kwargs:         # np.where(condition): np.nonzero
        return _nonzero_bounded(np.nonzero, args, {})
    return elementwise(fn, args, kwargs)


def _arg(fn, args, kwargs, name):
    return bind(fn, args, kwargs)[name]


# the bounded-extent forms (ndarray/bounded.py routes a bounded argument here)
HANDLERS = {"np.unique": lambda fn, args, kwargs: unique_bounded(*args, **kwargs),
            "np.nonzero": _nonzero_bounded, "np.flatnonzero": _flatnonzero_bounded,
            "np.argwhere": _argwhere_bounded, "np.where": _where_bounded}
