"""Wide writes in a loop whose value reads the carried array at a run-time offset,
staged as `dynamic_update_slice` so that XLA updates the array in place.

`inplace.update_slice` stages a write at constant starts covering at least half of a
large array as `select(pad(true), pad(update), array)`: one elementwise kernel, which
XLA:CPU vectorises and runs in parallel (a stencil `u[1:-1] = f(u[:-2], u[1:-1],
u[2:])`). In a loop that carries the array, that kernel writes a new buffer whenever
it reads the array at other positions than the one it writes, and XLA then copies the
new buffer into the loop's own every trip.

For a stencil the copy is the cheaper choice: as a `dynamic_update_slice`, XLA
materialises every shifted slice the update reads and runs the update one element at
a time (`fdtd_steps` 17-22 ms as staged, 47-51 ms rewritten; `diffuse_padded` slower
too). A value that reads the array through a *run-time* window is different. In
Levinson-Durbin's `a[1:i] = a[1:i] + k * a[i-1:0:-1]` the select form computes the
window's position for every element and still writes a new buffer and copies it
back; as a `dynamic_update_slice` XLA takes the reversed window first, then adds it
in the array's own buffer, with no copy: `levinson_durbin` at n = 3001, 13.8-15.1 ms
-> 9.4-9.9 ms (NumPy 32-43 ms).

The choice is made here, on the finished module, because `inplace` cannot make it: the
converter stages a loop's body before the `while` that holds it, so a write does not
know it is in a loop when it is staged. So a wide write goes back to a
`dynamic_update_slice` when it sits in a `while` body, writes into the array the body
carries (its block argument, or a write into it), and its value reads that array
through a `dynamic_slice` or `gather`. Such an array is never a reshape of another
value (`inplace` says why that would matter).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.inplace import WALK_BUDGET, may_read, wide_write, wide_write_form
from npxla.runtime.lowering.ssa import defining_op, ops_named
from npxla.runtime.staging.trace import constant

# reads at a run-time offset
_DYNAMIC_READS = frozenset({"stablehlo.dynamic_slice", "stablehlo.gather"})
# ops a carried array may pass through and still be the body's array, written
_WRITES = frozenset({"stablehlo.dynamic_update_slice", "stablehlo.select"})


def write_loop_windows_in_place(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many writes moved."""
    moved = 0
    for select in ops_named(module, "stablehlo.select"):
        form = wide_write_form(select.result)
        if form is None:
            continue
        operand = form[0]
        loop = _carrying_loop(select, operand)
        if loop is None or not _reads_at_run_time_offset(form[1], operand):
            continue
        with ir.InsertionPoint(select), select.location:
            _, update, low = wide_write(select.result)
            starts = [constant(np.array(s, np.int64)) for s in low]
            written = hlo.DynamicUpdateSliceOp(operand, update, starts).result
        select.result.replace_all_uses_with(written)
        select.erase()
        moved += 1
    return moved


def _carrying_loop(op, array):
    """The `while` whose body holds `op` directly (not in a nested region) and carries
    `array` (a block argument of the body, or a write into one), else None."""
    region_op = op.parent
    if region_op is None or region_op.name != "stablehlo.while":
        return None
    body = region_op.regions[1].blocks[0]
    value = array
    for _ in range(WALK_BUDGET):
        owner = value.owner
        if isinstance(owner, ir.Block):
            return region_op if owner == body else None
        producer = defining_op(value)
        if producer.name not in _WRITES:
            return None
        # a DUS writes into its operand 0; a wide-write select keeps its operand 2
        value = producer.operands[0 if producer.name != "stablehlo.select" else 2]
    return None


def _reads_at_run_time_offset(values, array) -> bool:
    """Whether the ops computing `values` read `array` through a `dynamic_slice` or a
    `gather` (a walk bounded like `inplace.may_read`)."""
    stack, seen = [values], set()
    while stack:
        v = stack.pop()
        op = defining_op(v)
        if op is None or op in seen:
            continue
        seen.add(op)
        if len(seen) > WALK_BUDGET or len(op.regions):
            return False
        if op.name in _DYNAMIC_READS and may_read(op.operands[0], [array]):
            return True
        stack.extend(op.operands)
    return False
