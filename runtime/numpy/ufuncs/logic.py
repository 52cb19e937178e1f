"""Logical and bitwise ufuncs, shifts, floating-point predicates and 3-argument np.where.

Shifts follow NumPy's C helpers: a shift count outside [0, bits) (negative counts
included, as NumPy compares them unsigned) gives 0, or -1 for a right shift of a
negative signed value. Predicates on integer/bool inputs are constant (NumPy has
integer loops for isnan/isinf/isfinite).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import as_abstract
from npxla.transpiler.base.dtypes import result_type
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.numpy.ufuncs.arithmetic import (cmp, full, is_complex, is_int, isnan, or_,
                                                   register_table, select, signbit, splat_safe)
from npxla.runtime.numpy.indexing.bounded_results import where_indices
from npxla.runtime.numpy.core.convert import broadcast_shapes, broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.registry import implements
from npxla.runtime.numpy.core.layouts import laid_out_from


def _logical(op):
    """Logical ufuncs see their operands as truth values (x != 0)."""
    return lambda *xs: op(*[cast_to(x, np.bool_) for x in xs])


def _shift_out_of_range(b):
    bits = b.dtype.itemsize * 8
    if b.dtype.kind == "u":
        return cmp(b, full(b, bits), "GE")
    return or_(cmp(b, full(b, 0), "LT"), cmp(b, full(b, bits), "GE"))


def _left_shift(a, b):
    return select(_shift_out_of_range(b), full(a, 0), E.shift_left(a, b))


def _right_shift(a, b):
    if a.dtype.kind == "u":
        return select(_shift_out_of_range(b), full(a, 0), E.shift_right_logical(a, b))
    fill = select(cmp(a, full(a, 0), "LT"), full(a, -1), full(a, 0))
    return select(_shift_out_of_range(b), fill, E.shift_right_arithmetic(a, b))


def _predicate(name):
    """isnan/isinf/isfinite; complex: either part nan/inf, both parts finite."""
    def on_real(x):
        if is_int(x):
            return full(x, name == "isfinite", np.bool_)
        return {"isnan": isnan, "isinf": X.is_inf, "isfinite": E.is_finite}[name](x)

    def lower(x):
        if not is_complex(x):
            return on_real(x)
        re, im = on_real(X.real(x)), on_real(X.imag(x))
        return E.bitwise_and(re, im) if name == "isfinite" else E.bitwise_or(re, im)
    return lower


LOWERINGS = {
    np.logical_and: _logical(E.bitwise_and),
    np.logical_or: _logical(E.bitwise_or),
    np.logical_xor: _logical(E.bitwise_xor),
    np.logical_not: _logical(E.bitwise_not),
    np.bitwise_and: E.bitwise_and,
    np.bitwise_or: E.bitwise_or,
    np.bitwise_xor: E.bitwise_xor,
    np.invert: E.bitwise_not,
    np.left_shift: _left_shift,
    np.right_shift: _right_shift,
    np.isnan: _predicate("isnan"),
    np.isinf: _predicate("isinf"),
    np.isfinite: _predicate("isfinite"),
    np.signbit: signbit,
}
register_table(LOWERINGS)


@implements(np.where, family="elementwise")
def where(condition, x=None, y=None):
    """3-argument where: x and y promote like a binary ufunc (NEP 50 weak scalars);
    the condition is taken as truth values. The 1-argument form is np.nonzero."""
    if x is None and y is None:
        return where_indices(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    cond, x, y = as_abstract(condition), as_abstract(x), as_abstract(y)
    dtype, _ = result_type((x.dtype, x.weak), (y.dtype, y.weak))
    shape = broadcast_shapes(cond.shape, x.shape, y.shape)
    ops = [broadcast_to_shape(cast_to(v, d), shape)
           for v, d in ((cond, np.bool_), (x, dtype), (y, dtype))]
    # NumPy returns an array even for scalar x and y: never weak. Laid out in order
    # 'K', like its operands (`numpy.core.layouts`).
    return laid_out_from(select(*[splat_safe(o) for o in ops]), (cond, x, y))
