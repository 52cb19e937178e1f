"""Advanced indexing: integer arrays (gather/scatter) and boolean masks (select).

An index is first *classified* item by item (`classify`); indices made only of ints,
slices, None and ... stay on the basic path (runtime/numpy/indexing.py, views). Any
integer/boolean array or boolean scalar makes it *advanced*, planned by `plan` as NumPy
does it:
- integers become 0-d index arrays, constant boolean arrays their `nonzero()` arrays,
  a boolean scalar a length-1 (True) or length-0 (False) index over a new size-1 axis;
- the index arrays broadcast to the batch shape `B`; the sliced axes keep their sizes
  `R`; `B` sits where the advanced indices are if they are adjacent in the index, else
  first; `None` axes are size-1 axes of the result.
The indexed array is sliced (basic region), transposed so the advanced axes `A` come
first (`A + R`), and read with one `gather` (result `B + R`) or written with `scatter`.
`x[idx] = v` keeps NumPy's last-write-wins on repeated indices deterministically: a
scatter-max of update positions finds each element's last writer, then one gather.
A *traced* boolean mask has a data-dependent count, so it is only accepted where the
shape survives: `x[m] = v` / `x[m] op= v` with a scalar or broadcastable `v` lower to a
select over `A + R`; reading `x[m]` is refused with a fixed-shape rewrite hint.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.errors import (DataDependentShapeError, ShapeMismatchError, UnsupportedFunctionError,
                                         UnsupportedOperationError)

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import gather as G
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.reduce import identity
from npxla.runtime.numpy import indexing as basic
from npxla.runtime.numpy.casts import fresh
from npxla.runtime.numpy.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.errorflags import check
from npxla.runtime.numpy.reductions import asarray, static
from npxla.runtime.numpy.registry import _to_const, dispatch, implements, register_ufunc_method
from npxla.runtime.numpy.shape import reshape_value
from npxla.runtime.numpy.ufunc_core import check_cast, resolve

_I64 = np.dtype(np.int64)
_VALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
          "integer or boolean arrays are valid indices")
_MASK_READ_HINT = ("keep the shape: np.where(mask, x, 0) selects without shrinking, and "
                   "np.sum(np.where(mask, x, 0)) / np.count_nonzero(mask) reduce over it")
_MASK_WRITE_HINT = ("assign a scalar or an array that broadcasts to the unmasked axes "
                    "(x[mask] = 0), or write x[...] = np.where(mask, values, x) with "
                    "values shaped like x")


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
    region: basic.Region  # slices of the non-advanced axes (advanced axes kept whole)
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
    region = basic.parse(_Shape(shape), tuple(slices))
    adv_axes = tuple(ax for a in adv for ax in a.axes)
    rest_axes = tuple(a for a in range(len(shape)) if a not in adv_axes)
    rest = tuple(region.sizes[a] for a in rest_axes)
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
    full = all(s == 0 and z == n and st == 1 and not f for s, z, st, f, n in
               zip(region.starts, region.sizes, region.steps, region.flipped, shape))
    return Plan(tuple(shape), region, full, adv, adv_axes, rest_axes, batch, rest, before,
                tuple(out), has_mask)


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


def _reshape(x, shape):
    return x if x.shape == tuple(shape) else S.reshape(x, shape=tuple(shape))


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def operand(p: Plan, x):
    """The working array sliced and transposed to A + R."""
    y = _reshape(x, p.shape)
    if not p.full:
        y = basic.read(y, p.region)
    return _transpose(y, p.adv_axes + p.rest_axes)


def restore(p: Plan, x, new_t):
    """x with the A + R block `new_t` written back."""
    new = _transpose(new_t, _inverse(p.adv_axes + p.rest_axes))
    if not p.full:
        new = basic.write(_reshape(x, p.shape), p.region, new)
    return _reshape(new, x.shape)


def to_result(p: Plan, g):
    return _reshape(_transpose(g, p.perm), p.out_shape)


def fit_value(value, shape, what="indexing result"):
    """`value` broadcast to `shape` as NumPy's setitem does (extra leading 1s dropped)."""
    v = as_abstract(value)
    while v.ndim > len(shape) and v.shape[0] == 1:
        v = _reshape(v, v.shape[1:])
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
    return _transpose(_reshape(v, p.layout), _inverse(p.perm))


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
    cols = [_reshape(broadcast_to_shape(q, p.batch), p.batch + (1,)) for q in parts]
    return cols[0] if len(cols) == 1 else S.concatenate(*cols, axis=len(p.batch))


def _zeros(shape, dtype):
    return broadcast_to_shape(as_abstract(np.zeros((), dtype)), shape)


def _spread(pred, shape):
    """A predicate over the leading (A) axes broadcast over A + R."""
    return broadcast_to_shape(_reshape(pred, pred.shape + (1,) * (len(shape) - pred.ndim)),
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
    pos = _reshape(S.iota(shape=(count,), dtype=_I64, dim=0), batch)
    winner = G.scatter(broadcast_to_shape(as_abstract(np.int64(-1)), space), idx, pos,
                       kind="max")
    written = E.compare(winner, _zeros(space, _I64), "GE")
    at = _reshape(E.maximum(winner, _zeros(space, _I64)), space + (1,))
    picked = G.gather(_reshape(upd, (count,) + rest), at)
    return S.select(_spread(written, y.shape), picked, y)


# --- reads and writes ------------------------------------------------------------------

def refuse_mask_read():
    raise DataDependentShapeError(
        "boolean-mask indexing x[mask] produces an array whose length depends on the "
        "data, and XLA needs every shape at compile time", hint=_MASK_READ_HINT)


def read(x, items, mode="raise"):
    p = plan(x, items)
    if p.has_mask:
        refuse_mask_read()
    idx = indices(p, mode)
    y = operand(p, x)
    out_size = int(np.prod(p.batch + p.rest, dtype=np.int64))
    if out_size == 0 or y.size == 0:
        return _zeros(p.out_shape, x.dtype)
    return to_result(p, G.gather(y, idx))


def write(x, items, value):
    """`x[items] = value` for an advanced index."""
    value = cast_to(as_abstract(value), x.dtype)
    p = plan(x, items)
    if p.has_mask:
        return masked(x, p, value, None)
    idx = indices(p)
    upd = from_value(p, value)
    x.assign(restore(p, x, scatter_last(operand(p, x), idx, upd)))


def masked(x, p: Plan, value, combine):
    """x[mask-index] = value, or = combine(x[...], value): a select, shape preserving."""
    value = as_abstract(value)
    try:
        v = from_value(p, value)
    except ShapeMismatchError:
        raise DataDependentShapeError(
            f"assigning an array of shape {value.shape} through a boolean mask needs as "
            "many values as True entries, which depends on the data",
            hint=_MASK_WRITE_HINT) from None
    v = _reshape(v, p.rest)
    y = operand(p, x)
    pred = _selected(p, y.shape[:len(p.adv_axes)])
    new = v if combine is None else combine(y, v)
    new = broadcast_to_shape(cast_to(new, x.dtype), y.shape)
    x.assign(restore(p, x, S.select(_spread(pred, y.shape), new, y)))


def _selected(p: Plan, space):
    """Boolean over A: which index positions the mask (and any integers) select."""
    pred, at = None, 0
    for a in p.adv:
        n = len(a.axes)
        if a.kind == "mask":
            part = a.value
        else:
            if is_abstract(a.value) and a.value.size != 1:
                if a.value.size == 0:
                    part = _zeros((space[at],), np.bool_)
                else:
                    raise UnsupportedFunctionError(
                        "a boolean mask combined with an integer index array is not "
                        "supported", hint="index with the mask's np.nonzero() computed "
                        "outside the compiled function, or use np.where")
            else:
                i = a.value if not is_abstract(a.value) else _reshape(a.value, ())
                i = normalise(i, space[at], a.src_axis)
                i = broadcast_to_shape(i, (space[at],))
                part = E.compare(S.iota(shape=(space[at],), dtype=_I64, dim=0), i, "EQ")
        part = S.broadcast_in_dim(part, shape=space, dims=tuple(range(at, at + n)))
        pred = part if pred is None else E.bitwise_and(pred, part)
        at += n
    return pred


def has_traced_mask(items):
    return any(k in ("bool", "bool0") and v.const is None for k, v in items)


def aug_assign(target, index, op, value):
    """`target[index] op= value` with a traced boolean mask in the index (computed where
    the mask holds, like NumPy's x[m] = x[m] op v). Returns False for other indices."""
    items = classify(index)
    if not has_traced_mask(items):
        return False
    ufunc = getattr(np, op)

    def combine(y, v):
        new = dispatch(ufunc, (y, v), {})
        check_cast(op, new.dtype, target.dtype)
        return new
    masked(target, plan(target, items), value, combine)
    return True


# --- ufunc.at ----------------------------------------------------------------------------

def refuse_outside_array(target=None):
    raise UnsupportedOperationError(
        "an array that was not created inside the compiled function (a global, a "
        "closure variable or a static argument) is modified with a traced value",
        hint="pass the array in as an argument (it is then written back after the "
             "call) or copy it first with np.array(...)")


def _ufunc_at(ufunc):
    name = ufunc.__name__

    def at(a, indices_, b=None, /):
        if b is None:
            raise UnsupportedFunctionError(
                f"np.{name}.at without a second operand is not supported"
                if ufunc.nin == 1 else "second operand needed for ufunc")
        if not is_abstract(a):
            refuse_outside_array()
        items = classify(indices_)
        if a.const is not None and is_const(items) and as_abstract(b).const is not None:
            new = a.const.copy()
            ufunc.at(new, const_index(items), _to_const(b))
            a.assign(as_abstract(new))
            return None
        if is_basic(items):          # no repeats: a[i] = ufunc(a[i], b)
            index = basic_index(items)
            a[index] = dispatch(ufunc, (a[index], b), {})
            return None
        p = plan(a, items)
        if p.has_mask:
            masked(a, p, b, lambda y, v: dispatch(ufunc, (y, v), {}))
            return None
        b = as_abstract(b)
        loop = np.dtype(resolve(ufunc, [a, b])[1][0])
        kind = G.combiner_kind("add" if name == "subtract" else name, loop)
        if kind is None:
            raise UnsupportedFunctionError(f"np.{name}.at is not supported for {loop}")
        try:
            upd = from_value(p, cast_to(b, loop))
        except ShapeMismatchError:
            raise ValueError("array is not broadcastable to correct shape") from None
        idx, y = indices(p), operand(p, a)
        if idx.size == 0 or y.size == 0:
            return None
        if loop == a.dtype:          # repeated indices combine inside the scatter
            if name == "subtract":
                upd = dispatch(np.negative, (upd,), {})
            new = G.scatter(y, idx, upd, kind=kind)
        else:                        # accumulate in the loop dtype, apply once
            space = y.shape[:idx.shape[-1]]
            start = broadcast_to_shape(as_abstract(_identity(kind, loop)), y.shape)
            acc = G.scatter(start, idx, upd, kind=kind)
            hit = G.scatter(_zeros(space, np.bool_), idx,
                            broadcast_to_shape(as_abstract(True), idx.shape[:-1]), kind="or")
            new = cast_to(dispatch(ufunc, (y, acc), {}), a.dtype)
            new = S.select(_spread(hit, y.shape), new, y)
        a.assign(restore(p, a, new))
        return None
    return at


def _identity(kind, dtype):
    if kind == "xor" or (kind == "and" and dtype != np.bool_):
        return np.array(0 if kind == "xor" else -1).astype(dtype)
    return identity(kind, dtype)


for _u in (np.add, np.subtract, np.multiply, np.maximum, np.minimum, np.bitwise_and,
           np.bitwise_or, np.bitwise_xor, np.logical_and, np.logical_or, np.logical_xor):
    register_ufunc_method(_u, "at", _ufunc_at(_u))


# --- NumPy functions -------------------------------------------------------------------

def value_at(x, index, mode="raise"):
    """`x[index]` as a new array (never a view), as np.take & co. return."""
    items = classify(index)
    if is_basic(items):
        index = basic_index(items)
        y = basic._read(x, basic.parse(x, index), index)
        return fresh(y) if y is x else y
    if x.const is not None and is_const(items) and mode == "raise":
        return as_abstract(np.array(x.const[const_index(items)]))
    return read(x, items, mode)


def _clipmode(mode):
    mode = static(mode, "mode")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return mode


def _int_indices(ind):
    """np.take/np.put cast their indices to intp (unsafe: bools and floats too)."""
    ind = asarray(ind)
    return ind if ind.dtype.kind in "iu" else cast_to(ind, _I64)


def _target(a, what):
    if not is_abstract(a):
        if isinstance(a, np.ndarray):
            refuse_outside_array()
        raise TypeError(f"{what}: argument 1 must be numpy.ndarray, not {type(a).__name__}")
    return a


def _wrapped(ind, n, axis, mode):
    """Indices for mode='wrap'/'clip' (in range by construction); 'raise' leaves them."""
    if mode == "raise":
        return ind
    if n == 0 and ind.size:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    return normalise(ind, n, axis, mode)


@implements(np.take, method="take", family="indexing",
            notes="mode='raise' checks traced indices at run time (IndexError)")
def take(a, indices, axis=None, out=None, mode="raise"):
    a = asarray(a)
    mode = _clipmode(mode)
    if axis is None:
        a, axis = reshape_value(a, (a.size,)), 0
    else:
        axis = normalize_axis_index(static(axis, "axis"), a.ndim)
    ind = _wrapped(_int_indices(indices), a.shape[axis], axis, mode)
    if ind.ndim == 0 and ind.const is not None:
        ind = int(ind.const)
    result = value_at(a, (slice(None),) * axis + (ind,))
    if out is not None:
        _target(out, "take").assign(result)
        return out
    return result


@implements(np.put, method="put", family="indexing", fold=False,
            notes="repeated indices: the last value wins, as in NumPy")
def put(a, ind, v, mode="raise"):
    a = _target(a, "put")
    mode = _clipmode(mode)
    ind = _int_indices(ind)
    ind = reshape_value(ind, (ind.size,))
    v = asarray(v)
    v = reshape_value(cast_to(v, a.dtype), (v.size,))
    if ind.size == 0 or v.size == 0:
        return None
    if a.const is not None and ind.const is not None and v.const is not None:
        new = a.const.copy()
        np.put(new, ind.const, v.const, mode=mode)
        a.assign(as_abstract(new))
        return None
    if v.size != ind.size:              # NumPy repeats v to the length of ind
        v = value_at(v, np.arange(ind.size) % v.size)
    if mode != "raise" and a.size == 0:
        raise IndexError("cannot replace in an empty array")
    idx = normalise(ind, a.size, 0, mode)
    flat = reshape_value(a, (a.size,))
    new = scatter_last(flat, _reshape(idx, (ind.size, 1)), v)
    a.assign(_reshape(new, a.shape))
    return None


def _along_axis(arr, indices, axis, what):
    arr, indices = asarray(arr), asarray(indices)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return reshape_value(arr, (arr.size,)), indices, 0
    axis = normalize_axis_index(static(axis, "axis"), arr.ndim)
    if arr.ndim != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return arr, indices, axis


def _along_axis_index(shape, indices, axis):
    """NumPy's fancy index for *_along_axis: aranges on the other axes."""
    ones = (1,) * len(shape)
    return tuple(indices if d == axis else
                 np.arange(n).reshape(ones[:d] + (n,) + ones[d + 1:])
                 for d, n in enumerate(shape))


@implements(np.take_along_axis, family="indexing")
def take_along_axis(arr, indices, axis=-1):
    arr, indices, axis = _along_axis(arr, indices, axis, "take_along_axis")
    return value_at(arr, _along_axis_index(arr.shape, indices, axis))


@implements(np.put_along_axis, family="indexing", fold=False,
            notes="repeated indices: the last value wins, as in NumPy")
def put_along_axis(arr, indices, values, axis):
    target = _target(arr, "put_along_axis")
    arr, indices, axis = _along_axis(target, indices, axis, "put_along_axis")
    index = _along_axis_index(arr.shape, indices, axis)
    if arr is target:
        target[index] = values
    else:                               # axis=None: the flattened array
        flat = reshape_value(target, (target.size,))
        flat[index] = values
        target.assign(_reshape(flat, target.shape))


@implements(np.ix_, family="indexing", notes="boolean arguments must be constants")
def ix_(*args):
    out = []
    for k, new in enumerate(args):
        new = asarray(new)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.size == 0 and new.dtype.kind not in "iu":
            new = cast_to(new, np.intp)
        elif new.dtype == np.bool_:
            if new.const is None:
                _refuse_count("np.ix_ with a boolean array",
                              "pass integer index arrays, or select with np.where")
            new = as_abstract(np.nonzero(new.const)[0])
        shape = [1] * len(args)
        shape[k] = new.size
        out.append(reshape_value(new, shape))
    return tuple(out)


def _refuse_count(what, hint):
    raise DataDependentShapeError(
        f"{what} returns as many elements as there are True/non-zero entries, which "
        "depends on the data, and XLA needs every shape at compile time", hint=hint)


_NONZERO_HINT = ("keep the shape: use the mask itself (np.where(mask, x, 0), "
                 "np.count_nonzero(mask)), or np.argmax(mask) for the first True index")


@implements(np.nonzero, method="nonzero", family="indexing")
def nonzero(a):
    _refuse_count("np.nonzero(x)", _NONZERO_HINT)


@implements(np.flatnonzero, family="indexing")
def flatnonzero(a):
    _refuse_count("np.flatnonzero(x)", _NONZERO_HINT)


@implements(np.argwhere, family="indexing")
def argwhere(a):
    _refuse_count("np.argwhere(x)", _NONZERO_HINT)


@implements(np.unique, family="indexing")
def unique(ar, *args, **kwargs):
    raise DataDependentShapeError(
        "np.unique(x) returns as many elements as there are distinct values, which "
        "depends on the data, and XLA needs every shape at compile time",
        hint="keep the shape: s = np.sort(x) with first = np.concatenate(([True], "
             "s[1:] != s[:-1])) marks each distinct value; np.count_nonzero(first) "
             "counts them")


def _const_condition(condition, what):
    cond = asarray(condition)
    if cond.const is None:
        _refuse_count(f"{what} with a traced condition",
                      "keep the shape: np.where(condition, a, 0) selects without "
                      "shrinking")
    return cond.const


@implements(np.extract, family="indexing",
            notes="the condition must be a constant (a traced one gives a data-dependent length)")
def extract(condition, arr):
    cond = _const_condition(condition, "np.extract")
    arr = asarray(arr)
    return value_at(reshape_value(arr, (arr.size,)), np.nonzero(np.ravel(cond))[0])


@implements(np.compress, family="indexing",
            notes="the condition must be a constant (a traced one gives a data-dependent length)")
def compress(condition, a, axis=None, out=None):
    cond = _const_condition(condition, "np.compress")
    if cond.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    return take(a, np.nonzero(cond)[0], axis=axis, out=out)
