"""Ops that the rewrites of the finished module left unread, erased.

A rewrite replaces a value by another (`extreme_tests`: a maximum and its NaN guard by
one fused test; `loop_tests`: a loop's exit test by one in its condition) and leaves
the ops that computed the old one behind. XLA would drop them, but `npxla emit` prints
the module as staged, and a reader should not have to skip computations nothing uses.

Only ops without effects are erased. Erasing an op with regions leaves the bindings'
wrappers of the ops inside it pointing at freed memory, so such ops go last in a walk,
inner ones first, and the next round walks the module afresh.
"""
from __future__ import annotations

from jaxlib.mlir import ir

from npxla.runtime.lowering.ssa import ELEMENTWISE

_PURE = ELEMENTWISE | frozenset(f"stablehlo.{n}" for n in (
    "broadcast_in_dim concatenate constant dot_general dynamic_slice gather if iota pad "
    "reduce reshape reverse slice transpose").split())


def pure(op) -> bool:
    """Whether `op`, and every op in its regions, is without effects (a `while` is not:
    it may not end)."""
    if op.name not in _PURE:
        return False
    return all(inner.name == "stablehlo.return" or pure(inner)
               for region in op.regions for block in region.blocks
               for inner in block.operations)


def erase_dead(module: ir.Module) -> int:
    """Erase the module's unread pure ops (in place, inside its context); returns how
    many went."""
    erased = 0
    while True:
        ops = []

        def collect(op):
            ops.append(op)
            return ir.WalkResult.ADVANCE
        module.operation.walk(collect)
        holders = []                        # dead ops with regions, inner ones first
        for op in reversed(ops):            # readers before what they read
            if not pure(op) or any(len(list(r.uses)) for r in op.results):
                continue
            if len(op.regions):
                holders.insert(0, op)
                continue
            op.erase()
            erased += 1
        for op in holders:
            op.erase()
        erased += len(holders)
        if not holders:                     # (what they read may be unread now)
            return erased
