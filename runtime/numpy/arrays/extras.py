"""Commonly used NumPy helpers built from registered functions: select, nan_to_num,
append, split / array_split / hsplit / vsplit / dsplit, dstack, rollaxis, tri, vander,
digitize, trapezoid, isin, insert, delete, piecewise, polyfit (np.trapz is gone from
NumPy 2.4, so only np.trapezoid is registered).

Everything here composes functions that are already registered (`np.where`,
`np.concatenate`, `np.searchsorted`, ...), so dtypes and values follow theirs.
`insert`/`delete` let NumPy itself decide the result layout: NumPy's own `insert`/
`delete` run on arrays of element *ids* (the static shapes are known), and the result is
one gather of those ids, so index normalisation, broadcasting of `values` and error
messages are NumPy's. `piecewise` gives a function the elements its condition selects
(a run-time-length array), as NumPy does, since a function of the whole selection (a
norm, a mean) differs on the whole array; a ufunc is evaluated on the whole array and
its results selected; `isin` is a broadcast comparison reduced with `any`; `polyfit` is NumPy's
scaled Vandermonde system solved by the registered `np.linalg.lstsq`.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.transpiler.base.dtypes import result_type
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.reductions.histograms import take
from npxla.runtime.numpy.reductions.reductions import static
from npxla.runtime.numpy.core.registry import dispatch, implements

_FAMILY = "extras"


def _np(fn, *args, **kwargs):
    return dispatch(fn, args, kwargs)


# --- select / piecewise ------------------------------------------------------------------

@implements(np.select, family=_FAMILY)
def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    # NumPy keeps Python scalars weak here (NEP 50)
    choices = [as_abstract(c) if type(c) in (int, float, complex) or is_abstract(c)
               else as_array(c) for c in list(choicelist) + [default]]
    dtype, _ = result_type(*[(c.dtype, c.weak) for c in choices])
    conds = [as_array(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    result = cast_to(choices[-1], dtype)
    for cond, choice in zip(conds[::-1], choices[-2::-1]):
        result = _np(np.where, cond, cast_to(choice, dtype), result)
    return result


def piecewise_conditions(x, condlist, funclist):
    """(x as an array, its boolean conditions) as NumPy's piecewise reads them, with the
    "otherwise" condition added when there is one function more than conditions."""
    x = as_array(x)
    if isinstance(condlist, (list, tuple)):
        first = condlist[0] if condlist else None
        nested = isinstance(first, (list, tuple, np.ndarray)) or (
            is_abstract(first) and first.ndim > 0)
        conds = [as_array(c) for c in condlist] if nested or x.ndim == 0 \
            else [as_array(condlist)]
    else:                       # one array: its rows are conditions if it is 2-d or more
        c = as_array(condlist)
        conds = [c[i] for i in range(c.shape[0])] if c.ndim >= 2 else [c]
    conds = [c if c.dtype == np.bool_ else cast_to(c, np.bool_) for c in conds]
    n, n2 = len(conds), len(funclist)
    if n == n2 - 1:
        any_ = conds[0]
        for c in conds[1:]:
            any_ = any_ | c
        conds.append(~any_)
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are "
                         "expected")
    return x, conds


@implements(np.piecewise, family=_FAMILY,
            notes="a function is given the elements its condition selects, as in NumPy, "
                  "and called only when there are any (a ufunc is evaluated on the whole "
                  "array and its results selected)")
def piecewise(x, condlist, funclist, *args, **kw):
    """Reached from code that is not converted: converted code calls the converted
    NumPy-code version (operators/numpy_callbacks.py), which does not call a function
    for an empty selection."""
    x, conds = piecewise_conditions(x, condlist, funclist)
    y = _np(np.zeros_like, x)
    for cond, func in zip(conds, funclist):
        if callable(func) and not isinstance(func, np.ufunc) and x.ndim > 0:
            y[cond] = func(x[cond], *args, **kw)     # NumPy's own: only the selection
            continue
        val = func(x, *args, **kw) if callable(func) else func
        y = _np(np.where, cond, cast_to(as_array(val), x.dtype), y)
    return y


# --- nan_to_num --------------------------------------------------------------------------

def _fill(value, dtype):
    if is_abstract(value):
        return cast_to(value, dtype)
    return as_array(np.asarray(value).astype(dtype))


def _nan_to_num_real(d, nan, posinf, neginf):
    info = np.finfo(d.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    d = _np(np.where, _np(np.isnan, d), _fill(nan, d.dtype), d)
    d = _np(np.where, _np(np.equal, d, np.inf), _fill(posinf, d.dtype), d)
    return _np(np.where, _np(np.equal, d, -np.inf), _fill(neginf, d.dtype), d)


@implements(np.nan_to_num, family=_FAMILY)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    arr = as_array(x)
    kind = arr.dtype.kind
    if kind == "f":
        out = _nan_to_num_real(arr, nan, posinf, neginf)
    elif kind == "c":
        re = _nan_to_num_real(_np(np.real, arr), nan, posinf, neginf)
        im = _nan_to_num_real(_np(np.imag, arr), nan, posinf, neginf)
        out = X.complex_(re, im)
    else:
        out = _np(np.copy, arr)
    if not copy and is_abstract(x) and not x.weak and x.ndim > 0:
        x.assign(out)
        return x
    return out


# --- append / stacking / axes ------------------------------------------------------------

@implements(np.append, family=_FAMILY)
def append(arr, values, axis=None):
    arr = as_array(arr)
    axis = static(axis, "axis")
    if axis is None:
        if arr.ndim != 1:
            arr = _np(np.ravel, arr)
        values = _np(np.ravel, as_array(values))
        axis = arr.ndim - 1
    return _np(np.concatenate, (arr, values), axis=axis)


@implements(np.dstack, family=_FAMILY)
def dstack(tup):
    arrs = [_np(np.atleast_3d, a) for a in tup]
    return _np(np.concatenate, arrs, 2)


@implements(np.rollaxis, family=_FAMILY)
def rollaxis(a, axis, start=0):
    a = as_array(a)
    n = a.ndim
    axis = normalize_axis_index(static(axis, "axis"), n)
    start = static(start, "start")
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(
            f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return _np(np.transpose, a, axes)


# --- split family ------------------------------------------------------------------------

def _along(axis, start, stop):
    return (slice(None),) * axis + (slice(start, stop),)


@implements(np.array_split, family=_FAMILY)
def array_split(ary, indices_or_sections, axis=0):
    ary = as_array(ary)
    axis = static(axis, "axis")
    sections = static(indices_or_sections, "indices_or_sections")
    total = ary.shape[axis]
    try:
        n_sections = len(sections) + 1
        div_points = [0] + list(sections) + [total]
    except TypeError:
        n_sections = int(sections)
        if n_sections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(total, n_sections)
        sizes = [0] + extras * [each + 1] + (n_sections - extras) * [each]
        div_points = np.cumsum(sizes).tolist()
    axis = normalize_axis_index(axis, ary.ndim)
    return [ary[_along(axis, div_points[i], div_points[i + 1])] for i in range(n_sections)]


@implements(np.split, family=_FAMILY)
def split(ary, indices_or_sections, axis=0):
    sections = static(indices_or_sections, "indices_or_sections")
    if not isinstance(sections, (tuple, list, np.ndarray)):
        if as_array(ary).shape[static(axis, "axis")] % sections:
            raise ValueError("array split does not result in an equal division") from None
    return array_split(ary, sections, axis)


def _fixed_axis_split(fn, min_ndim, axis_of):
    """hsplit / vsplit / dsplit: `split` along an axis chosen from the rank."""
    what = "1 or more" if min_ndim == 1 else f"{min_ndim} or more"

    @implements(fn, family=_FAMILY)
    def impl(ary, indices_or_sections):
        ary = as_array(ary)
        if ary.ndim < min_ndim:
            raise ValueError(f"{fn.__name__} only works on arrays of {what} dimensions")
        return split(ary, indices_or_sections, axis_of(ary.ndim))
    return impl


hsplit = _fixed_axis_split(np.hsplit, 1, lambda ndim: 1 if ndim > 1 else 0)
vsplit = _fixed_axis_split(np.vsplit, 2, lambda ndim: 0)
dsplit = _fixed_axis_split(np.dsplit, 3, lambda ndim: 2)


# --- tri / vander ------------------------------------------------------------------------

@implements(np.tri, family=_FAMILY, creates=True)
def tri(N, M=None, k=0, dtype=float, *, like=None):
    N = static(N, "N")
    M = N if static(M, "M") is None else static(M, "M")
    rows = as_array(np.arange(N).reshape(N, 1))
    cols = as_array(np.arange(M).reshape(1, M))
    mask = _np(np.less_equal, cols - rows, k)
    return cast_to(mask, np.dtype(dtype))


@implements(np.vander, family=_FAMILY)
def vander(x, N=None, increasing=False):
    x = as_array(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0] if static(N, "N") is None else static(N, "N")
    increasing = static(increasing, "increasing")
    dtype = np.promote_types(x.dtype, int)
    xc = cast_to(x, dtype)
    cols = []
    if n > 0:
        cols.append(_np(np.ones_like, xc))
    if n > 1:
        cols.append(xc)
        for _ in range(n - 2):
            cols.append(cols[-1] * xc)   # multiply.accumulate's order
    if not cols:
        return _np(np.zeros, (x.shape[0], 0), dtype)
    if not increasing:
        cols = cols[::-1]
    return _np(np.stack, cols, 1)


@implements(np.polyfit, family=_FAMILY,
            notes="through np.linalg.lstsq (SVD); no RankWarning (the rank is traced); "
                  "cov= is not supported")
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """np.polyfit by least squares on the scaled Vandermonde matrix (NumPy scales the
    columns to improve the condition number); full= returns NumPy's residuals, rank,
    singular values and rcond."""
    if static(cov, "cov") is not False:
        raise UnsupportedFunctionError("np.polyfit(..., cov=...) is not supported on "
                                       "traced arrays", hint="use cov=False")
    deg = static(deg, "deg")
    order = int(deg) + 1
    x, y = as_array(x) + 0.0, as_array(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    rcond = x.shape[0] * np.finfo(x.dtype).eps if static(rcond, "rcond") is None \
        else static(rcond, "rcond")
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = as_array(w) + 0.0
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    scale = _np(np.sqrt, _np(np.sum, lhs * lhs, axis=0))
    c, resids, rank, sv = _np(np.linalg.lstsq, lhs / scale, rhs, rcond)
    c = (c.T / scale).T
    if static(full, "full"):
        return c, resids, rank, sv, rcond
    return c


# --- digitize / isin ---------------------------------------------------------------------

@implements(np.digitize, family=_FAMILY,
            notes="traced `bins` are not checked for monotonicity: increasing unless "
                  "bins[0] > bins[-1]")
def digitize(x, bins, right=False):
    x, bins = as_array(x), as_array(bins)
    right = static(right, "right")
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array" if bins.ndim > 1
                         else "object of too small depth for desired array")
    side = "left" if right else "right"
    n = bins.shape[0]
    if bins.const is not None:
        c = bins.const
        inc = bool(np.all(c[1:] >= c[:-1]))
        dec = bool(np.all(c[1:] <= c[:-1]))
        if not (inc or dec):
            raise ValueError("bins must be monotonically increasing or decreasing")
        if inc:
            return _np(np.searchsorted, bins, x, side=side)
        return n - _np(np.searchsorted, bins[::-1], x, side=side)
    up = _np(np.searchsorted, bins, x, side=side)
    if n < 2:
        return up
    down = n - _np(np.searchsorted, bins[::-1], x, side=side)
    return _np(np.where, bins[0] > bins[n - 1], down, up)


@implements(np.isin, family=_FAMILY,
            notes="compares every element with every test element (memory "
                  "element.size * test_elements.size); `kind` is accepted and ignored")
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    element, test = as_array(element), as_array(test_elements)
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    flat = _np(np.ravel, test)
    eq = _np(np.equal, element[..., None], flat)
    hit = _np(np.any, eq, axis=-1)
    return ~hit if static(invert, "invert") else hit


# --- trapezoid ---------------------------------------------------------------------------

@implements(np.trapezoid, family=_FAMILY)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = as_array(y)
    axis = normalize_axis_index(static(axis, "axis"), y.ndim)
    if x is None:
        d = dx
    else:
        x = as_array(x)
        if x.ndim == 1:
            d = _np(np.diff, x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = _np(np.reshape, d, tuple(shape))
        else:
            d = _np(np.diff, x, axis=axis)
    n = y.shape[axis]
    hi = y[_along(axis, 1, None)]
    lo = y[_along(axis, None, -1 if n else None)] if n else y
    return _np(np.sum, d * (hi + lo) / 2.0, axis)


# --- insert / delete ---------------------------------------------------------------------

def _ids(shape, start=0):
    return np.arange(start, start + int(np.prod(shape, dtype=np.int64)),
                     dtype=np.int64).reshape(shape)


@implements(np.delete, family=_FAMILY,
            notes="`obj` must be known when compiling")
def delete(arr, obj, axis=None):
    arr = as_array(arr)
    obj = _static_obj(obj)
    ids = np.delete(_ids(arr.shape), obj, axis=static(axis, "axis"))
    return _gather_ids(_np(np.ravel, arr), ids)


@implements(np.insert, family=_FAMILY,
            notes="`obj` must be known when compiling")
def insert(arr, obj, values, axis=None):
    arr = as_array(arr)
    obj = _static_obj(obj)
    values = cast_to(as_array(values), arr.dtype)
    ids = np.insert(_ids(arr.shape), obj, _ids(values.shape, arr.size),
                    axis=static(axis, "axis"))
    table = _np(np.concatenate, (_np(np.ravel, arr), _np(np.ravel, values)))
    return _gather_ids(table, ids)


def _gather_ids(table, ids):
    """table[ids] for the 1-d `table` and a constant id array (empty results allowed)."""
    if ids.size == 0:
        return _np(np.zeros, ids.shape, table.dtype)
    return take(table, as_array(ids))


def _static_obj(obj):
    if isinstance(obj, slice):
        return slice(*(static(v, "obj") for v in (obj.start, obj.stop, obj.step)))
    if isinstance(obj, (list, tuple)):
        return [static(v, "obj") for v in obj]
    if is_abstract(obj):
        value = static(obj, "obj")
        return np.asarray(value, dtype=obj.dtype)
    return obj
