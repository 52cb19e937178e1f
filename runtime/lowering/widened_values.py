"""Wide writes whose value reads a non-constant scalar, computed over the whole array so
that XLA:CPU vectorises them.

`u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])` is a wide write
(`inplace`): `select(mask, pad(v), u)`, the value `v` on the slice padded to the
array's shape, and a mask that is true on the slice. XLA fuses the three into one loop
over the array, and its fusion emitters compute `v` behind a per-element test of the
pad's bounds. A scalar that is not a constant (`alpha`, or the zero `rounding.hidden`
hides products behind) is then loaded inside that test, and LLVM leaves the whole loop
scalar (the load is not known safe to hoist, so the test cannot become a select).
Measured on this machine, one step of the heat equation above at 100,000 elements, one
thread: 117 us as staged, 44 us rewritten, 36 us with a constant `alpha` and no hidden
products (that form vectorises as staged). XLA's older emitters
(`--xla_cpu_use_fusion_emitters=false`) vectorise it too, but are slower on other
programs (complex arithmetic, `game_of_life`), so the program changes instead.

The rewrite computes `v` at every position of the array and lets the mask pick: the
pad moves down through `v`'s elementwise ops to their leaves. A slice `A[s:e]` becomes
`A` itself padded (or cropped, with negative padding) so that each position reads the
element the slice put there; a broadcast scalar or a splat constant is broadcast to the
whole shape; any other leaf is padded as before (a pure load behind the bounds test,
which LLVM does vectorise). Every position the mask keeps computes the same ops on the
same operands, so the values are the same to the bit; the others compute on the
padding's zeros and are discarded (elementwise ops do not trap). The write-back plan
still returns only the region (`inplace.wide_write` slices it out of the values).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.inplace import wide_write_form
from npxla.runtime.lowering.ssa import ELEMENTWISE, defining_op, is_scalar, ops_named

# the slice must cover at least this share of the array
_MIN_SHARE = 0.5
# ops without effects that `_erase_unused` may remove once nothing reads them
_PURE = ELEMENTWISE | {"stablehlo.pad", "stablehlo.slice", "stablehlo.broadcast_in_dim",
                       "stablehlo.constant"}


def widen_write_values(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many writes widened."""
    return sum(_widen(op) for op in ops_named(module, "stablehlo.select"))


def _widen(select) -> int:
    form = wide_write_form(select.result)
    if form is None:
        return 0
    _, padded, low, _ = form
    pad = defining_op(padded)
    if pad is None or pad.name != "stablehlo.pad":
        return 0
    value = pad.operands[0]
    full = ir.RankedTensorType(padded.type)
    size = int(np.prod(full.shape))
    if np.prod(ir.RankedTensorType(value.type).shape) < _MIN_SHARE * size or \
            not _holds_variable_scalar(value, set()):
        return 0
    with ir.InsertionPoint(select), select.location:
        wide = _Widener(full.shape, list(low)).of(value)
    select.operands[1] = wide
    _erase_unused(pad)
    return 1


def _erase_unused(op):
    """Erase `op` if nothing reads it any more, then the pure ops behind it that this
    leaves unread (the old value on the slice, and its now dead operands)."""
    behind, work = [], [op]
    while work:                      # the pure ops `op` is made of, each once
        o = work.pop()
        if o.name in _PURE and not any(o == b for b in behind):
            behind.append(o)
            work += [p for p in map(defining_op, o.operands) if p is not None]
    alive = [True] * len(behind)
    erased = True
    while erased:                    # users before producers, until nothing is unread
        erased = False
        for k, o in enumerate(behind):
            if alive[k] and not any(list(r.uses) for r in o.results):
                o.erase()
                alive[k], erased = False, True


def _ints(op, name):
    return [int(v) for v in ir.DenseI64ArrayAttr(op.attributes[name])]


def _holds_variable_scalar(value, seen) -> bool:
    """Whether the elementwise ops behind `value` read a 0-d value that is not a
    constant (broadcast to their shape, or as `select`'s predicate)."""
    if value in seen:
        return False
    seen.add(value)
    op = defining_op(value)
    if op is None:
        return False
    if op.name == "stablehlo.broadcast_in_dim":
        source = op.operands[0]
        return is_scalar(source) and _not_constant(source)
    if op.name not in ELEMENTWISE:
        return False
    return any((is_scalar(v) and _not_constant(v)) or _holds_variable_scalar(v, seen)
               for v in op.operands)


def _rank(value) -> int:
    return ir.RankedTensorType(value.type).rank


def _not_constant(value) -> bool:
    op = defining_op(value)
    return op is None or op.name != "stablehlo.constant"


class _Widener:
    """Values of the full shape whose element at each position inside the slice is the
    element of the sliced value there (`low`: where the slice starts in the array)."""

    def __init__(self, shape, low):
        self.shape, self.low = list(shape), low
        self.memo: dict = {}

    def of(self, value):
        got = self.memo.get(value)
        if got is None:
            got = self.memo[value] = self._make(value)
        return got

    def _type(self, value):
        return ir.RankedTensorType.get(self.shape, ir.RankedTensorType(value.type).element_type)

    def _make(self, value):
        op = defining_op(value)
        name = op.name if op is not None else None
        if name == "stablehlo.slice" and not any(s != 1 for s in _ints(op, "strides")):
            source = op.operands[0]
            starts = _ints(op, "start_indices")
            return self._shifted(source, [lo - s for lo, s in zip(self.low, starts)])
        if name == "stablehlo.broadcast_in_dim" and is_scalar(op.operands[0]):
            return hlo.BroadcastInDimOp(self._type(value), op.operands[0], []).result
        if name == "stablehlo.constant":
            attr = ir.DenseElementsAttr(op.attributes["value"])
            if attr.is_splat:
                return hlo.ConstantOp(ir.DenseElementsAttr.get_splat(
                    self._type(value), attr.get_splat_value())).result
        if name in ELEMENTWISE and all(is_scalar(v) or _rank(v) == len(self.shape)
                                       for v in op.operands):
            # (not a `bitcast_convert` between widths, whose operand has one more axis)
            operands = [v if is_scalar(v) else self.of(v) for v in op.operands]
            new = ir.Operation.create(name, results=[self._type(value)], operands=operands,
                                      attributes={a: op.attributes[a] for a in op.attributes},
                                      loc=op.location)
            return new.results[0]
        return self._shifted(value, self.low)

    def _shifted(self, source, low):
        """`source` padded with zeros (or cropped, where `low` is negative) so that the
        element at position `p` of the full shape is `source[p - low]`."""
        shape = ir.RankedTensorType(source.type).shape
        high = [n - m - lo for n, m, lo in zip(self.shape, shape, low)]
        if not any(low) and not any(high):
            return source
        element = ir.RankedTensorType(source.type).element_type
        return hlo.PadOp(source, _zero(element), low, high, [0] * len(low)).result


def _zero(element) -> ir.Value:
    """A 0-d zero of `element` (a float, integer, bool or complex type)."""
    if isinstance(element, ir.ComplexType):
        part = _zero(element.element_type)
        return hlo.ComplexOp(part, part).result
    attr = ir.FloatAttr.get(element, 0.0) if isinstance(element, ir.FloatType) else \
        ir.IntegerAttr.get(element, 0)
    return hlo.ConstantOp(ir.DenseElementsAttr.get_splat(
        ir.RankedTensorType.get([], element), attr)).result
