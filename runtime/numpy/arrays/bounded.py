"""Joining, flipping, rolling, repeating and tiling arrays of run-time length (bounded
arrays), and np.trapezoid of one.

Each runs the static implementation on the buffers, moving every valid window to the
front first where the result's layout needs it, and keeps the traced counts.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.ufuncs import bounded as ops
from npxla.runtime.numpy.ufuncs.bounded import one_d
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import dispatch


_I64 = np.dtype(np.int64)


# --- joining and differences ----------------------------------------------------------------
def _as_vector(x, name, example):
    x = B.as_operand(x)
    if x.ndim == 0 and name == "hstack":      # np.hstack takes np.atleast_1d of each
        return S.reshape(x, shape=(1,))
    if x.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    if x.ndim != 1:
        example.refuse(f"np.{name} of arrays that are not 1-d")
    return x


def join(parts, name):
    """1-d arrays end to end: each part's window is written at the running length, so
    the result's buffer is as long as the bounds together and its count their sum."""
    example = ops.first_bounded(parts)
    parts = [_as_vector(p, name, example) for p in parts]
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
        seq = [one_d(p, "ravel") if is_bounded(p) else dispatch(np.ravel, (p,), {})
               for p in seq]
    return join(list(seq), fn.__name__)


# np.stack / np.vstack / np.column_stack of 1-d arrays: (the axis the inputs become,
# NumPy's error where their lengths differ)
_STACKS = {
    "stack": (None, "all input arrays must have the same shape"),
    "vstack": (0, "all the input array dimensions except for the concatenation axis "
                  "must match exactly"),
    "column_stack": (1, "all the input array dimensions except for the concatenation "
                        "axis must match exactly"),
}


def padded(buf, bound):
    """A 1-d buffer extended with zeros to `bound` elements (a window at its front keeps
    its place)."""
    if buf.shape[0] >= bound:
        return buf
    pad = broadcast_to_shape(as_abstract(np.zeros((), buf.dtype)), (bound,))
    return S.dynamic_update_slice(pad, buf, B.traced(0))


def _stack(fn, args, kwargs):
    """1-d arrays of one run-time length as the rows (or columns) of a 2-d array whose
    other axis is that length; lengths that differ raise NumPy's ValueError at run
    time."""
    params = ops.bind(fn, args, kwargs)
    seq = list(params.pop("arrays", None) or params.pop("tup"))
    fixed, message = _STACKS[fn.__name__]
    axis = fixed if fixed is not None else normalize_axis_index(
        operator.index(params.pop("axis", 0)), 2)
    example = ops.first_bounded(seq)
    if any(v is not None for k, v in params.items() if k in ("out", "dtype")) or \
            params.get("casting", "same_kind") != "same_kind":
        example.refuse(f"np.{fn.__name__} with out=, dtype= or casting=")
    vectors = [_as_vector(p, fn.__name__, example) for p in seq]
    dtype = np.result_type(*[p.dtype for p in vectors])
    bound = max(B.parts(p)[0].shape[0] for p in vectors)
    rows, count = [], None
    for p in vectors:
        p = B.at_front(p.astype(dtype)) if is_bounded(p) else cast_to(p, dtype)
        pb, (e,) = B.parts(p)
        n = e.count if e is not None else pb.shape[0]
        rows.append(S.reshape(padded(pb, bound), shape=(1, bound)))
        if count is None:
            count = n
        else:
            check(B.compare(count, n, "NE"), message, error=ValueError)
    buf = S.concatenate(*rows, axis=0)
    ext = (None, B.Extent(0, count))
    if axis == 1:
        buf, ext = S.transpose(buf, perm=(1, 0)), ext[::-1]
    return B.make(buf, ext, B.extent_deps(*seq))


def _isin(fn, args, kwargs):
    """np.isin of an array of run-time length: elementwise in `element`, so its buffer
    is tested and keeps the extents (test elements of run-time length would match their
    padding, and are refused)."""
    params = ops.bind(fn, args, kwargs)
    element, test = params.pop("element"), params.pop("test_elements")
    if is_bounded(test):
        test.refuse("np.isin with test elements of run-time length")
    return B.make(dispatch(fn, (element.buf, test), params), element.ext,
                  element.extent_deps)


def _append(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    if params.get("axis") is not None:
        ops.first_bounded(args).refuse("np.append with axis=")
    flat = [p if is_bounded(p) else dispatch(np.ravel, (as_abstract(p),), {})
            for p in (params["arr"], params["values"])]
    return join(flat, "append")


def _flip(fn, args, kwargs):
    params = ops.bind(fn, args, kwargs)
    b = params["m"]
    axis = params.get("axis")
    axes = range(b.ndim) if axis is None else \
        [normalize_axis_index(operator.index(a), b.ndim)
         for a in (axis if isinstance(axis, tuple) else (axis,))]
    index = tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(b.ndim))
    return b[index]


def _flip_axis(axis, least):
    """np.flipud (axis 0 of at least 1-d) / np.fliplr (axis 1 of at least 2-d)."""
    def flip(fn, args, kwargs):
        b = ops.bind(fn, args, kwargs)["m"]
        if b.ndim < least:
            raise ValueError(f"Input must be >= {least}-d.")
        return b[(slice(None),) * axis + (slice(None, None, -1),)]
    return flip


def _at_least(ndim):
    """np.atleast_1d/2d/3d: NumPy's new axes, each array indexed with `None` (one
    array alone, several as a tuple)."""
    def pad(b):
        if not is_bounded(b):
            return dispatch(getattr(np, f"atleast_{ndim}d"), (b,), {})
        if b.ndim >= ndim:
            return b
        if ndim == 3 and b.ndim == 1:
            return b[None, :, None]
        return b[(None,) * (ndim - b.ndim - (ndim == 3)) + (slice(None),) * b.ndim +
                 (None,) * (ndim == 3)]

    def at_least(fn, args, kwargs):
        if kwargs:
            ops.first_bounded(args).refuse(f"np.atleast_{ndim}d with keywords")
        out = tuple(pad(a) for a in args)
        return out[0] if len(out) == 1 else out
    return at_least


def _expand_dims(fn, args, kwargs):
    """np.expand_dims: the same array indexed with `None` at the new axes."""
    params = ops.bind(fn, args, kwargs)
    b, axis = params["a"], params["axis"]
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    axes = normalize_axis_tuple(tuple(operator.index(a) for a in axis), b.ndim + len(axis))
    return b[tuple(None if a in axes else slice(None) for a in range(b.ndim + len(axes)))]


def _trapezoid(fn, args, kwargs):
    """np.trapezoid of a 1-d array of run-time length with a scalar dx: NumPy's
    `(d * (y[1:] + y[:-1]) / 2.0).sum()`."""
    params = ops.bind(fn, args, kwargs)
    y = one_d(params.pop("y"), "trapezoid")
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
    b = one_d(params.pop("a"), "roll")
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
    b = one_d(params.pop("a"), "repeat")
    r = params.pop("repeats")
    if params.get("axis") is not None:
        normalize_axis_index(operator.index(params.pop("axis")), 1)
    if not isinstance(r, (int, np.integer)) or r < 0:
        b.refuse("np.repeat with an array of repeats or a traced count")
    b = B.at_front(b)
    out = dispatch(np.repeat, (b.buf, int(r)), {})
    return B.make(out, (B.Extent(0, B.mul(b.ext[0].count, int(r))),), b.extent_deps)


def _tile(fn, args, kwargs):
    """np.tile of a 1-d array of run-time length by a count: its copies joined; by
    `(k, 1)`: `k` rows that are each the array (EntropyHub's template
    `np.tile(Sig[n:n + 1 + k], (len(ix), 1))`), `k` static or traced in a known range."""
    params = ops.bind(fn, args, kwargs)
    b, reps = one_d(params["A"], "tile"), params["reps"]
    if isinstance(reps, (tuple, list)) and len(reps) == 2 and \
            isinstance(reps[1], (int, np.integer)) and reps[1] == 1:
        return _tile_rows(b, reps[0])
    if not isinstance(reps, (int, np.integer)) or reps < 0:
        b.refuse("np.tile with a tuple of repetitions or a traced count")
    if reps == 0:
        return B.make(b.buf[:0], (B.Extent(0, 0),), b.extent_deps)
    return join([b] * int(reps), "tile")


def _tile_rows(b, k):
    """`k` rows, each the 1-d array `b` of run-time length."""
    if isinstance(k, (int, np.integer)):
        if k < 0:
            raise ValueError("negative dimensions are not allowed")
        rows, ext = int(k), None
        deps = b.extent_deps
    else:
        plan = run_time_shape([k])
        if plan is None:
            b.refuse("np.tile by a traced count without a known range")
        (rows,), (ext,), deps = plan
        deps = deps | b.extent_deps
    buf = S.broadcast_in_dim(b.buf, shape=(rows,) + b.buf.shape, dims=(1,))
    return B.make(buf, (ext, b.ext[0]), deps)


# --- creation with a length known at run time -------------------------------------------
# the most elements a buffer made for a run-time shape may have
MAX_CREATED = 1 << 28


def run_time_shape(shape):
    """(bound, extents, deps) of a shape argument with traced lengths whose values lie
    in a known range (`np.zeros(len(x[m]))`, `np.ones(len(idx) - 1)`, a static loop's
    index): the buffer has the largest length along those axes, and the array the
    traced one. None for a static shape, or a traced length without a static bound
    (the static implementation then refuses it). A length that may be negative is
    checked at run time with NumPy's ValueError."""
    entries = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    if not any(B.traced_bound(v) and getattr(v, "ndim", 1) == 0 for v in entries):
        return None
    bound, ext, deps = [], [], frozenset()
    for v in entries:
        if not (B.traced_bound(v) and getattr(v, "ndim", 1) == 0):
            bound.append(operator.index(v)), ext.append(None)
            continue
        if is_bounded(v) or v.dtype.kind not in "iu":
            return None
        rng = B.value_range(v)
        if rng is None:
            return None
        if rng[1] < 0:
            raise ValueError("negative dimensions are not allowed")
        if rng[0] < 0:
            check(B.compare(v, 0, "LT"), "negative dimensions are not allowed",
                    error=ValueError)
        bound.append(rng[1])
        ext.append(B.Extent(0, B.maximum(v, 0)))
        deps |= v.deps
    if int(np.prod(bound)) > MAX_CREATED:
        return None
    return tuple(bound), tuple(ext), deps


HANDLERS = {
    "np.concatenate": _concatenate, "np.hstack": _concatenate, "np.concat": _concatenate,
    "np.append": _append, "np.trapezoid": _trapezoid, "np.roll": _roll, "np.repeat": _repeat,
    "np.tile": _tile, "np.flip": _flip, "np.flipud": _flip_axis(0, 1),
    "np.fliplr": _flip_axis(1, 2), "np.atleast_1d": _at_least(1),
    "np.atleast_2d": _at_least(2), "np.atleast_3d": _at_least(3),
    "np.ndim": lambda fn, args, kwargs: ops.bind(fn, args, kwargs)["a"].ndim, "np.expand_dims": _expand_dims,
    "np.stack": _stack, "np.vstack": _stack, "np.column_stack": _stack, "np.isin": _isin,
    # only the dtypes matter: a run-time length does not
    "np.result_type": lambda fn, args, kwargs: dispatch(
        fn, tuple(a.dtype if is_bounded(a) else a for a in args), kwargs),
}
