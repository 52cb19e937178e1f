"""`logging`, `warnings` and clock reads in compiled code: run at *run time*, like `print`.

Called as plain Python while staging, a log or warning call would run once per
signature, with traced arrays in its arguments, and not at all on later calls; under a
data-dependent `if` it would run although the branch may never be taken. Instead each
call becomes an ordered host callback (`printing.emit_host_callback`): it runs every
time the program passes it, with the arguments' values (Python scalars for weak values,
NumPy scalars and arrays otherwise), so filters, levels and handlers are consulted when
the call runs, as in NumPy.

Records and warnings name the user's line (the staging-time call site), not npxla's
callback: logging records are built with `Logger.makeRecord`, warnings are issued with
`warnings.warn_explicit` and the module's own `__warningregistry__`, so "once per
location" filters behave as in Python. `stacklevel` counts the user's frames (npxla's
own frames are skipped); beyond the jitted function it names the caller of the first
call.

Clocks (`time.time()`, `time.perf_counter()`, `time.monotonic()`,
`time.process_time()` and their `_ns` forms), called as plain Python while staging,
would give every run the compile-time reading. Each becomes an ordered host callback
that returns the clock's value as a traced Python scalar (a weak float64, or int64 for
the `_ns` forms), so `t1 - t0` is measured per run. The reading is ordered with the
other host calls (two reads, prints between them), not with the device work between
them, which XLA may schedule on either side. Needing it as a Python value while
compiling (`int(t)`, `range(t)`) is refused like any traced value.
"""
from __future__ import annotations

import logging
import re
import sys
import time
import warnings
from collections import namedtuple

import numpy as np

from npxla.transpiler.base.origin import is_converted

from npxla.runtime.staging.trace import current_trace
from npxla.runtime.operators.fstrings import _has_abstract, format_method
from npxla.runtime.operators.printing import _fill, _lift, emit_host_call, emit_host_callback
from npxla.runtime.operators.provenance import NPXLA, origin_of_file

NOT_HANDLED = object()

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "warn": logging.WARNING, "error": logging.ERROR, "exception": logging.ERROR,
           "critical": logging.CRITICAL, "fatal": logging.CRITICAL}
_LOG_METHODS = frozenset(_LEVELS) | {"log"}

Site = namedtuple("Site", "file line func globals")


def route(f, args, kwargs):
    """Stage `f(*args, **kwargs)` as a run-time call if `f` logs or warns; else
    NOT_HANDLED."""
    trace = current_trace()
    if trace is None:
        return NOT_HANDLED
    try:
        clock = _CLOCKS.get(f)
    except TypeError:               # unhashable callable
        clock = None
    if clock is not None:
        return _read_clock(trace, f, clock, args, kwargs)
    owner = getattr(f, "__self__", None)
    if type(owner) is str and getattr(f, "__name__", "") in ("format", "format_map"):
        return _format(f, owner, args, kwargs)
    if f is warnings.warn:
        return _stage(trace, _Warning(_sites()), args, kwargs)
    name = getattr(f, "__name__", "")
    if name not in _LOG_METHODS:
        return NOT_HANDLED
    owner = getattr(f, "__self__", None)
    if isinstance(owner, logging.Logger):
        return _stage(trace, _Record(owner, name, False, _sites()[0]), args, kwargs)
    if getattr(logging, name, None) is f:          # logging.info(...): the root logger
        return _stage(trace, _Record(None, name, True, _sites()[0]), args, kwargs)
    if isinstance(owner, logging.LoggerAdapter):   # adapters format the record themselves
        return _stage(trace, _Plain(f), args, kwargs)
    return NOT_HANDLED


def _format(f, template, args, kwargs):
    """`"...".format(...)` with abstract values: the run-time formatted string that the
    f-string would make (`fstrings.format_method`)."""
    if f.__name__ == "format_map":
        if kwargs or len(args) != 1 or type(args[0]) is not dict:
            return NOT_HANDLED
        args, kwargs = (), args[0]
    if not _has_abstract((args, kwargs)):
        return NOT_HANDLED
    return format_method(template, args, kwargs)


# clock -> the dtype of its reading (a Python float, or a Python int for nanoseconds)
_CLOCKS = {fn: np.dtype(np.int64 if name.endswith("_ns") else np.float64)
           for name in ("time", "perf_counter", "monotonic", "process_time", "time_ns",
                        "perf_counter_ns", "monotonic_ns", "process_time_ns")
           for fn in (getattr(time, name, None),) if fn is not None}


def _read_clock(trace, f, dtype, args, kwargs):
    if args or kwargs:
        f(*args, **kwargs)          # Python's own TypeError: the clocks take no arguments
    (reading,) = emit_host_call(trace, _Clock(f, dtype), (), [((), dtype)])
    reading.weak = True             # a Python float (int) in NumPy code
    return reading


class _Clock:
    """The run-time half of a clock read."""
    __slots__ = ("fn", "dtype")

    def __init__(self, fn, dtype):
        self.fn, self.dtype = fn, dtype

    def __call__(self):
        return (np.asarray(self.fn(), self.dtype),)

    def placeholder(self):
        return (np.zeros((), self.dtype),)


def _stage(trace, action, args, kwargs):
    operands: list = []
    template = _lift((list(args), dict(kwargs)), operands)
    emit_host_callback(trace, _Callback(action, template, bool(operands)), operands)
    return None


class _Callback:
    """The run-time half: rebuilds the arguments and runs the action (a warning, a log
    record, a call of a user's side-effect function)."""
    __slots__ = ("action", "template", "traced")
    deferrable = True          # may wait until a run is accepted (`printing.execute`)

    def __init__(self, action, template, traced):
        self.action, self.template, self.traced = action, template, traced

    def __call__(self, *arrays):
        args, kwargs = _fill(self.template, arrays) if self.traced else self.template
        self.action(args, kwargs)


class _Plain:
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, args, kwargs):
        self.fn(*args, **kwargs)


class _Record:
    """What `Logger.<method>` does, with the record located at the user's call site."""
    __slots__ = ("logger", "method", "root", "site")

    def __init__(self, logger, method, root, site):
        self.logger, self.method, self.root, self.site = logger, method, root, site

    def __call__(self, args, kwargs):
        logger = self.logger
        if self.root:
            logger = logging.root
            if not logger.handlers:      # as logging.info() does
                logging.basicConfig()
        if self.method == "log":
            level, *args = args
            if not isinstance(level, int):
                if logging.raiseExceptions:
                    raise TypeError("level must be an integer")
                return
        else:
            level = _LEVELS[self.method]
        if not args:
            raise TypeError(f"{self.method}() missing 1 required positional argument: 'msg'")
        msg, *rest = args
        if not logger.isEnabledFor(level):
            return
        exc_info = kwargs.get("exc_info", True if self.method == "exception" else None)
        if exc_info:
            if isinstance(exc_info, BaseException):
                exc_info = (type(exc_info), exc_info, exc_info.__traceback__)
            elif not isinstance(exc_info, tuple):
                exc_info = sys.exc_info()
        site = self.site
        record = logger.makeRecord(logger.name, level, site.file, site.line, msg,
                                   tuple(rest), exc_info, site.func, kwargs.get("extra"),
                                   None)
        logger.handle(record)


class _Warning:
    """`warnings.warn(message, category=None, stacklevel=1, source=None)` at run time."""
    __slots__ = ("sites",)

    def __init__(self, sites):
        self.sites = sites

    def __call__(self, args, kwargs):
        message, category, stacklevel, source = _warn_arguments(*args, **kwargs)
        if isinstance(message, Warning):
            category = message.__class__
        if category is None:
            category = UserWarning
        if not (isinstance(category, type) and issubclass(category, Warning)):
            raise TypeError(f"category must be a Warning subclass, not "
                            f"'{type(category).__name__}'")
        site = self.sites[max(0, min(int(stacklevel) - 1, len(self.sites) - 1))]
        g = site.globals
        warnings.warn_explicit(message, category, site.file, site.line,
                               g.get("__name__", "<string>"),
                               g.setdefault("__warningregistry__", {}), g, source)


def _warn_arguments(message, category=None, stacklevel=1, source=None, **_):
    return message, category, stacklevel, source


_GENERATED = re.compile(r"(__\d+|<lambda>)$")    # functions the converters generate


def _sites():
    """The user's frames on the staging stack, innermost first: converted code and
    frames outside npxla (the caller of the jitted function); npxla's own are skipped.
    The functions the converters generate for a branch or a loop body are part of the
    user's function: the innermost one gives the line, the function its name."""
    sites, pending = [], None
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        converted = is_converted(code)
        if converted or origin_of_file(code.co_filename) != NPXLA:
            site = Site(code.co_filename, frame.f_lineno, code.co_name, frame.f_globals)
            if converted and _GENERATED.search(code.co_name):
                pending = pending or site
            elif pending is not None and converted:
                sites.append(pending._replace(func=code.co_name))
                pending = None
            else:
                if pending is not None:
                    sites.append(pending)
                    pending = None
                sites.append(site)
        frame = frame.f_back
    if pending is not None:
        sites.append(pending)
    return sites or [Site("<unknown>", 0, "<unknown>", {})]
