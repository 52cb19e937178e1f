"""Cumulative functions: cumsum, cumprod, nancumsum, nancumprod, cumulative_sum,
cumulative_prod, the ufunc `accumulate` methods, and the ndarray methods cumsum/cumprod.

Results are one prefix reduction (lowering/scan.py): NumPy's sequential loop for float
sums and products, so they are its bits; a `reduce_window` that XLA turns into a scan
for the rest (integers wrap like NumPy). Dtypes are NumPy's: small integers and bools
accumulate in the platform integer (int64/uint64), `dtype=` wins.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import is_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.scan import cumulative
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions.reductions import axes_of, full, np_dtype, static
from npxla.runtime.numpy.core.registry import (_leaves, _to_const, implements,
                                               register_ufunc_method, wrap_result)
from npxla.runtime.numpy.ufuncs.ufunc_core import store_out

_NO_VALUE = np._NoValue
_ROUNDING = ("float sums and products in NumPy's sequential order (its bits; complex "
             "products up to XLA's complex multiply)")


def _slice(x, axis, start, stop, step=1):
    lo = [0] * x.ndim
    hi = list(x.shape)
    st = [1] * x.ndim
    lo[axis], hi[axis], st[axis] = start, stop, step
    return S.static_slice(x, start=tuple(lo), limit=tuple(hi), strides=tuple(st))


_KIND = {"add": "add", "multiply": "mul", "maximum": "max", "minimum": "min", "fmax": "fmax",
         "fmin": "fmin", "logical_and": "and", "logical_or": "or", "logical_xor": "xor",
         "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}
_BOOL_KIND = {"add": "or", "mul": "and", "max": "or", "min": "and", "fmax": "or",
              "fmin": "and"}


def _accumulate(x, ufunc, axis, dtype):
    """ufunc.accumulate of `x` along `axis` computed in `dtype`."""
    x = cast_to(x, dtype)
    if x.size == 0:
        return x
    kind = _KIND[ufunc.__name__]
    if x.dtype == np.bool_:
        kind = _BOOL_KIND.get(kind, kind)
    elif x.dtype.kind == "c" and kind not in ("add", "mul"):
        raise UnsupportedFunctionError(f"np.{ufunc.__name__}.accumulate on complex "
                                       "arrays is not supported")
    return cumulative(x, kind=kind, axis=axis)


def _cumulative(fn, ufunc, x, axis, dtype, out, nan_fill=None, include_initial=False):
    """`fn` (NumPy's cumulative function, for its result dtype) of the array `x` along
    the normalised `axis` by `ufunc`."""
    out_dtype = np_dtype(fn, x.dtype, dtype=static(dtype, "dtype"))
    if nan_fill is not None and x.dtype.kind in "fc":
        x = np.where(np.isnan(x), nan_fill, x)
    r = _accumulate(x, ufunc, axis, out_dtype)
    if static(include_initial, "include_initial"):
        shape = list(x.shape)
        shape[axis] = 1
        first = full(0 if ufunc is np.add else 1, out_dtype, tuple(shape))
        r = S.concatenate(first, r, axis=axis)
    if out is not None:
        return store_out(fn.__name__, out, r, casting="unsafe")
    return r


def _legacy(fn, ufunc, a, axis, dtype, out, nan_fill=None):
    """cumsum & co: axis=None accumulates the flattened array."""
    x = as_array(a)
    axis = static(axis, "axis")
    if axis is None:
        x, axis = S.reshape(x, shape=(x.size,)), 0
    return _cumulative(fn, ufunc, x, normalize_axis_index(axis, x.ndim), dtype, out,
                       nan_fill)


@implements(np.cumsum, method="cumsum", family="cumulative", notes=_ROUNDING)
def cumsum(a, axis=None, dtype=None, out=None):
    return _legacy(np.cumsum, np.add, a, axis, dtype, out)


@implements(np.cumprod, method="cumprod", family="cumulative", notes=_ROUNDING)
def cumprod(a, axis=None, dtype=None, out=None):
    return _legacy(np.cumprod, np.multiply, a, axis, dtype, out)


@implements(np.nancumsum, family="cumulative", notes=_ROUNDING)
def nancumsum(a, axis=None, dtype=None, out=None):
    return _legacy(np.nancumsum, np.add, a, axis, dtype, out, nan_fill=0)


@implements(np.nancumprod, family="cumulative", notes=_ROUNDING)
def nancumprod(a, axis=None, dtype=None, out=None):
    return _legacy(np.nancumprod, np.multiply, a, axis, dtype, out, nan_fill=1)


def _array_api(fn, ufunc, x, axis, dtype, out, include_initial):
    """cumulative_sum & co: axis may be omitted for 1-d input only."""
    x = as_array(x)
    axis = static(axis, "axis")
    if axis is None:
        if x.ndim > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` "
                             "argument is required.")
        axis = 0
    if x.ndim == 0:
        raise ValueError("Array must be at least 1-d (got 0-d)")
    return _cumulative(fn, ufunc, x, normalize_axis_index(axis, x.ndim), dtype, out,
                       include_initial=include_initial)


@implements(np.cumulative_sum, family="cumulative", notes=_ROUNDING)
def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _array_api(np.cumulative_sum, np.add, x, axis, dtype, out, include_initial)


@implements(np.cumulative_prod, family="cumulative", notes=_ROUNDING)
def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _array_api(np.cumulative_prod, np.multiply, x, axis, dtype, out,
                      include_initial)


# --- ufunc.accumulate ---------------------------------------------------------------------

_ACCUMULATE = (np.add, np.multiply, np.maximum, np.minimum, np.logical_and, np.logical_or,
               np.logical_xor, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.fmax,
               np.fmin)


def _ufunc_accumulate(ufunc):
    def accumulate(array, axis=0, dtype=None, out=None):
        leaves = _leaves((array, axis, dtype), [])
        if all(leaf.const is not None for leaf in leaves):
            return wrap_result(ufunc.accumulate(_to_const(array), axis=_to_const(axis),
                                                dtype=dtype))
        x = as_array(array)
        if x.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        ax = normalize_axis_index(static(axis, "axis"), x.ndim)
        return _cumulative(ufunc.accumulate, ufunc, x, ax, dtype, out)
    return accumulate


for _u in _ACCUMULATE:
    register_ufunc_method(_u, "accumulate", _ufunc_accumulate(_u))


# --- differences: diff, ediff1d, unwrap, gradient -------------------------------------------------

def _edge(x, axis, shape_like):
    """A scalar prepend/append broadcast to one slice of `shape_like` along `axis`."""
    x = as_array(x)
    if x.ndim:
        return x
    shape = list(shape_like)
    shape[axis] = 1
    return broadcast_to_shape(x, tuple(shape))


@implements(np.diff, family="cumulative")
def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    n = operator.index(static(n, "n"))
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    x = as_array(a)
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis_index(static(axis, "axis"), x.ndim)
    parts = ([_edge(prepend, axis, x.shape)] if prepend is not _NO_VALUE else []) + [x] + (
        [_edge(append, axis, x.shape)] if append is not _NO_VALUE else [])
    if len(parts) > 1:
        x = np.concatenate(parts, axis)
    op = np.not_equal if x.dtype == np.bool_ else np.subtract
    for _ in range(n):
        m = x.shape[axis]
        x = op(_slice(x, axis, min(1, m), m), _slice(x, axis, 0, max(m - 1, 0)))
    return x


@implements(np.ediff1d, family="cumulative")
def ediff1d(ary, to_end=None, to_begin=None):
    x = as_array(ary)
    x = S.reshape(x, shape=(x.size,))
    parts = []
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is None:
            parts.append(None)
            continue
        e = as_array(extra)
        if not np.can_cast(e.dtype, x.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under "
                            "the `same_kind` rule.")
        parts.append(cast_to(S.reshape(e, shape=(e.size,)), x.dtype))
    m = x.size
    d = cast_to(np.subtract(_slice(x, 0, min(1, m), m), _slice(x, 0, 0, max(m - 1, 0))),
                x.dtype)
    pieces = [p for p in (parts[0], d, parts[1]) if p is not None]
    return S.concatenate(*pieces, axis=0) if len(pieces) > 1 else d


@implements(np.unwrap, family="cumulative")
def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """NumPy's steps: differences wrapped into [-period/2, period/2) (a difference of
    exactly half a period keeps its sign), corrections where a jump reaches `discont`,
    summed along the axis and added after the first element."""
    p = as_array(p)
    axis = normalize_axis_index(static(axis, "axis"), p.ndim)
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(np.empty(0, dd.dtype), period)
    if np.issubdtype(dtype, np.integer):
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = np.mod(dd - interval_low, period) + interval_low
    if boundary_ambiguous:
        ddmod = np.where((ddmod == interval_low) & (dd > 0),
                         cast_to(as_array(np.asarray(interval_high)), ddmod.dtype), ddmod)
    ph_correct = ddmod - dd
    ph_correct = np.where(np.abs(dd) < discont, cast_to(as_array(np.asarray(0)),
                                                        ph_correct.dtype), ph_correct)
    rest = _slice(p, axis, min(1, p.shape[axis]), p.shape[axis])
    up = cast_to(p, dtype)
    tail = cast_to(rest + np.cumsum(ph_correct, axis=axis), dtype)
    head = _slice(up, axis, 0, min(1, p.shape[axis]))
    return S.concatenate(head, tail, axis=axis)


def _gradient_axis(f, axis, dx, edge_order, otype):
    """NumPy's gradient along one axis: `dx` a scalar spacing or 1-d coordinate
    differences (then the non-uniform formulas)."""
    n = f.shape[axis]

    def sl(start, stop):
        return _slice(f, axis, start % n if start < 0 else start,
                      stop % n if stop is not None and stop < 0 else (n if stop is None
                                                                       else stop))

    uniform = dx.ndim == 0 if is_abstract(dx) else np.ndim(dx) == 0
    if uniform:
        interior = (sl(2, None) - sl(0, -2)) / (2. * dx)
    else:
        dx1, dx2 = _slice(dx, 0, 0, dx.shape[0] - 1), _slice(dx, 0, 1, dx.shape[0])
        shape = tuple(-1 if i == axis else 1 for i in range(f.ndim))
        a = np.reshape(-(dx2) / (dx1 * (dx1 + dx2)), shape)
        b = np.reshape((dx2 - dx1) / (dx1 * dx2), shape)
        c = np.reshape(dx1 / (dx2 * (dx1 + dx2)), shape)
        interior = a * sl(0, -2) + b * sl(1, -1) + c * sl(2, None)

    def at(i):
        return dx if uniform else dx[i]
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / at(0)
        last = (sl(-1, None) - sl(-2, -1)) / at(-1)
    else:
        if uniform:
            a, b, c = -1.5 / dx, 2. / dx, -0.5 / dx
        else:
            d1, d2 = dx[0], dx[1]
            a = -(2. * d1 + d2) / (d1 * (d1 + d2))
            b = (d1 + d2) / (d1 * d2)
            c = - d1 / (d2 * (d1 + d2))
        first = a * sl(0, 1) + b * sl(1, 2) + c * sl(2, 3)
        if uniform:
            a, b, c = 0.5 / dx, -2. / dx, 1.5 / dx
        else:
            d1, d2 = dx[-2], dx[-1]
            a = (d2) / (d1 * (d1 + d2))
            b = - (d2 + d1) / (d1 * d2)
            c = (2. * d2 + d1) / (d2 * (d1 + d2))
        last = a * sl(-3, -2) + b * sl(-2, -1) + c * sl(-1, None)
    parts = [cast_to(broadcast_to_shape(as_array(p), s), otype) for p, s in (
        (first, _slice_shape(f, axis, 1)), (interior, _slice_shape(f, axis, n - 2)),
        (last, _slice_shape(f, axis, 1)))]
    return S.concatenate(*parts, axis=axis)


def _slice_shape(f, axis, size):
    return tuple(size if i == axis else d for i, d in enumerate(f.shape))


@implements(np.gradient, family="cumulative",
            notes="traced coordinates: both NumPy formulas are computed and the uniform "
                  "one is picked at run time when the spacing is constant")
def gradient(f, *varargs, axis=None, edge_order=1):
    """np.gradient: second-order central differences inside and first- or second-order one-
    sided differences at the edges, with scalar, coordinate-array or uniform
    spacings per axis, as NumPy computes them."""
    f = as_array(f)
    axes = axes_of(axis, f.ndim)
    edge_order = static(edge_order, "edge_order")
    if len(varargs) == 0:
        dx = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        dx = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        dx = []
        for i, distances in enumerate(varargs):
            if np.ndim(distances) == 0:
                dx.append(distances)
                continue
            distances = as_array(distances)
            if distances.ndim != 1:
                raise ValueError("distances must be either scalars or 1d")
            if distances.shape[0] != f.shape[axes[i]]:
                raise ValueError("when 1d, distances must match the length of the "
                                 "corresponding dimension")
            if distances.dtype.kind in "iu":
                distances = cast_to(distances, np.float64)
            dx.append(np.diff(distances))
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = cast_to(f, np.float64)
        otype = np.dtype(np.float64)
    outs = []
    for ax, ax_dx in zip(axes, dx):
        if f.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        if np.ndim(ax_dx) == 0 or ax_dx.shape[0] == 0:
            outs.append(_gradient_axis(f, ax, ax_dx, edge_order, otype))
            continue
        first = _slice(ax_dx, 0, 0, 1)
        same = np.all(ax_dx == first)   # NumPy switches to the scalar formulas
        step = S.reshape(first, shape=())
        if same.const is not None:
            outs.append(_gradient_axis(f, ax, step if same.const else ax_dx, edge_order,
                                       otype))
        else:
            outs.append(np.where(same, _gradient_axis(f, ax, step, edge_order, otype),
                                 _gradient_axis(f, ax, ax_dx, edge_order, otype)))
    return outs[0] if len(axes) == 1 else tuple(outs)
