"""Planning an advanced index (integer arrays, boolean masks): NumPy's rules for which
axes are indexed, the result shape, and the index arrays of one gather or scatter.

An index is first *classified* item by item (`classify`); indices made only of ints,
slices, None and ... stay on the basic path (slicing.py, indexing.py: views). Any
integer/boolean array or boolean scalar makes it *advanced*, planned by `plan` as NumPy
does it:
- integers become 0-d index arrays, constant boolean arrays their `nonzero()` arrays,
  a boolean scalar a length-1 (True) or length-0 (False) index over a new size-1 axis;
- the index arrays broadcast to the batch shape `B`; the sliced axes keep their sizes
  `R`; `B` sits where the advanced indices are if they are adjacent in the index, else
  first; `None` axes are size-1 axes of the result.
The indexed array is sliced (basic region), transposed so the advanced axes `A` come
first (`A + R`), and read with one `gather` (result `B + R`) or written with `scatter`
(fancy.py). `scatter_last` keeps NumPy's last-write-wins on repeated indices
deterministically: a scatter-max of update positions finds each element's last writer,
then one gather.

Why a module of its own: the plan is pure index and shape logic shared by item access
(fancy.py), `ufunc.at` and np.take/np.put & co. (takeput.py).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from npxla.transpiler.base.errors import ShapeMismatchError

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import gather as G
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.indexing import slicing
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import _to_const, dispatch

_I64 = np.dtype(np.int64)
_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
          "integer or boolean arrays are valid indices")


# --- classification --------------------------------------------------------------------

def _sequence(seq):
    """A list (or a tuple inside an index tuple) is an index array."""
    if any(is_abstract(leaf) for leaf in _flat(seq)):
        return dispatch(np.asarray, (seq,), {})
    arr = np.asarray(seq)
    if arr.dtype == object:
        raise IndexError(_VALID)
    if arr.size == 0 and arr.dtype.kind not in "iub":
        arr = arr.astype(np.intp)
    return as_abstract(arr)


def _flat(seq):
    for s in seq:
        if isinstance(s, (list, tuple)):
            yield from _flat(s)
        else:
            yield s


def _item(item):
    """(kind, value): kind is none, ellipsis, slice, int (Python int or traced 0-d),
    array (integer AbstractArray), bool (boolean AbstractArray, ndim >= 1) or bool0
    (0-d boolean AbstractArray)."""
    if item is None:
        return "none", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, slice):
        return "slice", item
    if isinstance(item, (bool, np.bool_)):
        return "bool0", as_abstract(np.bool_(item))
    if isinstance(item, (int, np.integer)):
        return "int", operator.index(item)
    if isinstance(item, (list, tuple)):
        item = _sequence(item)
    if isinstance(item, np.ndarray):
        item = as_abstract(item)
    if not is_abstract(item):
        raise IndexError(_VALID)
    kind = item.dtype.kind
    if kind == "b":
        return ("bool0" if item.ndim == 0 else "bool"), item
    if kind not in "iu":
        if item.ndim == 0:
            raise IndexError(_VALID)
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if item.ndim:
        return "array", item
    c = item.const
    return ("int", int(c)) if c is not None else ("int", item)


def classify(index):
    return [_item(i) for i in (index if isinstance(index, tuple) else (index,))]


def is_basic(items):
    return all(k in ("none", "ellipsis", "slice", "int") for k, _ in items)


def basic_index(items):
    """The index tuple the basic path understands."""
    return tuple(v if k in ("slice", "int") else (None if k == "none" else Ellipsis)
                 for k, v in items)


def is_const(items):
    return all(not is_abstract(v) or v.const is not None for _, v in items)


def const_index(items):
    return tuple(_to_const(v) if is_abstract(v) else basic_index([(k, v)])[0]
                 for k, v in items)


# --- the plan --------------------------------------------------------------------------

@dataclass
class _Adv:
    kind: str            # "idx" (an index array / integer) or "mask" (traced boolean)
    axes: tuple          # axes of the working array it indexes
    value: object        # int, AbstractArray (integers) or AbstractArray (bool mask)
    src_axis: int        # axis of the user's array, for messages


@dataclass
class Plan:
    shape: tuple         # working shape: the array with a size-1 axis per boolean scalar
    region: slicing.Region  # slices of the non-advanced axes (advanced axes kept whole)
    full: bool           # the region is the whole working array
    adv: list
    adv_axes: tuple
    rest_axes: tuple
    batch: tuple         # B (a traced mask counts as length 1)
    rest: tuple          # R
    before: int          # sliced axes placed before B in the result
    out_shape: tuple
    has_mask: bool

    @property
    def layout(self):
        return self.rest[:self.before] + self.batch + self.rest[self.before:]

    @property
    def perm(self):
        """Transpose of B + R into the result's order (None axes not yet inserted)."""
        nb, nr = len(self.batch), len(self.rest)
        return (tuple(range(nb, nb + self.before)) + tuple(range(nb))
                + tuple(range(nb + self.before, nb + nr)))


class _Shape:
    def __init__(self, shape):
        self.shape, self.ndim = tuple(shape), len(shape)


def _consumed(items):
    return sum(1 if k in ("int", "slice", "array") else (v.ndim if k == "bool" else 0)
               for k, v in items)


def plan(x, items) -> Plan:
    """NumPy's advanced-indexing layout for the classified `items` on `x`: which axes
    the index arrays (or masks) consume, the basic region of the other axes, the
    broadcast batch shape B and the result shape (B where the advanced indices are when
    they are adjacent, else first). Raises NumPy's IndexErrors (too many indices, two
    ellipses, a mask of the wrong shape, index arrays that do not broadcast)."""
    used = _consumed(items)
    if sum(k == "ellipsis" for k, _ in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, "
                         f"but {used} were indexed")
    shape, slices, adv, tokens = [], [], [], []
    axis = 0

    def sliced(s):
        nonlocal axis
        tokens.append(("slice", len(shape)))
        shape.append(x.shape[axis]), slices.append(s)
        axis += 1

    def advanced(kind, value, n, src):
        adv.append(_Adv(kind, (len(shape),), value, src))
        shape.append(n), slices.append(slice(None))

    for kind, v in items:
        if kind == "ellipsis":
            tokens.append("sep")
            for _ in range(x.ndim - used):
                sliced(slice(None))
        elif kind == "none":
            tokens.append("none")
        elif kind == "slice":
            sliced(v)
        elif kind in ("int", "array"):
            tokens.append("adv")
            advanced("idx", v, x.shape[axis], axis)
            axis += 1
        elif kind == "bool0":
            tokens.append("adv")
            if v.const is not None:
                advanced("idx", as_abstract(np.zeros(int(bool(v.const)), np.intp)), 1, axis)
            else:
                advanced("mask", S.reshape(v, shape=(1,)), 1, axis)
        else:
            tokens.append("adv")
            _check_mask_shape(x, v, axis)
            if v.const is not None:
                for nz in np.nonzero(v.const):
                    advanced("idx", as_abstract(nz), x.shape[axis], axis)
                    axis += 1
            else:
                adv.append(_Adv("mask", tuple(range(len(shape), len(shape) + v.ndim)), v,
                                axis))
                shape.extend(v.shape), slices.extend([slice(None)] * v.ndim)
                axis += v.ndim
    while axis < x.ndim:
        sliced(slice(None))

    has_mask = any(a.kind == "mask" for a in adv)
    batch = _batch_shape(adv)
    region = slicing.parse(_Shape(shape), tuple(slices))
    adv_axes = tuple(ax for a in adv for ax in a.axes)
    rest_axes = tuple(a for a in range(len(shape)) if a not in adv_axes)
    rest = tuple(region.sizes[a] for a in rest_axes)
    before, out = _result_layout(tokens, batch, region)
    full = all(s == 0 and z == n and st == 1 and not f for s, z, st, f, n in
               zip(region.starts, region.sizes, region.steps, region.flipped, shape))
    return Plan(tuple(shape), region, full, adv, adv_axes, rest_axes, batch, rest, before,
                out, has_mask)


def _result_layout(tokens, batch, region):
    """(sliced axes before B, result shape): B goes where the advanced indices are when
    they are adjacent, else first; `None` adds a 1, a sliced axis its region size."""
    pos = [i for i, t in enumerate(tokens) if t == "adv"]
    adjacent = pos[-1] - pos[0] == len(pos) - 1
    before = sum(isinstance(t, tuple) for t in tokens[:pos[0]]) if adjacent else 0
    out, placed = ([] if adjacent else list(batch)), not adjacent
    for t in tokens:
        if t == "none":
            out.append(1)
        elif t == "adv" and not placed:
            out.extend(batch)
            placed = True
        elif isinstance(t, tuple):
            out.append(region.sizes[t[1]])
    return before, tuple(out)


def _check_mask_shape(x, m, axis):
    for j, size in enumerate(m.shape):
        n = x.shape[axis + j]
        if size != n:
            raise IndexError(
                f"boolean index did not match indexed array along axis {axis + j}; size "
                f"of axis is {n} but size of corresponding boolean axis is {size}")


def _batch_shape(adv):
    shapes = [() if not is_abstract(a.value) else
              ((1,) if a.kind == "mask" else a.value.shape) for a in adv]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        listed = "".join(f"{s} " for a, s in zip(adv, shapes) if a.kind == "idx")
        raise IndexError("shape mismatch: indexing arrays could not be broadcast "
                         f"together with shapes {listed}") from None


# --- layout transforms -----------------------------------------------------------------

def _transpose(x, perm):
    return x if tuple(perm) == tuple(range(len(perm))) else S.transpose(x, perm=tuple(perm))


def reshaped(x, shape):
    """`x` with another shape, as a primitive (no copy when it already has it)."""
    return x if x.shape == tuple(shape) else S.reshape(x, shape=tuple(shape))


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def operand(p: Plan, x):
    """The working array sliced and transposed to A + R."""
    y = reshaped(x, p.shape)
    if not p.full:
        y = slicing.read(y, p.region)
    return _transpose(y, p.adv_axes + p.rest_axes)


def restore(p: Plan, x, new_t):
    """x with the A + R block `new_t` written back."""
    new = _transpose(new_t, _inverse(p.adv_axes + p.rest_axes))
    if not p.full:
        new = slicing.write(reshaped(x, p.shape), p.region, new)
    return reshaped(new, x.shape)


def to_result(p: Plan, g):
    return reshaped(_transpose(g, p.perm), p.out_shape)


def fit_value(value, shape, what="indexing result"):
    """`value` broadcast to `shape` as NumPy's setitem does (extra leading 1s dropped)."""
    v = as_abstract(value)
    while v.ndim > len(shape) and v.shape[0] == 1:
        v = reshaped(v, v.shape[1:])
    try:
        if v.ndim > len(shape):
            raise ShapeMismatchError("")
        return broadcast_to_shape(v, shape)
    except ShapeMismatchError:
        raise ShapeMismatchError(f"shape mismatch: value array of shape {v.shape} could "
                                 f"not be broadcast to {what} of shape {tuple(shape)}") \
            from None


def from_value(p: Plan, v):
    """A value for the indexed elements, in the B + R layout."""
    v = fit_value(v, p.out_shape)
    return _transpose(reshaped(v, p.layout), _inverse(p.perm))


# --- indices ---------------------------------------------------------------------------

def normalise(i, n, axis, mode="raise"):
    """int64 indices into an axis of size n: negative ones wrap; out-of-bounds ones raise
    IndexError (statically, or at run time for traced ones) or wrap/clip per `mode`."""
    if not is_abstract(i) or i.const is not None:
        a = np.asarray(i.const if is_abstract(i) else i).astype(_I64)
        if mode == "wrap":
            a = np.mod(a, n) if n else a
        elif mode == "clip":
            a = np.clip(a, 0, max(n - 1, 0))
        bad = (a < -n) | (a >= n)
        if bad.any():
            raise IndexError(f"index {a[bad].flat[0]} is out of bounds for axis {axis} "
                             f"with size {n}")
        return as_abstract(np.where(a < 0, a + n, a))
    size = as_abstract(np.int64(n))
    if mode in ("wrap", "clip"):
        w = cast_to(i, _I64)
        if mode == "wrap":
            return dispatch(np.mod, (w, size), {})
        return dispatch(np.clip, (w, 0, max(n - 1, 0)), {})
    bad = None
    if i.dtype.kind == "u" and (i.dtype == np.uint64 or n <= np.iinfo(i.dtype).max):
        bad = E.compare(i, broadcast_to_shape(as_abstract(np.array(n, i.dtype)), i.shape),
                        "GE")
    w = cast_to(i, _I64)
    if bad is None:
        zero = broadcast_to_shape(as_abstract(np.int64(0)), w.shape)
        size = broadcast_to_shape(size, w.shape)
        w = S.select(E.compare(w, zero, "LT"), E.add(w, size), w)
        bad = E.bitwise_or(E.compare(w, zero, "LT"), E.compare(w, size, "GE"))
    check(bad, f"index {{}} is out of bounds for axis {axis} with size {n}",
          payload=cast_to(i, _I64))
    return w


def indices(p: Plan, mode="raise"):
    """The index arrays broadcast to B and stacked: B + (len(A),) int64."""
    parts = [normalise(a.value, p.shape[a.axes[0]], a.src_axis, mode) for a in p.adv]
    if all(q.const is not None for q in parts):
        return as_abstract(np.stack([np.broadcast_to(q.const, p.batch) for q in parts], -1))
    cols = [reshaped(broadcast_to_shape(q, p.batch), p.batch + (1,)) for q in parts]
    return cols[0] if len(cols) == 1 else S.concatenate(*cols, axis=len(p.batch))


def zeros_of(shape, dtype):
    """A traced array of zeros (a broadcast scalar, no large constant)."""
    return broadcast_to_shape(as_abstract(np.zeros((), dtype)), shape)


def spread(pred, shape):
    """A predicate over the leading (A) axes broadcast over A + R."""
    return broadcast_to_shape(reshaped(pred, pred.shape + (1,) * (len(shape) - pred.ndim)),
                              shape)


def _unique(idx, space):
    """Constant indices with no repeats (a plain scatter is then deterministic)."""
    c = idx.const
    if c is None:
        return False
    flat = np.ravel_multi_index(tuple(np.moveaxis(c.reshape(-1, c.shape[-1]), -1, 0)),
                                space) if c.size else np.zeros(0, np.int64)
    return len(np.unique(flat)) == flat.size


def scatter_last(y, idx, upd):
    """`y[idx] = upd` (A + R layout) where a repeated index keeps its last update."""
    k = idx.shape[-1]
    batch, space, rest = idx.shape[:-1], y.shape[:k], y.shape[k:]
    count = int(np.prod(batch, dtype=np.int64))
    if count == 0 or y.size == 0:
        return y
    if count == 1 or _unique(idx, space):
        return G.scatter(y, idx, upd, kind="replace", unique=True)
    pos = reshaped(S.iota(shape=(count,), dtype=_I64, dim=0), batch)
    winner = G.scatter(broadcast_to_shape(as_abstract(np.int64(-1)), space), idx, pos,
                       kind="max")
    written = E.compare(winner, zeros_of(space, _I64), "GE")
    at = reshaped(E.maximum(winner, zeros_of(space, _I64)), space + (1,))
    picked = G.gather(reshaped(upd, (count,) + rest), at)
    return S.select(spread(written, y.shape), picked, y)
