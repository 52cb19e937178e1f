"""Reading and writing through index arrays whose length is only known at run time:
`r[np.where(r != 0)]`, `x[np.nonzero(m)]`, `y[idx] = 1.0` with `idx = np.nonzero(m)[0]`.

`np.nonzero` (and one-argument `np.where`) give bounded index arrays: one buffer per
axis, as long as the array, valid up to a traced count. Their tuple indexes the
leading axes of the array (`:` and `...` may follow). Both directions work on the
flat position over those axes: each index is checked against its axis (NumPy's
IndexError, for the valid entries only) and wrapped when negative, as NumPy does.

- A read gathers the rows at the positions, padding reading row 0, and has the
  index's run-time length (a bounded array, trimmed on the host as any other).
- A write finds, for each row of the array, the last valid index entry that names it
  (a scatter-max of entry numbers, so repeated indices keep NumPy's last write and
  padding never writes), then selects the new rows where one does. A value with a
  length (an array of the index's length, or a bounded one such as `x[idx] * 2`) is
  checked against the run-time count as NumPy checks it.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.bounded import BoundedArray, is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import gather as G
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check

_I64 = np.dtype(np.int64)


def applies(index) -> bool:
    """Whether `index` is a bounded index array or a tuple holding one."""
    if is_bounded(index):
        return True
    return isinstance(index, tuple) and any(is_bounded(e) for e in index)


def _split(x, index):
    """The leading bounded index arrays (one per axis, one length) and their count."""
    entries = index if isinstance(index, tuple) else (index,)
    k = 0
    while k < len(entries) and is_bounded(entries[k]):
        k += 1
    first = next(e for e in entries if is_bounded(e))
    if k == 0 or any(not (e is Ellipsis or isinstance(e, slice) and e == slice(None))
                     for e in entries[k:]):
        first.refuse("indexing with it combined with other indices (only ':' may follow "
                     "the index arrays)")
    idx = entries[:k]
    if k > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, "
                         f"but {k} were indexed")
    for b in idx:
        if b.ndim != 1 or b.dtype.kind not in "iu" or b.ext[0] is None:
            b.refuse("indexing with it unless it is a 1-d integer index array")
        e = b.ext[0]
        if not (B.same(e.count, first.ext[0].count) and B.same(e.offset, first.ext[0].offset)):
            b.refuse("indexing with index arrays of different run-time lengths")
    return idx, first.ext[0]


def _positions(x, idx, ext):
    """(flat row positions over the indexed axes, valid mask, number of rows): checked
    and wrapped per axis; padding entries are position 0."""
    n = idx[0].buf.shape[0]
    valid = B.valid_mask(idx[0])
    zero = broadcast_to_shape(as_abstract(np.int64(0)), (n,))
    flat = zero
    for axis, b in enumerate(idx):
        size = x.shape[axis]
        i = cast_to(b.buf, _I64)
        if B.known(ext.offset) != 0:        # the valid window starts at 0 in `valid`
            i = B.relocate(i, 0, ext.offset, 0, n)
        dim = broadcast_to_shape(as_abstract(np.int64(size)), (n,))
        bad = E.bitwise_or(E.compare(i, E.negate(dim), "LT"), E.compare(i, dim, "GE"))
        check(E.bitwise_and(bad, valid),
              f"index {{}} is out of bounds for axis {axis} with size {size}", payload=i)
        i = S.select(E.compare(i, zero, "LT"), E.add(i, dim), i)
        i = S.select(E.bitwise_and(valid, E.bitwise_not(bad)), i, zero)
        flat = E.add(E.multiply(flat, dim), i)
    rows = int(np.prod(x.shape[:len(idx)], dtype=np.int64))
    return flat, valid, rows


def _rows(x, k, rows):
    return S.reshape(x, shape=(rows,) + x.shape[k:])


def read(x: AbstractArray, index):
    """`x[index]`: the selected rows, with the index's run-time length."""
    idx, ext = _split(x, index)
    flat, _, rows = _positions(x, idx, ext)
    n = flat.shape[0]
    table = _rows(x, len(idx), rows)
    if rows == 0:
        out = broadcast_to_shape(as_abstract(np.zeros((), x.dtype)), (n,) + table.shape[1:])
    else:
        out = G.gather(table, S.reshape(flat, shape=(n, 1)))
    deps = frozenset().union(*(b.extent_deps for b in idx))
    return BoundedArray(out, (B.Extent(0, ext.count),) + (None,) * (out.ndim - 1),
                        deps=deps)


def write(x: AbstractArray, index, value):
    """`x[index] = value` (value already an abstract or bounded array)."""
    idx, ext = _split(x, index)
    flat, valid, rows = _positions(x, idx, ext)
    if rows == 0:
        return
    n = flat.shape[0]
    k = len(idx)
    table = _rows(x, k, rows)
    rest = table.shape[1:]
    entry = S.iota(shape=(n,), dtype=_I64, dim=0)
    minus = broadcast_to_shape(as_abstract(np.int64(-1)), (n,))
    src = G.scatter(broadcast_to_shape(as_abstract(np.int64(-1)), (rows,)),
                    S.reshape(flat, shape=(n, 1)), S.select(valid, entry, minus), kind="max")
    hit = E.compare(src, broadcast_to_shape(as_abstract(np.int64(0)), (rows,)), "GE")
    what = "shape mismatch: value array could not be broadcast to indexing result"
    if is_bounded(value):
        vb, vext = B.parts(value)
        ve = vext[0] if value.ndim == 1 + len(rest) else None
        if ve is None or any(vext[1:]):
            value.refuse("assigning it through index arrays unless its first axis is "
                         "the selection's")
        B.check_counts(ve.count, ext.count, what)
        per_row = B.relocate(cast_to(vb, x.dtype), 0, ve.offset, 0, vb.shape[0])
    else:
        v = cast_to(value, x.dtype)
        if v.ndim > 1 + len(rest):
            raise ValueError(f"{what} (value of shape {v.shape})")
        if v.ndim == 1 + len(rest) and v.shape[0] != 1:
            B.check_counts(v.shape[0], ext.count, what)
            per_row = v
        else:
            per_row = None
            if v.ndim == 1 + len(rest):
                v = S.reshape(v, shape=v.shape[1:])
            fill = broadcast_to_shape(v, rest)
    if per_row is not None:
        per_row = broadcast_to_shape(per_row, (per_row.shape[0],) + rest)
        top = per_row.shape[0] - 1
        at = B.clip(src, 0, top) if top > 0 else broadcast_to_shape(
            as_abstract(np.int64(0)), (rows,))
        picked = G.gather(per_row, S.reshape(at, shape=(rows, 1)))
    else:
        picked = S.broadcast_in_dim(fill, shape=table.shape,
                                    dims=tuple(range(1, table.ndim)))
    sel = S.broadcast_in_dim(hit, shape=table.shape, dims=(0,))
    x.assign(S.reshape(S.select(sel, picked, table), shape=x.shape))


# --- index arrays into an array of run-time length -----------------------------------------
def buffer_index(b: BoundedArray, idx: BoundedArray) -> BoundedArray:
    """`idx`, a bounded integer index array along `b`'s dynamic first axis, as
    positions in `b`'s buffer: its valid entries checked against the run-time length
    (NumPy's IndexError) and wrapped from it when negative, then moved by the offset."""
    if idx.ndim != 1 or idx.dtype.kind not in "iu" or idx.ext[0] is None:
        idx.refuse("indexing with it unless it is a 1-d integer index array")
    e = b.ext[0]
    n = idx.bound[0]
    i = cast_to(idx.buf, _I64)
    count = broadcast_to_shape(B.traced(e.count), (n,))
    zero = broadcast_to_shape(as_abstract(np.int64(0)), (n,))
    wrapped = S.select(E.compare(i, zero, "LT"), E.add(i, count), i)
    bad = E.bitwise_or(E.compare(wrapped, zero, "LT"), E.compare(wrapped, count, "GE"))
    check(E.bitwise_and(bad, B.valid_mask(idx)), "index {} is out of bounds for axis 0",
          payload=i)
    pos = E.add(S.select(bad, zero, wrapped), broadcast_to_shape(B.traced(e.offset), (n,)))
    return BoundedArray(pos, idx.ext, idx.extent_deps | b.extent_deps)


def buffer_mask(b: BoundedArray, index):
    """`index`, a boolean mask of run-time length selecting along 1-d `b` (`y[hits]` with
    `hits = y > t`), as a mask over `b`'s buffer (False in its padding), with NumPy's
    IndexError at run time when the lengths differ; None for any other index."""
    entries = index if isinstance(index, tuple) else (index,)
    if len(entries) != 1 or not is_bounded(entries[0]) or entries[0].dtype != np.bool_:
        return None
    mask = entries[0]
    if mask.ndim != 1 or b.ndim != 1:
        b.refuse("indexing it with a boolean mask of run-time length unless both are 1-d")
    e, me = b.ext[0], mask.ext[0]
    B.check_counts(me.count, e.count, "boolean index did not match indexed array along "
                   "axis 0")
    n = b.bound[0]
    moved = B.relocate(mask.buf, 0, me.offset, e.offset, n)
    return E.bitwise_and(moved, B.axis_mask(b, 0))


def _in_buffer(b: BoundedArray, index):
    """`index` (a bounded index array, `:` may follow) into `b` as one into its buffer."""
    entries = index if isinstance(index, tuple) else (index,)
    head, rest = entries[0], entries[1:]
    if not is_bounded(head) or any(not (isinstance(e, slice) and e == slice(None))
                                   for e in rest) or any(e is not None for e in b.ext[1:]):
        b.refuse("indexing it with an index array of run-time length, unless the array "
                 "and the index are 1-d (or ':' follows along static axes)")
    return (buffer_index(b, head),) + tuple(rest)


def read_bounded(b: BoundedArray, index):
    """`b[idx]` (`y[np.nonzero(y > 0)[0]]`): the index's run-time length."""
    return read(b.buf, _in_buffer(b, index))


def write_bounded(b: BoundedArray, index, value):
    """`b[idx] = value`: only the valid entries of `idx` write."""
    write(b.buf, _in_buffer(b, index), B.as_operand(value))
