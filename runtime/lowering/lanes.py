"""A counted loop whose trips touch disjoint rows runs all its trips at once, one lane
per trip.

`for i in range(rows): for t in range(1, T): y[i, t] = a * y[i, t - 1] + b * x[i, t]`
is a recursion along each row, but the rows do not depend on each other. Staged as
written it is rows x T trips of a scalar `while`, each paying XLA:CPU's fixed cost per
trip (5-15 ns), where Numba pays about 1.5 ns. Run with the rows as lanes, it is T
trips whose scalars are vectors of one element per row: the same arithmetic, a
fraction of the trips. This is what a JAX user writes by hand (a `vmap` over rows, or
a `lax.scan` over columns); npxla finds it in the NumPy code.

The rewrite runs on the finished module and replaces a loop by its body, emitted once
before it with a leading lane axis. It applies to a rotated loop with a static trip
count (`counted.static_trip_count`) and a constant true first predicate, where every
value the body computes is one of:

- *uniform*: the same in every trip (defined outside the loop, a constant, or computed
  from uniform values): emitted once, as it was;
- *per lane*: anything computed from the counter: emitted with the lane axis in front
  (elementwise ops, shape ops, `dynamic_slice` as a strided slice or a gather);
- *shared*: an array the loop carries (the output being filled) that every trip reads
  and writes only through `dynamic_slice` / `dynamic_update_slice` at index
  `counter + c` along one axis (the same axis and `c` everywhere, within the array):
  trip i owns that row, so the lanes read and write their rows of one array.

A carried value the body reads other than as a shared array (a running sum, the
previous trip's state) makes the trips depend on each other, and the loop is left
alone, as is a body holding an op not listed here or an op with effects (a host
callback must run once per trip). Three more shapes are handled:

- *nested loops*: one whose condition is uniform runs once for all lanes, its carried
  values per lane. One whose condition differs between lanes (`while v:`, `for k in
  range(indptr[i], indptr[i + 1])`) runs while any lane goes on, each lane's values
  and rows frozen (`select`) once its own condition fails; nested in another, it
  starts only in the lanes the outer one still runs.
- *run-time checks*: a loop that a failed check ends early (its predicate `and`-ed
  with the check's code being 0) runs all trips; the code and the offending values
  are those of the first lane that failed, the lanes after it computed what the
  loop never would, and a failed check raises, so nothing they wrote is seen.
- *data-dependent `if`*: a select between two versions of a shared array (both
  branches wrote it) takes each lane's rows from the version its predicate picks.
- *carried scalars*: a scalar the trips carry from one to the next (`total += e`,
  `m = max(m, x[i])`, `s = s * a + x[i]`) keeps the loop only for its recurrence: the
  ops that depend on it (scalar, at the body's top level, feeding only each other and
  its next value) run afterwards as a scalar loop over the lanes in trip order, reading
  each lane's inputs from the vectors the lanes computed.

Values are exactly the loop's, bit for bit: each lane sees the same ops on the same
operands in the same order, and a lane's reads of its own row see its own earlier
writes, as its trip did.
"""
from __future__ import annotations

from jaxlib.mlir import ir

from npxla.runtime.lowering.lanes_emit import Emitter
from npxla.runtime.lowering.lanes_plan import plan_loop
from npxla.runtime.lowering.ssa import while_loops


def vectorise_row_loops(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many loops changed."""
    changed = 0
    for loop in while_loops(module):          # inner loops first
        plan = plan_loop(loop)
        if plan is not None:
            Emitter(plan).replace_loop()
            changed += 1
    return changed
