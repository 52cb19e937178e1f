"""Reduction primitives: `stablehlo.reduce` with a scalar body region.

`reduce(x, kind=..., axes=...)` folds with one binary op (add, mul, max, min, and, or);
float max/min are NaN-propagating, as NumPy's (`_extreme_lowering`);
`arg_reduce(keys, axis, kind)` is a variadic reduce over (key..., index) tuples that picks
the lexicographically largest/smallest key, the first NaN, and the first index on ties:
NumPy's argmax/argmin (and complex max/min) semantics.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.trace import constant
from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.elementwise import _compare_type
from npxla.runtime.lowering.rounding import unrounded

_BINARY = {"add": hlo.AddOp, "mul": hlo.MulOp, "max": hlo.MaxOp, "min": hlo.MinOp,
           "and": hlo.AndOp, "or": hlo.OrOp, "xor": hlo.XorOp}


def identity(kind, dtype):
    """The reduction identity of `kind` in `dtype` (a NumPy scalar)."""
    dtype = np.dtype(dtype)
    if kind == "add":
        return np.zeros((), dtype)
    if kind == "mul":
        return np.ones((), dtype)
    if kind == "and":           # every bit set: True, -1, the largest unsigned value
        return np.array(True) if dtype == np.bool_ else np.array(-1).astype(dtype)
    if kind in ("or", "xor"):
        return np.zeros((), dtype)
    if dtype == np.bool_:
        return np.array(kind == "min")
    if dtype.kind == "f":
        return np.array(-np.inf if kind == "max" else np.inf, dtype)
    info = np.iinfo(dtype)
    return np.array(info.min if kind == "max" else info.max, dtype)


def _scalar_type(value):
    return ir.RankedTensorType.get([], value.type.element_type)


def _reduce_typing(*avals, axes, **_):
    n = len(avals) // 2
    return [(tuple(d for i, d in enumerate(s) if i not in axes), dt) for s, dt in avals[:n]]


def _reduce_lowering(out_types, *values, axes, body, **params):
    n = len(values) // 2
    op = hlo.ReduceOp(out_types, list(values[:n]), list(values[n:]), list(axes))
    types = [_scalar_type(v) for v in values[:n]]
    block = op.body.blocks.append(*types, *types)
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        hlo.ReturnOp(body(args[:n], args[n:], **params))
    return list(op.results)


reduce_p = Primitive("reduce", typing=_reduce_typing, lowering=_reduce_lowering,
                     multiple_results=True)


def _binary_body(kind):
    cls = _BINARY[kind]
    return lambda a, b: [cls(a[0], b[0]).result]


def reduce(x: AbstractArray, *, kind: str, axes) -> AbstractArray:
    """Fold `x` over `axes` with the binary op `kind` (its identity as init value)."""
    axes = tuple(sorted(axes))
    init = AbstractArray.from_const(identity(kind, x.dtype), weak=False)
    if kind in ("max", "min") and x.dtype.kind == "f":
        count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
        return extreme_p(x, init, axes=axes, kind=kind, dtype=x.dtype,
                         guard=x.size >= GUARD_MIN and count > 1)[0]
    if kind == "add" and x.dtype.kind == "f":
        x = AbstractArray(x.shape, x.dtype, ir=unrounded(x.ir), deps=x.deps)
    return reduce_p(x, init, axes=axes, body=_binary_body(kind))[0]


# --- float max / min --------------------------------------------------------------------
# XLA:CPU hands a plain `reduce` (and `reduce_window`) with a max/min body to YNNPACK,
# whose max/min skip NaN: np.max of 16384 doubles holding a NaN came back as the largest
# number. So a float max/min is that reduction with the NaN put back: where a reduced
# slice holds a NaN (an `or` over x != x), the result is NaN. Every reduction stays one
# XLA knows by its body, which the SPMD partitioner needs for an all-reduce (a body of
# its own, `select(a > b or a != a, a, b)`, it refuses; XLA's emitter would also run
# that 2-4x slower than YNNPACK's). From GUARD_MIN elements on, the NaN test itself is
# skipped unless a sum of x (one YNNPACK pass: 0.3 ms for 1M doubles, against ~0.8 for
# the `or`, and often shared with the program's own np.mean) is NaN, which it is
# wherever the data hold a NaN (`may_hold_nan`); a `stablehlo.if` decides.
GUARD_MIN = 4096


def _with_nans(out_type, x, fast, axes, dtype):
    """`fast` (the reduction of `x`), NaN where the reduced slice of `x` holds one."""
    kept = ir.RankedTensorType(out_type).shape
    any_t = ir.RankedTensorType.get(kept, ir.IntegerType.get_signless(1))
    hit = _reduce_lowering([any_t], _cmp(x, x, "NE", dtype),
                           constant(np.zeros((), np.bool_)), axes=axes,
                           body=_binary_body("or"))[0]
    nan = hlo.BroadcastInDimOp(out_type, constant(np.array(np.nan, dtype)), []).result
    return hlo.SelectOp(hit, nan, fast).result


def _extreme_lowering(out_types, x, init, *, axes, kind, dtype, guard):
    fast = _reduce_lowering(out_types, x, init, axes=axes, body=_binary_body(kind))[0]
    if not guard:
        return [_with_nans(out_types[0], x, fast, axes, dtype)]
    op = hlo.IfOp(out_types, may_hold_nan(x, axes, dtype))
    with ir.InsertionPoint(op.true_branch.blocks.append()):
        hlo.ReturnOp([_with_nans(out_types[0], x, fast, axes, dtype)])
    with ir.InsertionPoint(op.false_branch.blocks.append()):
        hlo.ReturnOp([fast])
    return list(op.results)


extreme_p = Primitive("reduce_extreme", typing=_reduce_typing, lowering=_extreme_lowering,
                      multiple_results=True)


def may_hold_nan(x, axes, dtype):
    """A scalar i1 value, true where the float value `x` may hold a NaN: its sum over
    `axes` is NaN in some slice. A NaN makes every sum it enters NaN (IEEE: no fast
    path drops it); +inf and -inf together, or an overflow meeting an infinity, make a
    NaN without one (then true, and the caller only takes its slower, exact path). The
    sum is often one the program computes anyway (np.mean, np.std), which XLA shares."""
    xt = ir.RankedTensorType(x.type)
    zero = constant(np.zeros((), dtype))
    kept = [d for i, d in enumerate(xt.shape) if i not in axes]
    probe_t = ir.RankedTensorType.get(kept, xt.element_type)
    probe = _reduce_lowering([probe_t], x, zero, axes=axes, body=_binary_body("add"))[0]
    nan = _cmp(probe, probe, "NE", dtype)
    if kept:
        bool_t = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
        false = constant(np.zeros((), np.bool_))
        nan = _reduce_lowering([bool_t], nan, false, axes=tuple(range(len(kept))),
                               body=_binary_body("or"))[0]
    return nan


def _cmp(a, b, direction, dtype):
    return hlo.CompareOp(a, b, hlo.ComparisonDirectionAttr.get(direction),
                         compare_type=hlo.ComparisonTypeAttr.get(_compare_type(dtype))).result


def _arg_body(a, b, *, kind, dtypes):
    """Pick a or b: the better key (lexicographic), NaN first, then the lower index."""
    *ka, ia = a
    *kb, ib = b
    better = "GT" if kind == "max" else "LT"
    a_nan = b_nan = None
    a_better = tie = None
    for x, y, dt in zip(reversed(ka), reversed(kb), reversed(dtypes)):
        gt = _cmp(x, y, better, dt)
        eq = _cmp(x, y, "EQ", dt)
        # lexicographic, built from the last key outwards
        a_better = gt if a_better is None else hlo.OrOp(gt, hlo.AndOp(eq, a_better).result).result
        tie = eq if tie is None else hlo.AndOp(eq, tie).result
        if np.dtype(dt).kind == "f":
            xn, yn = _cmp(x, x, "NE", dt), _cmp(y, y, "NE", dt)
            a_nan = xn if a_nan is None else hlo.OrOp(a_nan, xn).result
            b_nan = yn if b_nan is None else hlo.OrOp(b_nan, yn).result
    if a_nan is not None:
        only_a = hlo.AndOp(a_nan, hlo.NotOp(b_nan).result).result
        neither = hlo.NotOp(hlo.OrOp(a_nan, b_nan).result).result
        both = hlo.AndOp(a_nan, b_nan).result
        a_better = hlo.OrOp(only_a, hlo.AndOp(neither, a_better).result).result
        tie = hlo.OrOp(both, hlo.AndOp(neither, tie).result).result
    first = _cmp(ia, ib, "LT", np.int64)
    pick_a = hlo.OrOp(a_better, hlo.AndOp(tie, first).result).result
    return [hlo.SelectOp(pick_a, x, y).result for x, y in zip(a, b)]


def arg_reduce(keys, index: AbstractArray, *, axis: int, kind: str):
    """Variadic reduce over (keys..., index) along `axis`: returns the reduced keys and
    index of the first lexicographic max/min (a NaN anywhere in a key counts as best)."""
    dtypes = tuple(k.dtype for k in keys)
    inits = [AbstractArray.from_const(identity(kind, k.dtype), weak=False) for k in keys]
    inits.append(AbstractArray.from_const(np.zeros((), index.dtype), weak=False))
    return reduce_p(*keys, index, *inits, axes=(axis,), body=_arg_body, kind=kind,
                    dtypes=dtypes)

