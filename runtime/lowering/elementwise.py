"""Elementwise primitives: operands already share one shape (NumPy API broadcasts)."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo, stablehlo as hlo

from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.rounding import hidden, rounded
from npxla.runtime.staging.types import dtype_of


def _typing(*avals, dtype=None):
    shape = avals[0][0]
    for s, _ in avals[1:]:
        if s != shape:
            raise ValueError(f"elementwise operands differ in shape: {[a[0] for a in avals]}")
    return (shape, np.dtype(dtype) if dtype is not None else avals[0][1])


def elementwise(name, build, out_dtype=None):
    """A primitive from an op builder `build(*values) -> op`; result dtype follows the
    first operand unless `out_dtype` (e.g. bool for predicates) is given."""
    def lowering(t, *xs, **params):
        op = build(*xs, **params)
        return op.result if hasattr(op, "result") else op

    def typing(*avals, **params):
        return _typing(*avals, dtype=out_dtype)
    return Primitive(name, typing=typing, lowering=lowering)


def _compare_type(dtype):
    kind = np.dtype(dtype).kind
    return {"f": "FLOAT", "c": "FLOAT", "i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}[kind]


def _compare_lower(t, a, b, *, direction, ctype):
    return hlo.CompareOp(a, b, hlo.ComparisonDirectionAttr.get(direction),
                         compare_type=hlo.ComparisonTypeAttr.get(ctype)).result


_compare = Primitive(
    "compare",
    typing=lambda a, b, *, direction, ctype: _typing(a, b, dtype=np.bool_),
    lowering=_compare_lower,
)


def compare(a, b, direction):
    """Comparison with the compare type StableHLO needs for the operand dtype."""
    return _compare(a, b, direction=direction, ctype=_compare_type(a.dtype))


def _is_constant(value) -> bool:
    """Whether `value` is a constant (or a broadcast of one) in the module."""
    owner = value.owner
    if isinstance(owner, ir.Block):          # an argument of a function or region
        return False
    name = getattr(owner, "name", None) or owner.operation.name
    if name == "stablehlo.broadcast_in_dim":
        return _is_constant(owner.operands[0])
    return name == "stablehlo.constant"


def _with_constant(op):
    """A sum with a constant operand, rounded where it is computed: XLA's simplifier
    folds `(x + c1) + c2` into `x + (c1 + c2)`, NumPy rounds `x + c1` first
    (`x + 1.7 - 1.7` is not `x`)."""
    def build(a, b):
        out = op(a, b).result
        return rounded(out, dtype_of(a.type)) if _is_constant(a) or _is_constant(b) \
            else out
    return build


# a value XLA can neither fuse with its producer nor fold with its neighbours, fast math
# or not (`rounding.hidden`)
hide = elementwise("hidden", lambda v: hidden(v, dtype_of(v.type)))

add = elementwise("add", _with_constant(hlo.AddOp))
subtract = elementwise("subtract", _with_constant(hlo.SubtractOp))
multiply = elementwise("multiply", lambda a, b: rounded(
    hlo.MulOp(a, b).result, dtype_of(a.type)))
# rounded too: XLA rewrites (a / b) / c as a / (b * c), which rounds once less
divide = elementwise("divide", lambda a, b: rounded(
    hlo.DivOp(a, b).result, dtype_of(a.type)))
remainder = elementwise("remainder", hlo.RemOp)
# rounded too: XLA's simplifier turns `x ** 2` into `x * x`, which the add after it
# would otherwise fuse into one FMA (NumPy's `np.square` rounds the product)
power = elementwise("power", lambda a, b: rounded(
    hlo.PowOp(a, b).result, dtype_of(a.type)))
maximum = elementwise("maximum", hlo.MaxOp)
minimum = elementwise("minimum", hlo.MinOp)
atan2 = elementwise("atan2", hlo.Atan2Op)
# the set bits of an integer's two's complement (what `while v: v &= v - 1` counts)
popcnt = elementwise("popcnt", hlo.PopulationCountOp)
clz = elementwise("count_leading_zeros", hlo.ClzOp)
bitwise_and = elementwise("and", hlo.AndOp)
bitwise_or = elementwise("or", hlo.OrOp)
bitwise_xor = elementwise("xor", hlo.XorOp)
shift_left = elementwise("shift_left", hlo.ShiftLeftOp)
shift_right_arithmetic = elementwise("shift_right_arithmetic", hlo.ShiftRightArithmeticOp)
shift_right_logical = elementwise("shift_right_logical", hlo.ShiftRightLogicalOp)

negate = elementwise("negate", hlo.NegOp)
bitwise_not = elementwise("not", hlo.NotOp)
abs_ = elementwise("abs", hlo.AbsOp)
sign = elementwise("sign", hlo.SignOp)
sqrt = elementwise("sqrt", hlo.SqrtOp)
rsqrt = elementwise("rsqrt", hlo.RsqrtOp)
cbrt = elementwise("cbrt", hlo.CbrtOp)
exp = elementwise("exp", hlo.ExpOp)
expm1 = elementwise("expm1", hlo.Expm1Op)
log = elementwise("log", hlo.LogOp)
log1p = elementwise("log1p", hlo.Log1pOp)
sin = elementwise("sin", hlo.SineOp)
cos = elementwise("cos", hlo.CosineOp)
tan = elementwise("tan", hlo.TanOp)
tanh = elementwise("tanh", hlo.TanhOp)
asin = elementwise("asin", chlo.AsinOp)
acos = elementwise("acos", chlo.AcosOp)
atan = elementwise("atan", chlo.AtanOp)
sinh = elementwise("sinh", chlo.SinhOp)
cosh = elementwise("cosh", chlo.CoshOp)
floor = elementwise("floor", hlo.FloorOp)
ceil = elementwise("ceil", hlo.CeilOp)
round_even = elementwise("round_nearest_even", hlo.RoundNearestEvenOp)
is_finite = elementwise("is_finite", hlo.IsFiniteOp, out_dtype=np.bool_)
