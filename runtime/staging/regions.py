"""Tracing Python callables into MLIR regions (the bodies of `if` and `while` ops).

A region's result types are only known after its Python code ran, but MLIR ops fix
their result types at creation. So each body is first traced into a block owned by a
throw-away *scratch* op; once the control-flow operator has unified the branch or
loop types, it creates the real op and moves the finished blocks into it (or drops the
scratch op to retrace with wider types).

While a body is traced, handle updates are journaled (see `journal`) and runtime error
checks are collected apart, because values defined inside the region cannot be used
outside it: both leave the region as extra results.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging import journal
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.types import element_count, tensor_type
from npxla.runtime.staging.pytree import flatten
from npxla.runtime.staging.pytypes import mark_masked, mask_state
from npxla.runtime.staging.trace import current_trace


@dataclass
class Body:
    """One traced body: its block, what its Python code returned, and its side effects."""
    scratch: ir.Operation
    block: ir.Block
    serial: int = 0                                 # handles born before: pre-existing
    treedef: object = None
    leaves: list = field(default_factory=list)      # returned leaves (handles snapshotted)
    originals: list = field(default_factory=list)   # the returned objects themselves
    assigned: list = field(default_factory=list)    # [(handle, snapshot)] changed handles
    checks: list = field(default_factory=list)      # [(flag, message)] runtime checks

    def finish(self, values):
        """Terminate the block with `values` (AbstractArrays, emitted inside it)."""
        with ir.InsertionPoint(self.block):
            hlo.ReturnOp([v.ir for v in values])

    def move_to(self, region):
        self.block.append_to(region)
        self.discard()

    def existed_before(self, x):
        return type(x) is AbstractArray and x._born < self.serial

    def discard(self):
        self.scratch.erase()

    def largest_value(self):
        """The element count of the largest array an op of this block computes, not
        counting arrays a nested loop or an in-place write of a piece passes on (a row
        recursion filling a large output one element per trip has no array work that
        unrolled trips could fuse)."""
        return max((element_count(r.type) or 0 for op in self.block.operations
                    if op.name not in _PASSED_ON for r in op.results), default=0)

    def emit(self, fn):
        """Run `fn()` with this block as the insertion point (e.g. casts of results)."""
        with ir.InsertionPoint(self.block):
            return fn()


_PASSED_ON = frozenset({"stablehlo.while", "stablehlo.dynamic_update_slice"})


def snapshot(handle: AbstractArray) -> AbstractArray:
    """A new handle frozen at `handle`'s current value (and so in its range), a masked
    array where `handle` is one (`unify` refuses those)."""
    const = handle.const
    if const is not None:
        out = AbstractArray(handle.shape, handle.dtype, const=const, weak=handle.weak,
                            deps=handle.deps)
    else:
        out = AbstractArray(handle.shape, handle.dtype, ir=handle.ir, weak=handle.weak,
                            deps=handle.deps)
        out._range = handle._range
    mark_masked(out, mask_state(handle))
    return out


def trace_body(fn, params=(), *, bind=()):
    """Trace `fn(*args)` into a fresh block whose arguments have the avals `params`
    ((shape, dtype, weak, deps) tuples). `bind` = [(handle, k)]: pre-existing handles
    that read block argument k inside the body (loop-carried in-place updates).
    Returns a `Body`: `fn`'s return value flattened (`.treedef`, `.leaves`), the handles
    it changed and its runtime checks; the caller exports them as block results."""
    trace = current_trace()
    ctx = trace.context
    if not ctx.allow_unregistered_dialects:
        ctx.allow_unregistered_dialects = True
    scratch = ir.Operation.create("npxla.scratch", results=[], operands=[], regions=1)
    block = scratch.regions[0].blocks.append(*[tensor_type(s, d) for s, d, _, _ in params])
    scope = journal.push()      # before the arguments: they belong to the region
    args = [AbstractArray(s, d, ir=a, weak=w, deps=deps)
            for (s, d, w, deps), a in zip(params, block.arguments)]
    body = Body(scratch, block, scope.serial)
    saved_checks = trace.error_checks
    trace.error_checks = []
    try:
        with ir.InsertionPoint(block):
            for handle, k in bind:
                journal.record(handle, True)
                handle._ir, handle._const, handle._range = args[k]._ir, None, None
                handle._version += 1
            result = fn(*args)
            originals: list = []
            body.treedef = flatten(result, originals, everything=True)
            body.originals = originals
            body.leaves = [snapshot(x) if type(x) is AbstractArray else x for x in originals]
            body.assigned = [(h, snapshot(h)) for h in scope.assigned()]
            body.checks = trace.error_checks
    except BaseException:
        trace.raised_after_checks = bool(trace.error_checks)
        scratch.erase()
        raise
    finally:
        journal.pop(scope)
        trace.error_checks = saved_checks
    return body
