"""Reduction primitives: `stablehlo.reduce` with a scalar body region.

`reduce(x, kind=..., axes=...)` folds with one binary op (add, mul, max, min, and, or);
`arg_reduce(keys, axis, kind)` is a variadic reduce over (key..., index) tuples that picks
the lexicographically largest/smallest key, the first NaN, and the first index on ties:
NumPy's argmax/argmin (and complex max/min) semantics.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.elementwise import _compare_type

_BINARY = {"add": hlo.AddOp, "mul": hlo.MulOp, "max": hlo.MaxOp, "min": hlo.MinOp,
           "and": hlo.AndOp, "or": hlo.OrOp}


def identity(kind, dtype):
    """The reduction identity of `kind` in `dtype` (a NumPy scalar)."""
    dtype = np.dtype(dtype)
    if kind == "add":
        return np.zeros((), dtype)
    if kind == "mul":
        return np.ones((), dtype)
    if kind == "and":
        return np.ones((), dtype)
    if kind == "or":
        return np.zeros((), dtype)
    if dtype == np.bool_:
        return np.array(kind == "min")
    if dtype.kind == "f":
        return np.array(-np.inf if kind == "max" else np.inf, dtype)
    info = np.iinfo(dtype)
    return np.array(info.min if kind == "max" else info.max, dtype)


def _scalar_type(value):
    return ir.RankedTensorType.get([], value.type.element_type)


def _reduce_typing(*avals, axes, body, **_):
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
    return reduce_p(x, init, axes=axes, body=_binary_body(kind))[0]


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

