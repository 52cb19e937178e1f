"""Reading a finished StableHLO module: which op defines a value, whether a value is a
0-d tensor or an integer constant, the module's loops. Shared by the rewrites that run
on the module after staging (`hoist`, `maps`, `unroll`) and by lowerings that look at
the op behind an operand (`numpy/linalg/products`, `numpy/linalg/bounded_buckets`)."""
from __future__ import annotations

from jaxlib.mlir import ir


def operation(owner):
    """The `ir.Operation` behind an op view (or an operation itself)."""
    return owner.operation if hasattr(owner, "operation") else owner


def defining_op(value):
    """The op defining `value`, or None for a block argument."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return operation(owner)


def is_scalar(value) -> bool:
    """Whether `value` is a 0-d tensor (not a token or a tuple)."""
    try:
        return ir.RankedTensorType(value.type).rank == 0
    except ValueError:
        return False


def int_constant(value):
    """The integer a 0-d integer constant holds, else None."""
    op = defining_op(value)
    if op is None or op.name != "stablehlo.constant":
        return None
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseIntElementsAttr):
        return None
    t = ir.RankedTensorType(value.type)
    if t.rank != 0:
        return None
    return int(ir.DenseIntElementsAttr(attr)[0])


def while_loops(module: ir.Module) -> list:
    """The module's `stablehlo.while` ops in post-order: inner loops before outer ones."""
    loops = []

    def collect(op):
        if op.name == "stablehlo.while":
            loops.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    return loops
