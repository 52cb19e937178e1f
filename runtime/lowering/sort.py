"""Sorting primitive: `stablehlo.sort` with NumPy's total order in the comparator.

`sort(*operands, dimension, num_keys)` sorts every operand along `dimension` by the first
`num_keys` operands (lexicographically: the first key decides, later keys break ties) and
is stable, so an extra `iota` operand yields NumPy's `kind='stable'` argsort. The order
is NumPy's: NaNs last (all NaNs tie), -0.0 ties with 0.0, and complex values compare
as NumPy's sort does: `R + Rj < R + nanj < nan + Rj < nan + nanj`, lexicographic
(real, imag) within each class.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.elementwise import _compare_type


def _cmp(a, b, direction, dtype):
    return hlo.CompareOp(a, b, hlo.ComparisonDirectionAttr.get(direction),
                         compare_type=hlo.ComparisonTypeAttr.get(_compare_type(dtype))).result


def _or(a, b):
    return hlo.OrOp(a, b).result


def _and(a, b):
    return hlo.AndOp(a, b).result


def _components(x, y, dtype):
    """(lt, eq) pairs, most significant first, that order x against y like NumPy."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        xr, yr = hlo.RealOp(x).result, hlo.RealOp(y).result
        xi, yi = hlo.ImagOp(x).result, hlo.ImagOp(y).result
        part = np.dtype(dtype.type(0).real.dtype)
        nan = [(_cmp(xr, xr, "NE", part), _cmp(yr, yr, "NE", part)),
               (_cmp(xi, xi, "NE", part), _cmp(yi, yi, "NE", part))]
        # NaN class first (no NaN < NaN imag < NaN real < both), then (real, imag)
        out = [(_and(hlo.NotOp(xn).result, yn), _cmp(xn, yn, "EQ", np.bool_))
               for xn, yn in nan]
        return out + _components(xr, yr, part) + _components(xi, yi, part)
    lt, eq = _cmp(x, y, "LT", dtype), _cmp(x, y, "EQ", dtype)
    if dtype.kind == "f":
        xn, yn = _cmp(x, x, "NE", dtype), _cmp(y, y, "NE", dtype)
        lt = _or(lt, _and(hlo.NotOp(xn).result, yn))    # NaN sorts last
        eq = _or(eq, _and(xn, yn))                         # all NaNs tie
    return [(lt, eq)]


def less_than(xs, ys, dtypes):
    """Lexicographic NumPy order over several keys: an i1 scalar value."""
    comps = [c for x, y, dt in zip(xs, ys, dtypes) for c in _components(x, y, dt)]
    lt = None
    for c_lt, c_eq in reversed(comps):
        lt = c_lt if lt is None else _or(c_lt, _and(c_eq, lt))
    return lt


def _sort_typing(*avals, dimension, num_keys, dtypes):
    return list(avals)


def _sort_lowering(out_types, *values, dimension, num_keys, dtypes):
    op = hlo.SortOp(out_types, list(values), dimension=dimension, is_stable=True)
    scalars = [ir.RankedTensorType.get([], v.type.element_type) for v in values]
    block = op.comparator.blocks.append(*[t for t in scalars for _ in (0, 1)])
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        hlo.ReturnOp([less_than(args[0:2 * num_keys:2], args[1:2 * num_keys:2], dtypes)])
    return list(op.results)


sort_p = Primitive("sort", typing=_sort_typing, lowering=_sort_lowering,
                   multiple_results=True)


def sort(*operands, dimension: int, num_keys: int = 1):
    """Stable sort of all `operands` along `dimension` by the first `num_keys`."""
    dtypes = tuple(o.dtype for o in operands[:num_keys])
    return sort_p(*operands, dimension=dimension, num_keys=num_keys, dtypes=dtypes)


def _order_less_lowering(t, x, y, *, dtype):
    return less_than([x], [y], [dtype])


# elementwise `x < y` in NumPy's sort order (NaNs last): searchsorted's comparison
order_less = Primitive(
    "order_less",
    typing=lambda a, b, *, dtype: (a[0], np.dtype(np.bool_)),
    lowering=_order_less_lowering)
