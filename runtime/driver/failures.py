"""How a failure while staging reaches the user: a `TranspileError` at the innermost
line of user code, a Python error of the user's kept with that line as a note, and a
failure inside MLIR/jaxlib as an `InternalCompilerError` (never a raw traceback).

Why a module of its own: the driver's call path (jitted.py) only decides *whether* to
retry staging; what an error finally looks like is this module's job.
"""
from __future__ import annotations

from npxla.transpiler.base.errors import (ConcretizationError, InternalCompilerError,
                                          RecursionDepthError, TranspileError)
from npxla.transpiler.base.origin import innermost_module, locate

from npxla.runtime.driver.forwarding import caller_location, is_forwarder_file


def located(err: TranspileError, tb):
    """`err` at the innermost user line in `tb`, else at the line that called the jitted
    function (an argument refused before any user code ran)."""
    where = locate(tb)
    if where is None or is_forwarder_file(where.file):
        where = caller_location()
    return err.with_location(where).with_traceback(None)


def hidden_concretization(exc: BaseException):
    """A ConcretizationError that an `except TypeError` between it and `exc` swallowed."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc = exc.__context__
        if isinstance(exc, ConcretizationError):
            return exc
    return None


def classify(exc: Exception):
    """User-level Python errors keep their type (with the user's line attached);
    failures inside MLIR/jaxlib are npxla bugs and must not leak raw."""
    tb = exc.__traceback__
    where = locate(tb)
    if where is None or is_forwarder_file(where.file):
        where = caller_location()
    module = innermost_module(tb)
    if isinstance(exc, RecursionError):
        return RecursionDepthError(
            "staging went deeper than Python's recursion limit (a recursive function is "
            "staged by inlining every level)", location=where).with_traceback(None)
    if "RESOURCE_EXHAUSTED" in str(exc).split(":", 1)[0]:
        exc = MemoryError(f"the device ran out of memory: {str(exc).splitlines()[0]}")
    if isinstance(exc, MemoryError):      # NumPy's or `memory.check`'s: the user's sizes
        if where is not None:
            exc.add_note(where.render())
        return exc.with_traceback(None)
    if module.startswith(("jaxlib", "jax.", "npxla.runtime.lowering", "npxla.runtime.hlo")) or \
            type(exc).__module__.startswith(("jaxlib", "jax")):
        return InternalCompilerError(
            f"lowering failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
            location=where).with_traceback(None)
    if where is not None:
        exc.add_note(where.render())
    return exc
