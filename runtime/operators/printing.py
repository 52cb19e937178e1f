"""`print` inside compiled code: formatted and written at *run time*, in program order.

Staging turns one `print(...)` call into one side-effecting StableHLO custom call to
XLA's Python host-callback target. The traced arguments are its operands; everything
known at staging time (strings, constants, Python values) is formatted once, here.
The Python callback, registered with the executable (`Trace.host_callbacks`, passed
to `compile_and_load`), rebuilds the arguments from the operand arrays, turns 0-d
values into what NumPy code would hold (a Python scalar for a weak value, a NumPy
scalar otherwise) and calls the real `print`. XLA calls it from one of its own
threads, so it runs in a copy of the calling thread's context (NumPy's print options
are context variables), and the call returns only after every callback has run.

Order: XLA may reorder or run concurrently side-effecting ops that do not depend on
each other, so every print consumes and produces a one-byte *order value*, held by
one abstract-array handle per trace. Each print assigns that handle, so the handle is
an ordinary in-place-updated variable for the control-flow runtime: a print inside a
branch or loop body is journaled and the handle leaves the region as a result (a
loop carries it), which orders prints before, inside and after the region.
"""
from __future__ import annotations

import contextvars
import sys
import threading
import weakref

import numpy as np

from npxla.transpiler.base.errors import UnsupportedOperationError

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.lowering.callbacks import emit_callback
from npxla.runtime.operators.fstrings import DeferredStr

_ORDER_DTYPE = np.dtype(np.uint8)
_order_handles: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class _Discard:
    def write(self, _):
        pass

    def flush(self):
        pass


_DISCARD = _Discard()


def runtime_print(*args, sep=" ", end="\n", file=None, flush=False):
    """`print` for converted code: staged as a run-time print while a trace is active."""
    trace = current_trace()
    if trace is None:
        return print(*args, sep=sep, end=end, file=file, flush=flush)
    for name, value in (("sep", sep), ("end", end)):
        if isinstance(value, AbstractArray):
            raise TypeError(f"{name} must be None or a string, not numpy.ndarray")
    print(sep=sep, end=end, file=_DISCARD)     # Python's own checks and messages
    if isinstance(file, AbstractArray):
        raise UnsupportedOperationError(
            "print(file=...) was given an array", hint="pass a file object or leave file out")
    flush = bool(flush)
    operands: list = []
    items = []
    for arg in args:
        before = len(operands)
        template = _lift(arg, operands)
        items.append(template if len(operands) > before else str(template))
    callback = _Printer(items, sep, end, _stream_ref(file), flush)
    emit_host_callback(trace, callback, operands)


def emit_host_callback(trace, callback, operands):
    """Emit an ordered call of `callback(*operand arrays)` at the insertion point.

    `operands` are traced AbstractArrays; the callback's return value is ignored. It
    is registered in `trace.host_callbacks`, whose position is the custom call's index.
    The module names the CPU target; `compile_module` renames it for a GPU."""
    emit_host_call(trace, callback, operands, ())


def emit_host_call(trace, callback, operands, results):
    """`emit_host_callback` for a callback that returns values: `results` is a list of
    (shape, dtype), and the callback returns a tuple of arrays of exactly those (a
    clock read, see `hostcalls`). Returns them as traced AbstractArrays. Ordered like
    every print: the call runs after the host calls before it and before those after
    it, once each time the program passes it."""
    order = _order_handle(trace)
    values = [order.ir] + [x.ir for x in operands]
    types = [tensor_type((), _ORDER_DTYPE)] + [tensor_type(s, d) for s, d in results]
    op = emit_callback(trace, _Ordered(callback, bool(results)), values, types,
                       side_effect=True)
    outs = list(op.results)
    order.assign(AbstractArray((), _ORDER_DTYPE, ir=outs[0]))
    return [AbstractArray(tuple(s), np.dtype(d), ir=r) for (s, d), r in zip(results,
                                                                            outs[1:])]


def _order_handle(trace):
    handle = _order_handles.get(trace)
    if handle is None:
        handle = AbstractArray((), _ORDER_DTYPE, const=np.zeros((), _ORDER_DTYPE))
        # The handle stands for state that exists from the start of the function, so a
        # region in which a print first happens exports it like any older variable.
        handle._born = -1
        _order_handles[trace] = handle
    return handle


# --- arguments: staging-time templates, run-time values ---------------------------------
class _Slot:
    """Placeholder for operand `k`; `kind`: 'array', 'numpy' (0-d) or 'python' (0-d weak)."""
    __slots__ = ("k", "kind")

    def __init__(self, k, kind):
        self.k, self.kind = k, kind

    def value(self, arrays):
        a = arrays[self.k]
        if self.kind == "array":
            return a
        return a.item() if self.kind == "python" else a[()]


class _BoundedSlot:
    """Placeholder for an array of run-time length: its buffer is operand `k`, and each
    axis's valid window (offset, count) is a Python int or the operand it names
    (`_Operand`). The run-time value is the window, as NumPy code holds it."""
    __slots__ = ("k", "windows")

    def __init__(self, k, windows):
        self.k, self.windows = k, windows

    def value(self, arrays):
        def at(v):
            return int(arrays[v.k]) if type(v) is _Operand else v
        return arrays[self.k][tuple(slice(None) if w is None else
                                    slice(at(w[0]), at(w[0]) + at(w[1]))
                                    for w in self.windows)]


class _Operand:
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


def _lift_bounded(b, operands):
    def operand(v):
        if isinstance(v, AbstractArray) and v.const is None:
            operands.append(v)
            return _Operand(len(operands) - 1)
        return int(v)
    operands.append(b.buf)
    k = len(operands) - 1
    return _BoundedSlot(k, [None if e is None else (operand(e.offset), operand(e.count))
                            for e in b.ext])


def _lift(x, operands):
    """`x` with traced arrays replaced by slots and constant arrays by their values."""
    def leaf(v):
        if type(v) is DeferredStr:       # an f-string of traced values: format later
            return v.map_values(leaf)
        if is_bounded(v):
            return _lift_bounded(v, operands)
        if not isinstance(v, AbstractArray):
            return v
        const = v.const
        if const is not None:
            if const.ndim == 0:
                return const.item() if v.weak else const[()]
            return np.array(const)
        if v.size == 0:
            return np.zeros(v.shape, v.dtype)
        operands.append(v)
        kind = "array" if v.ndim else ("python" if v.weak else "numpy")
        return _Slot(len(operands) - 1, kind)
    return _rebuild(x, leaf)


def _fill(template, arrays):
    def value(v):
        if type(v) in (_Slot, _BoundedSlot):
            return v.value(arrays)
        if type(v) is DeferredStr:
            return v.render(value)
        return v
    return _rebuild(template, value)


def _rebuild(x, leaf):
    """`x` with `leaf` applied inside lists, dicts and tuples (named ones included)."""
    t = type(x)
    if t is list:
        return [_rebuild(v, leaf) for v in x]
    if t is dict:
        return {k: _rebuild(v, leaf) for k, v in x.items()}
    if isinstance(x, tuple):
        items = [_rebuild(v, leaf) for v in x]
        return t(*items) if hasattr(t, "_fields") else t(items)
    return leaf(x)


def _stream_ref(file):
    """`sys.stdout`/`sys.stderr` are looked up at run time, as Python's print does."""
    if file is None:
        return None
    for name in ("stdout", "stderr"):
        if file is getattr(sys, name, None):
            return name
    return file


class _Printer:
    """The run-time half of one `print` call (holds only staging-time data)."""
    __slots__ = ("items", "sep", "end", "stream", "flush", "static")
    deferrable = True          # may wait until a run is accepted (`execute`)

    def __init__(self, items, sep, end, stream, flush):
        self.items, self.sep, self.end = items, sep, end
        self.stream, self.flush = stream, flush
        self.static = all(type(i) is str for i in items)

    def __call__(self, *arrays):
        values = self.items if self.static else [
            i if type(i) is str else _fill(i, arrays) for i in self.items]
        file = self.stream
        if type(file) is str:
            file = getattr(sys, file)
        print(*values, sep=self.sep, end=self.end, file=file, flush=self.flush)


class _Run:
    """What the callbacks of one execution share: the caller's context (NumPy print
    options, a redirected stdout), the first exception a callback raised, and where
    deferred callbacks go (None: they run now)."""
    __slots__ = ("context", "error", "deferred")

    def __init__(self, deferred=None):
        self.context = contextvars.copy_context()
        self.error = None
        self.deferred = deferred


_run = _Run()      # the execution in progress
# One execution with callbacks at a time: the callbacks run on XLA's threads and find
# their execution's context and error slot through `_run`.
_executing = threading.Lock()


def flush(deferred):
    """Run the callbacks a run deferred, in order, as Python would have run them: the
    first that raises stops the rest."""
    for context, fn, arrays in deferred:
        context.copy().run(fn, *arrays)
    deferred.clear()


class _Ordered:
    """The callable XLA calls: passes the order value through and runs the callback in
    the caller's context. An exception is kept for `execute` to raise, as Python would
    at the failing print; the prints after it in that run are skipped. `returns`: the
    callback's results (a tuple of arrays) follow the order value."""
    __slots__ = ("fn", "returns")

    def __init__(self, fn, returns=False):
        self.fn, self.returns = fn, returns

    @property
    def npxla_deferrable(self):
        return getattr(self.fn, "deferrable", False)

    def __call__(self, order, *arrays):
        run = _run
        out = None
        if run.deferred is not None and self.npxla_deferrable:
            # kept until the run is accepted: the buffers are only valid now
            run.deferred.append((run.context, self.fn, [np.array(a) for a in arrays]))
            return (order,)
        if run.error is None:
            try:
                out = run.context.copy().run(self.fn, *arrays)
            except BaseException as e:  # noqa: B902 - re-raised by `execute`
                run.error = e
        if not self.returns:
            return (order,)
        if out is None:           # skipped after an error: the results are not used
            out = self.fn.placeholder()
        return (order,) + tuple(out)


def execute(executable, buffers, deferred=None):
    """Run an executable that has host callbacks; returns its output buffers once every
    callback has run (execution may be asynchronous, e.g. on GPU). `deferred`: a list
    that receives the prints, warnings and log records of a run that may be redone
    (they happen when `flush` runs them, after the run is accepted)."""
    global _run
    with _executing:
        run = _run = _Run(deferred)
        results = executable.execute_sharded(buffers, with_tokens=True)
        results.consume_token().block_until_ready()
    if run.error is not None:
        raise run.error
    return [o[0] for o in results.disassemble_into_single_device_arrays()]
