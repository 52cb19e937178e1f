"""`np.pad` on abstract arrays, reproducing NumPy's padding modes step by step.

Why a module of its own: NumPy fills the reflect, symmetric and wrap modes iteratively
(a pad wider than the array repeats the reflection/period on the growing valid area),
and matching its results for every width takes about as much code as the rest of the
arrange family together.

Pad widths decide the shape, so they must be static; `constant_values` may be traced.
Modes constant, edge, reflect, symmetric (both reflect types), wrap and empty (zeros:
NumPy leaves the contents undefined) are supported; the statistic modes and callables
are refused with a hint.
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions.reductions import static
from npxla.runtime.numpy.core.registry import _leaves, dispatch, implements
from npxla.runtime.numpy.core.values import (concat_axis, fresh, reshape_value, reverse_value,
                                             slice_axis, stretch_axis)


_PAD_KWARGS = {
    "empty": [], "edge": [], "wrap": [], "constant": ["constant_values"],
    "linear_ramp": ["end_values"], "maximum": ["stat_length"], "mean": ["stat_length"],
    "median": ["stat_length"], "minimum": ["stat_length"],
    "reflect": ["reflect_type"], "symmetric": ["reflect_type"],
}


def _as_pairs(x, ndim, as_index=False):
    """NumPy's pad-argument broadcasting to ((before, after),) * ndim."""
    x = np.array(x)
    if as_index:
        x = np.round(x).astype(np.intp, copy=False)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if as_index and x[0] < 0:
                raise ValueError("index can't contain negative values")
            return [(x[0].item(), x[0].item())] * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if as_index and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return [(x[0].item(), x[1].item())] * ndim
    if as_index and x.size and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return [tuple(p) for p in np.broadcast_to(x, (ndim, 2)).tolist()]


def _pad_widths(pad_width, ndim):
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * ndim
        for ax, width in pad_width.items():
            width = static(width, "pad_width")
            seq[ax] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = seq
    pad_width = static(pad_width, "pad_width")
    if _leaves(pad_width, []):
        pad_width = [static(w, "pad_width") if is_abstract(w) else
                     [static(v, "pad_width") for v in w] if isinstance(w, (list, tuple)) else w
                     for w in pad_width]
    arr = np.asarray(pad_width)
    if arr.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    return _as_pairs(arr, ndim, as_index=True)


def _constant_pairs(values, ndim, dtype):
    """Pad values per (axis, side) as 0-d abstract arrays of `dtype`."""
    if not _leaves(values, []) or (is_abstract(values) and values.const is not None):
        if is_abstract(values):
            values = values.const
        pairs = _as_pairs(values, ndim)
        return [tuple(cast_to(as_abstract(np.asarray(v)), dtype) for v in p) for p in pairs]
    v = as_array(values)
    if v.size == 1:
        one = cast_to(reshape_value(v, ()), dtype)
        return [(one, one)] * ndim
    if v.size == 2 and v.shape != (2, 1):
        flat = reshape_value(v, (2,))
        pair = tuple(cast_to(reshape_value(slice_axis(flat, 0, i, i + 1), ()), dtype)
                     for i in range(2))
        return [pair] * ndim
    v = reshape_value(broadcast_to_shape(v, (ndim, 2)), (2 * ndim,))
    items = [cast_to(reshape_value(slice_axis(v, 0, i, i + 1), ()), dtype)
             for i in range(2 * ndim)]
    return [(items[2 * i], items[2 * i + 1]) for i in range(ndim)]


def _same_value(a, b):
    if a is b:
        return True
    ca, cb = a.const, b.const
    return ca is not None and cb is not None and ca.tobytes() == cb.tobytes()


def _pad_constant(x, widths, values):
    if not any(lo or hi for lo, hi in widths):
        return fresh(x)
    first = values[0][0]
    if all(_same_value(v, first) for p in values for v in p):
        low = tuple(w[0] for w in widths)
        high = tuple(w[1] for w in widths)
        return S.pad(x, first, low=low, high=high, interior=(0,) * x.ndim)
    for ax, ((lo, hi), (vlo, vhi)) in enumerate(zip(widths, values)):
        for side, width, value in ((0, lo, vlo), (1, hi, vhi)):
            if width:
                low = [0] * x.ndim
                high = [0] * x.ndim
                (low if side == 0 else high)[ax] = width
                x = S.pad(x, value, low=tuple(low), high=tuple(high),
                          interior=(0,) * x.ndim)
    return x


def _pad_edge(x, axis, lo, hi):
    n = x.shape[axis]
    parts = [x]
    if lo:
        parts.insert(0, stretch_axis(slice_axis(x, axis, 0, 1), axis, lo))
    if hi:
        parts.append(stretch_axis(slice_axis(x, axis, n - 1, n), axis, hi))
    return concat_axis(parts, axis)


def _reversed_slice(x, axis, start, stop):
    """`x[..., start:stop:-1, ...]` for start >= stop >= -1 (NumPy slice semantics)."""
    return reverse_value(slice_axis(x, axis, stop + 1, start + 1), (axis,))


def _pad_reflect(x, axis, lo, hi, odd, include_edge):
    """NumPy's iterative reflection (`_set_reflect_both`), on the growing valid area."""
    period = x.shape[axis]
    if period == 1:
        return _pad_edge(x, axis, lo, hi)
    mid = x
    while lo > 0 or hi > 0:
        length = mid.shape[axis]
        if include_edge:
            old = length // period * period
            edge_offset = 1
        else:
            old = (length - 1) // (period - 1) * (period - 1) + 1 - 1
            edge_offset = 0
        left = right = None
        if lo > 0:
            chunk = min(old, lo)
            # padded[lo + chunk - edge_offset : lo - edge_offset : -1] in mid coordinates
            stop = -edge_offset
            left = _reversed_slice(mid, axis, stop + chunk, stop)
            if odd:
                left = _odd(mid, axis, 0, left)
            lo -= chunk
        if hi > 0:
            chunk = min(old, hi)
            start = length - 2 + edge_offset
            right = _reversed_slice(mid, axis, start, start - chunk)
            if odd:
                right = _odd(mid, axis, length - 1, right)
            hi -= chunk
        mid = concat_axis([p for p in (left, mid, right) if p is not None], axis)
    return mid


def _odd(mid, axis, edge_index, chunk):
    edge = slice_axis(mid, axis, edge_index, edge_index + 1)
    twice = dispatch(np.multiply, (2, edge), {})
    return cast_to(dispatch(np.subtract, (twice, chunk), {}), mid.dtype)


def _pad_wrap(x, axis, lo, hi):
    """NumPy's iterative wrapping (`_set_wrap_both`)."""
    original = x.shape[axis]
    mid = x
    while lo > 0 or hi > 0:
        length = mid.shape[axis]
        period = length // original * original
        left = right = None
        new_lo = new_hi = 0
        if lo > 0:
            # chunk: padded[lo + period - min(period, lo) : lo + period]
            left = slice_axis(mid, axis, period - min(period, lo), period)
            new_lo = lo - period if lo > period else 0
        if hi > 0:
            start = length - period
            right = slice_axis(mid, axis, start, start + min(period, hi))
            new_hi = hi - period if hi > period else 0
        mid = concat_axis([p for p in (left, mid, right) if p is not None], axis)
        lo, hi = new_lo, new_hi
    return mid


@implements(np.pad, family="shape",
            notes="modes constant, edge, reflect, symmetric, wrap, empty (zeros); pad "
                  "widths static, constant_values may be traced")
def pad(array, pad_width, mode="constant", **kwargs):
    """np.pad: static widths decide the result shape; each mode builds the border from
    slices of the array (reflect, symmetric and wrap repeat as NumPy does when the pad
    is wider than the array, see the module docstring)."""
    x = as_array(array)
    widths = _pad_widths(pad_width, x.ndim)
    if callable(mode):
        raise UnsupportedFunctionError(
            "np.pad with a callable mode is not supported in compiled code",
            hint="use one of the modes 'constant', 'edge', 'reflect', 'symmetric', 'wrap'")
    mode = static(mode, "mode")
    if mode not in _PAD_KWARGS:
        raise ValueError(f"mode '{mode}' is not supported")
    unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if mode in ("linear_ramp", "maximum", "mean", "median", "minimum"):
        raise UnsupportedFunctionError(
            f"np.pad(mode={mode!r}) is not supported in compiled code yet",
            hint="use mode 'constant', 'edge', 'reflect', 'symmetric' or 'wrap', or "
                 "concatenate the computed borders with np.concatenate")
    if mode == "constant":
        values = _constant_pairs(kwargs.get("constant_values", 0), x.ndim, x.dtype)
        return _pad_constant(x, widths, values)
    for ax, (lo, hi) in enumerate(widths):
        if mode != "empty" and x.shape[ax] == 0 and (lo or hi):
            raise ValueError(f"can't extend empty axis {ax} using modes other than "
                             "'constant' or 'empty'")
    if mode == "empty" or x.size == 0:          # undefined (empty) contents: zeros
        zero = as_abstract(np.zeros((), x.dtype))
        return _pad_constant(x, widths, [(zero, zero)] * x.ndim)
    odd = False
    if mode in ("reflect", "symmetric"):
        method = static(kwargs.get("reflect_type", "even"), "reflect_type")
        if method not in ("even", "odd"):
            raise ValueError(f"unsupported reflect_type {method!r}: use 'even' or 'odd'")
        odd = method == "odd"
    out = x
    for ax, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        if mode == "edge":
            out = _pad_edge(out, ax, lo, hi)
        elif mode == "wrap":
            out = _pad_wrap(out, ax, lo, hi)
        else:
            out = _pad_reflect(out, ax, lo, hi, odd, mode == "symmetric")
    return fresh(out) if out is x else out
