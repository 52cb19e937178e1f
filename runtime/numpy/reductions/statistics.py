"""Order statistics and NaN-aware reductions: median, percentile, quantile (all of NumPy's
methods), their nan* forms, nansum nanprod nanmean nanvar nanstd nanmax nanmin
nanargmax nanargmin, count_nonzero, average, ptp.

Order statistics sort the reduced axes (merged into one, last) once and read the wanted
ranks; a median, or a quantile at a constant q, partitions instead where NumPy's own
partition runs on the host (`host_sort`), at the positions NumPy's own partitions at, so
the values read are NumPy's to the bit and the selection is linear. A large float
nanmedian, or nanquantile at a constant q, is NumPy's own call on the host (`host_sort`).
Static ranks are read by static slices, ranks known only at run time (traced `q`, or
the per-slice count of non-NaN values in the nan* forms) by one gather. The
interpolation repeats NumPy's own arithmetic (`_lerp`) with NumPy's operand dtypes, so result dtypes
and roundings follow NumPy, integer wrap-around included.
NaN reductions replace NaNs and reuse the registered reductions.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.elementwise_extra import real
from npxla.runtime.lowering.gather import gather
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.reductions.reductions import _move_to_last, axes_of, static
from npxla.runtime.numpy.core.registry import implements
from npxla.runtime.numpy.reductions.host_sort import host_nanmedian, host_nanquantile
from npxla.runtime.numpy.reductions.sorting import partition_values, sort_values
from npxla.runtime.numpy.ufuncs.ufunc_core import store_out

_NO_VALUE = np._NoValue
try:    # NumPy's quantile index functions, to partition where it does (`_numpy_kth`)
    from numpy.lib._function_base_impl import _QuantileMethods, _get_indexes
    _NP_QUANTILE = (_QuantileMethods, _get_indexes)
except ImportError:  # pragma: no cover - another NumPy layout
    _NP_QUANTILE = None


# --- layout: reduced axes merged into one, last -------------------------------------------

def _last(x, axis):
    """(x with the reduced axes merged and moved last, axes, keepdims shape)."""
    axes = axes_of(axis, x.ndim)
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return _move_to_last(x, axes), axes, kept


def _slice_last(x, k):
    """x[..., k] for a static k (shape x.shape[:-1])."""
    n = x.ndim
    out = S.static_slice(x, start=(0,) * (n - 1) + (k,), limit=x.shape[:-1] + (k + 1,),
                         strides=(1,) * n)
    return S.reshape(out, shape=x.shape[:-1])


def _column(v):
    return S.reshape(v, shape=v.shape + (1,))


def take_last(s, index):
    """s[..., index] along the last axis, with `index` (int, in range) broadcast against
    s.shape[:-1]; leading axes of `index` beyond those are kept in front."""
    rest, n = s.shape[:-1], s.shape[-1]
    index = as_abstract(index)
    lead = index.shape[:max(0, index.ndim - len(rest))]
    c = index.const
    if c is not None:
        rows = c.reshape(int(np.prod(lead, dtype=np.int64)), -1)
        if (rows == rows[:, :1]).all():          # one static index per leading entry
            parts = [_slice_last(s, int(k)) for k in rows[:, 0]]
            out = S.concatenate(*[S.reshape(p, shape=(1,) + rest) for p in parts], axis=0)
            return S.reshape(out, shape=lead + rest)
    # one gather from the flattened array: row r's element k sits at r * n + k
    shape = lead + rest
    idx = broadcast_to_shape(cast_to(index, np.int64), shape)
    if rest:
        rows = S.reshape(S.iota(shape=(int(np.prod(rest, dtype=np.int64)),), dtype=np.int64,
                                dim=0), shape=rest)
        idx = idx + broadcast_to_shape(rows * n, shape)
    flat = S.reshape(s, shape=(s.size,))
    return gather(flat, _column(idx))


def _finish(result, qnd, kept, keepdims, out, name):
    if keepdims is not _NO_VALUE and static(keepdims, "keepdims"):
        result = S.reshape(result, shape=result.shape[:qnd] + kept)
    if out is not None:
        return store_out(name, out, result, casting="unsafe")
    return result


def _inexact(x):
    return x.dtype.kind in "fc"


# --- median ----------------------------------------------------------------------------

def _median_sorted(s, count=None):
    """Median of the sorted last axis, as NumPy computes it: the mean of the middle value
    or pair. `count` (traced, per slice) limits each slice to its first `count` values."""
    n = s.shape[-1]
    if count is None:
        if n == 0:
            return np.mean(s, axis=-1)
        middle = sorted({(n - 1) // 2, n // 2})
        return np.mean(take_last(s, np.array(middle).reshape(-1, *(1,) * (s.ndim - 1))),
                       axis=0)
    lo, hi = (count - 1) // 2, count // 2
    a, b = take_last(s, lo), take_last(s, hi)
    two = np.mean(S.concatenate(_column(a), _column(b), axis=a.ndim), axis=-1)
    med = np.where(lo == hi, np.mean(_column(a), axis=-1), two)
    return np.where(count == 0, np.nan, med)


def _nan_last(s, result):
    """NumPy's median/quantile NaN rule: a slice whose (sorted) last value is NaN gives
    that NaN."""
    if not _inexact(s) or s.shape[-1] == 0:
        return result
    last = _slice_last(s, s.shape[-1] - 1)
    return np.where(np.isnan(last), cast_to(last, result.dtype), result)


@implements(np.median, family="statistics")
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    x = as_array(a)
    flat, axes, kept = _last(x, axis)
    # NumPy partitions at the middle (and last, for NaNs) positions: the same selection
    n = flat.shape[-1]
    kth = sorted({(n - 1) // 2, n // 2}) + ([n - 1] if _inexact(flat) else [])
    s = partition_values(flat, flat.ndim - 1, kth) if n else flat
    r = _nan_last(s, _median_sorted(s))
    return _finish(r, 0, kept, keepdims, out, "median")


def _nan_count(s):
    return np.sum(~np.isnan(s), axis=-1)


@implements(np.nanmedian, family="statistics")
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=_NO_VALUE):
    x = as_array(a)
    if not _inexact(x):
        return median(x, axis, out, overwrite_input, keepdims)
    flat, axes, kept = _last(x, axis)
    r = host_nanmedian(flat)
    if r is None:
        s = sort_values(flat, flat.ndim - 1)
        r = cast_to(_median_sorted(s, _nan_count(s)), np.median(np.zeros(1, x.dtype)).dtype)
    return _finish(r, 0, kept, keepdims, out, "nanmedian")


# --- quantile ----------------------------------------------------------------------------
# NumPy's _QuantileMethods, written on abstract arrays (`n` is a Python int, or the
# per-slice count of non-NaN values in the nan* forms).

def _continuous(alpha, beta):
    return lambda n, q: n * q + (alpha + q * (1 - alpha - beta)) - 1


def _discrete(virtual, condition):
    """NumPy's _discrete_interpolation_to_boundaries: an integer index."""
    prev = np.floor(virtual)
    res = cast_to(np.where(condition(virtual - prev, virtual), prev, prev + 1), np.intp)
    return np.maximum(res, 0)


def _lin(n, q):
    return (n - 1) * q


_INT_INDEX = {
    "inverted_cdf": lambda n, q: _discrete(n * q - 1, lambda g, v: g == 0),
    "closest_observation": lambda n, q: _discrete(
        n * q - 1 - 0.5, lambda g, v: (g == 0) & (np.floor(v) % 2 == 1)),
    "lower": lambda n, q: cast_to(np.floor(_lin(n, q)), np.intp),
    "higher": lambda n, q: cast_to(np.ceil(_lin(n, q)), np.intp),
    "nearest": lambda n, q: cast_to(np.around(_lin(n, q)), np.intp),
}
# method: (virtual index, gamma fix)
_FLOAT_INDEX = {
    "averaged_inverted_cdf": (lambda n, q: n * q - 1,
                              lambda g, v: np.where(g == 0, 0.5, 1.0)),
    "interpolated_inverted_cdf": (_continuous(0, 1), None),
    "hazen": (_continuous(0.5, 0.5), None),
    "weibull": (_continuous(0, 0), None),
    "linear": (_lin, None),
    "median_unbiased": (_continuous(1 / 3.0, 1 / 3.0), None),
    "normal_unbiased": (_continuous(3 / 8.0, 3 / 8.0), None),
    "midpoint": (lambda n, q: 0.5 * (np.floor(_lin(n, q)) + np.ceil(_lin(n, q))),
                 lambda g, v: np.where(v % 1 == 0, 0.0, 0.5)),
}


def _lerp(a, b, t, one_minus_t, pick_b):
    """NumPy's _lerp, operation for operation."""
    diff = b - a
    low = a + diff * t
    high = cast_to(b, low.dtype) - cast_to(diff * one_minus_t, low.dtype)
    return np.where(pick_b, high, low)


def _quantile_sorted(s, q, method, weak_q, count=None):
    """Quantiles `q` (shape Q) of the sorted last axis of `s` (shape R + (n,)): shape
    Q + R. `count` (per slice, traced) limits each slice to its first `count` values."""
    if method not in _INT_INDEX and method not in _FLOAT_INDEX:
        raise ValueError(f"{method!r} is not a valid method. Use one of: "
                         f"{tuple(_INT_INDEX) + tuple(_FLOAT_INDEX)}")
    rest = s.shape[:-1]
    if s.shape[-1] == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    if q.ndim:
        q = S.reshape(q, shape=q.shape + (1,) * len(rest))
    if count is None:
        n = s.shape[-1]
    else:   # NumPy's n is a Python int: it takes q's float dtype
        n = cast_to(count, q.dtype if q.dtype.kind == "f" else np.int64)
    if method in _INT_INDEX:
        return take_last(s, _INT_INDEX[method](n, q))
    index, fix = _FLOAT_INDEX[method]
    virtual = as_abstract(index(n, q))
    if virtual.dtype.kind in "iu" and method == "linear":
        return take_last(s, virtual)
    above, below = virtual >= n - 1, virtual < 0
    prev = np.floor(virtual)
    prev_i = np.where(above, -1, np.where(below, 0, prev))
    next_i = np.where(above, -1, np.where(below, 0, prev + 1))
    gamma = cast_to(virtual - prev_i, virtual.dtype)
    if fix is not None:
        gamma = cast_to(fix(gamma, virtual), virtual.dtype)

    def position(i):   # -1 reads the last value of the slice
        return cast_to(np.where(i < 0, n - 1, i), np.int64)
    a, b = take_last(s, position(prev_i)), take_last(s, position(next_i))
    one_minus = 1 - gamma
    if weak_q:   # NumPy passes gamma on as a Python float: a weak operand
        weak_dtype = np.result_type(s.dtype, 0.0)
        t, one_minus = cast_to(gamma, weak_dtype), cast_to(one_minus, weak_dtype)
    else:
        t = gamma
    return _lerp(a, b, t, one_minus, gamma >= 0.5)


def _numpy_kth(q, n, method, inexact):
    """The positions NumPy's quantile partitions a slice of `n` at, computed by NumPy's
    own index functions for a constant `q` (its `_quantile`: the ranks each method
    reads, and for an interpolating one also 0 and the last), or None: a traced q, or a
    NumPy without those functions, sorts. Read from the same partition, the quantiles
    are NumPy's to the bit, the signs of tied zeros and the NaN at the end included."""
    c = q.const
    if c is None or _NP_QUANTILE is None or method not in _NP_QUANTILE[0] or n == 0:
        return None
    methods, neighbours = _NP_QUANTILE
    try:
        props = methods[method]
        virtual = np.asanyarray(props["get_virtual_index"](n, c))
        if props["fix_gamma"] is None or (method == "linear" and virtual.dtype.kind in "iu"):
            kth = list(virtual.ravel()) + ([-1] if inexact else [])
        else:
            prev, nxt = neighbours(np.empty(0, np.float64 if inexact else np.int64),
                                   virtual, n)
            kth = np.unique(np.concatenate(([0, -1], prev.ravel(), nxt.ravel())))
        return [int(k) % n for k in kth]
    except (KeyError, TypeError, ValueError):   # pragma: no cover - another NumPy's internals
        return None


def _check_q(q, what, hi):
    c = q.const
    if c is not None and not ((c >= 0).all() and (c <= 1).all()):
        raise ValueError(f"{what} must be in the range [0, {hi}]")


def _quantile(name, a, q, axis, out, method, keepdims, weights, interpolation, percent,
              nan):
    """Shared by quantile/percentile and their nan variants: sort along the axes and
    interpolate with NumPy's method formulas; NaNs propagate (or, for the nan
    variants, are sorted last and excluded from each slice's count)."""
    if interpolation is not None:
        raise UnsupportedFunctionError(f"np.{name}(..., interpolation=...) is deprecated; "
                                       "use method=")
    if weights is not None:
        raise UnsupportedFunctionError(f"np.{name}(..., weights=...) is not supported",
                                       hint="sort with the weights and use np.cumsum and "
                                            "np.searchsorted")
    method = static(method, "method")
    x = as_array(a)
    if x.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    qa = as_abstract(q) if is_abstract(q) or not isinstance(q, (list, tuple)) \
        else as_array(q)
    weak_q = qa.weak and qa.ndim == 0 and qa.dtype.kind in "iuf"
    given = qa.const                   # q as the caller passed it (`host_nanquantile`)
    qa = cast_to(qa, qa.dtype, weak=False)
    if percent:
        qa = as_abstract(np.true_divide(qa, 100))
        _check_q(qa, "Percentiles", 100)
    else:
        _check_q(qa, "Quantiles", 1)
    if qa.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    flat, axes, kept = _last(x, axis)
    r = host_nanquantile(flat, given, weak_q, percent, method) \
        if nan and given is not None else None
    if r is not None:
        return _finish(r, qa.ndim, kept, keepdims, out, name)
    kth = None if nan else _numpy_kth(qa, flat.shape[-1], method, _inexact(x))
    s = sort_values(flat, flat.ndim - 1) if kth is None else \
        partition_values(flat, flat.ndim - 1, kth)
    if nan and _inexact(x):
        count = _nan_count(s)
        r = _quantile_sorted(s, qa, method, weak_q, count)
        r = np.where(count == 0, np.nan, r)
    else:
        r = _nan_last(s, _quantile_sorted(s, qa, method, weak_q))
    return _finish(r, qa.ndim, kept, keepdims, out, name)


_Q_NOTES = ("all methods; a traced q is not range-checked; weights= is not supported")


def _quantile_function(name, percent, nan):
    def impl(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=_NO_VALUE, *, weights=None, interpolation=None):
        return _quantile(name, a, q, axis, out, method, keepdims, weights, interpolation,
                         percent, nan)
    impl.__name__ = name
    return impl


for _fn, _percent, _nan in ((np.quantile, False, False), (np.percentile, True, False),
                            (np.nanquantile, False, True), (np.nanpercentile, True, True)):
    implements(_fn, family="statistics", notes=_Q_NOTES)(
        _quantile_function(_fn.__name__, _percent, _nan))


# --- NaN-ignoring reductions ---------------------------------------------------------------

def _given(**kwargs):
    """The keyword arguments the caller actually passed (NumPy's _NoValue convention)."""
    return {k: v for k, v in kwargs.items() if v is not _NO_VALUE}


def _store(name, result, out):
    return result if out is None else store_out(name, out, result, casting="unsafe")


def _nan_masked(x, fill):
    """(x with NaNs replaced by `fill`, NaN mask) for inexact x, else (x, None)."""
    if not _inexact(x):
        return x, None
    mask = np.isnan(x)
    return np.where(mask, fill, x), mask


@implements(np.nansum, family="statistics")
def nansum(a, axis=None, dtype=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE,
           where=_NO_VALUE):
    x, _ = _nan_masked(as_array(a), 0)
    return np.sum(x, axis=axis, dtype=dtype, out=out,
                  **_given(keepdims=keepdims, initial=initial, where=where))


@implements(np.nanprod, family="statistics")
def nanprod(a, axis=None, dtype=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE,
            where=_NO_VALUE):
    x, _ = _nan_masked(as_array(a), 1)
    return np.prod(x, axis=axis, dtype=dtype, out=out,
                   **_given(keepdims=keepdims, initial=initial, where=where))


def _nan_extreme(name, fn, fill, a, axis, out, keepdims, initial, where):
    x = as_array(a)
    kwargs = _given(keepdims=keepdims, initial=initial, where=where)
    if x.dtype.kind == "c":
        fill = complex(fill, fill)
    xf, mask = _nan_masked(x, fill)
    res = fn(xf, axis=axis, **kwargs)
    if mask is not None and initial is _NO_VALUE:   # an all-NaN slice gives NaN
        kwargs.pop("initial", None)
        res = np.where(np.all(mask, axis=axis, **kwargs), np.nan, res)
    return _store(name, res, out)


@implements(np.nanmax, family="statistics")
def nanmax(a, axis=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE, where=_NO_VALUE):
    return _nan_extreme("nanmax", np.max, -np.inf, a, axis, out, keepdims, initial, where)


@implements(np.nanmin, family="statistics")
def nanmin(a, axis=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE, where=_NO_VALUE):
    return _nan_extreme("nanmin", np.min, np.inf, a, axis, out, keepdims, initial, where)


_ALL_NAN = ("an all-NaN slice raises at run time as NumPy does, but as IndexError "
            "('All-NaN slice encountered'), not ValueError")


def _nan_arg(fn, fill, a, axis, out, keepdims):
    x = as_array(a)
    xf, mask = _nan_masked(x, complex(fill, fill) if x.dtype.kind == "c" else fill)
    if mask is not None and mask.size:
        bad = np.any(np.all(mask, axis=axis))
        if bad.const is not None:
            if bad.const:
                raise ValueError("All-NaN slice encountered")
        else:
            check(bad, "All-NaN slice encountered")
    return fn(xf, axis=axis, out=out, **_given(keepdims=keepdims))


@implements(np.nanargmax, family="statistics", notes=_ALL_NAN)
def nanargmax(a, axis=None, out=None, *, keepdims=_NO_VALUE):
    return _nan_arg(np.argmax, -np.inf, a, axis, out, keepdims)


@implements(np.nanargmin, family="statistics", notes=_ALL_NAN)
def nanargmin(a, axis=None, out=None, *, keepdims=_NO_VALUE):
    return _nan_arg(np.argmin, np.inf, a, axis, out, keepdims)


def _inexact_dtype(dtype, out):
    if dtype is not None and not np.issubdtype(np.dtype(dtype), np.inexact):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and out.dtype.kind not in "fc":
        raise TypeError("If a is inexact, then out must be inexact")


def _divide_by_count(total, count):
    return cast_to(total / count, total.dtype)


@implements(np.nanmean, family="statistics")
def nanmean(a, axis=None, dtype=None, out=None, keepdims=_NO_VALUE, *, where=_NO_VALUE):
    x = as_array(a)
    dtype = static(dtype, "dtype")
    arr, mask = _nan_masked(x, 0)
    if mask is None:
        return np.mean(x, axis=axis, dtype=dtype, out=out,
                       **_given(keepdims=keepdims, where=where))
    _inexact_dtype(dtype, out)
    kwargs = _given(keepdims=keepdims, where=where)
    count = np.sum(~mask, axis=axis, dtype=np.intp, **kwargs)
    total = np.sum(arr, axis=axis, dtype=dtype, **kwargs)
    return _store("nanmean", _divide_by_count(total, count), out)


def _nanvar(name, a, axis, dtype, out, ddof, keepdims, where, mean, correction, root):
    """nanvar/nanstd: the variance over the non-NaN elements with NumPy's ddof/correction
    rules; without NaN masks (integer input) it is np.var/np.std, as in NumPy."""
    x = as_array(a)
    dtype = static(dtype, "dtype")
    arr, mask = _nan_masked(x, 0)
    if mask is None:
        fn = np.std if root else np.var
        return fn(x, axis=axis, dtype=dtype, out=out, ddof=ddof,
                  **_given(keepdims=keepdims, where=where, mean=mean,
                           correction=correction))
    _inexact_dtype(dtype, out)
    if correction is not _NO_VALUE:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    kwargs = _given(where=where)
    count = np.sum(~mask, axis=axis, dtype=np.intp, keepdims=True, **kwargs)
    if mean is not _NO_VALUE:
        avg = as_array(mean)
    else:
        avg = _divide_by_count(np.sum(arr, axis=axis, dtype=dtype, keepdims=True, **kwargs),
                               count)
    dev = np.where(mask, 0, cast_to(arr - avg, arr.dtype))
    sqr = real(dev * np.conjugate(dev)) if dev.dtype.kind == "c" else dev * dev
    var = np.sum(sqr, axis=axis, dtype=dtype, **_given(keepdims=keepdims), **kwargs)
    if var.ndim < count.ndim:
        count = S.reshape(count, shape=var.shape)
    dof = count - static(ddof, "ddof")
    var = np.where(dof <= 0, np.nan, _divide_by_count(var, dof))
    if root:
        var = cast_to(np.sqrt(var), var.dtype)
    return _store(name, var, out)


@implements(np.nanvar, family="statistics")
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NO_VALUE, *,
           where=_NO_VALUE, mean=_NO_VALUE, correction=_NO_VALUE):
    return _nanvar("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                   False)


@implements(np.nanstd, family="statistics")
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NO_VALUE, *,
           where=_NO_VALUE, mean=_NO_VALUE, correction=_NO_VALUE):
    return _nanvar("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                   True)


# --- count_nonzero, ptp, average -----------------------------------------------------------

@implements(np.count_nonzero, family="statistics")
def count_nonzero(a, axis=None, *, keepdims=False):
    x = cast_to(as_array(a), np.bool_)
    return np.sum(x, axis=axis, dtype=np.intp, keepdims=keepdims)


@implements(np.ptp, family="statistics")
def ptp(a, axis=None, out=None, keepdims=False):
    x = as_array(a)
    result = np.subtract(np.max(x, axis=axis, keepdims=keepdims),
                         np.min(x, axis=axis, keepdims=keepdims))
    return _store("ptp", result, out)


def _weights_like(w, x, axes):
    """NumPy's _weights_are_valid: 1-d weights along `axes` broadcast against x."""
    if w.shape == x.shape:
        return w
    if axes is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    if w.shape != tuple(x.shape[ax] for ax in axes):
        raise ValueError("Shape of weights must be consistent with shape of a along "
                         "specified axis.")
    order = tuple(int(i) for i in np.argsort(axes))
    if order != tuple(range(len(order))):
        w = S.transpose(w, perm=order)
    return S.reshape(w, shape=tuple(s if ax in axes else 1 for ax, s in enumerate(x.shape)))


@implements(np.average, family="statistics",
            notes="weights summing to zero give inf/NaN instead of ZeroDivisionError")
def average(a, axis=None, weights=None, returned=False, *, keepdims=_NO_VALUE):
    x = as_array(a)
    axes = None if static(axis, "axis") is None else normalize_axis_tuple(
        static(axis, "axis"), x.ndim, argname="axis")
    kwargs = _given(keepdims=keepdims)
    if weights is None:
        avg = np.mean(x, axis=axes, **kwargs)
        scale = as_abstract(avg.dtype.type(x.size / max(avg.size, 1)))
    else:
        w = _weights_like(as_array(weights), x, axes)
        if x.dtype.kind in "biu":
            dtype = np.result_type(x.dtype, w.dtype, "f8")
        else:
            dtype = np.result_type(x.dtype, w.dtype)
        scale = np.sum(w, axis=axes, dtype=dtype, **kwargs)
        avg = np.sum(np.multiply(x, w, dtype=dtype), axis=axes, **kwargs) / scale
    if not static(returned, "returned"):
        return avg
    if scale.shape != avg.shape:
        scale = broadcast_to_shape(scale, avg.shape)
    return avg, scale
