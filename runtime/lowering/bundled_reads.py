"""Old elements that a trip's later writes need, read into one buffer before its first
write, so that XLA updates the loop's array in place.

A swap (`t = A[i, j]; A[i, j] = A[j, i]; A[j, i] = t`, `x[i], x[n - 1 - i] = x[n - 1 -
i], x[i]`) is two `dynamic_update_slice`s of the carried array, the second writing a
value read from the array before the first. XLA fuses each read into the kernel that
uses it, so the read of `A[i, j]` runs inside the second write's kernel, after the first
write has changed the buffer in place; to keep the old value XLA then copies the whole
array, twice a trip. Reversing 100,001 elements that way took 2.3 s (NumPy's Python
loop: 30 ms).

So when a value computed from old elements before a write is used after it, every
such value (the old reads themselves, and what the trip computed from them: a compare
of two old elements, which XLA would otherwise fuse into a kernel after the write and
so read the old array again), and the write's update, go through one buffer: their
elements concatenated, as the array's element type (a bool, a narrower integer or a
float32 converted, a value of the same width reinterpreted, all exactly), and passed
through an `optimization_barrier`, then sliced back out. XLA cannot fold the slices
into the reads across the barrier, and it keeps the concatenation as a buffer of its
own (it has several users). The write now depends on that buffer, so every old read
runs before it, and each write runs in the array's own buffer. The barrier alone,
around each read or around all of them as a tuple, does not do it: XLA still fused each
read into its write (checked on the optimised HLO of jaxlib 0.10;
`tests/runtime/test_bundled_reads.py` holds XLA to it). The values are the same: only
the order in which XLA may run the reads changes.

Applies to each write of a loop's carried array in turn (the carried array, then what
each write leaves), whose other uses in the trip are `dynamic_slice`s at the top of
the trip before the write (or reads inside an op the write waits for, a search loop),
when the values bundled hold at most `MAX_SHARE` of the array. The pure ops between the
reads and the write that only later ops need move after the bundle. `read_ahead`
(which runs after this) handles the loops where a read's value meets the written array
in other ways. Still copied: a read of an array between two writes of it at another
position (a four-way rotation `t = A[i, j]; A[i, j] = A[k, i]; A[k, i] = ...`), which
XLA computes by fusing the earlier write into the read.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.dead import pure
from npxla.runtime.lowering.read_ahead import closure
from npxla.runtime.lowering.ssa import operation, used_values, while_loops

_DS, _DUS = "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice"
# the old elements bundled, as a share of the array (a row swap of a matrix: 2 rows)
MAX_SHARE = 0.25


def bundle_old_reads(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many trips' reads
    were bundled."""
    done = 0
    for loop in while_loops(module):
        body = loop.regions[1].blocks[0]
        position = None              # the trip's ops in order (again after a rewrite)
        for k in range(len(loop.operands)):
            array = body.arguments[k]     # then the array each write of the trip leaves
            while True:
                write = _single_write(array, body)
                if write is None:
                    break
                if position is None:
                    position = {operation(op): at for at, op in enumerate(body.operations)}
                plan = _plan(array, write, position) if _reads(array) else None
                if plan is not None:
                    _bundle(*plan)
                    position = None
                    done += 1
                array = write.results[0]
    return done


def _single_write(array, body):
    """The trip's one `dynamic_update_slice` of `array` (the carried array, or what a
    write of it left), or None."""
    if ir.RankedTensorType(array.type).rank == 0:
        return None
    writes = [operation(u.owner) for u in array.uses
              if operation(u.owner).name == _DUS and u.operand_number == 0]
    if len(writes) != 1 or writes[0].block != body:
        return None
    return writes[0]


def _reads(array) -> bool:
    return any(operation(u.owner).name != _DUS or u.operand_number != 0
               for u in array.uses)


def _plan(arg, first, position):
    """(reads, write, ops to move after the bundle) of `arg`, the carried array or
    what a write of it left, whose next write is `first`, or None."""
    t = ir.RankedTensorType(arg.type)
    feeding = _ancestors(first, position)
    reads, elements = [], 0
    for use in arg.uses:
        op = operation(use.owner)
        if op == first:
            continue
        top = _top(op, first)
        if top in feeding and top != op:
            continue          # read inside an op the first write waits for (a search loop)
        if op.name != _DS or use.operand_number != 0 or op not in position or \
                position[op] > position[first]:
            return None
        reads.append(op)
        elements += int(np.prod(ir.RankedTensorType(op.results[0].type).shape))
    if not reads or elements > MAX_SHARE * int(np.prod(t.shape)):
        return None
    old = closure(reads, stop={first})
    if old is None or not any(position.get(op, -1) > position[first] for op in old):
        return None
    # the reads will feed the write (through the bundle): what they are computed
    # from (an index from another read: `h[c]` after `c` was chosen by comparing
    # elements) stays before the bundle
    for r in reads:
        feeding |= _ancestors(r, position)
    # the ops between the reads and the first write that are computed from a read and
    # do not feed the first write move after the bundle, reading its slices
    ops = sorted(position, key=position.get)
    moved = [op for op in ops[min(position[r] for r in reads):position[first]]
             if op in old and op not in feeding and op not in reads]
    if not all(pure(op) for op in moved):
        return None
    # every value computed from old elements before the write and used after it goes
    # through the bundle (XLA would otherwise fuse a cheap one, a compare of two old
    # elements, into a kernel after the write, which reads the old array again)
    later = set(moved)
    crossing, elements = [], 0
    element = t.element_type
    for op in ops[:position[first]]:
        if op not in old or op in later:
            continue
        for r in op.results:
            if any(_after(_top(operation(u.owner), first), first, later) for u in r.uses):
                if _encode_kind(r.type, element) is None:
                    return None
                crossing.append(r)
                elements += max(int(np.prod(ir.RankedTensorType(r.type).shape)), 1)
    if elements > MAX_SHARE * int(np.prod(t.shape)):
        return None
    return crossing, first, moved


def _after(op, first, later) -> bool:
    return op in later or op == first or first.is_before_in_block(op)


def _ancestors(first, position):
    """The ops of the trip that `first` is computed from (also through the values the
    ops in their regions read)."""
    found, todo = set(), [first]
    while todo:
        op = todo.pop()
        for v in used_values(op):
            owner = v.owner
            if isinstance(owner, ir.Block):
                continue
            source = operation(owner)
            if source in position and source not in found:
                found.add(source)
                todo.append(source)
    return found


def _bundle(crossing, first, moved):
    """One concatenation of the `crossing` values and the first write's update (as the
    array's element type), through a barrier, before `first`; the ops in `moved`, the
    first write and the ops after it take slices of it."""
    element = ir.RankedTensorType(first.operands[0].type).element_type
    values = crossing + [first.operands[1]]
    with ir.InsertionPoint(first), first.location:
        flat, sizes = [], []
        for v in values:
            shape = ir.RankedTensorType(v.type)
            n = max(int(np.prod(shape.shape)), 1)
            sizes.append(n)
            flat.append(hlo.ReshapeOp(ir.RankedTensorType.get([n], element),
                                      _encode(v, element)).result)
        joined = hlo.ConcatenateOp(flat, 0).result
        held = hlo.OptimizationBarrierOp([joined]).results[0]
        parts, at = [], 0
        for v, n in zip(values, sizes):
            piece = hlo.SliceOp(held, [at], [at + n], [1]).result
            shaped = ir.RankedTensorType.get(ir.RankedTensorType(v.type).shape, element)
            parts.append(_decode(hlo.ReshapeOp(shaped, piece).result, v.type))
            at += n
    for op in moved:
        op.move_before(first)
    later = set(moved)
    feeders = {operation(f.owner) for f in flat}
    for value, part in zip(crossing, parts):
        for use in list(value.uses):
            user = operation(use.owner)
            if user in feeders:
                continue
            if _after(_top(user, first), first, later):
                user.operands[use.operand_number] = part
    first.operands[1] = parts[-1]


# --- values of other types carried in the array's element type, exactly ------------
def _width(element) -> int:
    """Bits of an integer or float element type (`i1`, `ui8`, `f32`, `bf16`), else 0."""
    name = str(element)
    digits = name.lstrip("ubfi")
    if name[:1] in "uif" and name.lstrip("u")[:1] in "if" and digits.isdigit():
        return int(digits)
    return 16 if name == "bf16" else 0


def _is_int(element) -> bool:
    return str(element).lstrip("u")[:1] == "i"


def _encode_kind(t, element):
    """How a value of type `t` is held exactly in `element`: "same", "bits" (same
    width, reinterpreted), "convert" (a bool, a narrower integer in a wider one or in
    a float whose mantissa holds it, a float32 in a float64), or None."""
    source = ir.RankedTensorType(t).element_type
    if source == element:
        return "same"
    ws, we = _width(source), _width(element)
    if not ws or not we:
        return None
    if ws == 1:
        return "convert"
    if ws == we:
        return "bits"
    if _is_int(source) and _is_int(element) and ws < we:
        return "convert"
    if _is_int(source) and ws <= 32 and str(element) == "f64":
        return "convert"
    if str(source) == "f32" and str(element) == "f64":
        return "convert"
    return None


def _encode(v, element):
    kind = _encode_kind(v.type, element)
    shaped = ir.RankedTensorType.get(ir.RankedTensorType(v.type).shape, element)
    if kind == "same":
        return v
    if kind == "bits":
        return hlo.BitcastConvertOp(shaped, v).result
    return hlo.ConvertOp(shaped, v).result


def _decode(x, t):
    element = ir.RankedTensorType(x.type).element_type
    kind = _encode_kind(t, element)
    if kind == "same":
        return x
    if kind == "bits":
        return hlo.BitcastConvertOp(t, x).result
    if _width(ir.RankedTensorType(t).element_type) == 1:   # a bool: whatever is not 0
        zero = hlo.ConstantOp(ir.DenseElementsAttr.get_splat(
            x.type, _zero(element))).result
        return hlo.CompareOp(x, zero, hlo.ComparisonDirectionAttr.get("NE")).result
    return hlo.ConvertOp(t, x).result


def _zero(element):
    if _is_int(element):
        return ir.IntegerAttr.get(element, 0)
    return ir.FloatAttr.get(element, 0.0)


def _top(op, first):
    """`op`, or the op of `first`'s block that holds it in a region."""
    while op.block != first.block:
        op = operation(op.parent)
    return op
