"""Advanced item access and `ufunc.at`: gathers, scatters and mask selects for the
indices that fancy_plan.py plans.

`x[idx]` reads with one `gather`; `x[idx] = v` writes with a scatter that keeps NumPy's
last-write-wins on repeated indices. A *traced* boolean mask has a data-dependent count,
so it is only accepted where the shape survives: `x[m] = v` / `x[m] op= v` lower to a
select over `A + R`, with `v` broadcast, or, when it holds one value per True entry,
spread by a running count of the mask (the count checked at run time); reading `x[m]`
alone is a bounded array (bounded_index.py), with other indices it is refused with a
fixed-shape rewrite hint. `np.add.at` & co. combine repeated indices inside the scatter
(or accumulate in the loop dtype and apply once). `value_at` is `x[index]` as a new
array, the building block of np.take & co. (takeput.py).
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.catalogue import OUTSIDE_ARRAY_STORE
from npxla.transpiler.base.errors import (DataDependentShapeError, ShapeMismatchError,
                                          UnsupportedFunctionError)

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.staging.bounded import BoundedArray, is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import gather as G
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.reduce import identity
from npxla.runtime.numpy.indexing import bounded_fancy, slicing
from npxla.runtime.numpy.indexing.bounded_index import compact
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.indexing.fancy_plan import (Plan, basic_index, classify, const_index,
                                                     from_value, indices, is_basic, is_const,
                                                     normalise, operand, plan, reshaped, restore,
                                                     scatter_last, spread, to_result, zeros_of)
from npxla.runtime.numpy.core.registry import _to_const, dispatch, register_ufunc_method
from npxla.runtime.numpy.ufuncs.ufunc_core import check_cast, resolve
from npxla.runtime.numpy.core.values import fresh

_I64 = np.dtype(np.int64)
_MASK_READ_HINT = ("keep the shape: np.where(mask, x, 0) selects without shrinking, and "
                   "np.sum(np.where(mask, x, 0)) / np.count_nonzero(mask) reduce over it")
_MASK_WRITE_HINT = ("assign a scalar or an array that broadcasts to the unmasked axes "
                    "(x[mask] = 0), or write x[...] = np.where(mask, values, x) with "
                    "values shaped like x")


# --- reads and writes ------------------------------------------------------------------

def refuse_mask_read():
    raise DataDependentShapeError(
        "boolean-mask indexing x[mask] produces an array whose length depends on the "
        "data, and XLA needs every shape at compile time", hint=_MASK_READ_HINT)


def read(x, items, mode="raise"):
    p = plan(x, items)
    if p.has_mask:
        if len(items) == 1 and items[0][0] == "bool":
            return compact(x, items[0][1], keep=True)    # x[mask]: a bounded array
        refuse_mask_read()
    idx = indices(p, mode)
    y = operand(p, x)
    out_size = int(np.prod(p.batch + p.rest, dtype=np.int64))
    if out_size == 0 or y.size == 0:
        return zeros_of(p.out_shape, x.dtype)
    return to_result(p, G.gather(y, idx))


def mask_among_basic(x, items):
    """For `x[m, 1]`, `x[:, m]`, `x[i, m]`: one traced 1-D mask among basic entries,
    integers next to it (else NumPy puts the selected axis first). Returns x compacted
    along the mask's axis (a bounded array) and the basic index left to apply to it (the
    mask replaced by `:`), or None for other indices."""
    kinds = [k for k, _ in items]
    if len(items) < 2 or kinds.count("bool") != 1 or \
            any(k not in ("bool", "int", "slice", "none", "ellipsis") for k in kinds):
        return None
    at = kinds.index("bool")
    mask = items[at][1]
    advanced = [i for i, k in enumerate(kinds) if k in ("int", "bool")]
    consumed = sum(1 for k in kinds if k in ("int", "slice", "bool"))
    if mask.ndim != 1 or mask.const is not None or consumed > x.ndim or \
            advanced[-1] - advanced[0] + 1 != len(advanced):
        return None
    axis = sum(1 if k in ("int", "slice") else x.ndim - consumed if k == "ellipsis" else 0
               for k in kinds[:at])
    if mask.shape[0] != x.shape[axis]:
        raise IndexError(f"boolean index did not match indexed array along axis {axis}; "
                         f"size of axis is {x.shape[axis]} but size of corresponding "
                         f"boolean axis is {mask.shape[0]}")
    picked = compact(dispatch(np.moveaxis, (x, axis, 0), {}), mask)
    ext = [None] * x.ndim
    ext[axis] = picked.ext[0]
    selected = BoundedArray(dispatch(np.moveaxis, (picked.buf, 0, axis), {}), ext,
                            deps=mask.deps)
    rest = basic_index(items[:at] + [("slice", slice(None))] + items[at + 1:])
    return selected, rest


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
    y = operand(p, x)
    pred = _selected(p, y.shape[:len(p.adv_axes)])
    try:
        v = reshaped(from_value(p, value), p.rest)
    except ShapeMismatchError:
        v = _by_position(p, value, pred, combine is None)
    new = v if combine is None else combine(y, v)
    new = broadcast_to_shape(cast_to(new, x.dtype), y.shape)
    x.assign(restore(p, x, S.select(spread(pred, y.shape), new, y)))


def _by_position(p: Plan, value, pred, assigning):
    """`value`'s entries along the mask's axis, spread to the positions the mask selects
    (the j-th True entry takes entry j), for a value with one entry per True entry: a
    length known only at run time, checked there as NumPy checks it."""
    pad = len(p.layout) - value.ndim          # the value's axes align to the right
    along = p.before - pad                    # its axis facing the mask's
    if len(p.adv) != 1 or p.adv[0].kind != "mask" or pad < 0 or along < 0 or \
            value.shape[along] == 1:
        raise ShapeMismatchError(
            f"shape mismatch: value array of shape {value.shape} could not be broadcast "
            f"to the indexing result of shape {p.out_shape}")
    length = value.shape[along]
    v = dispatch(np.moveaxis, (reshaped(value, (1,) * pad + value.shape), p.before, 0), {})
    v = broadcast_to_shape(v, (length,) + p.rest)
    space = pred.shape
    if not int(np.prod(space)):
        raise ValueError(_count_message(p, value.shape, length, assigning).format(0))
    flat = cast_to(reshaped(pred, (int(np.prod(space)),)), _I64)
    ordinal = dispatch(np.cumsum, (flat,), {})
    count = reshaped(S.static_slice(ordinal, start=(ordinal.shape[0] - 1,),
                                    limit=(ordinal.shape[0],), strides=(1,)), ())
    check(E.compare(count, as_abstract(np.int64(length)), "NE"),
          _count_message(p, value.shape, length, assigning), error=ValueError, payload=count)
    at = dispatch(np.subtract, (ordinal, 1), {})
    picked = dispatch(np.take, (v, at), {"axis": 0, "mode": "clip"})
    return reshaped(picked, space + p.rest)


def _count_message(p: Plan, shape, length, assigning):
    """NumPy's message when the mask selects `{0}` (the run-time count) entries and the
    value has `length`."""
    def text(dims):
        return "(" + ",".join(dims) + ("," if len(dims) == 1 else "") + ")"
    selected = text([str(d) for d in p.rest[:p.before]] + ["{0}"] +
                    [str(d) for d in p.rest[p.before:]])
    given = text([str(d) for d in shape])
    if not assigning:
        return (f"operands could not be broadcast together with shapes {selected} "
                f"{given} {selected} ")
    if p.rest:
        return (f"shape mismatch: value array of shape {given} could not be broadcast "
                f"to indexing result of shape {selected}")
    return (f"NumPy boolean array indexing assignment cannot assign {length} input "
            "values to the {0} output values where the mask is true")


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
                    part = zeros_of((space[at],), np.bool_)
                else:
                    raise UnsupportedFunctionError(
                        "a boolean mask combined with an integer index array is not "
                        "supported", hint="index with the mask's np.nonzero() computed "
                        "outside the compiled function, or use np.where")
            else:
                i = a.value if not is_abstract(a.value) else reshaped(a.value, ())
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
    the mask holds, like NumPy's x[m] = x[m] op v), or an index array of run-time
    length (`x[np.nonzero(m)[0]] += 1`: NumPy's x[idx] = x[idx] op v, through the
    selection). Returns False for other indices."""
    if bounded_fancy.applies(index):
        new = dispatch(getattr(np, op), (target[index], value), {})
        check_cast(op, new.dtype, target.dtype)
        target[index] = new
        return True
    items = classify(index)
    if not has_traced_mask(items):
        return False
    ufunc = getattr(np, op)
    if is_bounded(value):
        # a value of run-time length (`x[m] += y[m] * 2`) matches the selection, not
        # the array: NumPy's x[m] = x[m] op v, through the selection of run-time length
        new = dispatch(ufunc, (target[index], value), {})
        check_cast(op, new.dtype, target.dtype)
        target[index] = new
        return True

    def combine(y, v):
        new = dispatch(ufunc, (y, v), {})
        check_cast(op, new.dtype, target.dtype)
        return new
    masked(target, plan(target, items), value, combine)
    return True


# --- ufunc.at ----------------------------------------------------------------------------

def refuse_outside_array(target=None):
    """A NumPy array (not a staged one: a library function's result, a class
    attribute, a static argument) written with a traced value or index: catalogue
    NPX143, which `npxla lint` reports too."""
    raise OUTSIDE_ARRAY_STORE.error_for(
        what="a library function's result, a class attribute or a static argument")


def _ufunc_at(ufunc):
    """`ufunc.at(a, indices, b)` for a binary ufunc, NumPy's unbuffered in-place update:
    every occurrence of a repeated index applies (unlike `a[idx] = ufunc(a[idx], b)`)."""
    name = ufunc.__name__

    def at(a, indices_, b=None, /):
        """Known constants fold with NumPy; basic indices have no repeats (one update);
        a traced mask selects; otherwise a combining scatter (add, mul, max, ...) applies
        the repeats, in `a`'s dtype when it is the ufunc's loop dtype, else accumulated
        in the loop dtype and applied to `a` once, then cast back."""
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
            hit = G.scatter(zeros_of(space, np.bool_), idx,
                            broadcast_to_shape(as_abstract(True), idx.shape[:-1]), kind="or")
            new = cast_to(dispatch(ufunc, (y, acc), {}), a.dtype)
            new = S.select(spread(hit, y.shape), new, y)
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


# --- new arrays ----------------------------------------------------------------------

def value_at(x, index, mode="raise"):
    """`x[index]` as a new array (never a view), as np.take & co. return."""
    items = classify(index)
    if is_basic(items):
        index = basic_index(items)
        y = slicing.read_at(x, slicing.parse(x, index), index)
        return fresh(y) if y is x else y
    if x.const is not None and is_const(items) and mode == "raise":
        return as_abstract(np.array(x.const[const_index(items)]))
    return read(x, items, mode)
