"""Reductions on bounded arrays (arrays whose length is known only at run time).

They replace the padding by the operation's identity first (`filled`): 0 for sums, 1
for products, -inf/+inf (or the integer limits) for max/min and arg-max/min; a mean
divides by the traced count, so an empty selection gives NaN as NumPy does (without
NumPy's warning). A max/min/argmax of an empty dynamic axis raises NumPy's ValueError
as a run-time check.
"""
from __future__ import annotations


import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.ufuncs.bounded import _selected, bind, elementwise, first_bounded


_I64 = np.dtype(np.int64)


def _unordered_filled(b, value, axes):
    """`B.filled` for reductions that ignore the order of the elements: for a mask
    selection reduced along its selected axis, the rows with the unselected ones
    replaced by `value`, in place (no compaction)."""
    sel = _selected(b) if 0 in axes else None
    if sel is None:
        return B.filled(b, value, axes)
    rows, mask = sel
    keep = S.reshape(mask, shape=mask.shape + (1,) * (rows.ndim - 1))
    fill = as_abstract(np.asarray(value, rows.dtype))
    return dispatch(np.where, (keep, rows, fill), {})


# --- reductions ---------------------------------------------------------------------------
def lowest(dtype):
    if dtype.kind == "b":
        return False
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


def highest(dtype):
    if dtype.kind == "b":
        return True
    return np.inf if dtype.kind in "fc" else np.iinfo(dtype).max


# name -> (padding value for a dtype, needs a non-empty axis)
REDUCTIONS = {
    "sum": (lambda d: 0, False), "nansum": (lambda d: 0, False),
    "prod": (lambda d: 1, False), "nanprod": (lambda d: 1, False),
    "max": (lowest, True), "amax": (lowest, True), "min": (highest, True),
    "amin": (highest, True), "any": (lambda d: False, False),
    "all": (lambda d: True, False), "count_nonzero": (lambda d: 0, False),
    "argmax": (lowest, True), "argmin": (highest, True),
}
# reductions whose result does not depend on where the elements are
_UNORDERED = frozenset(REDUCTIONS) - {"argmax", "argmin"}
_EMPTY = {"max": "maximum", "amax": "maximum", "min": "minimum", "amin": "minimum"}


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(normalize_axis_tuple(axes, ndim)))


def reduced_dynamic_axes(b, axis):
    """The dynamic axes of `b` that a reduction over `axis` removes."""
    return [a for a in _axes(axis, b.ndim) if b.ext[a] is not None]


def _kept(b, axes, keepdims):
    return [None if a in axes else e for a, e in enumerate(b.ext)
            if keepdims or a not in axes]


# reductions whose padding is their identity, so that an `initial=` combines with the
# padded buffer's result as it would with the selected elements' alone
_WITH_INITIAL = frozenset({"sum", "nansum", "prod", "nanprod", "max", "amax", "min", "amin"})
# and those that take a `where=` mask (the moments count the elements it keeps)
MOMENTS = ("mean", "nanmean", "var", "std", "nanvar", "nanstd")
_WITH_WHERE = _WITH_INITIAL | {"any", "all"} | set(MOMENTS)


def _refuse_extras(b, name, params):
    for key in ("out", "initial", "where", "mean", "correction"):
        if params.get(key) is not None and key in params and \
                not (key == "where" and (params[key] is True or name in _WITH_WHERE)) and \
                not (key == "initial" and name in _WITH_INITIAL):
            b.refuse(f"np.{name} with {key}=")


def _with_where(b, params):
    """`b` and `params` with a `where=` mask brought to `b`'s layout: broadcast like
    NumPy (a static length must equal the run-time one, checked), on the buffer whose
    padding the reduction then fills with its identity. The mask's value at padding
    positions does not matter."""
    where = params.get("where", True)
    if where is True:
        return b, params
    (buf, mask), bound, ext = B.conform([b, where])
    if len(bound) != b.ndim or any(e is None and n != m for e, n, m in
                                   zip(b.ext, bound, b.bound)):
        shape = getattr(where, "bound", getattr(where, "shape", ()))
        raise ValueError(f"non-broadcastable where= (shape {tuple(shape)}) for an array "
                         f"of at most {b.bound}")
    mask = broadcast_to_shape(mask, tuple(bound))
    out = B.make(buf, ext, B.extent_deps(b, where))
    return out, dict(params, where=mask)


def reduction(fn, name, args, kwargs):
    params = bind(fn, args, kwargs)
    b = params.pop("a", None)
    if b is None:
        b = params.pop("x")
    if not is_bounded(b):
        first_bounded((args, kwargs)).refuse(f"np.{name} with a bounded argument")
    _refuse_extras(b, name, params)
    b, params = _with_where(b, params)
    if not is_bounded(b):                   # the mask made every axis static
        return dispatch(fn, (b,), {k: v for k, v in params.items() if k != "out"})
    axes = _axes(params.get("axis"), b.ndim)
    keepdims = bool(params.get("keepdims", False))
    if name in MOMENTS:
        keep = _kept_mask(b, params.get("where", True), name.startswith("nan"))
        if name.endswith("mean"):
            return _mean(b, axes, params.get("dtype"), keepdims, keep)
        return _var(b, axes, name, params, keep)
    pad, nonempty = REDUCTIONS[name]
    dyn = [a for a in axes if b.ext[a] is not None]
    if nonempty and params.get("initial") is None:
        _check_nonempty(b, dyn, name)
    buf = _unordered_filled(b, pad(b.dtype), dyn) if name in _UNORDERED else \
        B.filled(b, pad(b.dtype), dyn)
    call = {k: v for k, v in params.items() if k not in ("out",)}
    result = dispatch(fn, (buf,), call)
    if name in ("argmax", "argmin"):
        return _arg_index(b, axes, params.get("axis"), result, keepdims)
    return B.make(result, _kept(b, axes, keepdims), b.extent_deps)


def _check_nonempty(b, dyn, name):
    for a in dyn:
        empty = B.compare(b.ext[a].count, 0, "EQ")
        if name in _EMPTY:
            msg = (f"zero-size array to reduction operation {_EMPTY[name]} which has no "
                   "identity")
        else:
            msg = f"attempt to get {name} of an empty sequence"
        check(empty, msg, error=ValueError)


def _arg_index(b, axes, axis, result, keepdims):
    """Arg-max/min found in buffer coordinates, returned in the array's."""
    if axis is None:
        idx = B.traced(result)
        coords, flat = [], 0
        for a in reversed(range(b.ndim)):
            coords.append(E.remainder(idx, B.traced(b.bound[a])))
            idx = E.divide(idx, B.traced(b.bound[a]))
        coords.reverse()
        shape = B.shape_of(b)
        for a in range(b.ndim):
            pos = coords[a] if b.ext[a] is None else B.sub(coords[a], b.ext[a].offset)
            flat = B.add(B.mul(flat, shape[a]), pos)
        return cast_to(B.traced(flat), _I64)
    (a,) = axes
    ext = _kept(b, axes, keepdims)
    if b.ext[a] is None:
        return B.make(result, ext, b.extent_deps)
    off = B.traced(b.ext[a].offset)
    return B.make(B.sub(result, B.traced(off)), ext, b.extent_deps)


def _count(b, axes):
    n = 1
    for a in axes:
        n = B.mul(n, b.ext[a].count if b.ext[a] is not None else b.bound[a])
    return n


def _kept_mask(b, where, skip_nan):
    """The elements a moment averages over, as a mask of the buffer (None: every valid
    one): a `where=` mask (already on the buffer's layout), NaNs left out for the nan*
    forms, and the padding."""
    keep = None if where is True else where
    if skip_nan and b.dtype.kind in "fc":
        real = dispatch(np.logical_not, (dispatch(np.isnan, (b.buf,), {}),), {})
        keep = real if keep is None else dispatch(np.logical_and, (keep, real), {})
    if keep is None:
        return None
    return dispatch(np.logical_and, (keep, B.valid_mask(b)), {})


def _masked_sum(b, keep, axes, **kw):
    """Sum over `axes` of the buffer's elements that `keep` marks (zeros elsewhere)."""
    zero = as_abstract(np.zeros((), b.dtype))
    return dispatch(np.sum, (dispatch(np.where, (keep, b.buf, zero), {}),), {"axis": axes, **kw})


def _mean(b, axes, dtype, keepdims, keep=None):
    if dtype is None:
        dtype = np.mean(np.zeros(1, b.dtype)).dtype
    real = np.dtype(dtype) if np.dtype(dtype).kind in "fc" else np.dtype(np.float64)
    if keep is not None:
        total = _masked_sum(b, keep, axes, dtype=dtype, keepdims=keepdims)
        n = dispatch(np.sum, (keep,), {"axis": axes, "dtype": real, "keepdims": keepdims})
        out = cast_to(dispatch(np.true_divide, (total, n), {}), dtype)
        return B.make(out, _kept(b, axes, keepdims), b.extent_deps)
    dyn = [a for a in axes if b.ext[a] is not None]
    total = dispatch(np.sum, (_unordered_filled(b, 0, dyn),),
                     {"axis": axes, "dtype": dtype, "keepdims": keepdims})
    n = cast_to(B.traced(_count(b, axes)), real)
    out = dispatch(np.true_divide, (total, n), {})
    out = cast_to(out, dtype)
    return B.make(out, _kept(b, axes, keepdims), b.extent_deps)


def _var(b, axes, name, params, keep=None):
    ddof = params.get("ddof", 0) or 0
    keepdims = bool(params.get("keepdims", False))
    m = _mean(b, axes, params.get("dtype"), True, keep)
    d = elementwise(np.subtract, (b, m), {})
    sq = elementwise(np.square, (elementwise(np.absolute, (d,), {}),), {}) \
        if d.dtype.kind == "c" else elementwise(np.square, (d,), {})
    sq = sq if is_bounded(sq) else B.make(sq, (None,) * sq.ndim)
    if keep is not None:
        total = _masked_sum(sq, keep, axes, keepdims=keepdims)
        real = total.dtype if total.dtype.kind == "f" else np.dtype(np.float64)
        count = dispatch(np.sum, (keep,), {"axis": axes, "dtype": real, "keepdims": keepdims})
        dof = dispatch(np.subtract, (count, ddof), {})
        n = cast_to(dispatch(np.maximum, (dof, 0.0), {}), real)
    else:
        dyn = [a for a in axes if b.ext[a] is not None]
        total = dispatch(np.sum, (_unordered_filled(sq, 0, dyn),),
                         {"axis": axes, "keepdims": keepdims})
        n = B.sub(_count(b, axes), ddof)
        n = cast_to(B.traced(B.maximum(n, 0)), total.dtype if total.dtype.kind == "f"
                    else np.float64)
    var = dispatch(np.true_divide, (total, n), {})
    if name.startswith("nan") and keep is not None:    # NumPy: NaN where dof <= 0
        var = dispatch(np.where, (dispatch(np.less_equal, (dof, 0), {}), np.nan, var), {})
        var = cast_to(var, real)
    out = dispatch(np.sqrt, (var,), {}) if name.endswith("std") else var
    return B.make(out, _kept(b, axes, keepdims), b.extent_deps)
