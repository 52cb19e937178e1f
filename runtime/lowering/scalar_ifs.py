"""Small `if`s of scalars inside loops, computed on both paths and selected, before the
rewrites that order a trip's reads and writes.

`if 0 <= a < h and 0 <= b < w and grid[a, b] == 0 and dist[a, b] < 0:` stages its
short-circuit `and` as nested `stablehlo.if`s, the reads of `dist` inside them. XLA
turns such cheap conditionals into selects and then fuses each read into whatever
kernel uses its value, wherever that kernel runs: after the trip's next write of
`dist`, which then has to copy the array to keep the old element (a breadth-first
search over a 60 x 60 grid copied `dist` five times per trip and ran slower than the
Python loop). `bundled_reads` orders reads before writes, but it sees only reads at the
top of the trip: a read inside an `if` it takes for work the write waits for.

So an `if` in a loop whose results are all scalars, whose branches are pure (`dead.pure`:
no loop, no host callback, no effect) and small (`MAX_OPS` ops together), becomes its
branches' ops, both run, and a `select` per result: what XLA would have made of it,
made early enough for the rewrites after it to see the reads. Running the branch not
taken is unobservable: every pure op is defined on every input (an index out of range
clamps; the checks a branch computes are selected with the rest).
"""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.dead import pure
from npxla.runtime.lowering.ssa import cloned, in_loop, ops_named

# the most ops (constants not counted) both branches of an `if` may hold together
MAX_OPS = 64


def flatten_scalar_ifs(module: ir.Module) -> int:
    """Rewrite `module` in place (inside its context); returns how many `if`s went."""
    done = 0
    for op in ops_named(module, "stablehlo.if"):       # inner ones first
        if in_loop(op) and _small_and_pure(op):
            _flatten(op)
            done += 1
    return done


def _size(block) -> int:
    n = 0
    for op in block.operations:
        n += op.name not in ("stablehlo.constant", "stablehlo.return")
        for region in op.regions:
            for inner in region.blocks:
                n += _size(inner)
    return n


def _small_and_pure(op) -> bool:
    if any(ir.RankedTensorType(r.type).rank for r in op.results):
        return False
    blocks = [region.blocks[0] for region in op.regions]
    if sum(_size(b) for b in blocks) > MAX_OPS:
        return False
    return all(inner.name == "stablehlo.return" or pure(inner)
               for b in blocks for inner in b.operations)


def _flatten(op):
    ip = ir.InsertionPoint(op)
    picked = []
    for region in op.regions:
        ops = list(region.blocks[0].operations)
        mapping = cloned(ops[:-1], {}, ip)
        picked.append([mapping.get(v, v) for v in ops[-1].operands])
    with ip, op.location:
        results = [t if t == f else hlo.SelectOp(op.operands[0], t, f).result
                   for t, f in zip(*picked)]
    for old, new in zip(op.results, results):
        old.replace_all_uses_with(new)
    op.erase()
