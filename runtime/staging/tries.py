"""User `try` statements around staged code.

A compiled program cannot run an `except` clause: a run-time check (an index out of
bounds, a user's `raise` in a data-dependent branch) is tested after the program has
run, so the exception it raises would pass every handler the user wrote around it.
Converted code marks the body of each `try` that has handlers (`user_try`), and a check
staged there whose exception one of those handlers catches is recorded as a
`CaughtCheck`: when it fires, the call raises a located refusal (NumPy would have run
the handler) instead of an exception the user's code believes it handles.
"""
from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass

from npxla.transpiler.base.errors import Location
from npxla.transpiler.base.origin import locate_stack

from npxla.runtime.staging.speculation import RerunSignal


@dataclass(frozen=True)
class CaughtCheck:
    """A run-time check staged inside a `try` whose handlers catch its exception."""
    entry: object               # the check's message entry (see `errorflags`)
    location: Location | None   # where the check was staged


@contextlib.contextmanager
def user_try(trace, handler_types):
    """Mark the staging of a `try` body: `handler_types` is a thunk returning what its
    `except` clauses name (evaluated only when a check needs it)."""
    if trace is None:
        yield
        return
    trace.user_tries.append(handler_types)
    try:
        yield
    finally:
        # by identity, not the last: a generator suspended inside a `try` body
        # leaves it open while its consumer runs, and may be closed in any order
        for k in range(len(trace.user_tries) - 1, -1, -1):
            if trace.user_tries[k] is handler_types:
                del trace.user_tries[k]
                break


def caught(trace, error: type) -> bool:
    """Whether a handler of an enclosing user `try` catches `error`."""
    for thunk in trace.user_tries:
        try:
            types = thunk()
        except Exception:       # a handler naming what is not bound yet: assume it does
            return True
        try:
            if issubclass(error, types):
                return True
        except TypeError:       # not classes: Python would raise at the handler
            return True
    return False


def entry_class(entry) -> type:
    """The exception class a check's message entry raises (see `errorflags.raise_for`)."""
    if isinstance(entry, BaseException):
        return type(entry)
    if isinstance(entry, tuple) and entry and isinstance(entry[0], type):
        return entry[0]
    if isinstance(entry, tuple) and len(entry) > 1 and isinstance(entry[1], BaseException):
        return type(entry[1])
    return IndexError


def mark(trace, entry):
    """`entry`, or a `CaughtCheck` of it when a user `try` around it catches it (never
    the driver's own rerun signals: a window too short, an assumed bool)."""
    if trace.user_tries and not issubclass(entry_class(entry), RerunSignal) and \
            caught(trace, entry_class(entry)):
        return CaughtCheck(entry, locate_stack(sys._getframe(1)))
    return entry
