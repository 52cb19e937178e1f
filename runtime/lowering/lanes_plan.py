"""Which values of a counted loop's body are the same in every trip, which differ
per trip (lane), and which arrays the trips share by rows: the analysis behind
`lanes` (see its docstring), which refuses a loop whose trips depend on each other."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.counted import static_trip_count
from npxla.runtime.lowering.ssa import (ELEMENTWISE, defining_op, int_constant, is_integer,
                                        operation)

# a value per lane may hold at most this many bytes
_MAX_BYTES = 1 << 27
# lines of the first-level data cache that rows read one element per trip may take
# (of 512 in 32 KiB) before the lanes move the rows' axis last (`Plan.moved`)
CACHE_LINES = 256
# shape ops that act on each lane's value alone (their attributes shift by the lane axis)
_SHAPE = frozenset(f"stablehlo.{n}" for n in
                   "reshape broadcast_in_dim slice transpose".split())
# ops with effects or state: a host callback (a print, a random draw) runs once per trip
_EFFECTS = frozenset({"stablehlo.custom_call", "stablehlo.rng", "stablehlo.rng_bit_generator",
                      "stablehlo.infeed", "stablehlo.outfeed", "stablehlo.send",
                      "stablehlo.recv"})
# combiners of reductions whose result is the same in any order (`_exact_reduce`)
_ORDERLESS = frozenset(f"stablehlo.{n}" for n in "maximum minimum and or add multiply".split())
UNIFORM = "uniform"


class _Refuse(Exception):
    """The loop's trips may depend on each other, or its body holds an op not handled."""


class Shared:
    """A carried array the lanes share: lane `k` (counter value k) owns index `k +
    offset` along `axis`, learnt from the first access and checked at every other."""

    def __init__(self, shape):
        self.shape = shape
        self.axis = self.offset = None


# --- which values are what ---------------------------------------------------------------

class Plan:
    """The kinds of the values of one candidate loop's body: UNIFORM, a `Shared`, or an
    int (per lane: the value is `counter + int` in every lane) or None (per lane, any)."""

    def __init__(self, loop, lanes, counter, start):
        self.loop, self.lanes, self.start = loop, lanes, start
        self.counter = counter
        self.kinds: dict = {counter: 0}
        self.carries: dict = {}              # nested while -> its carried kinds
        self.stop = None                     # position of the check code that ends the loop
        self.scans: dict = {}                # carried scalar's position -> its argument
        self.scan_ops: list = []             # the recurrence through them (`_scan_ops`)
        self.masked: dict = {}               # nested while run masked -> its mask's position
        self.inductions: dict = {}           # masked while -> its uniform steps (positions)
        self.in_mask = 0                     # how many masked loops hold the op analysed
        self.rows: dict = {}                 # read of a uniform array -> (axis, offset)
        self.rows_axis: dict = {}            # uniform array read by rows -> the axis
        self.pieces: dict = {}               # array (or Shared) -> [thin, in a nested loop]
        self.depth = 0

    def moved(self, key) -> bool:
        """Whether the lanes should use `key` (a uniform array read by rows, or a
        shared one) with its lane axis moved last: every access is of one element per
        lane, some inside a nested loop, so that one trip's elements of all lanes lie
        side by side in memory instead of a row apart. It pays when the lanes' rows
        do not all stay in the cache from one trip to the next (`CACHE_LINES`: 400
        rows of two arrays miss it on every trip, while 16 rows cost less than moving
        the axis of a long array, a pass over its memory before and after)."""
        axis = key.axis if isinstance(key, Shared) else self.rows_axis.get(key)
        shape = key.shape if isinstance(key, Shared) else \
            list(ir.RankedTensorType(key.type).shape)
        thin, deep = self.pieces.get(key, (False, False))
        crowded = self.lanes * sum(t and d for t, d in self.pieces.values()) > CACHE_LINES
        return thin and deep and crowded and axis is not None and axis != len(shape) - 1

    def _piece(self, key, piece, axis):
        shape = list(ir.RankedTensorType(piece.type).shape)
        thin, deep = self.pieces.get(key, (True, False))
        self.pieces[key] = (thin and int(np.prod(shape)) == 1, deep or self.depth > 0)

    def kind(self, value):
        return self.kinds.get(value, UNIFORM)

    def block(self, block):
        ops = list(block.operations)
        for op in ops[:-1]:
            self._op(op)
        return [self.kind(v) for v in ops[-1].operands]

    def _set(self, op, kind):
        for r in op.results:
            self.kinds[r] = kind

    def _op(self, op):
        name = op.name
        kinds = [self.kind(v) for v in op.operands]
        if name == "stablehlo.while":
            return self._while(op, kinds)
        if (len(op.regions) and not _exact_reduce(op)) or name in _EFFECTS:
            raise _Refuse(name)
        shared = [k for k in kinds if isinstance(k, Shared)]
        if shared:
            return self._set(op, self._access(op, kinds))
        if all(k == UNIFORM for k in kinds):
            return self._set(op, UNIFORM)
        if name == "stablehlo.reduce" and any(
                k != UNIFORM for k in kinds[len(kinds) // 2:]):
            raise _Refuse("a reduction from a per-lane start")
        if name not in ELEMENTWISE and name not in _SHAPE and name not in (
                "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice",
                "stablehlo.concatenate", "stablehlo.reduce"):
            raise _Refuse(name)
        if name == "stablehlo.dynamic_slice" and kinds[0] != UNIFORM and any(
                k != UNIFORM for k in kinds[1:]):
            raise _Refuse("a per-lane array read at per-lane indices")
        if name == "stablehlo.dynamic_slice" and kinds[0] == UNIFORM:
            self._uniform_read(op, kinds)
        if name == "stablehlo.dynamic_update_slice" and any(k != UNIFORM for k in kinds[2:]):
            raise _Refuse("a per-lane array written at per-lane indices")
        if name == "stablehlo.bitcast_convert" and ir.RankedTensorType(
                op.operands[0].type).shape != ir.RankedTensorType(op.results[0].type).shape:
            raise _Refuse("a bitcast between widths")
        for r in op.results:
            t = ir.RankedTensorType(r.type)
            if self.lanes * max(1, int(np.prod(t.shape))) * 8 > _MAX_BYTES:
                raise _Refuse("too large")
        self._set(op, self._offset(op, kinds))

    def _offset(self, op, kinds):
        """`c` when the result is `counter + c` in every lane (an index), else None."""
        name, ops = op.name, list(op.operands)
        if name == "stablehlo.convert" and isinstance(kinds[0], int):
            t = ir.RankedTensorType(op.results[0].type).element_type
            return kinds[0] if is_integer(t) else None
        if name not in ("stablehlo.add", "stablehlo.subtract", "stablehlo.multiply"):
            return None
        consts = [int_constant(v) for v in ops]
        if name == "stablehlo.multiply":
            hit = [k for k, c in zip(kinds, reversed(consts)) if isinstance(k, int) and c == 1]
            return hit[0] if hit else None
        if name == "stablehlo.add":
            for k, c in zip(kinds, reversed(consts)):
                if isinstance(k, int) and c is not None:
                    return k + c
            return None
        return kinds[0] - consts[1] if isinstance(kinds[0], int) and consts[1] is not None \
            else None

    def _uniform_read(self, op, kinds):
        """A read of a uniform array at per-lane indices: by rows (one index is the
        counter plus a constant, its rows inside the array) or by a gather."""
        lane = [a for a, k in enumerate(kinds[1:]) if k != UNIFORM]
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        shape = list(ir.RankedTensorType(op.operands[0].type).shape)
        if len(lane) == 1 and isinstance(kinds[1 + lane[0]], int) and sizes[lane[0]] == 1:
            axis, offset = lane[0], kinds[1 + lane[0]]
            first = self.start + offset
            source = op.operands[0]
            if 0 <= first and first + self.lanes <= shape[axis] and \
                    self.rows_axis.setdefault(source, axis) == axis:
                self.rows[op] = (axis, offset)
                self._piece(source, op.results[0], axis)
                return
            self.rows_axis[source] = None        # read by rows along two axes
        self.rows.pop(op, None)
        if self.in_mask:
            # XLA:CPU gathers cost several ns an element: repeated in every trip of
            # a masked loop (whose lanes run as long as the longest), they cost more
            # than the scalar loop (CSR rows, 50000 of them: 6 ms as a loop, 14 ms)
            raise _Refuse("a gather in every trip of a masked loop")

    def _access(self, op, kinds):
        """A read or write of a shared array at the owning lane's index, or a select
        between two versions of it (a data-dependent `if` writing small arrays in its
        branches, taken per lane); else refuse."""
        target = kinds[0]
        if op.name == "stablehlo.select" and isinstance(kinds[1], Shared) and \
                kinds[1] is kinds[2] and not isinstance(kinds[0], Shared) and \
                ir.RankedTensorType(op.operands[0].type).rank == 0:
            return kinds[1]
        if op.name not in ("stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice") or \
                not isinstance(target, Shared) or \
                any(isinstance(k, Shared) for k in kinds[1:]):
            raise _Refuse("a shared array used whole")
        indices = kinds[2:] if op.name == "stablehlo.dynamic_update_slice" else kinds[1:]
        lanes = [a for a, k in enumerate(indices) if k != UNIFORM]
        if len(lanes) != 1 or not isinstance(indices[lanes[0]], int):
            raise _Refuse("not the lane's own row")
        axis, offset = lanes[0], indices[lanes[0]]
        if target.axis is None:
            first = self.start + offset
            if first < 0 or first + self.lanes > target.shape[axis]:
                raise _Refuse("rows outside the array")
            target.axis, target.offset = axis, offset
        elif (target.axis, target.offset) != (axis, offset):
            raise _Refuse("another lane's row")
        piece = op.operands[1] if op.name == "stablehlo.dynamic_update_slice" else op.results[0]
        if ir.RankedTensorType(piece.type).shape[axis] != 1:
            raise _Refuse("several rows")
        self._piece(target, piece, axis)
        return target if op.name == "stablehlo.dynamic_update_slice" else None

    def _while(self, op, kinds):
        """A nested loop: its carried values' kinds, to a fixed point. If its condition
        differs between lanes, it runs while any lane goes on (`self.masked`), each
        lane's carried values frozen once its own condition fails."""
        cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
        carried = [_carry(k) for k in kinds]
        yields = list(list(body.operations)[-1].operands)
        self.depth += 1
        masked = False
        for _ in range(len(carried) + 2):
            for block in (cond, body):
                for arg, k in zip(block.arguments, carried):
                    self.kinds[arg] = k
            if self.block(cond)[0] != UNIFORM:
                masked = True
                self._mask(op, cond, body)
                carried = [None if k == UNIFORM and v != a else k
                           for k, v, a in zip(carried, yields, body.arguments)]
                steps = self.inductions[op] = _inductions(body, kinds)
                for q, (arg, k) in enumerate(zip(body.arguments, carried)):
                    self.kinds[arg] = UNIFORM if q in steps else k
            self.in_mask += masked
            try:
                ends = self.block(body)
            finally:
                self.in_mask -= masked
            if masked and self._bound_per_lane(yields[self.masked[op]], body):
                # (`for j in range(i)`): the scalar loop, unrolled, costs less than
                # lanes that all run as long as the longest (measured: 1000 rows of a
                # triangle, 0.9 ms as a loop, 2.2 ms as lanes)
                raise _Refuse("a counted loop whose bound differs between lanes")
            new = [_join(a, _carry(b)) for a, b in zip(carried, ends)]
            if new == carried:
                break
            carried = new
        else:
            raise _Refuse("no fixed point")
        self.depth -= 1
        self.carries[op] = carried
        for r, k in zip(op.results, carried):
            self.kinds[r] = k

    def _bound_per_lane(self, go, body) -> bool:
        """Whether the predicate `go` of a loop's next trip is a counter's `k + 1 < n`
        (possibly and-ed with a check) with a bound `n` that differs between lanes."""
        op = defining_op(go)
        tests = [op] if op is None or op.name != "stablehlo.and" else \
            [defining_op(v) for v in op.operands]
        for test in tests:
            if test is None or test.name != "stablehlo.compare":
                continue
            step = defining_op(test.operands[0])
            if step is not None and step.name == "stablehlo.add" and any(
                    v in list(body.arguments) for v in step.operands) and \
                    self.kind(test.operands[1]) != UNIFORM:
                return True
        return False

    def _mask(self, op, cond, body):
        """Check that a loop may run masked: rotated, so that its condition is a
        carried predicate, each lane's mask in the body. (A masked loop nested in
        another starts with its predicate and-ed with the outer mask: a finished
        lane's garbage values must not run a loop that might not end.)"""
        ret = list(cond.operations)[-1]
        if len(list(cond.operations)) != 1 or not isinstance(ret.operands[0].owner, ir.Block):
            raise _Refuse("lanes leave an unrotated loop at different trips")
        self.masked[op] = ir.BlockArgument(ret.operands[0]).arg_number


def _inductions(body, kinds) -> set:
    """The carried values of a masked loop that start the same in every lane and
    step by a constant (`j` of `for j in range(i)`): in the lanes still running they
    are the same, so the body reads them as one uniform value (rows, not gathers)."""
    ends = list(list(body.operations)[-1].operands)
    found = set()
    for q, (arg, end, kind) in enumerate(zip(body.arguments, ends, kinds)):
        op = defining_op(end)
        if kind == UNIFORM and op is not None and op.name == "stablehlo.add" and \
                arg in list(op.operands) and \
                any(int_constant(v) is not None for v in op.operands):
            found.add(q)
    return found


def _exact_reduce(op) -> bool:
    """Whether `op` is a reduction whose result does not depend on the order XLA
    combines the elements in (a maximum, a minimum, a logical or bitwise and/or, an
    integer sum or product), so that reducing each lane's row gives the trip's bits."""
    if op.name != "stablehlo.reduce" or len(op.results) != 1:
        return False
    ops = list(op.regions[0].blocks[0].operations)
    if len(ops) != 2 or ops[0].name not in _ORDERLESS or ops[1].operands[0] != ops[0].results[0]:
        return False
    element = ir.RankedTensorType(op.results[0].type).element_type
    return is_integer(element) or ops[0].name in ("stablehlo.maximum", "stablehlo.minimum")


def _carry(kind):
    """A carried value's kind: an index stays per lane but its offset is not kept."""
    return None if isinstance(kind, int) else kind


def _join(a, b):
    if a is b or a == b:
        return a
    if isinstance(a, Shared) or isinstance(b, Shared):
        raise _Refuse("a shared array replaced")
    return None


def plan_loop(loop):
    """The `Plan` of `loop` if its trips can run as lanes, else None."""
    trips = static_trip_count(loop, at_most=True)
    if trips is None:
        return None
    lanes, k = trips
    cond = loop.regions[0].blocks[0]
    p = ir.BlockArgument(list(cond.operations)[-1].operands[0]).arg_number
    if int_constant(loop.operands[p]) in (None, 0):
        return None
    body = loop.regions[1].blocks[0]
    plan = Plan(loop, lanes, body.arguments[k], int_constant(loop.operands[k]))
    yields = list(list(body.operations)[-1].operands)
    if static_trip_count(loop) is None:
        plan.stop = _stop_code(yields)
        if plan.stop is None:
            return None
    for j, arg in enumerate(body.arguments):
        if j == k or yields[j] == arg:
            continue
        if not list(arg.uses):
            continue                               # set afresh by every trip
        if plan.stop is not None and _payload(arg, yields[j], yields[plan.stop]):
            continue
        t = ir.RankedTensorType(arg.type)
        if t.rank == 0 and j != p:
            plan.scans[j] = arg
            continue
        if j == p or t.rank == 0:
            return None                            # the previous trip's value is read
        plan.kinds[arg] = Shared(list(t.shape))
    plan.scan_ops = _scan_ops(body, plan.scans, yields)
    nested = any(op.name == "stablehlo.while" for op in body.operations)
    if plan.scan_ops is None or (not nested and (plan.scans or any(
            op.name == "stablehlo.reduce" for op in body.operations))):
        # a straight-line body with a recurrence or a reduction of each row runs
        # about as fast or faster as the loop (`s += a[i] * b[i]` over 200,000
        # elements: 0.37 ms, as lanes and a scan of the products 0.54 ms; each of
        # 2,000 rows of 7 divided by its largest magnitude: 0.084 ms, as lanes 0.12
        # ms, where XLA hands the rows' maxima to a library kernel); with a nested
        # loop the lanes win (2,000 rows of a recursion summed: 0.68 -> 0.32 ms)
        return None
    try:
        ends = plan.block(body)
    except _Refuse:
        return None
    for j, arg in enumerate(body.arguments):
        kind = plan.kinds.get(arg)
        if isinstance(kind, Shared) and ends[j] is not kind:
            return None
    return plan


def _scan_ops(body, scans, yields):
    """The ops of the recurrence through the carried scalars `scans` ({position: body
    argument}): every op of the body that depends on one of them, which must be scalar
    elementwise ops at the body's top level whose results go only to each other and to
    the scalars' next values (`s = s * a + x[i]`, `m = max(m, x[i])`). The lanes
    compute everything else at once and this recurrence then runs as a scalar loop
    over the lanes, in trip order (`Emitter._scan`). None if the recurrence leaks."""
    if not scans:
        return []
    ops = list(body.operations)
    ret = ops[-1]
    inside, chain = set(scans.values()), []
    for op in ops[:-1]:
        if any(v in inside for v in op.operands):
            if op.name not in ELEMENTWISE or not all(_scalar(r) for r in op.results):
                return None
            chain.append(op)
            inside.update(op.results)
        elif any(_uses_inside(op, inside)):
            return None                    # read inside a nested region
    for op in chain:
        for r in op.results:
            for use in r.uses:
                user = operation(use.owner)
                if user == ret.operation:
                    if use.operand_number not in scans:
                        return None
                elif not any(user == c for c in chain):
                    return None
    if any(yields[j] not in inside for j in scans):
        return None
    return chain


def _scalar(value) -> bool:
    return ir.RankedTensorType(value.type).rank == 0


def _uses_inside(op, values):
    """Whether an op nested in `op`'s regions uses one of `values`."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield any(v in values for v in inner.operands) or any(
                    _uses_inside(inner, values))


def _stop_code(yields):
    """The position of the carried code of a run-time check that ends the loop early
    (the predicate is `and(k' < N, code == 0)`, the code computed afresh by each trip
    from that trip's checks), else None."""
    for test in (defining_op(v) for v in yields):
        if test is None or test.name != "stablehlo.and":
            continue
        for c in map(defining_op, test.operands):
            if c is None or c.name != "stablehlo.compare" or int_constant(c.operands[1]) != 0 \
                    or hlo.ComparisonDirectionAttr(
                        c.attributes["comparison_direction"]).value != "EQ":
                continue
            code = c.operands[0]
            if code in yields:
                return yields.index(code)
    return None


def _payload(arg, value, code) -> bool:
    """Whether the carried `arg` is a failed check's offending value, kept for its
    message: it becomes `value = select(c, x, arg)` with `c` one of the conditions of
    the loop's check `code`, or it is handed to a nested loop where it is one (and
    every failure of that loop's check fails `code`). Such a carry changes only in the
    trip that ends the loop, so the lane of that trip ends with the loop's value."""
    uses = list(arg.uses)
    op = defining_op(value)
    if op is not None and op.name == "stablehlo.select" and op.operands[2] == arg:
        return _selected_on_failure(arg, value, code)
    if len(uses) != 1:
        return False
    inner = operation(uses[0].owner)
    if inner.name != "stablehlo.while" or op != inner:
        return False
    q = uses[0].operand_number
    if list(inner.results).index(value) != q:
        return False
    body = inner.regions[1].blocks[0]
    ends = list(list(body.operations)[-1].operands)
    stop = _stop_code(ends)
    if stop is None or not _payload(body.arguments[q], ends[q], ends[stop]):
        return False
    inner_codes = {k for _, k in _check_conditions(ends[stop])}
    outer_codes = set()
    for c, _ in _check_conditions(code):
        test = defining_op(c)
        if test is not None and test.name == "stablehlo.compare" and \
                test.operands[0] == inner.results[stop]:
            outer_codes.add(int_constant(test.operands[1]))
    return inner_codes <= outer_codes


def _selected_on_failure(arg, value, code) -> bool:
    """Whether `value` is `select(c1, select(c2, ... x, arg), arg)`, every use of
    `arg`, with the conjunction of c1, c2, ... implying a failure of the check `code`
    (it holds all the conjuncts of one of its conditions)."""
    path, selects = set(), 0
    op = defining_op(value)
    while op is not None and op.name == "stablehlo.select" and op.operands[2] == arg:
        path |= _conjuncts(op.operands[0])
        selects += 1
        op = defining_op(op.operands[1])
    if selects != len(list(arg.uses)):
        return False
    return any(_conjuncts(c) <= path for c, _ in _check_conditions(code))


def _conjuncts(condition) -> set:
    """The values whose conjunction is `condition` (`and`, `select(a, b, false)`)."""
    op = defining_op(condition)
    if op is not None and op.name == "stablehlo.and":
        return _conjuncts(op.operands[0]) | _conjuncts(op.operands[1])
    if op is not None and op.name == "stablehlo.select" and \
            _is_false(op.operands[2]):
        return _conjuncts(op.operands[0]) | _conjuncts(op.operands[1])
    return {condition}


def _is_false(value) -> bool:
    t = ir.RankedTensorType(value.type)
    return t.element_type == ir.IntegerType.get_signless(1) and int_constant(value) == 0


def _check_conditions(code) -> list:
    """(condition, code) of a check code `select(c1, 1, select(c2, 2, ... 0))`."""
    found = []
    op = defining_op(code)
    while op is not None and op.name == "stablehlo.select" and \
            int_constant(op.operands[1]) not in (None, 0):
        found.append((op.operands[0], int_constant(op.operands[1])))
        op = defining_op(op.operands[2])
    return found
