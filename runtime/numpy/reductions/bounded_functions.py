"""NumPy functions beyond reductions on arrays of run-time length (bounded arrays):
sorting, searching, medians and quantiles, differences and gradients, the nan*
extremes, peak-to-peak, averages and histograms.

Each is written once on the static implementation, by giving it a buffer whose padding
cannot change the answer (sorted last, NaN for the nan* forms, the operation's
identity) and, where the length matters (a median's middle, a sort's result), the
traced count. `x[mask]`, `A[i, :i]` and `np.unique` results then feed them like any
array, as in NumPy.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.ufuncs import bounded as ops
from npxla.runtime.numpy.reductions import bounded as R
from npxla.runtime.numpy.ufuncs.bounded import one_d
from npxla.runtime.numpy.arrays.bounded import join, padded
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.core.values import fresh


_I64 = np.dtype(np.int64)
_NONE = np._NoValue


# --- sorting --------------------------------------------------------------------------------
def _sort(fn, args, kwargs):
    """np.sort / np.argsort along an axis: the valid window first, the padding filled
    with a value that sorts last; the result has the same extents from offset 0."""
    params = ops.bind(fn, args, kwargs)
    b = params.pop("a")
    axis = params.pop("axis", -1)
    if axis is None:
        b = one_d(b, fn.__name__)
        axis = 0
    axis = normalize_axis_index(operator.index(axis), b.ndim)
    b = B.at_front(b)
    buf = B.filled(b, B.sorts_last(b.dtype), [axis]) if b.ext[axis] is not None else b.buf
    params["kind"] = "stable"
    out = dispatch(fn, (buf,), {"axis": axis, **params})
    return B.make(out, b.ext, b.extent_deps)


# --- medians and quantiles ----------------------------------------------------------------------
def _quantile_like(fn, args, kwargs):
    """np.median/quantile/percentile (and nan*) of a 1-d array of run-time length: the
    nan* form of the static function on a buffer padded with NaN ignores the padding;
    the plain forms give NaN where a real NaN is present, as NumPy's do. Integers are
    computed as float64 (exact below 2**53), and typed as NumPy types their result."""
    if not is_bounded(args[0]):
        ops.first_bounded((args, kwargs)).refuse(f"np.{fn.__name__} with such a q")
    b = one_d(args[0], fn.__name__)
    params = ops.bind(fn, args, kwargs)
    params.pop("a")
    if params.get("axis") is not None:
        normalize_axis_index(operator.index(params.pop("axis")), 1)
    name = fn.__name__
    if name in ("quantile", "percentile"):      # NumPy indexes the empty sorted array
        index = -1 if b.dtype.kind in "fc" else 0
        check(B.compare(b.ext[0].count, 0, "EQ"),
              f"index {index} is out of bounds for axis 0 with size 0", error=IndexError)
    vals = b if b.dtype.kind in "fc" else b.astype(np.float64)
    nan_fn = getattr(np, name if name.startswith("nan") else "nan" + name)
    result = dispatch(nan_fn, (B.filled(vals, np.nan),), params)
    if not name.startswith("nan") and b.dtype.kind in "fc":
        real_nan = dispatch(np.any, (dispatch(np.isnan, (vals,), {}),), {})
        result = dispatch(np.where, (real_nan, np.nan, result), {})
        result = cast_to(result, vals.dtype) if result.dtype != vals.dtype else result
    if b.dtype.kind not in "fc":
        probe = getattr(np, name.removeprefix("nan"))(
            np.zeros(2, b.dtype), *((0.5,) if "q" in params else ()),
            **({"method": params["method"]} if "method" in params else {}))
        result = cast_to(result, np.asarray(probe).dtype)
    return result


def _diff(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    b = one_d(params.pop("a"), "diff")
    n = operator.index(params.pop("n", 1))
    if params.get("axis") is not None:
        normalize_axis_index(operator.index(params.pop("axis")), 1)
    before, after = params.pop("prepend", _NONE), params.pop("append", _NONE)
    if params or n < 0:
        b.refuse("np.diff with n < 0")
    if before is not _NONE or after is not _NONE:     # NumPy concatenates them first
        b = join(([_piece(before, b, "diff")] if before is not _NONE else []) + [b] +
                 ([_piece(after, b, "diff")] if after is not _NONE else []), "diff")
    for _ in range(n):
        b = B.at_front(b) if is_bounded(b) else b
        if not is_bounded(b):
            return dispatch(np.diff, (b,), {})
        buf = b.buf
        if buf.shape[0] == 0:
            return b
        step = dispatch(np.diff, (buf,), {})
        b = B.make(step, (B.Extent(0, B.maximum(B.sub(b.ext[0].count, 1), 0)),),
                   b.extent_deps)
    return b


def _piece(value, example, name):
    """A value put before or after a 1-d array (`prepend=`, `to_end=`): an array (NumPy's
    `asanyarray`), one element where it is 0-d."""
    if is_bounded(value):
        return one_d(value, name)
    v = dispatch(np.asarray, (value,), {})
    if v.ndim == 0:
        return dispatch(np.reshape, (v, (1,)), {})
    if v.ndim != 1:
        example.refuse(f"np.{name} with a {v.ndim}-d value to put before or after")
    return v


def _ediff1d(fn, args, kwargs):
    """np.ediff1d: the differences of the flattened array, with `to_begin` and `to_end`
    around them, in the array's dtype (NumPy's `same_kind` check first)."""
    params = ops.bind(fn, args, kwargs)
    ary = params["ary"]
    flat = one_d(ary, "ravel") if is_bounded(ary) else dispatch(np.ravel, (ary,), {})
    steps = dispatch(np.subtract, (flat[1:], flat[:-1]), {})
    parts = []
    for key in ("to_begin", "to_end"):
        value = params.get(key)
        if value is None:
            continue
        piece = dispatch(np.ravel, (_piece(value, flat, "ediff1d"),), {})
        if not np.can_cast(piece.dtype, flat.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{key}` must be compatible with input `ary` under "
                            "the `same_kind` rule.")
        parts.append(piece.astype(flat.dtype) if is_bounded(piece) else
                     cast_to(piece, flat.dtype))
    if not parts:
        return steps
    begin = [parts.pop(0)] if params.get("to_begin") is not None else []
    return join(begin + [steps] + parts, "ediff1d")


def _array_equal(fn, args, kwargs):
    """np.array_equal of 1-d arrays, one or both of run-time length: the lengths equal
    and every element of the common window equal (NaN to NaN with `equal_nan`), as a
    Python bool; arrays of other dimensions are refused."""
    params = ops.bind(fn, args, kwargs)
    a, b = params["a1"], params["a2"]
    equal_nan = params.get("equal_nan", False)
    if is_abstract(equal_nan) and equal_nan.const is None:
        ops.first_bounded((a, b)).refuse("np.array_equal with a traced equal_nan")
    vectors = [B.at_front(one_d(v, "array_equal")) if is_bounded(v) else B.as_operand(v)
               for v in (a, b)]
    if any(v.ndim != 1 for v in vectors):
        ops.first_bounded((a, b)).refuse("np.array_equal of arrays that are not 1-d")
    bound = max(B.parts(v)[0].shape[0] for v in vectors)
    bufs, counts = [], []
    for v in vectors:
        buf, (e,) = B.parts(v)
        counts.append(e.count if e is not None else buf.shape[0])
        bufs.append(padded(buf, bound))
    same = dispatch(np.equal, tuple(bufs), {})
    if bool(equal_nan) and all(np.dtype(x.dtype).kind in "fc" for x in bufs):
        both_nan = dispatch(np.logical_and, tuple(dispatch(np.isnan, (x,), {})
                                                  for x in bufs), {})
        same = dispatch(np.logical_or, (same, both_nan), {})
    inside = dispatch(np.less, (S.iota(shape=(bound,), dtype=np.int64, dim=0),
                                B.traced(counts[0])), {})
    same = dispatch(np.logical_or, (same, dispatch(np.logical_not, (inside,), {})), {})
    result = dispatch(np.logical_and, (B.compare(counts[0], counts[1], "EQ"),
                                       dispatch(np.all, (same,), {})), {})
    return fresh(result, weak=True)             # NumPy's Python bool


# --- extremes that skip NaNs, and peak-to-peak ------------------------------------------------
def _nan_extreme(fn, args, kwargs):
    """np.nanmax/nanmin/nanargmax/nanargmin: NaNs (and the padding) become the
    reduction's identity; a slice of NaNs only gives NaN (arg forms: NumPy's
    ValueError), and an empty one NumPy's ValueError, both at run time."""
    params = ops.bind(fn, args, kwargs)
    b = params.pop("a")
    name = fn.__name__
    base = {"nanmax": np.max, "nanmin": np.min, "nanargmax": np.argmax,
            "nanargmin": np.argmin}[name]
    if name in ("nanmax", "nanmin") and params.get("initial") is None:
        for a in R.reduced_dynamic_axes(b, params.get("axis")):
            check(B.compare(b.ext[a].count, 0, "EQ"), "zero-size array to reduction "
                  f"operation {'fmax' if name == 'nanmax' else 'fmin'} which has no identity",
                  error=ValueError)
    if b.dtype.kind not in "fc":
        return dispatch(base, (b,), params)
    nan = dispatch(np.isnan, (b,), {})
    ident = -np.inf if name in ("nanmax", "nanargmax") else np.inf
    clean = ops.elementwise(np.where, (nan, ident, b), {})
    out = dispatch(base, (clean,), params)
    all_nan = dispatch(np.all, (nan,), {k: v for k, v in params.items()
                                        if k in ("axis", "keepdims")})
    if name.startswith("nanarg"):
        if params.get("axis") is None:
            check(dispatch(np.logical_and, (all_nan, B.compare(B.size_of(b), 0, "GT")), {}),
                  "All-NaN slice encountered", error=ValueError)
        else:
            check(dispatch(np.any, (all_nan,), {}), "All-NaN slice encountered",
                  error=ValueError)
        return out
    return dispatch(np.where, (all_nan, np.nan, out), {})


def _ptp(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    b = params.pop("a")
    hi = dispatch(np.max, (b,), params)
    lo = dispatch(np.min, (b,), params)
    return dispatch(np.subtract, (hi, lo), {})


def _average(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    if params.get("weights") is not None or params.get("returned"):
        ops.first_bounded(args).refuse("np.average with weights= or returned=")
    a = params.pop("a")
    params.pop("weights", None), params.pop("returned", None)
    return dispatch(np.mean, (a,), params)


# --- searching, binning, interpolation, integration ------------------------------------------
def _searchsorted(fn, args, kwargs):
    """np.searchsorted into a sorted 1-d array of run-time length: the static binary
    search on the window moved first with the padding filled by a value that sorts
    last, the index then capped at the run-time length (a value equal to the filling,
    searched from the right, would count the padding)."""
    params = ops.bind(fn, args, kwargs)
    a, v = params.pop("a"), params.pop("v")
    if params.get("sorter") is not None:
        ops.first_bounded((args, kwargs)).refuse("np.searchsorted with sorter=")
    where = v.buf if is_bounded(v) else v          # values of run-time length: their buffer
    if is_bounded(a):
        a = B.at_front(one_d(a, "searchsorted"))
        idx = dispatch(np.searchsorted, (B.filled(a, B.sorts_last(a.dtype)), where), params)
        idx = dispatch(np.minimum, (idx, cast_to(B.traced(a.ext[0].count), idx.dtype)), {})
    else:
        idx = dispatch(np.searchsorted, (a, where), params)
    return B.make(idx, v.ext, v.extent_deps) if is_bounded(v) else idx


def _histogram(fn, args, kwargs):
    """np.histogram of an array of run-time length: the static histogram of the buffer
    with the padding weighted 0 (integer weights, so the counts keep NumPy's intp), and
    the range NumPy would autodetect taken from the valid elements ((0, 1) if none)."""
    params = ops.bind(fn, args, kwargs)
    a = B.as_operand(params.pop("a"))
    if not is_bounded(a) or a.ndim != 1:
        ops.first_bounded((args, kwargs)).refuse("np.histogram with run-time-length "
                                                 "weights or more than one dimension")
    w = params.pop("weights", None)
    if w is None:
        w = ops.elementwise(np.ones_like, (a,), {"dtype": np.int64})
    (abuf, wbuf), bound, ext = B.conform([a, B.as_operand(w)])   # one layout, lengths checked
    if len(bound) != 1:
        raise ValueError("weights should have the same shape as a.")
    a = B.make(abuf, ext, a.extent_deps)
    weights = B.filled(B.make(wbuf, ext), 0)
    if params.get("range") is None and isinstance(params.get("bins", 10), int):
        params["range"] = _data_range(a)
    return dispatch(np.histogram, (a.buf,), dict(params, weights=weights))


def _data_range(a):
    """(min, max) of the valid elements, (0, 1) when there are none; NumPy's error when
    they are not finite."""
    empty = B.compare(a.ext[0].count, 0, "EQ")
    first = dispatch(np.min, (B.filled(a, R.highest(a.dtype)),), {})
    last = dispatch(np.max, (B.filled(a, R.lowest(a.dtype)),), {})
    finite = dispatch(np.logical_and, (dispatch(np.isfinite, (first,), {}),
                                       dispatch(np.isfinite, (last,), {})), {})
    check(dispatch(np.logical_and, (dispatch(np.logical_not, (finite,), {}),
                                    dispatch(np.logical_not, (empty,), {})), {}),
          "np.histogram: autodetected range is not finite (the data contain nan or inf); "
          "pass range=", error=ValueError)
    zero, one = (cast_to(as_abstract(np.asarray(v)), a.dtype) for v in (0, 1))
    return (dispatch(np.where, (empty, zero, first), {}),
            dispatch(np.where, (empty, one, last), {}))


def _gradient(fn, args, kwargs):
    """np.gradient of a 1-d array of run-time length (a scalar spacing, edge_order 1):
    the static gradient of the window moved first is right everywhere but at the last
    valid element, which reads the padding; that one is NumPy's one-sided difference."""
    b = one_d(args[0], "gradient")
    spacing = args[1:]
    if len(spacing) > 1 or (spacing and np.ndim(spacing[0]) != 0) or \
            kwargs.get("edge_order", 1) != 1 or kwargs.get("axis") not in (None, 0, -1):
        b.refuse("np.gradient with array spacings or edge_order=2")
    b = B.at_front(b if b.dtype.kind in "fc" else b.astype(np.float64))
    count = B.traced(b.ext[0].count)
    check(B.compare(count, 2, "LT"), "Shape of array too small to calculate a numerical "
          "gradient, at least (edge_order + 1) elements are required.", error=ValueError)
    n = b.bound[0]
    if n < 2:
        return b
    g = dispatch(np.gradient, (b.buf,) + tuple(spacing), {})
    last = dispatch(np.take, (b.buf, dispatch(np.maximum, (B.sub(count, 1), 0), {})), {})
    before = dispatch(np.take, (b.buf, dispatch(np.maximum, (B.sub(count, 2), 0), {})), {})
    tail = dispatch(np.subtract, (last, before), {})
    if spacing:
        tail = dispatch(np.true_divide, (tail, spacing[0]), {})
    at_end = E.compare(S.iota(shape=(n,), dtype=_I64, dim=0),
                       broadcast_to_shape(B.sub(count, 1), (n,)), "EQ")
    g = dispatch(np.where, (at_end, cast_to(tail, g.dtype), g), {})
    return B.make(g, b.ext, b.extent_deps)


HANDLERS = {
    "np.sort": _sort, "np.argsort": _sort,
    **{f"np.{name}": _quantile_like for name in (
        "median", "nanmedian", "quantile", "nanquantile", "percentile", "nanpercentile")},
    "np.diff": _diff, "np.ediff1d": _ediff1d, "np.array_equal": _array_equal,
    **{f"np.{name}": _nan_extreme for name in ("nanmax", "nanmin", "nanargmax",
                                               "nanargmin")},
    "np.searchsorted": _searchsorted, "np.histogram": _histogram, "np.gradient": _gradient,
    "np.ptp": _ptp, "np.average": _average,
}
