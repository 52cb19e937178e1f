"""Indexing that makes, reads and writes arrays with dynamic extents.

- `x[i, :j]`, `x[i + 1:M, i]`, `x[lo[k]:lo[k + 1]]`: a slice with a traced start or stop
  (step 1) is a *view* whose buffer is the whole axis (so writes through it, and reads
  after writes to `x`, behave as NumPy's view) and whose extent is the normalised
  window. A known start is cut off statically, so `:j` keeps offset 0.
- `b[k]`, `b[a:c]`, `b[::-1]` on a bounded array: offset arithmetic on the same buffer.
- Assigning into any of them (`A[i, :j] = v`, `y[:k] += d`) is a select of the valid
  window, written through the buffer view.
- Steps other than 1 (`x[j::3]`, `x[::k]`, `x[:k][::2]`) are gathered views
  (`bounded_strided`).
- `x[mask]` compacts the selected elements to the front of a buffer as long as the
  mask (a prefix scan plus one scatter); `x[mask] = v` with such a `v` gathers back.
- `x[idx]` with a bounded integer index gathers with the padding indices zeroed.
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.staging.bounded import BoundedArray, is_bounded
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import gather as G
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.scan import cumulative
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.indexing import bounded_fancy, bounded_strided
from npxla.runtime.numpy.indexing.bounded_scatter import scatter_window
from npxla.runtime.numpy.indexing.bounded_window import speculate
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.reductions.reductions import split_on_cpu
from npxla.runtime.numpy.indexing.slicing import _expand, fixed_window, is_int

_I64 = np.dtype(np.int64)


# --- which indices make dynamic extents -----------------------------------------------
def dynamic_slices(index, shape) -> bool:
    """Whether a basic index has a slice with a traced start or stop that a bounded
    array should stand for. A bound computed only from Python scalar *arguments* is
    left to the driver, which specialises the function on their values (exact shapes,
    better code); loop indices and array data are not specialisable. A window of a
    fixed length inside the axis (`x[i:i + 3]`) has a static shape: basic indexing
    makes it (`slicing.fixed_window`)."""
    entries = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(e, slice) and any(map(B.traced_bound, (e.start, e.stop, e.step)))
               for e in entries):
        return False
    trace = current_trace()
    special = trace.specialisable if trace is not None else frozenset()
    found = data = scalar_args = False
    axis = 0
    for e in _expand(index, len(shape)):
        if e is None:
            continue
        n = shape[axis]
        axis += 1
        if isinstance(e, slice) and fixed_window(e, n) is not None:
            continue
        if isinstance(e, slice):
            for v in (e.start, e.stop, e.step):
                if B.traced_bound(v):
                    found = True
                    args = {d for d in v.deps if type(d) is int}   # argument positions
                    data = data or bool(args - special)
                    scalar_args = scalar_args or bool(args & special)
    # bounds from Python scalar arguments (and loop indices) are left to the driver,
    # which specialises the arguments; with array data among them (`x[x[2]:b]`) that
    # would not make the shape known, so the slice is bounded
    return found and (data or not scalar_args)


def _window(entry, n):
    """(static slice for the buffer, offset, count) of a slice with traced bounds and
    step 1 or -1 (other steps are gathered views: `bounded_strided`)."""
    step = entry.step
    for v in (entry.start, entry.stop):
        if is_bounded(v) or (is_abstract(v) and (v.ndim or v.dtype.kind not in "iub")):
            raise TypeError("slice indices must be integers or None or have an __index__ "
                            "method")
    if step is not None and operator.index(step) == -1:
        return _reversed_window(entry, n)
    start = 0 if entry.start is None else B.normalise_bound(entry.start, n)
    stop = n if entry.stop is None else B.normalise_bound(entry.stop, n)
    ks, ke = B.known(start), B.known(stop)
    if ke is None and (guess := speculate(start, stop, n)) is not None:
        return guess
    if ks is not None:
        return slice(ks, None), 0, B.maximum(B.sub(stop, ks), 0)
    if ke is not None:
        offset = B.minimum(start, ke)
        return slice(None, ke), offset, B.maximum(B.sub(ke, start), 0)
    return slice(None), start, B.maximum(B.sub(stop, start), 0)


def _reversed_window(entry, n):
    """`x[start:stop:-1]` is a step-1 window of the reversed axis: its buffer is the
    view `x[::-1]` (writes go through it), where element i of the axis sits at
    n - 1 - i. Bounds are normalised as `slice.indices` does for a negative step:
    negatives count from the end, then clipped to [-1, n - 1]; None means the end
    (start) or past the beginning (stop)."""
    start = n - 1 if entry.start is None else _down_bound(entry.start, n)
    stop = -1 if entry.stop is None else _down_bound(entry.stop, n)
    return slice(None, None, -1), B.sub(n - 1, start), B.maximum(B.sub(start, stop), 0)


def _down_bound(v, n):
    k = B.known(v)
    if k is not None:
        return min(max(k + n if k < 0 else k, -1), n - 1)
    v = B.traced(v)
    rng = B.value_range(v)
    if rng is not None and -1 <= rng[0] and rng[1] <= n - 1:
        return v
    wrapped = S.select(B.compare(v, 0, "LT"), B.add(v, n), v)
    return B.clip(wrapped, -1, n - 1)


def slice_dynamic(x: AbstractArray, index, getitem) -> BoundedArray:
    """`x[index]` where some slice bound is traced (`getitem`: the static path)."""
    deps = B.deps_of(*(v for e in _expand(index, x.ndim) if isinstance(e, slice)
                       for v in (e.start, e.stop, e.step)))
    x, strided, entries = bounded_strided.expand(x, (None,) * x.ndim, _expand(index, x.ndim))
    new, plan = [], []
    axis = out_axis = 0
    for e in entries:
        if e is None:
            new.append(None)
            out_axis += 1
            continue
        if strided[axis] is not None:
            new.append(e)
            plan.append((out_axis, strided[axis]))
        elif isinstance(e, slice) and (B.traced_bound(e.start) or B.traced_bound(e.stop)):
            cut, offset, count = _window(e, x.shape[axis])
            new.append(cut)
            plan.append((out_axis, B.Extent(offset, count)))
        else:
            new.append(e)
        if isinstance(e, slice):
            out_axis += 1
        axis += 1
    buf = getitem(x, tuple(new))
    ext = [None] * buf.ndim
    for a, e in plan:
        ext[a] = e
    return BoundedArray(buf, ext, deps)


# --- indexing a bounded array -----------------------------------------------------------
def _position(i, e: B.Extent, axis):
    """Buffer position of integer index `i` into a dynamic axis, bounds-checked."""
    count = e.count
    ki, kc = B.known(i), B.known(count)
    if ki is not None and kc is not None:
        if not -kc <= ki < kc:
            raise IndexError(f"index {ki} is out of bounds for axis {axis} with size {kc}")
        return B.add(e.offset, ki % kc)
    i = B.traced(i)
    wrapped = S.select(B.compare(i, 0, "LT"), B.add(i, count), i)
    bad = E.bitwise_or(B.compare(wrapped, 0, "LT"), B.compare(wrapped, count, "GE"))
    check(bad, f"index {{}} is out of bounds for axis {axis}", payload=i)
    return B.add(e.offset, B.clip(wrapped, 0, B.maximum(B.sub(count, 1), 0)))


def translate(b: BoundedArray, index):
    """`index` into bounded `b` as an index into its buffer, and the extents of the
    result's axes (ints, slices with step 1 or a plain reverse, None, `...`)."""
    entries = _basic_entries(b, index)
    new, ext = [], []
    axis = 0
    for e in entries:
        if e is None:
            new.append(None), ext.append(None)
            continue
        n, ex = b.bound[axis], b.ext[axis]
        if ex is None:
            if isinstance(e, slice) and (B.traced_bound(e.start) or B.traced_bound(e.stop)):
                cut, offset, count = _window(e, n)
                new.append(cut), ext.append(B.Extent(offset, count))
            else:
                new.append(e)
                if isinstance(e, slice):
                    ext.append(None)
        elif isinstance(e, slice):
            cut, e2 = _sub_window(b, e, n, ex)
            new.append(cut), ext.append(e2)
        else:
            new.append(_position(e, ex, axis))
        axis += 1
    return new, ext


def _basic_entries(b: BoundedArray, index):
    """`index` expanded to one entry per axis (and None), refused if not basic."""
    if not isinstance(index, tuple):
        index = (index,)
    if any(not (e is None or e is Ellipsis or isinstance(e, slice) or is_int(e) or
                (is_abstract(e) and e.ndim == 0 and e.dtype.kind in "iu")) for e in index):
        b.refuse("advanced indexing (an index array or a mask)")
    return _expand(index, b.ndim)


def _index_deps(index):
    deps = frozenset()
    for e in (index if isinstance(index, tuple) else (index,)):
        deps |= B.deps_of(*((e.start, e.stop, e.step) if isinstance(e, slice) else (e,)))
    return deps


def getitem_bounded(b: BoundedArray, index, getitem):
    """`b[index]`: a view of the same buffer with moved extents (an integer array on
    the first axis: a gather, see `take_first_axis`)."""
    if b.ext[0] is not None and bounded_fancy.applies(index):
        mask = bounded_fancy.buffer_mask(b, index)      # y[y > t][hits]: a mask
        if mask is not None:
            return getitem(b.buf, mask)
        return bounded_fancy.read_bounded(b, index)     # y[idx], both of run-time length
    if _first_axis_indices(index) and b.ext[0] is not None:
        return take_first_axis(b, index[0] if isinstance(index, tuple) else index, getitem)
    buf, ext, entries = bounded_strided.expand(b.buf, b.ext, _basic_entries(b, index))
    if buf is not b.buf:
        b = BoundedArray(buf, ext, b.extent_deps)
    new, ext = translate(b, tuple(entries))
    buf = getitem(b.buf, tuple(new))
    if is_abstract(buf) and buf.ndim == len(ext):
        return B.make(buf, ext, b.extent_deps | _index_deps(index))
    return buf


def _first_axis_indices(index) -> bool:
    """An integer index array alone, or followed by `:` only (`v[inverse]`, `x[i, :]`)."""
    parts = index if isinstance(index, tuple) else (index,)
    head = parts[0] if parts else None
    if not (is_abstract(head) and head.ndim >= 1 and head.dtype.kind in "iu"):
        return False
    return all(isinstance(e, slice) and e == slice(None) for e in parts[1:])


def take_first_axis(b: BoundedArray, idx, getitem):
    """`b[idx]` with a static-shaped integer array along its dynamic first axis (the
    values of `np.unique` at its inverse): each index is checked against the run-time
    length and wrapped as NumPy wraps negatives, then read from the buffer."""
    e = b.ext[0]
    i = cast_to(idx, _I64)
    count = broadcast_to_shape(B.traced(e.count), i.shape)
    zero = broadcast_to_shape(as_abstract(np.int64(0)), i.shape)
    wrapped = S.select(E.compare(i, zero, "LT"), E.add(i, count), i)
    bad = E.bitwise_or(E.compare(wrapped, zero, "LT"), E.compare(wrapped, count, "GE"))
    check(bad, "index {} is out of bounds for axis 0", payload=i)
    pos = E.add(S.select(bad, zero, wrapped), broadcast_to_shape(B.traced(e.offset), i.shape))
    out = getitem(b.buf, pos)
    return B.make(out, (None,) * i.ndim + b.ext[1:], b.extent_deps | idx.deps)


def _sub_window(b, e, n, ex):
    if e.start is None and e.stop is None and e.step is None:
        return slice(None), ex          # `:` keeps the extent (the same values)
    step = e.step                   # 1 or a plain reverse: others are gathered views
    if step is not None and operator.index(step) == -1:
        return slice(None, None, -1), B.Extent(B.sub(B.sub(n, ex.offset), ex.count),
                                              ex.count)
    count = ex.count
    start = 0 if e.start is None else _relative(e.start, count)
    stop = count if e.stop is None else _relative(e.stop, count)
    return slice(None), B.Extent(B.add(ex.offset, start),
                                 B.maximum(B.sub(stop, start), 0))


def _relative(v, count):
    """A slice bound inside a window of `count` elements (negatives from its end)."""
    kc = B.known(count)
    if kc is not None and B.known(v) is not None:
        return B.normalise_bound(v, kc)
    v = B.traced(v)
    wrapped = S.select(B.compare(v, 0, "LT"), B.add(v, count), v)
    return B.clip(wrapped, 0, count)


# --- assignment ---------------------------------------------------------------------------
def assign(target, value):
    """Write `value` (broadcast, cast like NumPy's setitem) into `target`, a bounded
    array or a static view, through its buffer: only the valid window changes."""
    tb, text = B.parts(target)
    value = B.as_operand(value)
    vb, vext = B.parts(value)
    vb = cast_to(vb, tb.dtype)
    nd = tb.ndim
    if vb.ndim > nd:
        raise ValueError(f"could not broadcast input array from shape {vb.shape} into "
                         f"shape {tb.shape}")
    for k in range(nd):
        a = vb.ndim - nd + k
        if a < 0:
            continue
        te, ve = text[k], vext[a]
        what = "could not broadcast input array into the assigned slice"
        if te is not None and ve is not None:
            if B.same(ve.count, te.count):
                vb = B.relocate(vb, a, ve.offset, te.offset, tb.shape[k])
            else:                       # equal, or 1 (broadcast), at run time
                ok = E.bitwise_or(B.compare(ve.count, te.count, "EQ"),
                                  B.compare(ve.count, 1, "EQ"))
                check(E.bitwise_not(ok), what, error=ValueError)
                vb = B.broadcast_one(vb, a, ve, te.offset, tb.shape[k])
        elif te is not None and vb.shape[a] != 1:
            B.check_counts(vb.shape[a], te.count, what)
            vb = B.relocate(vb, a, 0, te.offset, tb.shape[k])
        elif ve is not None:
            B.check_counts(ve.count, tb.shape[k], what)
            vb = B.relocate(vb, a, ve.offset, 0, tb.shape[k])
        elif vb.shape[a] not in (1, tb.shape[k]):
            raise ValueError(f"could not broadcast input array from shape {vb.shape} into "
                             f"shape {tb.shape}")
    if is_bounded(target) and not is_bounded(value) and bounded_strided.fill(target, vb):
        return
    vb = broadcast_to_shape(vb, tb.shape)
    if is_bounded(target):
        if scatter_window(target, vb):
            return
        vb = S.select(B.valid_mask(target), vb, tb)
    tb.assign(vb)


# --- boolean masks ---------------------------------------------------------------------------
def _flat(x, lead):
    n = int(np.prod(x.shape[:lead], dtype=np.int64))
    return S.reshape(x, shape=(n,) + x.shape[lead:]), n


def _ranks(mask):
    """Per flat position: how many selected positions precede it, and the total."""
    m, n = _flat(mask, mask.ndim)
    if n == 0:
        return m, None, 0, 0
    run = cumulative(cast_to(m, _I64), kind="add", axis=0)
    count = S.reshape(S.static_slice(run, start=(n - 1,), limit=(n,), strides=(1,)),
                      shape=()) if n else as_abstract(np.int64(0))
    return m, run, count, n


def compact(x: AbstractArray, mask: AbstractArray, keep=False) -> BoundedArray:
    """`x[mask]` for a mask over x's leading axes: the selected rows, in order, at the
    front of a buffer with one row per mask element. `keep`: also record the rows and
    the mask as they are (`BoundedArray.selection`), with the count from a sum of the
    mask rather than from the scan, so that a program that only reduces the selection
    computes neither the scan nor the scatter."""
    m, run, count, n = _ranks(mask)
    rows, _ = _flat(x, mask.ndim)
    if keep and n:
        rows = AbstractArray(rows.shape, rows.dtype, ir=rows.ir, deps=rows.deps)
        count = _count_of(mask, m)
        out = _compacted(rows, m, run, count, n, mask.deps)
        out.selection = (rows, m, out.buf.ir)
        return out
    if n == 0:
        return BoundedArray(rows, (B.Extent(0, 0),) + (None,) * (rows.ndim - 1),
                            deps=mask.deps)
    return _compacted(rows, m, run, count, n, mask.deps)


def _count_of(mask, m):
    """How many elements a boolean mask (`m`: flat) selects. Where `mask.sum()` is a
    split int64 sum (`reductions.split_on_cpu`), that sum, which `split_reductions`
    merges with a `mask.sum()` of the user's; else a float64 sum of the flat mask (exact
    below 2**53 elements: XLA:CPU sums doubles in a fused vectorised pass but int64 in a
    chain of unfused windowed reductions over an int64 copy of the mask, 1.0 ms against
    1.45 ms for 2**20 elements), which XLA computes once with the user's (the radial
    profile example: 2.3 -> 1.3 s at 1024 x 1024)."""
    if split_on_cpu(mask, tuple(range(mask.ndim)), int(np.prod(mask.shape))):
        return cast_to(dispatch(np.sum, (mask,), {}), _I64)
    return cast_to(dispatch(np.sum, (cast_to(m, np.dtype(np.float64)),), {}), _I64)


def _compacted(rows, m, run, count, n, deps):
    dest = S.select(m, _minus_one(run),
                    broadcast_to_shape(as_abstract(np.int64(n)), (n,)))
    zeros = broadcast_to_shape(as_abstract(np.zeros((), rows.dtype)), rows.shape)
    buf = G.scatter(zeros, S.reshape(dest, shape=(n, 1)), rows, kind="replace") if n \
        else zeros
    return BoundedArray(buf, (B.Extent(0, count),) + (None,) * (rows.ndim - 1),
                        deps=deps)


def _minus_one(run):
    return B.sub(run, broadcast_to_shape(as_abstract(np.int64(1)), run.shape))


def mask_assign(x: AbstractArray, mask: AbstractArray, value: BoundedArray):
    """`x[mask] = value` where `value` has a dynamic first axis: the i-th selected
    position takes value's i-th row (NumPy's rule), after a run-time count check."""
    if _assign_selection(x, mask, value):
        return
    m, run, count, n = _ranks(mask)
    if n == 0:
        return
    e = value.ext[0]
    if e is None or any(value.ext[1:]):
        value.refuse("assigning it through a boolean mask")
    B.check_counts(e.count, count, "NumPy boolean array indexing assignment cannot "
                   "assign the input values to the output values where the mask is true")
    rows, _ = _flat(x, mask.ndim)
    vb = cast_to(value.buf, x.dtype)
    if vb.shape[1:] != rows.shape[1:]:
        vb = broadcast_to_shape(vb, (vb.shape[0],) + rows.shape[1:])
    src = B.clip(B.add(_minus_one(run), broadcast_to_shape(B.traced(e.offset), (n,))), 0,
                 vb.shape[0] - 1)
    picked = G.gather(vb, S.reshape(src, shape=(n, 1)))
    sel = S.broadcast_in_dim(m, shape=rows.shape, dims=(0,))
    new = S.select(sel, picked, rows)
    x.assign(S.reshape(new, shape=x.shape))


def _assign_selection(x, mask, value) -> bool:
    """`x[mask] = f(a[mask], ...)` where `value` still is its elementwise computation on
    the rows of one mask selection (`BoundedArray.selection`, kept through ufuncs) and
    that mask is this one: each selected position takes f of its own row, which the
    uncompacted rows hold at the same position, so the rows are selected in place with
    no scan, gather, scatter or count check (escape-time iteration with `z[alive] =
    z[alive] ** 2 + c[alive]` did all four per step)."""
    sel = value.selection if is_bounded(value) else None
    if sel is None or value.buf.ir != sel[2]:
        return False
    rows, m, n = sel[0], sel[1], mask.size
    if rows.shape[0] != n or not B.same(m, S.reshape(mask, shape=(n,))):
        return False
    flat, _ = _flat(x, mask.ndim)
    if rows.shape[1:] != flat.shape[1:]:
        return False
    keep = S.broadcast_in_dim(S.reshape(mask, shape=(n,)), shape=flat.shape, dims=(0,))
    new = S.select(keep, cast_to(rows, x.dtype), flat)
    x.assign(S.reshape(new, shape=x.shape))
    return True


def gather_rows(x: AbstractArray, idx: BoundedArray, getitem):
    """`x[idx]` with a bounded integer index array: padding indices read row 0."""
    safe = B.filled(idx, 0)
    out = getitem(x, safe)
    return B.make(out, idx.ext + (None,) * (out.ndim - idx.ndim), idx.extent_deps)
