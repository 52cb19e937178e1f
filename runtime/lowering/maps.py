"""The scalar work of a counted loop that depends on the counter alone, computed for
every trip at once before the loop.

`for i in range(n): s += np.tanh(a[i, i])` is a map (`tanh` of each picked element)
followed by a reduction. Staged as written, every trip evaluates the whole scalar
computation inside the `while`: npxla's `tanh` is an exact double-double kernel of about
150 ops, and XLA:CPU runs a scalar body as many small kernels, so each trip cost 21 us
(2000 trips: 43 ms, NumPy 3.2 ms). Computed before the loop over a vector of all the
trips' counters, the same ops run as one vectorised fusion, and each trip reads its
value back (`dynamic_slice` of the result at the counter).

The rewrite runs on the finished module. In a rotated loop with a static trip count
(`counted.static_trip_count`) or a bound that lies in a range known when staging
(`counted.max_trip_count`: `for j in range(i)` inside `for i in range(n)` makes at
most n - 1 trips, computed for all of them), a body value is a *map value* when it
is the counter, or is computed by an elementwise op (`ELEMENTWISE`) from map values,
constants and scalars defined outside the loop, or is one element picked
(`dynamic_slice` of sizes 1, then a reshape) from an array defined outside the loop at
indices that are map values. Each map value used by anything else in the body is
computed for all trips (its ops copied with a leading trip axis: the counter becomes
an iota, a picked element a gather, which clamps its indices as `dynamic_slice` does,
or a slice where the trips read consecutive elements inside the array; values the same
in every trip are computed once) and its uses read the trip's element instead; the
per-trip ops are left dead for XLA to remove.

It runs after `rows`: once a loop that fills one row of a table carries that row
alone, its reads of the rows above come from the table as it was before the loop, the
same in every trip, so they are map values. A dynamic-programming row (`S[i, j] =
max(S[i - 1, j - 1] + s, S[i - 1, j] + gap, S[i, j - 1] + gap)`) then keeps only the
recurrence through `S[i, j - 1]` in its loop: Needleman-Wunsch on 400 x 500, 0.71 ->
0.48 ms (Numba 0.32).

The values are exactly the loop's: every element sees the same ops on the same
operands, only several trips at a time. A loop that may end sooner (a check that fails,
a break: `static_trip_count(at_most=True)`) has its later trips' values computed and
unused, which pure elementwise ops allow (a gather clamps, a division by zero does not
trap). It is done
where it pays: at least `MIN_OPS` ops leave the loop (a few cheap ops cost less per trip
than the extra pass over memory), and the hoisted arrays stay within `_MAX_BYTES`.
"""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.build import gather_at, int_constant_op
from npxla.runtime.lowering.counted import max_trip_count, static_trip_count
from npxla.runtime.lowering.ssa import (ELEMENTWISE, affine, copied_before, defining_op,
                                        int_constant, is_scalar, operation, while_loops)

MIN_OPS = 16
_FREE = frozenset({"stablehlo.constant", "stablehlo.reshape", "stablehlo.bitcast_convert"})
_MAX_BYTES = 1 << 26


def hoist_loop_maps(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many loops changed."""
    changed = 0
    for loop in while_loops(module):
        trips = static_trip_count(loop, at_most=True) or max_trip_count(loop)
        if trips is not None and _hoist(loop, *trips):
            changed += 1
    return changed


def _hoist(loop, trips, position) -> bool:
    body = loop.regions[1].blocks[0]
    counter = body.arguments[position]
    start = int_constant(loop.operands[position])
    ops = [op.operation for op in body.operations]
    maps = map_ops(ops, body, counter)
    frontier = _frontier(ops, maps)
    work = sum(1 for op in ops if op in maps and op.name not in _FREE)
    if work < MIN_OPS or not frontier or trips * 8 * len(frontier) > _MAX_BYTES:
        return False
    with ir.InsertionPoint(loop):
        vectors = Vectoriser(loop, counter, start, trips, maps)
        hoisted = [(v, vectors.of(v)) for v in frontier]
    for value, vector in hoisted:
        _read_back(value, vector, counter, start)
    for op in reversed(ops):                # the per-trip copies, now unused
        if op in maps and not any(list(r.uses) for r in op.results):
            op.erase()
    return True


def map_ops(ops, body, counter) -> set:
    """The body's top-level ops whose results are map values (see the module doc)."""
    maps: set = set()
    values = {counter}

    def known(v):
        return v in values or _outside(v, body) and is_scalar(v)

    for op in ops:
        name = op.name
        ok = False
        if name == "stablehlo.constant":
            ok = is_scalar(op.results[0])
        elif name in ELEMENTWISE:
            ok = is_scalar(op.results[0]) and all(known(v) for v in op.operands)
        elif name == "stablehlo.dynamic_slice":
            ok = all(s == 1 for s in ir.DenseI64ArrayAttr(op.attributes["slice_sizes"])) \
                and _outside(op.operands[0], body) and all(known(v) for v in op.operands[1:])
        elif name == "stablehlo.reshape":
            src = op.operands[0]
            ok = is_scalar(op.results[0]) and src in values and \
                defining_op(src).name == "stablehlo.dynamic_slice"
        if ok:
            maps.add(op)
            values.update(op.results)
    return maps


def _outside(value, body) -> bool:
    """Whether `value` is the same in every trip: defined outside the loop whose body
    is `body` (an argument of an enclosing block, or a result of an op outside)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return owner != body
    op = defining_op(value)
    loop = body.owner
    while op is not None:
        if op == loop:
            return False
        op = op.parent
    return True


def _frontier(ops, maps) -> list:
    """Map values used by an op that is not a map op, which are read back per trip:
    those that read an element of an array (the counter's own arithmetic, `i + 1` and
    `i + 1 < n`, costs less per trip than a read)."""
    reads: set = set()            # map ops that depend on a picked element
    out = []
    for op in ops:
        if op not in maps:
            continue
        if op.name == "stablehlo.dynamic_slice" or any(
                defining_op(v) in reads for v in op.operands):
            reads.add(op)
        if op.name in ("stablehlo.constant", "stablehlo.dynamic_slice") or op not in reads:
            continue
        value = op.results[0]
        if any(operation(use.owner) not in maps for use in value.uses):
            out.append(value)
    return out


class Vectoriser:
    """Map values copied before the loop with a leading axis of one element per trip."""

    def __init__(self, loop, counter, start, trips, maps):
        self.loop, self.trips, self.maps = loop, trips, maps
        self.counter, self.start = counter, start
        self.memo, self.varying = {}, {}
        t = ir.RankedTensorType(counter.type)
        iota = hlo.IotaOp(ir.RankedTensorType.get([trips], t.element_type), 0).result
        first = self._broadcast(int_constant_op(start, counter.type))
        self.memo[counter] = hlo.AddOp(iota, first).result

    def of(self, value):
        got = self.memo.get(value)
        if got is None:
            got = self.memo[value] = self._make(value)
        return got

    def _broadcast(self, scalar):
        t = ir.RankedTensorType(scalar.type)
        return hlo.BroadcastInDimOp(ir.RankedTensorType.get([self.trips], t.element_type),
                                    scalar, []).result

    def _make(self, value):
        op = defining_op(value)
        if op is None or op not in self.maps:           # from outside the loop
            return self._broadcast(value)
        if not self.varies(value):      # the same in every trip: computed once
            return self._broadcast(copied_before(value, self.loop))
        if op.name == "stablehlo.reshape":
            return self.of(op.operands[0])
        if op.name == "stablehlo.dynamic_slice":
            return self._gather(op)
        operands = [self.of(v) for v in op.operands]
        element = ir.RankedTensorType(value.type).element_type
        new = ir.Operation.create(op.name, results=[ir.RankedTensorType.get(
            [self.trips], element)], operands=operands,
            attributes={a: op.attributes[a] for a in op.attributes}, loc=op.location)
        return new.results[0]

    def _gather(self, op):
        source = op.operands[0]
        rank = ir.RankedTensorType(source.type).rank
        run = self._run(op)
        if run is not None:
            return run
        return gather_at(source, [self.of(v) for v in op.operands[1:]], [1] * rank,
                         collapse=True)

    def _run(self, op):
        """The picks of `op` for all trips as one `dynamic_slice`, or None: where one
        index is `counter + c` and the others are the same in every trip, the trips
        read consecutive elements along one axis (`S[i - 1, j - 1]` for every `j`),
        and a slice of them reads memory in order where XLA:CPU gathers element by
        element, several ns each. Only where every trip's index lies inside the axis:
        there each trip's clamp leaves its index alone, so the slice picks what the
        trips did."""
        source, indices = op.operands[0], list(op.operands[1:])
        shape = ir.RankedTensorType(source.type).shape
        along = None
        for axis, index in enumerate(indices):
            base, offset = affine(index)
            if base == self.counter:
                if along is not None:
                    return None
                along, first = axis, self.start + offset
            elif self.varies(index):
                return None
        if along is None or first < 0 or first + self.trips > shape[along]:
            return None
        starts = [int_constant_op(first, v.type) if axis == along else
                  copied_before(v, self.loop) for axis, v in enumerate(indices)]
        sizes = [1] * len(shape)
        sizes[along] = self.trips
        piece = hlo.DynamicSliceOp(source, starts, sizes).result
        element = ir.RankedTensorType(source.type).element_type
        return hlo.ReshapeOp(ir.RankedTensorType.get([self.trips], element), piece).result

    def varies(self, value) -> bool:
        """Whether `value` may differ between trips (it depends on the counter)."""
        if value == self.counter:
            return True
        op = defining_op(value)
        if op is None or op not in self.maps:
            return False
        got = self.varying.get(op)
        if got is None:
            got = self.varying[op] = any(self.varies(v) for v in op.operands)
        return got


def _read_back(value, vector, counter, start):
    """Every use of the per-trip `value` reads the trip's element of `vector` instead."""
    op = defining_op(value)
    with ir.InsertionPoint(op):
        index = counter
        if start:
            index = hlo.SubtractOp(counter, int_constant_op(start, counter.type)).result
        t = ir.RankedTensorType(value.type)
        piece = hlo.DynamicSliceOp(vector, [index], [1]).result
        scalar = hlo.ReshapeOp(t, piece).result
    value.replace_all_uses_with(scalar)
