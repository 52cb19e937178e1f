"""Reading a finished StableHLO module: which op defines a value, whether a value is a
0-d tensor or an integer constant, the module's loops. Shared by the rewrites that run
on the module after staging (`hoist`, `maps`, `unroll`) and by lowerings that look at
the op behind an operand (`numpy/linalg/products`, `numpy/linalg/bounded_buckets`)."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

# ops that apply one function to the elements at each position of their (same-shaped)
# operands: a loop body made of them may run for many trips at once, one per element
ELEMENTWISE = frozenset(f"stablehlo.{n}" for n in (
    "abs add and atan2 bitcast_convert cbrt ceil clamp compare complex convert cosine "
    "count_leading_zeros divide exponential exponential_minus_one floor imag is_finite log "
    "log_plus_one logistic maximum minimum multiply negate not or popcnt power real "
    "remainder round_nearest_afz round_nearest_even rsqrt select shift_left "
    "shift_right_arithmetic shift_right_logical sign sine sqrt subtract tan tanh "
    "xor").split())


def operation(owner):
    """The `ir.Operation` behind an op view (or an operation itself)."""
    return owner.operation if hasattr(owner, "operation") else owner


def defining_op(value):
    """The op defining `value`, or None for a block argument."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return operation(owner)


def inside(value, op) -> bool:
    """Whether `value` is defined inside `op`'s regions (an op or a block argument
    there, at any depth)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        owner = owner.owner
    owner = operation(owner)
    target = operation(op)
    while owner is not None:
        if owner == target:
            return True
        owner = owner.parent
    return False


def in_loop(op) -> bool:
    """Whether `op` is nested, at any depth, in a `stablehlo.while` (a rewrite that
    pays per trip leaves code outside loops as staged)."""
    parent = op.parent
    while parent is not None:
        parent = operation(parent)
        if parent.name == "stablehlo.while":
            return True
        if parent.name == "func.func":
            return False
        parent = parent.parent
    return False


def remap(op, mapping):
    """Point `op`'s operands, and those of the ops nested in its regions, that name a
    key of `mapping` at its value (a copied op made to read the copy's values)."""
    for k, v in enumerate(op.operands):
        m = mapping.get(v)
        if m is not None:
            op.operands[k] = m
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                remap(inner, mapping)


def move_ops(old, new):
    """The ops of block `old` moved into the empty block `new`, reading its arguments
    (a loop rebuilt with more carried values keeps its body)."""
    for op in list(old.operations):
        new.append(op)
    for a, b in zip(old.arguments, new.arguments):
        a.replace_all_uses_with(b)


def rebuilt_loop(loop, operands):
    """A `while` before `loop` carrying `operands` (the loop's own, then more), with
    `loop`'s ops moved into its blocks; returns it and its (cond, body) blocks. The
    caller gives the body its new return and replaces and erases `loop`."""
    types = [v.type for v in operands]
    with ir.InsertionPoint(loop), loop.location:
        new = hlo.WhileOp(types, operands)
    blocks = [new.regions[r].blocks.append(*types) for r in range(2)]
    for r in range(2):
        move_ops(loop.regions[r].blocks[0], blocks[r])
    return new, blocks


def cloned(ops, mapping, ip):
    """`ops` (in order) cloned at `ip`, each reading `mapping`'s value for a key it
    reads; returns `mapping` extended with the clones' results (a loop's work copied
    before it, into its condition, or to the end of its trip)."""
    mapping = dict(mapping)
    for op in ops:
        copy = op.clone(ip=ip)
        remap(copy, mapping)
        for old, new in zip(op.results, copy.results):
            mapping[old] = new
    return mapping


def used_values(op) -> list:
    """The values `op` reads: its operands and those of the ops in its regions (what
    a region captures from outside counts as read by the op that holds it)."""
    values = list(op.operands)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                values += used_values(operation(inner))
    return values


def copied_before(value, loop):
    """`value`, computed in `loop`'s body from values defined outside it by pure ops
    (the caller checks), as computed before `loop`: its ops cloned there."""
    if not inside(value, loop):
        return value
    op = defining_op(value)
    operands = [copied_before(v, loop) for v in op.operands]
    copy = op.clone(ip=ir.InsertionPoint(loop))
    for i, v in enumerate(operands):
        copy.operands[i] = v
    return copy.results[list(op.results).index(value)]


def is_scalar(value) -> bool:
    """Whether `value` is a 0-d tensor (not a token or a tuple)."""
    try:
        return ir.RankedTensorType(value.type).rank == 0
    except ValueError:
        return False


def itemsize(t) -> int:
    """Bytes per element of the tensor type `t` (a bool counts one byte)."""
    elem = ir.RankedTensorType(t).element_type
    if isinstance(elem, ir.ComplexType):
        return 2 * itemsize(ir.RankedTensorType.get([], elem.element_type))
    return max(elem.width // 8, 1)


def int_constant(value):
    """The integer a 0-d integer constant holds, else None."""
    op = defining_op(value)
    if op is None or op.name != "stablehlo.constant":
        return None
    t = ir.RankedTensorType(value.type)
    if t.rank != 0 or not is_integer(t.element_type):
        return None          # (reading a complex constant's attribute raises)
    return int(ir.DenseIntElementsAttr(op.attributes["value"])[0])


def affine(value, depth=0):
    """(base value, constant offset) with `value == base + offset`: the index arithmetic
    the converter emits (`i + 1`, `0 + i * 1`, `j - 1`) read back to the counter."""
    op = defining_op(value)
    if op is None or depth > 16:
        return value, 0
    if op.name in ("stablehlo.add", "stablehlo.subtract"):
        a, b = op.operands
        k = int_constant(b)
        if k is not None:
            base, off = affine(a, depth + 1)
            return base, off + (k if op.name == "stablehlo.add" else -k)
        k = int_constant(a)
        if k is not None and op.name == "stablehlo.add":
            base, off = affine(b, depth + 1)
            return base, off + k
    if op.name == "stablehlo.multiply":
        a, b = op.operands
        if int_constant(b) == 1:
            return affine(a, depth + 1)
        if int_constant(a) == 1:
            return affine(b, depth + 1)
    return value, 0


def is_integer(element) -> bool:
    """Whether an element type is an integer (or bool) type."""
    try:
        ir.IntegerType(element)
    except ValueError:
        return False
    return True


def while_loops(module: ir.Module) -> list:
    """The module's `stablehlo.while` ops in post-order: inner loops before outer ones."""
    return ops_named(module, "stablehlo.while")


def ops_named(module: ir.Module, name: str) -> list:
    """The module's ops called `name`, at any depth, in post-order (an op nested in a
    region before the op that holds the region)."""
    found = []

    def collect(op):
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    return found
