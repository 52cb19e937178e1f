"""Index checks that a counted loop's range proves, left out of the trips the proof
covers (the unrolled copies of `unroll`).

`for k in range(indptr[i], indptr[i + 1]): s += data[k] * x[indices[k]]` reads
`data[k]` and `indices[k]` at a counter whose bounds come from the data, so staging
cannot know them: each read wraps a negative `k` (`select(k < 0, k + n, k)`) and checks
`-n <= k < n` (one unsigned compare, feeding the error code the loop carries), and
`x[indices[k]]` does the same with an index read from the data.

- An index that is the counter plus values fixed before the loop (`lo + t`, `hi - 1 -
  t`, `j`) moves by one per trip: it lies in `[0, n)` on every trip from the first up
  to the room the axis leaves it (`n - first`, or `first + 1` counting down).
- An index read from an array fixed before the loop (`indices[k]`; the read clamps,
  so it is always some element) lies in `[0, n)` on every trip where every element
  of that array does: one unsigned maximum over the array, taken once before the
  outermost loop it is fixed in (where that reads at most `SCAN_RATIO` elements per
  trip of the loops it leaves, or `SCAN_FREE` in all).

`Proof.limit` turns these into one counter bound, computed before the loop: the
copies run while the counter is below it, with those checks replaced by `false` and
those wraps by their index, and the loop itself, checks and all, runs the trips after
it (all of them where a first index or an array element is out of range), so an error
is raised at the same element, with the same message, as NumPy raises it. The
arithmetic is int64 and wraps as the loop's does, so the first index computed before
the loop has the loop's own bits, and the room bounds the trips so that no wrap can
pass an end.

Measured on CSR mat-vec (`tests.benchmarks`' `csr_matvec_loop`, 50,000 columns): rows
of 64-256 nonzeros 3.3-4.0 -> 2.8-3.4 ns per nonzero; rows of 4-16 unchanged, where
the cost is per row (about 35-45 ns: the loops' entries and their state kept in
memory between trips, which XLA:CPU's loop code stores and reloads every trip).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.build import combine_lanes, int_constant_op, less_than
from npxla.runtime.lowering.counted import max_trip_count, static_trip_count
from npxla.runtime.lowering.ssa import defining_op, inside, int_constant

# an array whose elements are indices is scanned once before the loops: always where
# it has at most SCAN_FREE elements, else where it has at most SCAN_RATIO per trip
SCAN_FREE, SCAN_RATIO = 4096, 64
_NESTING = frozenset({"stablehlo.while", "stablehlo.case", "stablehlo.if"})


def prove_trips(loop, position):
    """A `Proof` for the counted loop whose counter is carried at `position`, or None
    where its body has no check or wrap on an index that moves with the counter or is
    read from an array fixed before the loop."""
    proof = Proof(loop, loop.regions[1].blocks[0].arguments[position])
    for at, op in enumerate(loop.regions[1].blocks[0].operations):
        op = op.operation
        found = proof.check(op) or proof.wrap(op)
        if found is not None:
            proof.drops[at] = found
    return proof if proof.drops else None


class Proof:
    """What a counted loop's trips may skip while their counter is below `limit`: the
    (index, axis length) pairs read off the checks and wraps of its body, and `drops`,
    a position in the body -> what that op's result becomes there (`FALSE`: a check
    that cannot fire; `INDEX`: a wrap that leaves its index alone)."""

    def __init__(self, loop, counter):
        self.loop, self.counter = loop, counter
        self.needs = []                     # (linear form of the index, n)
        self.tables = []        # (array every index is an element of, where scanned, n)
        self.drops = {}

    def replacement(self, at, op, mapped):
        """The value the copy of the body's op at position `at` stands for in a proven
        trip (`mapped`: the copy's value of an original value), or None to keep it."""
        becomes = self.drops.get(at)
        if becomes == FALSE:
            with op.location:
                return int_constant_op(False, op.results[0].type)
        if becomes == INDEX:
            return mapped(op.operands[2])        # select(i < 0, i + n, i): the index
        return None

    def check(self, op):
        """None, unless `op` is a bounds check `convert(x) >= m` (unsigned): then
        `x` in `[0, m)` is needed (`i` in `[0, m / 2)` where x is `i + m / 2`, as a
        check of a wrapped index is staged), and the check becomes `false`."""
        if op.name != "stablehlo.compare" or _direction(op) != "GE" or \
                hlo.ComparisonTypeAttr(op.attributes["compare_type"]).value != "UNSIGNED":
            return None
        convert, m = defining_op(op.operands[0]), int_constant(op.operands[1])
        if convert is None or convert.name != "stablehlo.convert" or m is None or m <= 0:
            return None
        x = convert.operands[0]
        if ir.IntegerType(ir.RankedTensorType(x.type).element_type).width != 64:
            return None
        shifted = defining_op(x)
        if shifted is not None and shifted.name == "stablehlo.add" and m % 2 == 0 and \
                int_constant(shifted.operands[1]) == m // 2:
            x, m = shifted.operands[0], m // 2
        return FALSE if self._need(x, m) else None

    def wrap(self, op):
        """None, unless `op` is `select(i < 0, i + n, i)`: then `i` in `[0, n)` is
        needed, and the select becomes `i`."""
        if op.name != "stablehlo.select":
            return None
        test, shifted = defining_op(op.operands[0]), defining_op(op.operands[1])
        i = op.operands[2]
        if test is None or shifted is None or test.name != "stablehlo.compare" or \
                _direction(test) != "LT" or test.operands[0] != i or \
                int_constant(test.operands[1]) != 0 or shifted.name != "stablehlo.add" or \
                shifted.operands[0] != i:
            return None
        n = int_constant(shifted.operands[1])
        return INDEX if n is not None and n > 0 and self._need(i, n) else None

    def _need(self, index, n) -> bool:
        form = self._linear(index, 0)
        if form is not None:
            if (form, n) not in self.needs:
                self.needs.append((form, n))
            return True
        picked = self._picked(index)
        if picked is None:
            return False
        if (*picked, n) not in self.tables:
            self.tables.append((*picked, n))
        return True

    def _picked(self, value):
        """(the array, the op it is scanned before: `_scan_at`) of an array fixed before
        the loop and not too large to scan that `value` is one element of (`x[indices[k]]`: a `dynamic_slice` of sizes 1,
        through a reshape and an integer widening), else None. Its index does not
        matter: the slice clamps it into the array."""
        op = defining_op(value)
        if op is not None and op.name == "stablehlo.convert":
            source = ir.RankedTensorType(op.operands[0].type).element_type
            if not isinstance(source, ir.IntegerType) or source.width > 64:
                return None
            op = defining_op(op.operands[0])
        if op is not None and op.name == "stablehlo.reshape":
            op = defining_op(op.operands[0])
        if op is None or op.name != "stablehlo.dynamic_slice" or \
                any(s != 1 for s in ir.DenseI64ArrayAttr(op.attributes["slice_sizes"])):
            return None
        source = op.operands[0]
        at = None if inside(source, self.loop) else _scan_at(self.loop, source)
        return None if at is None else (source, at)

    def _linear(self, value, depth):
        """(slope, [(sign, value fixed before the loop)], constant) with `value ==
        sum + slope * counter + constant` (slope -1, 0 or 1), or None."""
        if value == self.counter:
            return 1, [], 0
        k = int_constant(value)
        if k is not None:
            return 0, [], k
        if not inside(value, self.loop):
            return 0, [(1, value)], 0
        op = defining_op(value)
        if op is None or depth > 16:
            return None
        if op.name == "stablehlo.multiply":
            a, b = op.operands
            if int_constant(b) != 1:
                a, b = b, a
            return self._linear(a, depth + 1) if int_constant(b) == 1 else None
        if op.name not in ("stablehlo.add", "stablehlo.subtract"):
            return None
        a, b = (self._linear(v, depth + 1) for v in op.operands)
        if a is None or b is None:
            return None
        sign = 1 if op.name == "stablehlo.add" else -1
        slope = a[0] + sign * b[0]
        if slope not in (-1, 0, 1):
            return None
        return slope, a[1] + [(sign * s, v) for s, v in b[1]], a[2] + sign * b[2]

    def limit(self, bound, first):
        """`min(bound, first + room)`, the room being the fewest trips from `first` that
        keep each index inside its axis (no limit for an index fixed in the loop or read
        from an array), or `first` (no proven trip) where a first index lies outside or
        an array holds an element that does."""
        t = ir.RankedTensorType(bound.type)
        zero = int_constant_op(0, t)
        ok, room = None, None
        for (slope, terms, constant), n in self.needs:
            at = _as(first, t)
            index = at if slope > 0 else hlo.NegOp(at).result if slope < 0 else zero
            index = hlo.AddOp(index, int_constant_op(constant, t)).result
            for sign, v in terms:
                index = (hlo.AddOp if sign > 0 else hlo.SubtractOp)(index, _as(v, t)).result
            size = int_constant_op(n, t)
            inside_axis = hlo.AndOp(_not(less_than(index, zero)), less_than(index, size)).result
            ok = inside_axis if ok is None else hlo.AndOp(ok, inside_axis).result
            if slope:
                left = hlo.SubtractOp(size, index).result if slope > 0 else \
                    hlo.AddOp(index, int_constant_op(1, t)).result
                room = left if room is None else hlo.MinOp(room, left).result
        for source, at, n in self.tables:
            fits = _all_below(source, n, at)
            ok = fits if ok is None else hlo.AndOp(ok, fits).result
        end = bound if room is None else \
            hlo.MinOp(bound, hlo.AddOp(_as(first, t), room).result).result
        return hlo.SelectOp(ok, end, _as(first, t)).result


FALSE, INDEX = "false", "index"             # what a dropped check or wrap becomes


def _scan_at(loop, source):
    """The op before which `source` is scanned once for all the loop's runs: the
    outermost op holding `loop` that `source` is defined outside of, or None where the
    scan would read more than `SCAN_RATIO` elements per trip of the loops it leaves
    (those with a known count; at least the trips of `loop` itself are not known)."""
    size = int(np.prod(ir.RankedTensorType(source.type).shape))
    at, trips = loop, 1
    parent = loop.parent
    while parent is not None and parent.name in _NESTING and not inside(source, parent):
        if parent.name == "stablehlo.while":
            known = static_trip_count(parent, at_most=True) or max_trip_count(parent)
            trips *= known[0] if known else 1
            at = parent
        parent = parent.parent
    return at if size <= max(SCAN_FREE, SCAN_RATIO * trips) else None


def _all_below(source, n, at):
    """Before `at`: whether every element of the integer array `source` lies in
    `[0, n)`, as one unsigned maximum (a negative element wraps far above n)."""
    t = ir.RankedTensorType(source.type)
    u64 = ir.IntegerType.get_unsigned(64)
    with ir.InsertionPoint(at), at.location:
        flat = [int(np.prod(t.shape))]
        wide = hlo.ReshapeOp(ir.RankedTensorType.get(flat, t.element_type), source).result
        if ir.IntegerType(t.element_type).width != 64:    # widened as the loop widens
            wide = hlo.ConvertOp(ir.RankedTensorType.get(flat, ir.IntegerType.get_signless(
                64)), wide).result
        wide = hlo.ConvertOp(ir.RankedTensorType.get(flat, u64), wide).result
        scalar = ir.RankedTensorType.get([], u64)
        zero = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(0, np.uint64),
                                                        type=scalar)).result
        top = combine_lanes(wide, "stablehlo.maximum", zero)
        limit = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(n, np.uint64),
                                                        type=scalar)).result
        return hlo.CompareOp(top, limit, hlo.ComparisonDirectionAttr.get("LT"),
                             compare_type=hlo.ComparisonTypeAttr.get("UNSIGNED")).result


def _direction(op) -> str:
    return hlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value


def _not(value):
    return hlo.NotOp(value).result


def _as(value, t):
    return value if value.type == t else hlo.ConvertOp(t, value).result
