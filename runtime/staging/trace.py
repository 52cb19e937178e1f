"""The staging context: one MLIR module under construction.

Abstract arrays emit ops into the innermost active trace. Control-flow lowering
(later) pushes nested regions with `Trace.region`.
"""
from __future__ import annotations

import bisect
import contextlib
import threading

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo, func, stablehlo

from npxla.runtime.staging import tries
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.staging.types import element_type

_state = threading.local()


def _new_context() -> ir.Context:
    ctx = ir.Context()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    return ctx


class Trace:
    """Owns the MLIR context, module and entry block for one staging run, and every
    piece of staging state and policy: each thread stages on its own trace (the stack
    below is thread-local), so concurrent stagings never see each other's state."""

    def __init__(self, unrolled=frozenset(), platform="cpu", windows=None,
                 host_library=True, fast_math=False):
        """All state of one staging run lives here, none in module globals: threads that
        stage at once each have their own trace."""
        self._policies(unrolled, platform, windows, host_library, fast_math)
        self._program()
        self._staging_state()

    def _policies(self, unrolled, platform, windows, host_library, fast_math):
        """What the caller decided for this run: platform, unrolling, speculation."""
        # the platform compiled for: lowerings that differ per platform read it
        self.platform = platform
        # whether a lowering may call a host library routine back (`callbacks`): not
        # in programs split over devices, which cannot call back
        self.host_library = host_library and platform == "cpu"
        # policy: whether XLA may contract a float product with a following sum into
        # one fused multiply-add (`lowering.rounding`); NumPy rounds both, so by
        # default every float product is rounded where it is computed
        self.fast_math = fast_math
        # policy: code objects of loop bodies to unroll (see operators.loops.LoopToken)
        self.unrolled = frozenset(unrolled)
        # policy: {site: length} of the speculative windows of slices whose bounds come
        # from data (`runtime/numpy/bounded_window.py`); None: no speculation
        self.windows = windows

    def _program(self):
        """The module being built and what it needs at run time."""
        # {unsigned dtype: handle} of the run-time zero that hides a product's bits
        # from the code generator (`lowering.rounding`), made once per program
        self.opaque_zeros: dict = {}
        # id(array) -> (array, checksum, handle): large constants built from their
        # structure at the top of the entry function (`structured_constants`)
        self.structured_constants: dict = {}
        # how many ops at the top of the entry block are its prelude (`opaque`)
        self.prelude_ops = 0
        # {id(generator): `random_calls._Made`} of the random generators the function
        # makes, which the program makes again on every run
        self.random_made: dict = {}
        self.context = _new_context()
        self.location = ir.Location.unknown(self.context)
        with self.context, self.location:
            self.module = ir.Module.create()
        self._exit_stack = None
        self.func = None
        self.block = None
        # (flag value: i1 tensor, message) pairs: runtime checks (e.g. index bounds)
        # whose failure the call path turns into a NumPy-style exception.
        self.error_checks: list = []
        # (id of a region's check list, id of an index, message) -> (the list, the
        # index): bounds checks already recorded in that region (`slicing`)
        self.index_checks: dict = {}
        self.arg_handles: list = []
        # Python callables the executable calls back at run time (runtime `print`).
        self.host_callbacks: list = []
        # refusals raised where user code could catch them (inside `try`): staging
        # fails with them even if an `except` clause swallowed them
        self.pending_errors: list = []
        # thunks giving what the `except` clauses of the user `try` statements being
        # staged name, innermost last (`tries`)
        self.user_tries: list = []
        # {site: bool} assumed for conditions nothing can stage (`speculation`), or None
        # where a run cannot be redone; how many each place has made in this staging
        self.assumptions: dict | None = None
        self.bool_sites: dict = {}
        # whether the last region whose trace ended in an exception had recorded run-time
        # checks before it (they fire first at run time: `regions.trace_body`)
        self.raised_after_checks = False
        # id(copy) -> the user's object, for the objects staging runs on copies of
        # (`driver.overlay`): a result that is such a copy is the user's object
        self.object_originals: dict = {}
        # user functions converted while staging (the disk cache re-checks them)
        self.dependencies: list = []
        # id(list) -> (the list, its rows, the array they are rows of): lists a staged
        # comprehension made (`staging.stacked`)
        self.stacked_lists: dict = {}
        # id(list) -> the `Collector` a staged loop's `append`s to that list write to
        # (`operators.collected_appends`)
        self.append_slots: dict = {}

    def _staging_state(self):
        """What staging learns and remembers as it runs the function."""
        # the journal's state (see `journal`): the stamp of the newest handle
        # generation and the open region scopes
        self.serial = 0
        self.scopes: list = []
        # (message, location) -> handle holding a failing check's offending value
        self.payload_sites: dict = {}
        # the handles of the function's arguments, set by the driver once made (an
        # in-place reshape must not change the caller's array)
        self.arguments: tuple | None = None
        # flat positions of the Python int/bool/float arguments: the driver can specialise a
        # value that depends on them (an exact shape beats a run-time length)
        self.specialisable: frozenset = frozenset()
        # {loop body code: handles its last staging updated in place}: a nested loop is
        # staged again in every trace of its enclosing loop's body, and starting from
        # the handles it updated last time saves the retrace that would discover them
        # (which multiplies with the nesting depth)
        self.loop_handles: dict = {}
        # loop bodies (code) a staging found short and over large arrays, so unrolled:
        # staging such a loop again (inside each trace, and each unrolled iteration, of
        # an enclosing loop) only to unroll it again multiplies with the nesting depth
        self.fused_loops: set = set()
        # the tokens of the staged loops whose bodies are being traced now: a branch
        # on one of their indices can be decided by unrolling the loop; a branch after
        # a loop, on what the loop computed, cannot (`conditionals.specialisable`)
        self.active_loops: list = []
        # the product of the trip counts of the loops being unrolled for fusion around
        # the insertion point: a nest of short loops is unrolled only while the copies
        # of the innermost body stay within FUSE_MAX_TRIPS (unrolling nine nested loops
        # of 2-4 trips made 55,000 operations)
        self.fuse_factor = 1
        # serial ranges of the regions closed so far (see `journal.visible`)
        self.closed_regions = ClosedRegions()
        # the Python side effects of this staging run (`operators.effects.Effects`), set
        # by the driver once the arguments are made
        self.effects = None
        # a bool handle older than every region, True once some window was too short:
        # staged `while` loops stop on it, since they run on truncated data
        self.overflowed = None

    def __enter__(self):
        self._exit_stack = contextlib.ExitStack()
        self._exit_stack.enter_context(self.context)
        self._exit_stack.enter_context(self.location)
        stack = _stack()
        stack.append(self)
        self._exit_stack.callback(stack.pop)
        return self

    def __exit__(self, *exc):
        self._exit_stack.close()
        return False

    def begin_function(self, arg_avals, name="main"):
        """Create the public entry function; returns its block arguments."""
        arg_types = [tensor_type(s, d) for s, d in arg_avals]
        with ir.InsertionPoint(self.module.body):
            ftype = ir.FunctionType.get(arg_types, [])
            self.func = func.FuncOp(name, ftype)
            self.func.attributes["sym_visibility"] = ir.StringAttr.get("public")
            self.block = self.func.add_entry_block()
        self._exit_stack.enter_context(ir.InsertionPoint(self.block))
        return list(self.block.arguments)

    def finish_function(self, results):
        func.ReturnOp(list(results))
        arg_types = [a.type for a in self.block.arguments]
        self.func.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(arg_types, [r.type for r in results]))

    def add_error_check(self, flag, message):
        self.error_checks.append((flag, tries.mark(self, message)))


class ClosedRegions:
    """The serial ranges of closed regions, for "was this handle born in one?". Regions
    open and close as a stack, so a range closing now contains every range closed
    since it opened and is disjoint from all earlier ones: only the outermost ranges
    are kept, sorted, and a query is a binary search. (A scan of every range closed so
    far made staging quadratic: a fuzz program with nine nested loops over a 90x90
    array spent minutes in it.)"""
    __slots__ = ("starts", "ends")

    def __init__(self):
        self.starts: list = []
        self.ends: list = []

    def close(self, lo, hi):
        while self.starts and self.starts[-1] >= lo:
            self.starts.pop()
            self.ends.pop()
        self.starts.append(lo)
        self.ends.append(hi)

    def __contains__(self, serial):
        k = bisect.bisect_right(self.starts, serial) - 1
        return k >= 0 and serial <= self.ends[k]


def _stack():
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


def current_trace() -> Trace | None:
    stack = _stack()
    return stack[-1] if stack else None


def constant(value: np.ndarray) -> ir.Value:
    """A StableHLO constant for a NumPy array: a splat attribute or a broadcast 0-d
    constant when every element is the same (no per-element data in the module),
    else a dense attribute."""
    value = np.asarray(value)
    ttype = tensor_type(value.shape, value.dtype)
    if value.size > 1 and _is_splat(value):
        first = value.flat[0]
        if value.dtype.kind in "iuf" and not (value.dtype.kind == "f" and np.isnan(first)) \
                and not (value.dtype.kind == "u" and int(first) >= 2 ** 63):
            attr = ir.DenseElementsAttr.get_splat(ttype, _scalar_attr(first, value.dtype))
            return stablehlo.ConstantOp(attr).result
        return stablehlo.BroadcastInDimOp(ttype, constant(np.array(first, value.dtype)),
                                          []).result
    attr = ir.DenseElementsAttr.get(np.ascontiguousarray(value), type=ttype.element_type,
                                    shape=list(value.shape))
    return stablehlo.ConstantOp(attr).result


def _is_splat(value):
    """Every element has the same bits (so -0.0 differs from 0.0, and NaNs match)."""
    if not any(value.strides):          # a broadcast scalar: no need to look
        return True
    rows = np.ascontiguousarray(value).reshape(-1).view(np.uint8).reshape(value.size, -1)
    return bool((rows == rows[0]).all())


def _scalar_attr(x, dtype):
    et = element_type(dtype)
    if dtype.kind in "iu":
        return ir.IntegerAttr.get(et, int(x))
    if dtype.kind == "f":
        return ir.FloatAttr.get(et, float(x))
    raise TypeError(dtype)
