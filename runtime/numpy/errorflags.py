"""Runtime checks NumPy performs eagerly (index bounds): flags computed on device."""
from __future__ import annotations

import copy
import sys

import numpy as np

from npxla.transpiler.base.origin import locate, locate_stack

from npxla.runtime.lowering import structural as S
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import WindowOverflow
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.numpy.registry import dispatch


def check(flag, message, error=IndexError, payload=None):
    """Record `flag` (a bool AbstractArray, True = error) for the call path to raise
    `error(message)` (NumPy's exception class for the failure). With `payload` (an int
    array shaped like `flag`: the offending values), `message` has a `{}` that the
    value at the first True flag fills in when the check fires, as NumPy's messages
    name the bad index."""
    if flag.const is not None:
        flags = np.asarray(flag.const)
        if flags.any():
            if payload is not None:
                values = np.broadcast_to(payload.const if payload.const is not None else 0,
                                         flags.shape)
                message = message.format(values.flat[int(np.argmax(flags.ravel()))])
            raise error(message)
        return
    if flag.size == 0:          # nothing to check (an empty index array)
        return
    where = _where(sys._getframe(1))
    value = None
    if payload is not None:
        value = payload
        if flag.ndim:       # the flag at the first True is whether any is: no 2nd pass
            flat = dispatch(np.ravel, (flag,), {})
            first = dispatch(np.argmax, (flat,), {})
            value = dispatch(np.ravel, (payload,), {})[first]
            flag = flat[first]
    if flag.ndim:
        flag = dispatch(np.any, (flag,), {})
    if value is None:
        current_trace().add_error_check(flag, (error, message, where))
        return
    # the offending value is kept in a handle that stands for state older than every
    # region (like print's order value), so branches and loops carry it out; one per
    # check site, so that retracing a loop body finds the same handle again
    trace = current_trace()
    site = (message, where)
    handle = trace.payload_sites.get(site)
    if handle is None:
        handle = trace.payload_sites[site] = _state_handle(np.int64)
    handle.assign(dispatch(np.where, (flag, value, handle), {}))
    trace.add_error_check(flag, (error, message, where, handle))


def check_window(flag, site, need):
    """Record that a speculative window at `site` (a string) was too short when the
    traced bool `flag` holds; `need` (int64) is the length it needed. Unlike a check
    that names one offending value, the handle keeps the largest need seen, so one
    widening covers every iteration of a loop."""
    trace = current_trace()
    key = ("window", site)
    handle = trace.payload_sites.get(key)
    if handle is None:
        handle = trace.payload_sites[key] = _state_handle(np.int64)
    grown = dispatch(np.maximum, (handle, need), {})
    handle.assign(dispatch(np.where, (flag, grown, handle), {}))
    if trace.overflowed is None:
        trace.overflowed = _state_handle(np.bool_)
    trace.overflowed.assign(dispatch(np.logical_or, (trace.overflowed, flag), {}))
    trace.add_error_check(flag, (WindowOverflow, site, None, handle))


def _state_handle(dtype):
    """A zero handle older than every region, so branches and loops carry it out."""
    handle = AbstractArray((), dtype, const=np.zeros((), dtype))
    handle._born = -1
    return handle


def _where(frame):
    """The user's line being staged (rendered with its caret), for the exception's notes:
    a check fires after the run, far from the line that made it."""
    where = locate_stack(frame)
    return where.render() if where is not None else None


def check_raises(flag, exc: BaseException):
    """Record that the program raises `exc` (an exception a user's `raise` made) when
    the traced bool `flag` holds at run time."""
    if not getattr(exc, "__notes__", None):      # where it was raised, else the `if`
        where = locate(exc.__traceback__)
        note = where.render() if where is not None else _where(sys._getframe(1))
        if note is not None:
            exc.add_note(note)
    current_trace().add_error_check(flag, exc)


def raise_for(entry, payloads=None):
    """The exception a recorded check raises: `message`, `(class, message[, note])`, or a copy
    of the exception instance the program raised while it was staged."""
    if isinstance(entry, BaseException):
        return copy.copy(entry).with_traceback(None)
    if isinstance(entry, tuple):
        cls, message, note, *slot = entry if len(entry) >= 3 else (*entry, None)
        if slot:              # the offending value, an output of the program
            message = message.format(int(payloads[slot[0]]) if payloads is not None else "")
        exc = cls(message)
        if note is not None:
            exc.add_note(note)
        return exc
    return IndexError(entry)


def combine(flags):
    """Concatenate the scalar flags into one i1 vector output."""
    vecs = [S.reshape(f, shape=(1,)) for f in flags]
    return vecs[0].ir if len(vecs) == 1 else S.concatenate(*vecs, axis=0).ir
