"""Runtime checks NumPy performs eagerly (index bounds): flags computed on device."""
from __future__ import annotations

import copy
import sys

import numpy as np

from npxla.transpiler.base.catalogue import CAUGHT_AT_RUN_TIME
from npxla.transpiler.base.origin import locate, locate_stack

from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.lowering import structural as S
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import WindowOverflow
from npxla.runtime.staging.tries import CaughtCheck
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.core.text import format_field

# the tag of a check whose exception message shows run-time values
VALUES = "message-values"
# the most elements of one value an exception message carries out of the program
_MAX_MESSAGE_ELEMENTS = 64


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


def _state_handle(dtype, shape=()):
    """A zero handle older than every region, so branches and loops carry it out."""
    handle = AbstractArray(shape, dtype, const=np.zeros(shape, dtype))
    handle._born = -1
    return handle


def _where(frame):
    """The user's line being staged (rendered with its caret), for the exception's notes:
    a check fires after the run, far from the line that made it."""
    where = locate_stack(frame)
    return where.render() if where is not None else None


def check_raises(flag, exc: BaseException, values=None):
    """Record that the program raises `exc` (an exception a user's `raise` made) when
    the traced bool `flag` holds at run time. `values`: what `message_payloads` made
    for its message where its traced values were staged (else the message shows
    `<traced ...>` for them)."""
    if not getattr(exc, "__notes__", None):      # where it was raised, else the `if`
        where = locate(exc.__traceback__)
        note = where.render() if where is not None else _where(sys._getframe(1))
        if note is not None:
            exc.add_note(note)
    if values is not None:
        i, pieces, handles = values
        args = list(exc.args)
        args[i] = str.__str__(args[i])       # the staging-time text: plain data
        exc.args = tuple(args)
        current_trace().add_error_check(flag, (VALUES, exc, i, pieces, handles))
        return
    current_trace().add_error_check(flag, exc)


def message_payloads(exc: BaseException):
    """For an exception whose message is an f-string (or `%`/`format`) of traced values,
    made where those values are valid: each value's bits are kept in a handle older
    than every region, so the check that raises `exc` can format the message with the
    run's values. Returns `check_raises`'s `values`, or None (no such message, or a
    value too big or not a real number)."""
    for i, arg in enumerate(exc.args):
        fields = getattr(arg, "run_time_fields", None)
        got = fields() if isinstance(arg, str) and fields is not None else None
        if got is None:
            continue
        pieces, values = got
        if any(v.dtype.kind not in "biuf" or v.size > _MAX_MESSAGE_ELEMENTS
               for v in values):
            return None
        trace = current_trace()
        where = locate(exc.__traceback__)
        site = (str.__str__(arg), where.render() if where is not None else None)
        handles = []
        for k, v in enumerate(values):
            key = ("message",) + site + (k,)
            handle = trace.payload_sites.get(key)
            if handle is None or handle.shape != (v.size,):
                handle = trace.payload_sites[key] = _state_handle(np.int64, (v.size,))
            handle.assign(_bits(v))
            handles.append((handle, v.dtype.str, v.shape))
        return i, pieces, handles
    return None


def _bits(v):
    """The bits of `v`'s elements, one int64 each (floats bit for bit)."""
    flat = S.reshape(v, shape=(v.size,))
    if v.dtype.kind == "f":
        flat = X.bitcast(flat, dtype=np.dtype(f"i{v.dtype.itemsize}"))
    return cast_to(flat, np.int64)


def _unbits(raw, dtype, shape):
    """The value `_bits` kept, from the program's int64 payloads."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        value = raw.astype(f"i{dtype.itemsize}").view(dtype)
    else:
        value = raw.astype(dtype)
    return value.reshape(shape)


def output_slots(checks):
    """The recorded checks as the program's messages (data only), with each payload
    handle replaced by its offset among the program's payload values, and the
    handles in that order."""
    messages, payloads, offset = [], [], 0
    for _, m in checks:
        caught = m if isinstance(m, CaughtCheck) else None
        if caught is not None:
            m = m.entry
        if type(m) is tuple and len(m) == 4:       # (.., payload handle) -> offset
            payloads.append(m[3])
            m = m[:3] + (offset,)
            offset += 1
        elif type(m) is tuple and m[0] == VALUES:
            fields = []
            for handle, dtype, shape in m[4]:
                payloads.append(handle)
                fields.append((offset, dtype, tuple(shape)))
                offset += handle.size
            m = m[:4] + (tuple(fields),)
        messages.append(m if caught is None else CaughtCheck(m, caught.location))
    return messages, payloads


def uses_payloads(messages) -> bool:
    """Whether the program outputs payload values (before its flags)."""
    entries = [m.entry if isinstance(m, CaughtCheck) else m for m in messages]
    return any(type(m) is tuple and (len(m) == 4 or m[0] == VALUES) for m in entries)


def raise_for(entry, payloads=None):
    """The exception a recorded check raises: `message`, `(class, message[, note])`, a copy
    of the exception instance the program raised while it was staged, or for a check
    that a user `try` would have caught, the refusal that says its handler cannot run."""
    if isinstance(entry, CaughtCheck):
        exc = raise_for(entry.entry, payloads)
        err = CAUGHT_AT_RUN_TIME.error_for(entry.location, error=type(exc).__name__,
                                           message=str(exc))
        err.__cause__ = exc
        return err
    if isinstance(entry, BaseException):
        return copy.copy(entry).with_traceback(None)
    if isinstance(entry, tuple) and entry[0] == VALUES:
        _, exc, i, pieces, fields = entry
        exc = copy.copy(exc).with_traceback(None)
        if payloads is not None:
            values = [_unbits(np.asarray(payloads[o:o + int(np.prod(s, dtype=np.int64))]),
                              d, s) for o, d, s in fields]
            args = list(exc.args)
            args[i] = "".join(p if type(p) is str else
                              format_field(_as_held(values[p[0]], p[3]), p[1], p[2])
                              for p in pieces)
            exc.args = tuple(args)
        return exc
    if isinstance(entry, tuple):
        cls, message, note, *slot = entry if len(entry) >= 3 else (*entry, None)
        if slot:              # the offending value, an output of the program
            message = message.format(int(payloads[slot[0]]) if payloads is not None else "")
        exc = cls(message)
        if note is not None:
            exc.add_note(note)
        return exc
    return IndexError(entry)


def _as_held(value, kind):
    """`value` as NumPy code holds it: a Python scalar, a NumPy scalar or an array."""
    if kind == "item":
        return value.item()
    return value[()] if kind == "scalar" else value


def combine(flags):
    """Concatenate the flags (or payloads), flattened, into one vector output."""
    vecs = [S.reshape(f, shape=(f.size,)) for f in flags]
    return vecs[0].ir if len(vecs) == 1 else S.concatenate(*vecs, axis=0).ir


def refuse_write(cond):
    """A write into a read-only argument (or a view of one): NumPy's ValueError, raised
    now (`cond` None: the write happens wherever this line runs; inside a data-dependent
    branch the branch then raises when taken) or when the traced bool `cond` holds."""
    exc = ValueError("assignment destination is read-only")
    if cond is None:
        raise exc
    check_raises(cond, exc)
