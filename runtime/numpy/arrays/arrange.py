"""Rearranging elements: roll, flip (fliplr/flipud/rot90), tile and repeat.

The rest of the family has modules of its own: padding.py (np.pad), diagonals.py
(tril/triu, diag/diagonal/trace) and grids.py (meshgrid, indices, np.mgrid/np.ogrid);
the value-level building blocks they share (slices along one axis, reversals,
concatenations) are in values.py.

Views: `flip`, `fliplr`, `flipud` and `rot90` return views, as in NumPy (writes through
them reach the base). Everything else returns a new array.

Shapes decide programs, so shifts of `roll` are the only count that may be traced (a
traced shift rolls through a `dynamic_slice` of the doubled array); `repeat` counts,
`tile` reps and `k` of `rot90` must be static.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from npxla.transpiler.base.errors import DataDependentShapeError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.gather import gather
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions.reductions import static
from npxla.runtime.numpy.core.registry import _leaves, dispatch, implements
from npxla.runtime.numpy.arrays.bounded import run_time_shape
from npxla.runtime.numpy.arrays.shape import make_view, transpose_view
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.values import (concat_axis, fresh, reshape_value, reverse_value,
                                             slice_axis, stretch_axis, transpose_value)

_I64 = np.dtype(np.int64)


# --- building blocks ---------------------------------------------------------------------

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


def static_int(value, what):
    """An integer argument that decides a shape (traced values must be known)."""
    return operator.index(static(value, what))


# --- flip / fliplr / flipud / rot90 (views) ------------------------------------------------

def flip_view(x: AbstractArray, axes):
    axes = tuple(axes)
    if x.weak:
        return reverse_value(x, axes)
    return make_view(x, lambda b: reverse_value(b, axes),
                     lambda b, new: reverse_value(new, axes),
                     lambda lay: np.flip(lay, axes) if axes else lay)


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
    k = static_int(k, "k") % 4
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
    plan = run_time_shape(reps) if isinstance(reps, (tuple, list)) or is_abstract(reps) \
        else None
    if plan is not None:
        return _tile_run_time(A, *plan)
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


def _tile_run_time(A, bound, ext, deps):
    """np.tile by repetition counts traced while the program runs, whose values lie in
    a known range (`np.tile(row, (len(ix), 1))` with `ix` a selection): tiled by the
    largest counts into the buffer, whose valid part along each such axis is the first
    `count * length` elements, the copies a smaller count makes."""
    y = tile(A, bound)
    nd = y.ndim
    shape = (1,) * (nd - A.ndim) + tuple(A.shape)
    ext = (None,) * (nd - len(ext)) + tuple(ext)
    out = [None if e is None else B.Extent(0, B.mul(e.count, shape[i]))
           for i, e in enumerate(ext)]
    return B.make(y, out, deps)


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
        axis = normalize_axis_index(static_int(axis, "axis"), a.ndim)
    n = a.shape[axis]
    if counts.size == 1:
        return _repeat_each(a, axis, int(counts.ravel()[0]))
    if counts.shape != (n,):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                         f"{counts.shape}")
    return _repeat_runs(a, axis, counts)
