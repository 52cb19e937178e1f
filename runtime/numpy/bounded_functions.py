"""NumPy functions beyond ufuncs and reductions on arrays of run-time length: sorting,
medians and quantiles, joining, differences, the nan* extremes, peak-to-peak, and the
functions that act element by element without being ufuncs (`np.round`, `np.isclose`,
`np.zeros_like`, ...).

Why their own module: each is written once on the static implementation, by giving it
a buffer whose padding cannot change the answer (sorted last, NaN for the nan* forms,
the operation's identity) and, where the length matters (a median's middle, a sort's
result), the traced count. `x[mask]`, `A[i, :i]` and `np.unique` results then feed them
like any array, as in NumPy.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy import bounded_core as B
from npxla.runtime.numpy import bounded_ops as ops
from npxla.runtime.numpy.bounded_results import unique_bounded
from npxla.runtime.numpy.comparisons import python_bool
from npxla.runtime.numpy.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.errorflags import check
from npxla.runtime.numpy.registry import dispatch

_I64 = np.dtype(np.int64)


def _one_d(b, name):
    if not is_bounded(b) or b.ndim != 1:
        ops.first_bounded(b).refuse(f"np.{name} of a multi-dimensional array of run-time "
                                    "length (1-d, or ravel a static one)")
    return b


# --- sorting --------------------------------------------------------------------------------
def _sort(fn, args, kwargs):
    """np.sort / np.argsort along an axis: the valid window first, the padding filled
    with a value that sorts last; the result has the same extents from offset 0."""
    params = ops.bind(fn, args, kwargs)
    b = params.pop("a")
    axis = params.pop("axis", -1)
    if axis is None:
        b = _one_d(b, fn.__name__)
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
    b = _one_d(args[0], fn.__name__)
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


# --- joining and differences ----------------------------------------------------------------
def _as_vector(x, name):
    x = B.as_operand(x)
    if x.ndim != 1:
        ops.first_bounded(x).refuse(f"np.{name} of arrays that are not 1-d")
    return x


def join(parts, name):
    """1-d arrays end to end: each part's window is written at the running length, so
    the result's buffer is as long as the bounds together and its count their sum."""
    parts = [_as_vector(p, name) for p in parts]
    dtype = np.result_type(*[p.dtype for p in parts])
    total = sum(B.parts(p)[0].shape[0] for p in parts)
    buf = broadcast_to_shape(as_abstract(np.zeros((), dtype)), (total,))
    length = 0
    for p in parts:
        p = p.astype(dtype) if is_bounded(p) else cast_to(p, dtype)
        pb, (e,) = B.parts(p)
        if e is not None and B.known(e.offset) != 0:
            pb = B.relocate(pb, 0, e.offset, 0, pb.shape[0])
        buf = S.dynamic_update_slice(buf, pb, B.traced(length))
        length = B.add(length, e.count if e is not None else pb.shape[0])
    return B.make(buf, (B.Extent(0, length),), B.extent_deps(*parts))


def _concatenate(fn, args, kwargs):
    """np.concatenate / np.hstack / np.concat of 1-d arrays (axis 0 or None)."""
    seq = args[0] if args else kwargs.get("arrays", kwargs.get("tup"))
    axis = args[1] if len(args) > 1 else kwargs.get("axis", 0)
    extra = {k for k in kwargs if k not in ("arrays", "tup", "axis")}
    if axis not in (0, -1, None) or extra or len(args) > 2:
        ops.first_bounded(seq).refuse(f"np.{fn.__name__} with axis=, out=, dtype= or "
                                      "casting=")
    if axis is None:
        seq = [_one_d(p, "ravel") if is_bounded(p) else dispatch(np.ravel, (p,), {})
               for p in seq]
    return join(list(seq), fn.__name__)


def _append(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    if params.get("axis") is not None:
        ops.first_bounded(args).refuse("np.append with axis=")
    flat = [p if is_bounded(p) else dispatch(np.ravel, (as_abstract(p),), {})
            for p in (params["arr"], params["values"])]
    return join(flat, "append")


def _diff(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    b = _one_d(params.pop("a"), "diff")
    n = operator.index(params.pop("n", 1))
    if params.get("axis") is not None:
        normalize_axis_index(operator.index(params.pop("axis")), 1)
    if params or n < 0:
        b.refuse("np.diff with n < 0, prepend= or append=")
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
        for a in ops.reduced_dynamic_axes(b, params.get("axis")):
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


def _allclose(fn, args, kwargs):
    close = dispatch(np.isclose, args, kwargs)
    return python_bool(dispatch(np.all, (close,), {}))


def _average(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    if params.get("weights") is not None or params.get("returned"):
        ops.first_bounded(args).refuse("np.average with weights= or returned=")
    a = params.pop("a")
    params.pop("weights", None), params.pop("returned", None)
    return dispatch(np.mean, (a,), params)


def _flip(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    b = params["m"]
    axis = params.get("axis")
    axes = range(b.ndim) if axis is None else \
        [normalize_axis_index(operator.index(a), b.ndim)
         for a in (axis if isinstance(axis, tuple) else (axis,))]
    index = tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(b.ndim))
    return b[index]


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
        a = B.at_front(_one_d(a, "searchsorted"))
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
    first = dispatch(np.min, (B.filled(a, ops.highest(a.dtype)),), {})
    last = dispatch(np.max, (B.filled(a, ops.lowest(a.dtype)),), {})
    finite = dispatch(np.logical_and, (dispatch(np.isfinite, (first,), {}),
                                       dispatch(np.isfinite, (last,), {})), {})
    check(dispatch(np.logical_and, (dispatch(np.logical_not, (finite,), {}),
                                    dispatch(np.logical_not, (empty,), {})), {}),
          "np.histogram: autodetected range is not finite (the data contain nan or inf); "
          "pass range=", error=ValueError)
    zero, one = (cast_to(as_abstract(np.asarray(v)), a.dtype) for v in (0, 1))
    return (dispatch(np.where, (empty, zero, first), {}),
            dispatch(np.where, (empty, one, last), {}))


def _interp(fn, args, kwargs):
    """np.interp at points of run-time length (static xp, fp): element by element."""
    params = ops.bind(fn, args, kwargs)
    x = params.pop("x")
    if not is_bounded(x) or any(is_bounded(v) for v in params.values()):
        ops.first_bounded((args, kwargs)).refuse("np.interp with run-time-length xp or fp")
    return B.make(dispatch(np.interp, (x.buf,), params), x.ext, x.extent_deps)


def _trapezoid(fn, args, kwargs):
    """np.trapezoid of a 1-d array of run-time length with a scalar dx: NumPy's
    `(d * (y[1:] + y[:-1]) / 2.0).sum()`."""
    params = ops.bind(fn, args, kwargs)
    y = _one_d(params.pop("y"), "trapezoid")
    if params.get("x") is not None or params.pop("axis", -1) not in (0, -1):
        y.refuse("np.trapezoid with x= or axis=")
    d = params.get("dx", 1.0)
    return dispatch(np.sum, (ops.elementwise(np.true_divide, (
        ops.elementwise(np.multiply, (d, ops.elementwise(np.add, (y[1:], y[:-1]), {})),
                        {}), 2.0), {}),), {})


# --- rotation, repetition, convolution ------------------------------------------------------
def _roll(fn, args, kwargs):
    """np.roll of a 1-d array of run-time length by a shift: element i of the result is
    element (i - shift) mod length, gathered from the window moved first."""
    params = ops.bind(fn, args, kwargs)
    b = _one_d(params.pop("a"), "roll")
    if params.get("axis") is not None:
        normalize_axis_index(operator.index(params.pop("axis")), 1)
    shift = params.pop("shift")
    b = B.at_front(b)
    n = b.bound[0]
    count = B.traced(b.ext[0].count)
    pos = S.iota(shape=(n,), dtype=_I64, dim=0)
    safe = dispatch(np.maximum, (count, 1), {})
    src = dispatch(np.mod, (dispatch(np.subtract, (pos, cast_to(as_abstract(shift), _I64)), {}),
                            safe), {})
    return B.make(dispatch(np.take, (b.buf, src), {}), b.ext, b.extent_deps)


def _repeat(fn, args, kwargs):
    """np.repeat of a 1-d array of run-time length by a scalar count r: the window moved
    first, repeated, is the first r * length elements of the repeated buffer."""
    params = ops.bind(fn, args, kwargs)
    b = _one_d(params.pop("a"), "repeat")
    r = params.pop("repeats")
    if params.get("axis") is not None:
        normalize_axis_index(operator.index(params.pop("axis")), 1)
    if not isinstance(r, (int, np.integer)) or r < 0:
        b.refuse("np.repeat with an array of repeats or a traced count")
    b = B.at_front(b)
    out = dispatch(np.repeat, (b.buf, int(r)), {})
    return B.make(out, (B.Extent(0, B.mul(b.ext[0].count, int(r))),), b.extent_deps)


def _convolve(fn, args, kwargs):
    """np.convolve of a 1-d array of run-time length with a static one (either order):
    the full convolution of the zero-padded window, whose first length + m - 1 values
    are NumPy's; 'same' and 'valid' are windows of it."""
    params = ops.bind(fn, args, kwargs)
    a, v = params.pop("a"), params.pop("v")
    mode = params.pop("mode", "full")
    if is_bounded(v) and not is_bounded(a):
        a, v = v, a
    if is_bounded(v) or mode not in ("full", "same", "valid"):
        ops.first_bounded((args, kwargs)).refuse("np.convolve of two run-time-length arrays")
    a = B.at_front(_one_d(a, "convolve"))
    v = as_abstract(v)
    m, c = v.shape[0], a.ext[0].count
    if m == 0:
        raise ValueError("v cannot be empty")
    check(B.compare(c, 0, "EQ"), "a cannot be empty", error=ValueError)
    full = dispatch(np.convolve, (B.filled(a, 0), v), {"mode": "full"})
    short, long = B.minimum(c, m), B.maximum(c, m)
    if mode == "full":
        ext = B.Extent(0, B.add(c, m - 1))
    elif mode == "same":     # the longer length, centred in the full result
        start = B.traced(B.sub(short, 1))
        ext = B.Extent(E.divide(start, B.traced(2)), long)
    else:                    # where the shorter one lies wholly inside the longer
        ext = B.Extent(B.sub(short, 1), B.add(B.sub(long, short), 1))
    return B.make(full, (ext,), a.extent_deps)


def _tile(fn, args, kwargs):
    """np.tile of a 1-d array of run-time length by a count: its copies joined."""
    params = ops.bind(fn, args, kwargs)
    b, reps = _one_d(params["A"], "tile"), params["reps"]
    if not isinstance(reps, (int, np.integer)) or reps < 0:
        b.refuse("np.tile with a tuple of repetitions or a traced count")
    if reps == 0:
        return B.make(b.buf[:0], (B.Extent(0, 0),), b.extent_deps)
    return join([b] * int(reps), "tile")


def _gradient(fn, args, kwargs):
    """np.gradient of a 1-d array of run-time length (a scalar spacing, edge_order 1):
    the static gradient of the window moved first is right everywhere but at the last
    valid element, which reads the padding; that one is NumPy's one-sided difference."""
    b = _one_d(args[0], "gradient")
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


# functions applied element by element to the buffers (brought to one extent), so the
# result keeps the operands' extents
ELEMENTWISE = ("round", "around", "isclose", "nan_to_num", "real", "imag", "angle", "fix",
               "zeros_like", "ones_like", "empty_like", "full_like", "sinc", "asarray")

HANDLERS = {
    "np.sort": _sort, "np.argsort": _sort,
    **{f"np.{name}": _quantile_like for name in (
        "median", "nanmedian", "quantile", "nanquantile", "percentile", "nanpercentile")},
    "np.concatenate": _concatenate, "np.hstack": _concatenate, "np.concat": _concatenate,
    "np.append": _append, "np.diff": _diff,
    **{f"np.{name}": _nan_extreme for name in ("nanmax", "nanmin", "nanargmax",
                                               "nanargmin")},
    "np.unique": lambda fn, args, kwargs: unique_bounded(*args, **kwargs),
    "np.searchsorted": _searchsorted, "np.histogram": _histogram, "np.interp": _interp,
    "np.trapezoid": _trapezoid, "np.roll": _roll, "np.repeat": _repeat,
    "np.convolve": _convolve, "np.tile": _tile, "np.gradient": _gradient,
    "np.ptp": _ptp, "np.allclose": _allclose, "np.average": _average, "np.flip": _flip,
    **{f"np.{name}": ops.elementwise for name in ELEMENTWISE},
}
