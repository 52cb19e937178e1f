"""Rearranging elements: roll, flip (fliplr/flipud/rot90), tile, repeat, pad, tril/triu,
diag/diagonal/trace, meshgrid, indices, and `np.mgrid`/`np.ogrid` items.

Views: `flip`, `fliplr`, `flipud` and `rot90` return views, as in NumPy (writes through
them reach the base); `diagonal` and `diag` of a 2-d array return read-only views, as in
NumPy. Everything else returns a new array.

Shapes decide programs, so shifts of `roll` are the only count that may be traced (a
traced shift rolls through a `dynamic_slice` of the doubled array); `repeat` counts, pad
widths, `tile` reps, `k` of `diag`/`rot90` and diagonal offsets must be static.
`tril`/`triu` take a traced `k` (it only selects values).
"""
from __future__ import annotations

import math
import operator
import sys

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from npxla.transpiler.base.errors import (DataDependentShapeError, UnsupportedFunctionError, UnsupportedOperationError)

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.transpiler.base.dtypes import weak_standin
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.casts import as_array, fresh
from npxla.runtime.numpy.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions import numpy_error, static
from npxla.runtime.numpy.registry import _leaves, dispatch, implements
from npxla.runtime.numpy.shape import (_concat_values, _fold, _read_only, _view, broadcast_view, layout,
                    reshape_value, reshape_view, transpose_value,
                    transpose_view)
from npxla.runtime.lowering.gather import gather

_I64 = np.dtype(np.int64)


# --- building blocks ---------------------------------------------------------------------

def slice_axis(x, axis, start, stop, step=1):
    """`x[..., start:stop:step, ...]` along `axis` (static, 0 <= start <= stop, step > 0),
    as a new value."""
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, stop, step
    if starts == [0] * x.ndim and limits == list(x.shape) and step == 1:
        return fresh(x)
    index = (slice(None),) * axis + (slice(start, stop, step),)
    return _fold(x, lambda c: c[index], lambda v: S.static_slice(
        v, start=tuple(starts), limit=tuple(limits), strides=tuple(strides)))


def reverse_value(x, axes):
    axes = tuple(a for a in axes if x.shape[a] > 1)
    if not axes:
        return fresh(x)
    return _fold(x, lambda c: np.flip(c, axes), lambda v: S.reverse(v, axes=axes))


def concat_axis(parts, axis):
    return _concat_values(list(parts), axis, parts[0].dtype)


def stretch_axis(x, axis, n):
    """A size-1 axis broadcast to `n` (a new value)."""
    shape = x.shape[:axis] + (n,) + x.shape[axis + 1:]
    if shape == x.shape:
        return fresh(x)
    return _fold(x, lambda c: np.broadcast_to(c, shape),
                 lambda v: S.broadcast_in_dim(v, shape=shape, dims=tuple(range(x.ndim))))


def _repeat_each(x, axis, r):
    """Every element along `axis` repeated `r` times (`r` static, >= 0)."""
    n = x.shape[axis]
    if r == 1:
        return fresh(x)
    shape = x.shape[:axis + 1] + (r,) + x.shape[axis + 1:]
    y = reshape_value(x, x.shape[:axis + 1] + (1,) + x.shape[axis + 1:])
    y = stretch_axis(y, axis + 1, r)
    return reshape_value(y, shape[:axis] + (n * r,) + shape[axis + 2:])


def _axes(axis, ndim):
    axis = static(axis, "axis")
    if axis is None:
        return tuple(range(ndim))
    return normalize_axis_tuple(axis, ndim)


def _int(value, what):
    return operator.index(static(value, what))


# --- flip / fliplr / flipud / rot90 (views) ------------------------------------------------

def flip_view(x: AbstractArray, axes):
    axes = tuple(axes)
    if x.weak:
        return reverse_value(x, axes)
    lay = np.flip(layout(x), axes) if axes else layout(x)
    return _view(x, lambda b: reverse_value(b, axes),
                 lambda b, new: reverse_value(new, axes), lay)


@implements(np.flip, family="shape", fold=False, notes="returns a view, as in NumPy")
def flip(m, axis=None):
    m = as_array(m)
    return flip_view(m, _axes(axis, m.ndim))


def _flip_axis(m, axis):
    m = as_array(m)
    if m.ndim <= axis:
        raise ValueError(f"Input must be >= {axis + 1}-d.")
    return flip_view(m, (axis,))


@implements(np.fliplr, family="shape", fold=False, notes="returns a view, as in NumPy")
def fliplr(m):
    return _flip_axis(m, 1)


@implements(np.flipud, family="shape", fold=False, notes="returns a view, as in NumPy")
def flipud(m):
    return _flip_axis(m, 0)


@implements(np.rot90, family="shape", fold=False, notes="returns a view, as in NumPy")
def rot90(m, k=1, axes=(0, 1)):
    m = as_array(m)
    axes = tuple(static(axes, "axes"))
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = _int(k, "k") % 4
    a0, a1 = (normalize_axis_index(a, m.ndim) for a in axes)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 0:
        return m[...]
    if k == 2:
        return flip_view(m, (a0, a1))
    if k == 1:
        return transpose_view(flip_view(m, (a1,)), perm)
    return flip_view(transpose_view(m, perm), (a1,))


# --- roll --------------------------------------------------------------------------------

def _shift_items(shift):
    """The shifts as a list of Python ints and traced 0-d integers."""
    if isinstance(shift, (list, tuple)):
        return [item for s in shift for item in _shift_items(s)]
    if not is_abstract(shift) or shift.const is not None:
        arr = np.asarray(shift.const if is_abstract(shift) else shift)
        if arr.ndim > 1:
            raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
        return [operator.index(v) for v in arr.ravel()]
    if shift.dtype.kind not in "iub":
        raise TypeError(f"'{shift.dtype}' shift cannot be interpreted as an integer")
    if shift.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    if shift.ndim == 0:
        return [shift]
    return [reshape_value(slice_axis(shift, 0, i, i + 1), ()) for i in range(shift.shape[0])]


def _roll_static(x, axis, offset):
    n = x.shape[axis]
    offset %= n or 1
    if not offset:
        return x
    return concat_axis([slice_axis(x, axis, n - offset, n), slice_axis(x, axis, 0, n - offset)],
                       axis)


def _roll_traced(x, axis, shift):
    """Roll by a traced amount: a dynamic window into the array concatenated with itself."""
    n = x.shape[axis]
    if n <= 1:
        return x
    shift = cast_to(shift, _I64)
    offset = dispatch(np.remainder, (shift, np.int64(n)), {})
    start = E.subtract(as_abstract(np.int64(n)), offset)
    doubled = concat_axis([x, x], axis)
    starts = [start if i == axis else as_abstract(np.int64(0)) for i in range(x.ndim)]
    return S.dynamic_slice(doubled, *starts, sizes=x.shape)


@implements(np.roll, family="shape",
            notes="the shift may be traced (rolled with a dynamic slice); axis is static")
def roll(a, shift, axis=None):
    a = as_array(a)
    if axis is None:
        flat = roll(reshape_value(a, (a.size,)), shift, 0)
        return reshape_value(flat, a.shape)
    axis = static(axis, "axis")
    axes = normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    shifts = _shift_items(shift)
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        np.broadcast(np.zeros(len(shifts)), np.zeros(len(axes)))    # NumPy's error
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    total: dict = {}
    for sh, ax in zip(shifts, axes):
        prev = total.get(ax, 0)
        if is_abstract(sh) or is_abstract(prev):
            total[ax] = dispatch(np.add, (cast_to(sh, _I64), cast_to(as_abstract(prev), _I64)),
                                 {})
        else:
            total[ax] = prev + sh
    out = a
    for ax, sh in total.items():
        out = _roll_traced(out, ax, sh) if is_abstract(sh) else _roll_static(out, ax, sh)
    return fresh(out) if out is a else out


# --- tile / repeat -------------------------------------------------------------------------

@implements(np.tile, family="shape")
def tile(A, reps):
    A = as_array(A)
    reps = static(reps, "reps")
    tup = tuple(reps) if isinstance(reps, (tuple, list)) or np.ndim(reps) else (reps,)
    tup = tuple(operator.index(r) for r in tup)
    if any(r < 0 for r in tup):
        raise ValueError("negative dimensions are not allowed")
    nd = max(A.ndim, len(tup))
    tup = (1,) * (nd - len(tup)) + tup
    shape = (1,) * (nd - A.ndim) + A.shape
    x = reshape_value(A, shape)
    if all(r == 1 for r in tup):
        return fresh(x)
    big = tuple(v for r, s in zip(tup, shape) for v in (r, s))
    y = S.broadcast_in_dim(x, shape=big, dims=tuple(range(1, 2 * nd, 2)))
    return reshape_value(y, tuple(r * s for r, s in zip(tup, shape)))


def _static_repeats(repeats):
    """repeats as a NumPy int array (traced counts are refused: they decide the shape)."""
    leaves = _leaves(repeats, [])
    traced = [x for x in leaves if x.const is None]
    if traced:
        if all(x.weak for x in traced):
            static(traced[0], "repeats")              # ConcretizationError: specialise
        raise DataDependentShapeError(
            "np.repeat with traced repeat counts: the output length depends on their "
            "values, and XLA needs every shape at compile time",
            hint="pass the counts as Python ints / a NumPy array known when compiling "
                 "(a global, a constant, or a static argument via static_argnums), or "
                 "repeat to a fixed maximum count and mask the extra copies with np.where")
    if is_abstract(repeats):
        repeats = repeats.const
    elif leaves:
        repeats = [x.const if is_abstract(x) else x for x in repeats]
    r = np.asarray(repeats)
    if r.dtype.kind not in "iub":
        r = r.astype(np.intp)                          # NumPy truncates float counts
    if r.ndim > 1:
        np.repeat(np.zeros(1), r)                      # NumPy's error
    if (r < 0).any():
        raise ValueError("repeats may not contain negative values.")
    return r.astype(np.int64)


_MAX_RUNS = 16


def take_static(x, axis, index):
    """`np.take(x, index, axis)` for a static, in-bounds int index vector (one gather)."""
    perm = (axis,) + tuple(i for i in range(x.ndim) if i != axis)
    y = transpose_value(x, perm)
    idx = AbstractArray.from_const(np.asarray(index, np.int64).reshape(-1, 1), weak=False)
    g = gather(y, idx)
    return transpose_value(g, tuple(int(i) for i in np.argsort(perm)))


def _repeat_runs(x, axis, counts):
    """Concatenation of runs of equal counts (one slice + broadcast per run); a gather
    when there are many runs."""
    n = x.shape[axis]
    bounds = [0] + [i for i in range(1, n) if counts[i] != counts[i - 1]] + [n] if n else [0]
    runs = [(a, b, int(counts[a])) for a, b in zip(bounds, bounds[1:]) if counts[a]]
    if not runs or x.size == 0:
        shape = x.shape[:axis] + (int(counts.sum()),) + x.shape[axis + 1:]
        return broadcast_to_shape(as_abstract(np.zeros((), x.dtype)), shape)
    if len(runs) > _MAX_RUNS:
        return take_static(x, axis, np.repeat(np.arange(n), counts))
    parts = [_repeat_each(slice_axis(x, axis, a, b), axis, r) for a, b, r in runs]
    return concat_axis(parts, axis)


@implements(np.repeat, method="repeat", family="shape",
            notes="repeats must be static (a traced count array is a "
                  "DataDependentShapeError); a count array emits one slice per run of "
                  "equal counts (a gather beyond 16 runs)")
def repeat(a, repeats, axis=None):
    a = as_array(a)
    counts = _static_repeats(repeats)
    if axis is None:
        a = reshape_value(a, (a.size,))
        axis = 0
    else:
        axis = normalize_axis_index(_int(axis, "axis"), a.ndim)
    n = a.shape[axis]
    if counts.size == 1:
        return _repeat_each(a, axis, int(counts.ravel()[0]))
    if counts.shape != (n,):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                         f"{counts.shape}")
    return _repeat_runs(a, axis, counts)


# --- pad ----------------------------------------------------------------------------------

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


# --- tril / triu ---------------------------------------------------------------------------

def _tri_mask(n, m, k, direction):
    """`col - row <direction> k` over an (n, m) grid (k static or traced)."""
    row = S.iota(shape=(n, m), dtype=_I64, dim=0)
    col = S.iota(shape=(n, m), dtype=_I64, dim=1)
    k = cast_to(as_abstract(k), _I64)
    if k.ndim:
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    return E.compare(E.subtract(col, row), S.broadcast_in_dim(k, shape=(n, m), dims=()),
                     direction)


def _triangle(fn, m, k, direction):
    m = as_array(m)
    if m.ndim == 0:
        numpy_error(fn, m)
    if is_abstract(k) and k.dtype.kind not in "iub":
        raise TypeError(f"k must be an integer, not {k.dtype}")
    if not is_abstract(k):
        k = operator.index(k)
    n, cols = m.shape[-2:] if m.ndim > 1 else (m.shape[0], m.shape[0])
    shape = m.shape if m.ndim > 1 else (n, cols)
    mask = S.broadcast_in_dim(_tri_mask(n, cols, k, direction), shape=shape,
                              dims=(len(shape) - 2, len(shape) - 1))
    x = broadcast_to_shape(m, shape) if m.ndim < 2 else m
    zero = S.broadcast_in_dim(as_abstract(np.zeros((), m.dtype)), shape=shape, dims=())
    return S.select(mask, x, zero)


@implements(np.tril, family="creation", notes="k may be traced")
def tril(m, k=0):
    return _triangle(np.tril, m, k, "LE")


@implements(np.triu, family="creation", notes="k may be traced")
def triu(m, k=0):
    return _triangle(np.triu, m, k, "GE")


# --- diagonal / diag / trace -----------------------------------------------------------------

def diagonal_value(x, offset, a1, a2):
    """The diagonal (as a new value) over axes a1, a2 (normalised, distinct), moved last."""
    perm = [i for i in range(x.ndim) if i not in (a1, a2)] + [a1, a2]
    n, m = x.shape[a1], x.shape[a2]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    r0, c0 = min(r0, n), min(c0, m)
    size = max(0, min(n - r0, m - c0))

    def traced(v):
        y = S.transpose(v, perm=tuple(perm)) if perm != list(range(v.ndim)) else v
        batch = y.shape[:-2]
        y = S.static_slice(y, start=(0,) * len(batch) + (r0, c0),
                           limit=batch + (r0 + size, c0 + size), strides=(1,) * y.ndim)
        y = S.reshape(y, shape=batch + (size * size,))
        if size > 1:
            y = S.static_slice(y, start=(0,) * y.ndim, limit=y.shape,
                               strides=(1,) * len(batch) + (size + 1,))
        return y
    return _fold(x, lambda c: np.diagonal(c, offset, a1, a2).copy(), traced)


def _diagonal_axes(x, axis1, axis2):
    if x.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1 = normalize_axis_index(_int(axis1, "axis1"), x.ndim, "axis1")
    a2 = normalize_axis_index(_int(axis2, "axis2"), x.ndim, "axis2")
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return a1, a2


def diagonal_view(x, offset, a1, a2):
    lay = np.diagonal(layout(x), offset, a1, a2)
    return _view(x, lambda b: diagonal_value(b, offset, a1, a2), _read_only, lay)


@implements(np.diagonal, method="diagonal", family="shape", fold=False,
            notes="returns a read-only view, as in NumPy")
def diagonal(a, offset=0, axis1=0, axis2=1):
    x = as_array(a)
    a1, a2 = _diagonal_axes(x, axis1, axis2)
    return diagonal_view(x, _int(offset, "offset"), a1, a2)


@implements(np.trace, method="trace", family="reductions")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    x = as_array(a)
    a1, a2 = _diagonal_axes(x, axis1, axis2)
    d = diagonal_value(x, _int(offset, "offset"), a1, a2)
    return dispatch(np.sum, (d,), {"axis": -1, "dtype": static(dtype, "dtype"), "out": out})


@implements(np.diag, family="creation", fold=False,
            notes="a 2-d input gives a read-only view of its diagonal, as in NumPy")
def diag(v, k=0):
    x = as_array(v)
    k = _int(k, "k")
    if x.ndim == 2:
        return diagonal_view(x, k, 0, 1)
    if x.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = x.shape[0] + abs(k)
    vec = S.pad(x, as_abstract(np.zeros((), x.dtype)), low=(0,), high=(abs(k),),
                interior=(0,))
    # row i holds v[i] (k >= 0) / column j holds v[j] (k < 0)
    dims = (0,) if k >= 0 else (1,)
    values = S.broadcast_in_dim(vec, shape=(n, n), dims=dims)
    zero = S.broadcast_in_dim(as_abstract(np.zeros((), x.dtype)), shape=(n, n), dims=())
    return S.select(_tri_mask(n, n, k, "EQ"), values, zero)


@implements(np.diagflat, family="creation")
def diagflat(v, k=0):
    x = as_array(v)
    return diag(reshape_value(x, (x.size,)), k)


# --- meshgrid / indices / mgrid / ogrid ---------------------------------------------------

@implements(np.meshgrid, family="creation", fold=False,
            notes="copy=False gives views (read-only where broadcast)")
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    indexing = static(indexing, "indexing")
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    shapes = []
    for i, x in enumerate(xi):
        s = [1] * ndim
        s[i] = as_array(x).size
        shapes.append(s)
    if indexing == "xy" and ndim > 1:
        shapes[0] = [1, as_array(xi[0]).size] + [1] * (ndim - 2)
        shapes[1] = [as_array(xi[1]).size, 1] + [1] * (ndim - 2)
    output = [reshape_view(as_array(x), tuple(s)) for x, s in zip(xi, shapes)]
    full = tuple(np.broadcast_shapes(*[tuple(s) for s in shapes])) if ndim else ()
    if copy:
        if sparse:
            return tuple(fresh(o) for o in output)
        return tuple(fresh(broadcast_to_shape(o, full)) for o in output)
    if sparse:
        return tuple(output)
    return tuple(o if o.shape == full else broadcast_view(o, full) for o in output)


@implements(np.indices, family="creation", creates=True,
            notes="dimensions must be static; the result is a constant")
def indices(dimensions, dtype=int, sparse=False):
    dims = tuple(_int(d, "dimensions") for d in dimensions)
    result = np.indices(dims, dtype=static(dtype, "dtype"), sparse=static(sparse, "sparse"))
    if isinstance(result, tuple):
        return tuple(AbstractArray.from_const(r, weak=False) for r in result)
    return AbstractArray.from_const(result, weak=False)


def _promotion_standin(v):
    """What `np.result_type` sees for a grid bound (traced Python scalars stay weak)."""
    if not is_abstract(v):
        return v
    if v.const is not None:
        return v.const.item() if v.weak and v.ndim == 0 else v.const
    return weak_standin(v.dtype) if v.weak else v.dtype


def _is_complex_step(step):
    return isinstance(step, (complex, np.complexfloating)) or (
        is_abstract(step) and step.dtype.kind == "c")


@implements(np.result_type, family="casts",
            notes="dtypes are static, so traced arrays are fine (traced Python scalars "
                  "promote as Python scalars); used by np.mgrid/np.ogrid")
def result_type(*arrays_and_dtypes):
    caller = sys._getframe(1)
    for _ in range(6):
        if caller is None or caller.f_code is _ND_GRID_ITEM:
            break
        caller = caller.f_back
    if caller is not None and caller.f_code is _ND_GRID_ITEM and isinstance(
            caller.f_locals.get("key"), tuple):
        # nd_grid.__getitem__ would next write traced values into a NumPy array, and its
        # `except TypeError` would turn any error into a confusing AttributeError.
        raise UnsupportedOperationError(
            "np.mgrid/np.ogrid with several slices whose bounds are traced values cannot "
            "be compiled (NumPy builds the grid in a NumPy array)",
            hint="use np.meshgrid(np.linspace(a, b, n), ..., indexing='ij') (sparse=True "
                 "for np.ogrid), or index the grid with one slice at a time")
    return np.result_type(*[_promotion_standin(v) for v in arrays_and_dtypes])


_ND_GRID_ITEM = type(np.mgrid).__getitem__.__code__


def grid_item(grid, key):
    """`np.mgrid[key]` / `np.ogrid[key]` whose slice bounds are traced values (the same
    steps as NumPy's `nd_grid.__getitem__`). A complex step (`5j`) gives the number of
    points, so only the bounds are traced; a real step needs static bounds (the bounds
    decide the length)."""
    if not isinstance(key, tuple):
        start = 0 if key.start is None else key.start
        step = key.step
        if _is_complex_step(step):
            step_float = abs(static(step, "an np.mgrid step"))
            step = length = int(step_float)
            if step != 1:
                step = (key.stop - start) / float(step - 1)
            typ = np.result_type(*[_promotion_standin(v) for v in (start, key.stop,
                                                                   step_float)])
            base = AbstractArray.from_const(np.arange(0, length, 1, dtype=typ), weak=False)
            return base * step + start
        bounds = [static(v, "an np.mgrid bound") for v in (start, key.stop, step)]
        return AbstractArray.from_const(np.arange(*bounds), weak=False)
    size, num_list = [], [0]
    for k in key:
        start = 0 if k.start is None else k.start
        step = 1 if k.step is None else k.step
        if _is_complex_step(step):
            step = abs(static(step, "an np.mgrid step"))
            size.append(int(step))
        else:
            stop, start_s, step_s = (static(v, "an np.mgrid bound")
                                     for v in (k.stop, start, step))
            size.append(math.ceil((stop - start_s) / step_s))
        num_list += [start, k.stop, step]
    typ = np.result_type(*[_promotion_standin(v) for v in num_list])
    if grid.sparse:
        nn = [np.arange(n, dtype=typ) for n in size]
    else:
        nn = list(np.indices(size, typ))
    out = []
    for k, kk in enumerate(key):
        start = 0 if kk.start is None else kk.start
        step = 1 if kk.step is None else kk.step
        if _is_complex_step(step):
            step = int(abs(static(step, "an np.mgrid step")))
            if step != 1:
                step = (kk.stop - start) / float(step - 1)
        value = AbstractArray.from_const(nn[k], weak=False) * step + start
        out.append(as_array(value) if grid.sparse else cast_to(value, typ))
    if grid.sparse:
        return tuple(reshape_value(o, tuple(n if i == k else 1 for i, n in enumerate(size)))
                     for k, o in enumerate(out))
    return concat_axis([reshape_value(o, (1,) + o.shape) for o in out], 0)


__all__ = ["flip", "fliplr", "flipud", "rot90", "roll", "tile", "repeat", "pad", "tril",
           "triu", "diagonal", "diag", "diagflat", "trace", "meshgrid", "indices", "grid_item",
           "diagonal_value", "slice_axis", "reverse_value", "concat_axis", "take_static",
           "result_type"]
