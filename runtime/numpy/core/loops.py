"""Staged loops that NumPy functions build for themselves (a library routine's loop, not a
user's): SciPy's tridiagonal solver and pivots, a strided write chunk by chunk. The body
is traced once into a `stablehlo.while`, so a program does not grow with the data, and
it may record no run-time check: such a loop is npxla's own code, whose checks would be
lost in a region that reports none."""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.transpiler.base.errors import InternalCompilerError
from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.regions import trace_body
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.numpy.core.convert import cast_to


def region(fn, params=()):
    """`fn` traced into a region body (`params`: (shape, dtype, weak, deps) per
    argument); refused, as npxla's own error, if it records a run-time check."""
    body = trace_body(lambda *xs: list(fn(*xs)), list(params))
    if body.checks:
        body.discard()
        raise InternalCompilerError("a run-time check inside a staged library loop")
    return body


def while_loop(cond, body, init):
    """`while cond(*v): v = body(*v)` as one stablehlo.while. `init`: abstract arrays (or
    values); `cond` returns a bool scalar, `body` a sequence like `init` (cast to the
    carried dtypes). The body may read values from outside the loop."""
    init = [as_abstract(x) for x in init]
    body_of = region(body, [(x.shape, x.dtype, False, frozenset()) for x in init])
    types = [tensor_type(x.shape, x.dtype) for x in init]
    op = hlo.WhileOp(types, [x.ir for x in init])
    block = op.cond.blocks.append(*types)
    with ir.InsertionPoint(block):
        args = [AbstractArray(x.shape, x.dtype, ir=a) for x, a in zip(init, block.arguments)]
        hlo.ReturnOp([cond(*args).ir])

    def finish():
        outs = [cast_to(as_abstract(v), x.dtype) for v, x in zip(body_of.leaves, init)]
        body_of.finish(outs)
    body_of.emit(finish)
    body_of.move_to(op.body)
    deps = frozenset().union(*[x.deps for x in init])
    return [AbstractArray(x.shape, x.dtype, ir=r, deps=deps) for x, r in zip(init, op.results)]
