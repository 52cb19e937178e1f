"""Strided slices whose length is only known at run time: `x[j::3]` or `x[i:0:-2]` with
traced bounds, `x[::k]` with a traced step, and any step other than 1 on an axis that is
already dynamic (`x[:k][::2]`, `x[mask][::-2]`, `y[:k][k - 1:0:-1]`).

Why a gathered view: a bounded array is a unit-step window of a static buffer, but the
elements of `x[j::3]` are not a window of any static slice of `x` (which of the three
phases they take is traced). So the buffer is a view whose element t is the axis's
element `start + step * t`: reading it gathers those positions (clipped into the axis,
so padding reads something harmless), and writing it scatters back to exactly the same
positions, dropping those outside the axis. The first `count` elements are NumPy's
result (count = len(range(start, stop, step)) after NumPy's normalisation), so every
operation on bounded arrays works on it unchanged, and writes through it (`x[j::3] = 0`,
`y = x[j::3]; y[0] = 1`) reach `x` as through NumPy's view, while reads see later writes
to `x` (the view re-reads its base).

The bound is the axis's length divided by the step's magnitude (a traced step: the
whole axis, since a step can be 1).
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import gather as G
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.convert import broadcast_to_shape
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.loops import while_loop
from npxla.runtime.numpy.indexing.slicing import scatter_elements

_I64 = np.dtype(np.int64)


def needs_view(entry, extent) -> bool:
    """Whether slice `entry` on an axis (dynamic when `extent` is not None) selects a
    run-time number of elements that are not one window of the buffer."""
    if not isinstance(entry, slice) or entry.step is None:
        return False
    if B.traced_bound(entry.step):
        return True
    step = operator.index(entry.step)
    if extent is not None:
        return step != 1 and not (step == -1 and entry.start is None and entry.stop is None)
    return step not in (1, -1) and (B.traced_bound(entry.start) or B.traced_bound(entry.stop))


def expand(buf: AbstractArray, ext, entries):
    """Replace every strided entry of an expanded index (ints, slices, None) that
    `needs_view` by `:` on a gathered view of the buffer. Returns the new buffer, its
    extents and the entries."""
    ext, entries = list(ext), list(entries)
    axis = 0
    for k, e in enumerate(entries):
        if e is None:
            continue
        if needs_view(e, ext[axis]):
            buf, ext[axis] = _view(buf, axis, e, ext[axis])
            entries[k] = slice(None)
        axis += 1
    return buf, ext, entries


# --- the view --------------------------------------------------------------------------
def _view(buf, axis, entry, extent):
    for v in (entry.start, entry.stop, entry.step):
        if is_bounded(v) or (is_abstract(v) and (v.ndim or v.dtype.kind not in "iub")):
            raise TypeError("slice indices must be integers or None or have an __index__ "
                            "method")
    n = buf.shape[axis]
    length, origin = (n, 0) if extent is None else (extent.count, extent.offset)
    first, step, count, bound = _selection(entry, length, n)
    first = B.add(first, origin)
    pos = _positions(first, step, bound)
    view = AbstractArray.view_of(buf, lambda base: _read(base, axis, pos),
                                 _Writer(axis, pos, first, step, count))
    return view, B.Extent(0, count)


class _Writer:
    """The view's write-back (`_write`), and what `fill` needs to write a single value
    over the selection chunk by chunk instead."""

    def __init__(self, axis, pos, first, step, count):
        self.axis, self.pos, self.first, self.step, self.count = axis, pos, first, step, count

    def __call__(self, base, new):
        return _write(base, self.axis, self.pos, new)


def _selection(entry, length, n):
    """(first position, step, count, bound) of `entry` over an axis of `length` (an int
    or traced) whose buffer holds `n`: Python's `slice.indices` and `len(range(...))`."""
    step = entry.step
    if not B.traced_bound(step):
        s = operator.index(step)
        if s == 0:
            raise ValueError("slice step cannot be zero")
        first, span = _span(entry, length, s > 0)
        return first, s, _ceil_div(span, abs(s)), -(-n // abs(s))
    k = B.traced(step)
    check(B.compare(k, 0, "EQ"), "slice step cannot be zero", error=ValueError)
    up = B.compare(k, 0, "GT")
    first_up, span_up = _span(entry, length, True)
    first_down, span_down = _span(entry, length, False)
    first = S.select(up, B.traced(first_up), B.traced(first_down))
    span = S.select(up, B.traced(span_up), B.traced(span_down))
    size = B.maximum(S.select(up, k, E.negate(k)), 1)
    return first, k, _ceil_div(span, size), n


def _span(entry, length, up):
    """(first position, distance to the stop) for a positive (`up`) or negative step."""
    if up:
        start = 0 if entry.start is None else _bound(entry.start, length, 0, 0)
        stop = length if entry.stop is None else _bound(entry.stop, length, 0, 0)
        return start, B.sub(stop, start)
    start = B.sub(length, 1) if entry.start is None else _bound(entry.start, length, -1, -1)
    stop = -1 if entry.stop is None else _bound(entry.stop, length, -1, -1)
    return start, B.sub(start, stop)


def _bound(v, length, lo, hi):
    """A slice bound as `slice.indices` makes it: negatives count from the end, then
    clipped to [lo, length + hi]."""
    kv, kn = B.known(v), B.known(length)
    if kv is not None and kn is not None:
        return min(max(kv + kn if kv < 0 else kv, lo), kn + hi)
    v = B.traced(v)
    rng = B.value_range(v)
    if kn is not None and rng is not None and lo <= rng[0] and rng[1] <= kn + hi:
        return v
    wrapped = S.select(B.compare(v, 0, "LT"), B.add(v, length), v)
    return B.clip(wrapped, lo, B.add(length, hi))


def _ceil_div(span, size):
    """max(0, ceil(span / size)) for size >= 1 (a truncating division is enough: a
    negative span gives at most 0 before the max)."""
    ks, kz = B.known(span), B.known(size)
    if ks is not None and kz is not None:
        return max(0, -(-ks // kz))
    num = B.traced(B.add(span, B.sub(size, 1)))
    return B.maximum(E.divide(num, B.traced(size)), 0)


def _positions(first, step, bound):
    """The axis position of each buffer element, as int64 of shape (bound,)."""
    t = S.iota(shape=(bound,), dtype=_I64, dim=0)
    stride = broadcast_to_shape(B.traced(step), (bound,))
    return E.add(E.multiply(t, stride), broadcast_to_shape(B.traced(first), (bound,)))


def _moved(x, axis):
    """`x` with `axis` first (gather and scatter index leading axes), and the inverse."""
    perm = (axis,) + tuple(a for a in range(x.ndim) if a != axis)
    inverse = tuple(int(p) for p in np.argsort(perm))
    return (S.transpose(x, perm=perm) if axis else x), inverse


def _read(base, axis, pos):
    n = base.shape[axis]
    if n == 0 or not pos.shape[0]:
        sizes = list(base.shape)
        sizes[axis] = pos.shape[0]
        return broadcast_to_shape(as_abstract(np.zeros((), base.dtype)), tuple(sizes))
    safe = B.clip(pos, 0, n - 1)
    moved, inverse = _moved(base, axis)
    out = G.gather(moved, S.reshape(safe, shape=(pos.shape[0], 1)))
    return S.transpose(out, perm=inverse) if axis else out


def _write(base, axis, pos, new):
    """`base` with the view's elements written back: positions outside the axis (the
    padding of a short selection) are sent past its end, where the scatter drops them."""
    n = base.shape[axis]
    if n == 0 or not pos.shape[0]:
        return base
    def const(v):
        return broadcast_to_shape(as_abstract(np.int64(v)), pos.shape)

    outside = E.bitwise_or(E.compare(pos, const(0), "LT"), E.compare(pos, const(n), "GE"))
    target = S.select(outside, const(n), pos)
    columns = []
    for a in range(base.ndim):
        if a == axis:
            columns.append(S.broadcast_in_dim(target, shape=new.shape, dims=(a,)))
        else:
            columns.append(S.iota(shape=new.shape, dtype=_I64, dim=a))
    return scatter_elements(base, columns, new)


# --- a single value written over a long selection -----------------------------------------
# selected positions written per trip of a fill's loop
CHUNK = 512


def fill(target, value) -> bool:
    """`target[...] = value` for a bounded `target` that is a whole strided view of an
    array (`x[i * i::i] = False`, `A[:, j::k] = 0` with traced bounds or step) and a
    `value` of one element: a loop of ceil(count / CHUNK) scatters of CHUNK positions
    each. The plain write scatters the view's whole bound, which for a traced step is
    the axis: a sieve of Eratosthenes over 10^6 elements wrote 10^6 positions in each
    of its 1,000 trips (436 ms, NumPy 0.93). False where this does not apply."""
    found = _strided_view(target.buf)
    if found is None or int(np.prod(value.shape)) != 1:
        return False
    base, writer = found
    if target.buf.shape[writer.axis] <= CHUNK or \
            any(e is not None for a, e in enumerate(target.ext) if a != writer.axis):
        return False
    base.assign(_chunked_fill(base, writer, S.reshape(value, shape=())))
    return True


def _strided_view(buf):
    """(base, its `_Writer`) when `buf` is a strided view, or a whole basic view of one
    (`x[j::k]` is staged as the view and then indexed by `:`); else None."""
    for _ in range(2):
        view = buf._view
        if view is None or buf._switch is not None or buf._alias_of is not None:
            return None
        base, _, writer, _ = view
        if isinstance(writer, _Writer):
            return base, writer
        region = getattr(writer, "region", None)
        if region is None or base.shape != buf.shape or region.int_axes or \
                any(region.flipped) or any(st != 1 for st in region.steps) or \
                any(is_abstract(s) or s != 0 for s in region.starts) or \
                tuple(region.sizes) != buf.shape:
            return None
        buf = base
    return None


def _chunked_fill(base, w, scalar):
    n = base.shape[w.axis]
    count = B.traced(w.count)
    trips = _ceil_div(count, CHUNK)
    shape = base.shape[:w.axis] + (CHUNK,) + base.shape[w.axis + 1:]
    first, step = B.traced(w.first), B.traced(w.step)

    def body(j, x):
        t = E.add(S.iota(shape=(CHUNK,), dtype=_I64, dim=0),
                  broadcast_to_shape(E.multiply(j, _int(CHUNK)), (CHUNK,)))
        pos = E.add(E.multiply(t, broadcast_to_shape(step, (CHUNK,))),
                    broadcast_to_shape(first, (CHUNK,)))
        past = broadcast_to_shape(_int(n), (CHUNK,))
        at = S.select(E.compare(t, broadcast_to_shape(count, (CHUNK,)), "LT"), pos, past)
        columns = [S.broadcast_in_dim(at, shape=shape, dims=(a,)) if a == w.axis else
                   S.iota(shape=shape, dtype=_I64, dim=a) for a in range(base.ndim)]
        return E.add(j, _int(1)), scatter_elements(x, columns,
                                                   broadcast_to_shape(scalar, shape))

    _, out = while_loop(lambda j, x: E.compare(j, trips, "LT"), body, [_int(0), base])
    return out


def _int(v):
    return as_abstract(np.int64(v))
