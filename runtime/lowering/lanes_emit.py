"""A planned loop's body emitted once before the loop with a lane axis in front of
every per-lane value (`lanes`; the plan is `lanes_plan.plan_loop`'s)."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering import lanes_tail
from npxla.runtime.lowering.build import (combine_lanes, gather_at, int_constant_op,
                                          lane_loop)
from npxla.runtime.lowering.lanes_plan import UNIFORM, Shared
from npxla.runtime.lowering.ssa import ELEMENTWISE


# --- emitting the lanes ------------------------------------------------------------------

class Emitter:
    """The body of a planned loop, emitted once before it with a lane axis in front of
    every per-lane value; `self.values` maps each body value to its emitted value."""

    def __init__(self, plan):
        self.plan, self.lanes = plan, plan.lanes
        self.values: dict = {}
        self.moved: dict = {}       # uniform array read by rows -> moved (`Plan.moved`)
        self.masks: list = []       # the lanes still running each enclosing masked loop
        self.scanned: dict = {}     # carried scalar's position -> its value after `_scan`

    def _move(self, value, key, back=False):
        """`value` with the lane axis of `key` moved last (or `back` in its place) if
        the plan moves it, else `value`."""
        if key is None or key == UNIFORM or isinstance(key, int) or not self.plan.moved(key):
            return value
        axis = key.axis if isinstance(key, Shared) else self.plan.rows_axis[key]
        n = ir.RankedTensorType(value.type).rank
        perm = list(range(axis)) + [n - 1] + list(range(axis, n - 1)) if back else \
            [a for a in range(n) if a != axis] + [axis]
        return hlo.TransposeOp(value, perm).result

    def replace_loop(self):
        plan, loop = self.plan, self.plan.loop
        body = loop.regions[1].blocks[0]
        with ir.InsertionPoint(loop):
            t = ir.RankedTensorType(plan.counter.type)
            iota = hlo.IotaOp(ir.RankedTensorType.get([self.lanes], t.element_type), 0)
            start = int_constant_op(plan.start, t)
            self.values[plan.counter] = hlo.AddOp(iota.result, self._spread(start, [])).result
            for j, arg in enumerate(body.arguments):
                if arg != plan.counter:
                    self.values[arg] = self._move(loop.operands[j], plan.kinds.get(arg))
            self.moved = {v: self._move(v, v) for v in plan.rows_axis}
            self.moved = {v: m for v, m in self.moved.items() if m is not v}
            ops = list(body.operations)
            chain = [c.operation for c in plan.scan_ops]
            for op in ops[:-1]:
                if not any(op.operation == c for c in chain):      # (see `_scan`)
                    self._emit(op)
            ends = list(ops[-1].operands)
            self.scanned = self._scan(ends) if plan.scans else {}
            self.last = None if plan.stop is None else self._first_stop(ends[plan.stop])
            finals = [self._final(j, v) for j, v in enumerate(ends)]
        for old, new in zip(loop.results, finals):
            if new is not None:
                old.replace_all_uses_with(new)
        loop.erase()

    def _final(self, j, value):
        """The loop's j-th result: the value after the last trip."""
        loop, plan = self.plan.loop, self.plan
        if not list(loop.results[j].uses):
            return None
        body = loop.regions[1].blocks[0]
        t = ir.RankedTensorType(value.type)
        if j in plan.scans:
            return self.scanned[j]
        if body.arguments[j] == plan.counter:
            if self.last is None:
                return int_constant_op(plan.start + self.lanes, t)
            return hlo.AddOp(int_constant_op(plan.start + 1, t),
                             hlo.ConvertOp(t, self.last).result).result
        kind = plan.kind(value)
        new = self.values.get(value, value)
        if isinstance(kind, Shared):
            return self._move(new, kind, back=True)
        if kind == UNIFORM and self.last is None:
            return new
        new = self._lanes(value, list(t.shape))
        if self.last is None:
            last = hlo.SliceOp(new, [self.lanes - 1] + [0] * t.rank,
                               [self.lanes] + list(t.shape), [1] * (t.rank + 1)).result
        else:
            zero = int_constant_op(0, ir.RankedTensorType(self.last.type))
            last = hlo.DynamicSliceOp(new, [self.last] + [zero] * t.rank,
                                      [1] + list(t.shape)).result
        return hlo.ReshapeOp(t, last).result

    def _scan(self, ends):
        """The carried scalars after the recurrence through them (`lanes_plan._scan_ops`)
        has run once per lane, in trip order: a scalar loop over the lanes whose body
        is that recurrence, reading each lane's inputs from the vectors the lanes made.
        The operations and their order are the loop's (the loop is small and all
        scalar, so `unroll` runs it several lanes per trip)."""
        plan = self.plan
        chain, positions = plan.scan_ops, sorted(plan.scans)
        made = {r for op in chain for r in op.results} | set(plan.scans.values())
        inputs = []
        for op in chain:
            for v in op.operands:
                if v not in made and plan.kind(v) != UNIFORM and v not in inputs:
                    inputs.append(v)
        vectors = [self._lanes(v, []) for v in inputs]

        def trip(lane, state):
            mapping = {plan.scans[j]: a for j, a in zip(positions, state)}
            for v, vector in zip(inputs, vectors):
                t = ir.RankedTensorType(v.type)
                mapping[v] = hlo.ReshapeOp(t, hlo.DynamicSliceOp(vector, [lane], [1]).result
                                           ).result
            for op in chain:
                copy = op.clone(ip=ir.InsertionPoint.current)
                for i, v in enumerate(op.operands):
                    copy.operands[i] = mapping.get(v, self._value(v))
                mapping.update(zip(op.results, copy.results))
            return lane, [mapping[ends[j]] for j in positions]

        finals = lane_loop(self.lanes, [plan.loop.operands[j] for j in positions], trip)
        return dict(zip(positions, finals))

    def _keep(self, new, old):
        """`new` in the lanes the current mask holds, `old` in the others."""
        mask = self.masks[-1]
        t = ir.RankedTensorType(new.type)
        if t.rank > 1:
            mask = hlo.BroadcastInDimOp(ir.RankedTensorType.get(
                t.shape, ir.IntegerType.get_signless(1)), mask, [0]).result
        return hlo.SelectOp(mask, new, old).result

    def _first_stop(self, code):
        """The lane whose trip ended the loop: the first whose check code is nonzero,
        else the last. (The lanes after it ran trips the loop never ran; their writes
        are never seen, since a failed check raises and the run's results are
        dropped.)"""
        codes = self._lanes(code, [])
        t = ir.RankedTensorType(codes.type)
        i64 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(64))
        zero = hlo.ConstantOp(ir.DenseElementsAttr.get_splat(
            t, ir.IntegerAttr.get(t.element_type, 0))).result
        failed = hlo.CompareOp(codes, zero, hlo.ComparisonDirectionAttr.get("NE"),
                               compare_type=hlo.ComparisonTypeAttr.get("SIGNED")).result
        last = int_constant_op(self.lanes - 1, i64)
        lanes = ir.RankedTensorType.get([self.lanes], i64.element_type)
        which = hlo.SelectOp(failed, hlo.IotaOp(lanes, 0).result, self._spread(last, [])).result
        return combine_lanes(which, "stablehlo.minimum", last)

    # --- values ---
    def _value(self, v):
        return self.values.get(v, v)

    def _spread(self, value, shape):
        """A uniform `value` (of a lane's `shape`) repeated for every lane."""
        t = ir.RankedTensorType(value.type)
        out = ir.RankedTensorType.get([self.lanes] + list(shape), t.element_type)
        dims = list(range(1 + len(shape) - t.rank, 1 + len(shape)))
        return hlo.BroadcastInDimOp(out, value, dims).result

    def _lanes(self, v, shape):
        """`v` per lane, with a lane's value of `shape` (a scalar broadcast if needed)."""
        if self.plan.kind(v) == UNIFORM:
            return self._spread(self._value(v), shape)
        new = self._value(v)
        t = ir.RankedTensorType(new.type)
        if list(t.shape)[1:] == list(shape):
            return new
        out = ir.RankedTensorType.get([self.lanes] + list(shape), t.element_type)
        return hlo.BroadcastInDimOp(out, new, [0]).result

    def _type(self, value):
        t = ir.RankedTensorType(value.type)
        return ir.RankedTensorType.get([self.lanes] + list(t.shape), t.element_type)

    # --- ops ---
    def _emit(self, op):
        kind = self.plan.kind(op.results[0]) if len(op.results) else UNIFORM
        name = op.name
        if name == "stablehlo.while":
            return self._while(op)
        if kind == UNIFORM and not any(isinstance(self.plan.kind(v), Shared)
                                       for v in op.operands):
            copy = op.clone(ip=ir.InsertionPoint.current)
            for i, v in enumerate(op.operands):
                copy.operands[i] = self._value(v)
            for old, new in zip(op.results, copy.results):
                self.values[old] = new
            return None
        if any(isinstance(self.plan.kind(v), Shared) for v in op.operands):
            new = self._shared(op)
        elif name in ELEMENTWISE:
            shape = list(ir.RankedTensorType(op.results[0].type).shape)
            new = ir.Operation.create(
                name, results=[self._type(op.results[0])],
                operands=[self._lanes(v, shape) for v in op.operands],
                attributes={a: op.attributes[a] for a in op.attributes},
                loc=op.location).results[0]
        else:
            new = getattr(self, "_" + name.split(".")[1])(op)
        self.values[op.results[0]] = new
        return None

    def _operand(self, op, n=0):
        v = op.operands[n]
        return self._lanes(v, list(ir.RankedTensorType(v.type).shape))

    def _reshape(self, op):
        return hlo.ReshapeOp(self._type(op.results[0]), self._operand(op)).result

    def _broadcast_in_dim(self, op):
        dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
        return hlo.BroadcastInDimOp(self._type(op.results[0]), self._operand(op),
                                    [0] + [d + 1 for d in dims]).result

    def _slice(self, op):
        attr = [list(ir.DenseI64ArrayAttr(op.attributes[n]))
                for n in ("start_indices", "limit_indices", "strides")]
        return hlo.SliceOp(self._operand(op), [0] + attr[0], [self.lanes] + attr[1],
                           [1] + attr[2]).result

    def _transpose(self, op):
        perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
        return hlo.TransposeOp(self._operand(op), [0] + [p + 1 for p in perm]).result

    def _reduce(self, op):
        """A reduction of each lane's value (`lanes_plan._exact_reduce`)."""
        dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        new = hlo.ReduceOp([self._type(op.results[0])], [self._operand(op)],
                           [self._value(op.operands[1])], [d + 1 for d in dims])
        old = op.regions[0].blocks[0]
        block = new.body.blocks.append(*[a.type for a in old.arguments])
        combine = list(old.operations)[0]
        with ir.InsertionPoint(block):
            result = ir.Operation.create(combine.name, results=[combine.results[0].type],
                                         operands=list(block.arguments)).results[0]
            hlo.ReturnOp([result])
        return new.results[0]

    def _concatenate(self, op):
        axis = ir.IntegerAttr(op.attributes["dimension"]).value
        parts = [self._operand(op, n) for n in range(len(op.operands))]
        return hlo.ConcatenateOp(parts, axis + 1).result

    def _dynamic_slice(self, op):
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        kinds = [self.plan.kind(v) for v in op.operands]
        if kinds[0] != UNIFORM:               # a per-lane array at uniform indices
            index = op.operands[1]
            zero = int_constant_op(0, ir.RankedTensorType(index.type))
            return hlo.DynamicSliceOp(self._operand(op), [zero] + [
                self._value(v) for v in op.operands[1:]], [self.lanes] + sizes).result
        rows = self.plan.rows.get(op)
        if rows is not None:
            source = op.operands[0]
            array = self.moved.get(source, self._value(source))
            return self._rows(op, array, *rows, source in self.moved)
        return self._gather(op, sizes)

    def _gather(self, op, sizes):
        """Each lane's piece of a uniform array at that lane's indices."""
        return gather_at(self._value(op.operands[0]),
                         [self._lanes(v, []) for v in op.operands[1:]], sizes)

    def _dynamic_update_slice(self, op):
        """A per-lane array (or a uniform one given per-lane values) at uniform indices."""
        index = op.operands[2]
        zero = int_constant_op(0, ir.RankedTensorType(index.type))
        return hlo.DynamicUpdateSliceOp(self._operand(op), self._operand(op, 1), [zero] + [
            self._value(v) for v in op.operands[2:]]).result

    def _shared(self, op):
        if op.name == "stablehlo.select":
            return self._select_rows(op)
        shared = self.plan.kind(op.operands[0])
        return self._rows(op, self._value(op.operands[0]), shared.axis, shared.offset,
                          self.plan.moved(shared))

    def _select_rows(self, op):
        """Each lane's rows from one of two versions of a shared array, as its
        predicate says (the rows no lane owns are the same in both)."""
        shared = self.plan.kind(op.operands[1])
        picked = [self._value(v) for v in op.operands[1:]]
        if shared.axis is None:                  # nothing written yet: the same array
            return picked[0]
        t = ir.RankedTensorType(picked[0].type)
        axis = t.rank - 1 if self.plan.moved(shared) else shared.axis
        first = self.plan.start + shared.offset
        mask = self._lanes(op.operands[0], [])
        true = hlo.ConstantOp(ir.DenseElementsAttr.get(
            np.array(True), type=ir.RankedTensorType.get([], mask.type.element_type))).result
        mask = hlo.PadOp(mask, true, [first], [t.shape[axis] - first - self.lanes],
                         [0]).result
        mask = hlo.BroadcastInDimOp(ir.RankedTensorType.get(
            t.shape, ir.IntegerType.get_signless(1)), mask, [axis]).result
        return hlo.SelectOp(mask, *picked).result

    def _rows(self, op, array, axis, offset, moved):
        """A lane's read or write of its own row (index `counter + offset` along
        `axis`) of an array: all lanes' rows as one strided piece, or as one contiguous
        piece of the array with that axis `moved` last (`Plan.moved`)."""
        write = op.name == "stablehlo.dynamic_update_slice"
        first = 2 if write else 1
        starts = [self._value(v) for v in op.operands[first:]]
        starts[axis] = int_constant_op(self.plan.start + offset,
                                       op.operands[first + axis].type)
        piece = op.operands[1] if write else op.results[0]
        shape = list(ir.RankedTensorType(piece.type).shape)
        n = len(shape)
        rows = shape[:axis] + shape[axis + 1:]
        element = ir.RankedTensorType(piece.type).element_type
        if moved:
            starts = starts[:axis] + starts[axis + 1:] + [starts[axis]]
            wide = rows + [self.lanes]
            to_lanes, from_lanes = [n - 1] + list(range(n - 1)), list(range(1, n)) + [0]
        else:
            wide = shape[:axis] + [self.lanes] + shape[axis + 1:]
            to_lanes = [axis] + [a for a in range(n) if a != axis]
            from_lanes = list(range(1, axis + 1)) + [0] + list(range(axis + 1, n))
        if write:
            update = self._lanes(op.operands[1], shape)
            update = hlo.ReshapeOp(ir.RankedTensorType.get([self.lanes] + rows, element),
                                   update).result
            if from_lanes != list(range(n)):
                update = hlo.TransposeOp(update, from_lanes).result
            if self.masks:                # finished lanes keep their rows
                now = hlo.DynamicSliceOp(array, starts, wide).result
                where = hlo.BroadcastInDimOp(ir.RankedTensorType.get(
                    wide, ir.IntegerType.get_signless(1)), self.masks[-1],
                    [from_lanes.index(0)]).result
                update = hlo.SelectOp(where, update, now).result
            return hlo.DynamicUpdateSliceOp(array, update, starts).result
        got = hlo.DynamicSliceOp(array, starts, wide).result
        if to_lanes != list(range(n)):
            got = hlo.TransposeOp(got, to_lanes).result
        return hlo.ReshapeOp(self._type(piece), got).result

    def _while(self, op):
        carried = self.plan.carries[op]
        mask_at = self.plan.masked.get(op)
        types, init = [], []
        for v, kind in zip(op.operands, carried):
            if kind is None:
                init.append(self._lanes(v, list(ir.RankedTensorType(v.type).shape)))
                types.append(self._type(v))
            else:
                init.append(self._value(v))
                types.append(init[-1].type)
        alone = lanes_tail.applies(self, op, carried, mask_at)
        if mask_at is not None and self.masks:
            init[mask_at] = hlo.AndOp(init[mask_at], self.masks[-1]).result
        # a uniform copy of each induction carry, which the body reads (`_inductions`)
        steps = sorted(self.plan.inductions.get(op, ()))
        init += [self._value(op.operands[q]) for q in steps]
        types += [v.type for v in init[len(types):]]
        new = hlo.WhileOp(types, init)
        for n, (region, old) in enumerate(zip(new.regions, op.regions)):
            block = region.blocks.append(*types)
            old_block = old.blocks[0]
            for a, b in zip(old_block.arguments, block.arguments):
                self.values[a] = b
            if n == 1:
                for q, b in zip(steps, block.arguments[len(carried):]):
                    self.values[old_block.arguments[q]] = b
            masked = n == 1 and mask_at is not None
            if masked:
                self.masks.append(block.arguments[mask_at])
            with ir.InsertionPoint(block):
                ops = list(old_block.operations)
                for inner in ops[:-1]:
                    self._emit(inner)
                if n == 0:
                    go = self._value(ops[-1].operands[0])
                    ends = [go if mask_at is None else lanes_tail.going_on(go, self.lanes)
                            if alone else combine_lanes(go, "stablehlo.or")]
                else:
                    ends = [self._value(v) if kind is not None else
                            self._lanes(v, list(ir.RankedTensorType(v.type).shape))
                            for v, kind in zip(ops[-1].operands, carried)]
                if masked:
                    ends = [self._keep(e, a) if kind is None else e
                            for e, a, kind in zip(ends, block.arguments, carried)]
                    ends += [self._value(ops[-1].operands[q]) for q in steps]
                    self.masks.pop()
                hlo.ReturnOp(ends)
        results = list(new.results)[:len(carried)]
        if alone:
            results = lanes_tail.finish(self, op, carried, mask_at, results)
        for old, result in zip(op.results, results):
            self.values[old] = result
