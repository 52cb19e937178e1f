"""Large unaligned arguments that a reduction reads, passed without a copy.

`superset` passes an unaligned argument as the aligned memory that starts before it and
slices it back inside the program. A reduction cannot read that slice in place: XLA:CPU
hands whole reductions (`x.sum()`, `x.max()`, the passes of `x.std()`) to its reduction
library, which takes a buffer of its own, so XLA copies the slice first (a `sum` of
1,000,000 unaligned doubles: 0.7 ms, of which the reduction is 0.13 and NumPy's whole
`sum` 0.16). There is a second aligned piece of memory, though: the part of the array
that starts at its first 64-byte line. So the argument (n elements, `j` short of that
line) goes in as two parameters:

- S: its elements j.. (the rest of the array, in place: its address is a line's);
- H: its first j elements (a copy of at most 7).

and the program rebuilds it as `concatenate(H, S)`. XLA splits a reduction of a
concatenation into one per piece, so the reduction reads S where it lies; elementwise
work fuses the concatenation into its loop. A program where something must still copy
S (a dot, an axis reduction of a matrix) is not kept (`superset.reads_in_place`).
Sums are then grouped differently than over one buffer, so their last bits may depend on
where NumPy allocated the array, as with BLAS libraries that peel unaligned heads;
`max`, `min` and `argmax` are exact.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.lowering.ssa import defining_op, operation
from npxla.runtime.xla import module_edit


def head_lengths(shifts, avals, align):
    """{parameter: j} from `shifts` ({parameter: elements past a line})."""
    return {p: align // np.dtype(avals[p][1]).itemsize - k for p, k in shifts.items()}


def headed_module(module_text, heads, avals):
    """`module_text` whose parameters p in `heads` ({p: j}) take the flat elements j.. of
    the argument, with one more parameter (its first j elements) per head appended after
    the others, in order of p."""
    with module_edit.editing(module_text) as edit:
        ir, hlo, block = edit.ir, edit.hlo, edit.block
        for p, j in sorted(heads.items()):
            arg = block.arguments[p]
            shaped = ir.RankedTensorType(arg.type)
            n = int(np.prod(avals[p][0]))
            head = block.add_argument(ir.RankedTensorType.get([j], shaped.element_type),
                                      ir.Location.unknown())
            for use in list(arg.uses):        # reshapes to its own shape: the argument
                owner = operation(use.owner)
                if owner.name == "stablehlo.reshape" and owner.results[0].type == arg.type:
                    owner.results[0].replace_all_uses_with(arg)
                    owner.erase()
            arg.set_type(ir.RankedTensorType.get([n - j], shaped.element_type))
            # one rebuild per block that uses the argument, at the block's start: a
            # branch that reads it (NaN put back into a `max`) rebuilds it only when taken
            rebuilt: dict = {}
            for use in list(arg.uses):
                owner = operation(use.owner)
                where = owner.block
                value = rebuilt.get(where)
                if value is None:
                    with ir.InsertionPoint.at_block_begin(where):
                        value = hlo.ConcatenateOp([head, arg], 0).result
                        if tuple(avals[p][0]) != (n,):
                            value = hlo.ReshapeOp(shaped, value).result
                    rebuilt[where] = value
                owner.operands[use.operand_number] = value
            for value in rebuilt.values():
                _sink(value, (head, arg), (j, n - j), hlo, ir)
        return edit.text()


# ops that act element by element: `op(concatenate(a, b))` is `concatenate(op(a), op(b))`
_ELEMENTWISE = frozenset("stablehlo." + name for name in (
    "abs add and atan2 cbrt ceil compare convert cosine divide exponential "
    "exponential_minus_one floor is_finite log log_plus_one logistic maximum minimum "
    "multiply negate not or popcnt power remainder round_nearest_afz round_nearest_even "
    "rsqrt select shift_left shift_right_arithmetic shift_right_logical sign sine sqrt "
    "subtract tan tanh xor").split())


def _sink(value, parts, sizes, hlo, ir):
    """Rewrite the elementwise uses of `value` (`concatenate(*parts)`, 1-D parts,
    reshaped to an n-d argument's shape) to apply to each part and concatenate (and
    reshape) after, and theirs in turn, so that a whole reduction of `f(x)` (the second
    pass of `x.std()`) is one of a concatenation, which XLA splits into reductions that
    read each part in place. An operand that is neither such a value nor a broadcast
    scalar stops the rewrite there."""
    split = {defining_op(value): parts}
    work = [value]
    while work:
        current = work.pop()
        users = []          # each op once (`x * x` uses x twice)
        for use in current.uses:
            op = operation(use.owner)
            if op not in users:
                users.append(op)
        for op in users:
            if op.name == "stablehlo.reduce_window":
                _windows(op, current, split[defining_op(current)], sizes, hlo, ir)
                continue
            if op.name == "stablehlo.slice":
                _sliced(op, current, split[defining_op(current)], sizes, hlo, ir)
                continue
            if op.name not in _ELEMENTWISE or len(op.results) != 1:
                continue
            pieces = [_pieces(v, split, sizes, hlo, ir, op) for v in op.operands]
            if any(piece is None for piece in pieces):
                continue
            result = op.results[0]
            element = ir.RankedTensorType(result.type).element_type
            new_parts = []
            with ir.InsertionPoint(op):
                for i, size in enumerate(sizes):
                    new_parts.append(ir.Operation.create(
                        op.name, results=[ir.RankedTensorType.get([size], element)],
                        operands=[piece[i] for piece in pieces],
                        attributes={name: op.attributes[name] for name in op.attributes}).result)
                joined = hlo.ConcatenateOp(new_parts, 0).result
                if ir.RankedTensorType(result.type).rank != 1:     # an n-d argument
                    joined = hlo.ReshapeOp(result.type, joined).result
            result.replace_all_uses_with(joined)
            op.erase()
            split[defining_op(joined)] = tuple(new_parts)
            work.append(joined)


def _sliced(op, value, parts, sizes, hlo, ir):
    """A unit-stride slice of the flat concatenation as a slice of the part it lies in,
    or the concatenation of its slices of the parts (XLA fuses that into the loop that
    reads it): the blocks of a whole integer reduction (`lowering/split_reductions`),
    which would otherwise make XLA write the concatenation out, a copy."""
    if ir.RankedTensorType(value.type).rank != 1 or \
            list(ir.DenseI64ArrayAttr(op.attributes["strides"])) != [1]:
        return
    (start,) = ir.DenseI64ArrayAttr(op.attributes["start_indices"])
    (stop,) = ir.DenseI64ArrayAttr(op.attributes["limit_indices"])
    if start >= stop:
        return
    pieces, at = [], 0
    with ir.InsertionPoint(op):
        for part, size in zip(parts, sizes):
            lo, hi = max(start, at), min(stop, at + size)
            if lo < hi:
                pieces.append(part if (lo - at, hi - at) == (0, size) else
                              hlo.SliceOp(part, [lo - at], [hi - at], [1]).result)
            at += size
        new = pieces[0] if len(pieces) == 1 else hlo.ConcatenateOp(pieces, 0).result
    op.results[0].replace_all_uses_with(new)
    op.erase()


def _windows(op, value, parts, sizes, hlo, ir):
    """A `reduce_window` of `value` (= concatenate(head, rest)) in windows that tile it
    from its start (the row maxima of a blocked `argmax`), rewritten to reduce `rest`
    in place: its windows shifted by the head's length (padded at the front with the
    initial value), the head's own window, and the two combined for the first window.
    Exact for any reducer whose initial value is its identity."""
    if len(op.operands) != 2 or op.operands[0] != value or \
            any(name in op.attributes for name in ("base_dilations", "window_dilations")):
        return
    window = list(ir.DenseI64ArrayAttr(op.attributes["window_dimensions"]))
    strides = list(ir.DenseI64ArrayAttr(op.attributes["window_strides"])) \
        if "window_strides" in op.attributes else [1]
    pad = [[0, 0]]
    if "padding" in op.attributes:
        pad = [list(row) for row in np.array(ir.DenseIntElementsAttr(
            op.attributes["padding"]), dtype=np.int64).reshape(-1, 2)]
    j = sizes[0]
    if len(window) != 1 or strides != window or pad[0][0] != 0 or window[0] <= j:
        return
    w, head, rest = window[0], parts[0], parts[1]
    init = op.operands[1]
    out = ir.RankedTensorType(op.results[0].type)
    one = ir.RankedTensorType.get([1], out.element_type)
    with ir.InsertionPoint(op):
        shifted = _reduce_windows(op, rest, init, out, w, [j, pad[0][1]], ir)
        first = _reduce_windows(op, head, init, one, w, [0, w - j], ir)
        firsts = hlo.ConcatenateOp([first, hlo.SliceOp(shifted, [0], [1], [1]).result],
                                   0).result
        first = _reduce_windows(op, firsts, init, one, 2, [0, 0], ir)
        pieces = [first]
        if out.shape[0] > 1:
            pieces.append(hlo.SliceOp(shifted, [1], [out.shape[0]], [1]).result)
        whole = hlo.ConcatenateOp(pieces, 0).result if len(pieces) > 1 else first
    op.results[0].replace_all_uses_with(whole)
    op.erase()


def _reduce_windows(like, operand, init, result_type, w, pad, ir):
    """A 1-D `reduce_window` with `like`'s reducer: windows of w, stride w."""
    i64 = ir.IntegerType.get_signless(64)
    attributes = {
        "window_dimensions": ir.DenseI64ArrayAttr.get([w]),
        "window_strides": ir.DenseI64ArrayAttr.get([w]),
        "padding": ir.DenseIntElementsAttr.get(np.array([pad], np.int64),
                                               type=ir.RankedTensorType.get([1, 2], i64))}
    new = ir.Operation.create("stablehlo.reduce_window", results=[result_type],
                              operands=[operand, init], attributes=attributes, regions=1)
    twin = like.clone()          # its reducer moves into the new op
    twin.regions[0].blocks[0].append_to(new.regions[0])
    twin.erase()
    return new.results[0]


def _pieces(operand, split, sizes, hlo, ir, before):
    """The parts of `operand` (a split value, or a scalar broadcast to its shape), or
    None."""
    owner = defining_op(operand)
    if owner is None:
        return None
    if owner in split:          # every op in `split` has the one result
        return split[owner]
    element = ir.RankedTensorType(operand.type).element_type
    if owner.name == "stablehlo.broadcast_in_dim" and \
            ir.RankedTensorType(owner.operands[0].type).rank == 0:
        with ir.InsertionPoint(before):
            return tuple(hlo.BroadcastInDimOp(ir.RankedTensorType.get([size], element),
                                              owner.operands[0], []).result
                         for size in sizes)
    if owner.name == "stablehlo.constant":
        dense = ir.DenseElementsAttr(owner.attributes["value"])
        if dense.is_splat:
            with ir.InsertionPoint(before):
                return tuple(hlo.ConstantOp(ir.DenseElementsAttr.get_splat(
                    ir.RankedTensorType.get([size], element),
                    dense.get_splat_value())).result for size in sizes)
    return None


def split(value, j):
    """(the elements j.. of `value`, flat and in place; a copy of its first j)."""
    flat = value.reshape(-1)
    return flat[j:], flat[:j].copy()
