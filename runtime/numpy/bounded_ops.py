"""NumPy functions on bounded arrays: elementwise ufuncs, reductions and contractions.

Elementwise operations run on the buffers after `conform` has brought every operand to
one extent, so padding only ever meets padding. Reductions and contractions replace the
padding by the operation's identity first (`filled`): 0 for sums and dot products, 1
for products, -inf/+inf (or the integer limits) for max/min and arg-max/min; a mean
divides by the traced count, so an empty selection gives NaN as NumPy does (without
NumPy's warning). A max/min/argmax of an empty dynamic axis raises NumPy's ValueError
as a run-time check.
"""
from __future__ import annotations

import inspect

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.staging.bounded import BoundedArray, is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy import bounded_blocks as blocks
from npxla.runtime.numpy import bounded_core as B
from npxla.runtime.numpy.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.errorflags import check
from npxla.runtime.numpy.registry import dispatch

_I64 = np.dtype(np.int64)


def first_bounded(tree):
    stack = [tree]
    while stack:
        x = stack.pop()
        if is_bounded(x):
            return x
        if isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        elif isinstance(x, dict):
            stack.extend(x.values())
    return None


# --- elementwise ------------------------------------------------------------------------
# integer ufuncs whose run-time checks or results could be upset by padding values
_PAD_SENSITIVE = {"power", "floor_divide", "remainder", "fmod", "divmod", "left_shift",
                  "right_shift", "true_divide", "divide"}


def elementwise(fn, args, kwargs):
    """A ufunc (or np.where / np.clip) on operands of which some are bounded."""
    if kwargs.get("where", True) is not True:     # (with out=: bounded_methods.call)
        first_bounded(args).refuse(f"np.{fn.__name__} with where= and no out=")
    arrays = [k for k, a in enumerate(args) if is_bounded(a) or is_abstract(a) or
              isinstance(a, (np.ndarray, list, tuple))]
    ops = [B.as_operand(args[k]) for k in arrays]
    if getattr(fn, "__name__", "") in _PAD_SENSITIVE:
        ops = [_safe(x) for x in ops]
    bufs, bound, ext = B.conform(ops)
    new = list(args)
    for k, buf in zip(arrays, bufs):
        new[k] = buf
    result = dispatch(fn, tuple(new), kwargs)
    deps = B.extent_deps(*ops)
    if isinstance(result, tuple):
        return tuple(B.make(r, ext, deps) for r in result)
    out = B.make(result, ext, deps)
    if is_bounded(out) and getattr(fn, "__name__", "") not in _PAD_SENSITIVE:
        _keep_selection(out, fn, args, kwargs)
    return out


def _selected(b):
    """(rows, flat mask) of a mask selection whose buffer nothing wrote since, or None."""
    sel = b.selection if is_bounded(b) else None
    if sel is None or b.buf.ir != sel[2]:
        return None
    return sel[0], sel[1]


def _keep_selection(out, fn, args, kwargs):
    """Give `out` the selection of its operands when all of them select with one mask
    and every other array broadcasts along the selected axis (its elements then stay
    where the mask put them)."""
    mask, new = None, list(args)
    for k, a in enumerate(args):
        if is_bounded(a):
            sel = _selected(a)
            if sel is None or (mask is not None and sel[1] is not mask):
                return
            new[k], mask = sel
        elif is_abstract(a) or isinstance(a, np.ndarray):
            shape = np.shape(a)
            if len(shape) >= out.ndim and shape[len(shape) - out.ndim] != 1:
                return
    rows = dispatch(fn, tuple(new), kwargs)
    if is_abstract(rows) and rows.shape == out.bound:
        out.selection = (rows, mask, out.buf.ir)


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


def _safe(x):
    if is_bounded(x) and x.dtype.kind in "iu":
        return B.make(B.filled(x, 1), x.ext, x.extent_deps)
    return x


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


def bind(fn, args, kwargs):
    params = inspect.signature(fn).bind(*args, **kwargs).arguments
    return dict(params)


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


# --- contractions -------------------------------------------------------------------------
def contraction(fn, name, args, kwargs):
    """np.dot / np.matmul / `@` / np.inner / np.vdot with bounded operands: the two
    contracted axes are brought to one extent and zero-padded, the others keep theirs."""
    a, b = (B.as_operand(x) for x in args[:2])
    if name == "vdot":
        a, b = _flat1(a), _flat1(b)
        name = "dot"
        fn = np.dot
        if a.dtype.kind == "c":
            a = elementwise(np.conjugate, (a,), {})
    ab, ae = B.parts(a)
    bb, be = B.parts(b)
    if ab.ndim == 0 or bb.ndim == 0:
        return elementwise(np.multiply, (a, b), {})
    if max(ab.ndim, bb.ndim) > 2 and name != "inner":
        first_bounded((a, b)).refuse(f"np.{name} of arrays with more than 2 dimensions")
    ka = ab.ndim - 1
    kb = bb.ndim - 1 if name == "inner" or bb.ndim == 1 else bb.ndim - 2
    ea, eb = ae[ka], be[kb]
    ref = ea if ea is not None else eb
    length = ab.shape[ka] if ea is not None else bb.shape[kb]
    ext = [e for k, e in enumerate(ae) if k != ka] + [e for k, e in enumerate(be) if k != kb]
    if ref is not None:
        ab = _aligned(ab, ea, ka, ref, length, name)
        bb = _aligned(bb, eb, kb, ref, length, name)
        blocked = _blocked(ab, bb, ka, kb, ref, ae, be, name)
        if blocked is not None:
            return B.make(blocked, ext, B.extent_deps(a, b))
        ab, bb = _zero_outside(ab, ka, ref), _zero_outside(bb, kb, ref)
    result = dispatch(fn, (ab, bb), {})
    return B.make(result, ext, B.extent_deps(a, b))


def _aligned(buf, e, axis, ref, length, name):
    """One operand's contracted axis moved to the common extent `ref` (its length
    checked equal at run time)."""
    count = e.count if e is not None else buf.shape[axis]
    B.check_counts(count, ref.count, f"shapes not aligned for np.{name}")
    return B.relocate(buf, axis, e.offset if e is not None else 0, ref.offset, length)


def _zero_outside(buf, axis, ref):
    ext = [None] * buf.ndim
    ext[axis] = ref
    return B.filled(BoundedArray(buf, ext), 0, [axis])


def _blocked(ab, bb, ka, kb, ref, ae, be, name):
    """A matrix-vector product of big operands by tiles (`bounded_blocks`), or None."""
    if name not in ("dot", "matmul") or ab.ndim + bb.ndim != 3:
        return None
    mat, vec, axis, rows = (ab, bb, 1, ae[0]) if ab.ndim == 2 else (bb, ab, 0, be[1])
    if not blocks.applies(mat, vec, axis):
        return None
    return blocks.matvec(mat, vec, axis, ref, rows)


def _flat1(x):
    if is_bounded(x) and x.ndim != 1:
        x.refuse("np.vdot of a bounded array with more than one dimension")
    return x if is_bounded(x) else dispatch(np.ravel, (x,), {})


def vector_norm(fn, args, kwargs):
    params = bind(fn, args, kwargs)
    x = params["x"]
    if params.get("ord") not in (None, 2) or params.get("axis") is not None or x.ndim != 1:
        x.refuse("np.linalg.norm other than the 2-norm of a vector")
    sq = elementwise(np.square, (elementwise(np.absolute, (x,), {}),), {})
    total = reduction(np.sum, "sum", (sq,), {})
    out = dispatch(np.sqrt, (total,), {})
    if params.get("keepdims"):
        out = dispatch(np.reshape, (out, (1,)), {})
    return out
