"""What a staged module holds inside its loops, for the tests of the rewrites that run
on the finished module (`lowering/maps.py`, `lowering/rows.py`)."""
import contextlib

from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir import ir

from npxla import jit
from npxla.runtime.lowering import maps


@contextlib.contextmanager
def maps_off():
    """Stage without `maps` (no loop has enough work to move)."""
    saved = maps.MIN_OPS
    maps.MIN_OPS = 10**9
    try:
        yield
    finally:
        maps.MIN_OPS = saved


def count_ops(fn, args, keep):
    """How many ops of fn's staged module (for `args`) `keep(op, depth)` accepts, where
    `depth` is how many `while` loops hold the op."""
    text = jit(fn).lower(*args).as_text()
    count = [0]
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)

        def visit(op):
            depth, parent = 0, op.parent
            while parent is not None:
                depth += parent.name == "stablehlo.while"
                parent = parent.parent
            count[0] += bool(keep(op, depth))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return count[0]
