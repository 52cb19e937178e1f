"""Runtime checks NumPy performs eagerly (index bounds): flags computed on device."""
from __future__ import annotations

import copy
import sys
import types

import numpy as np

from npxla.transpiler.base.catalogue import CAUGHT_AT_RUN_TIME
from npxla.transpiler.base.origin import locate, locate_stack

from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.lowering import structural as S
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import WindowOverflow
from npxla.runtime.staging.pytypes import is_marked
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
        i, pieces, handles, attributes = values
        if i is not None:
            args = list(exc.args)
            args[i] = str.__str__(args[i])       # the staging-time text: plain data
            exc.args = tuple(args)
        for name, k, kind in attributes:
            vars(exc)[name] = _Held(k, kind, vars(exc)[name])
        current_trace().add_error_check(flag, (VALUES, exc, i, pieces, handles))
        return
    current_trace().add_error_check(flag, exc)


def message_payloads(exc: BaseException):
    """For an exception whose message is an f-string (or `%`/`format`) of traced values,
    or whose attributes hold traced numbers (`self.limit = limit` in a user's
    exception's `__init__`), made where those values are valid: each value's bits are
    kept in a handle older than every region, so the check that raises `exc` can format
    the message with the run's values and set the attributes to them. Returns
    `check_raises`'s `values`: (message argument's position or None, its pieces, the
    handles, (attribute name, value's position, kind) of each attribute), or None (none
    of these, or a value too big or not a real number)."""
    i, pieces, values = None, (), []
    for k, arg in enumerate(exc.args):
        fields = getattr(arg, "run_time_fields", None)
        got = fields() if isinstance(arg, str) and fields is not None else None
        if got is not None:
            i, (pieces, values) = k, (got[0], list(got[1]))
            break
    attributes = []
    for name, v in _traced_attributes(exc):
        attributes.append((name, len(values), _kind(v)))
        values.append(v)
    if (i is None and not attributes) or any(
            v.dtype.kind not in "biuf" or v.size > _MAX_MESSAGE_ELEMENTS for v in values):
        return None
    trace = current_trace()
    where = locate(exc.__traceback__)
    site = (str.__str__(exc.args[i]) if i is not None else type(exc).__qualname__,
            where.render() if where is not None else None)
    handles = []
    for k, v in enumerate(values):
        key = ("message",) + site + (k,)
        handle = trace.payload_sites.get(key)
        if handle is None or handle.shape != (v.size,):
            handle = trace.payload_sites[key] = _state_handle(np.int64, (v.size,))
        handle.assign(_bits(v))
        handles.append((handle, v.dtype.str, v.shape))
    return i, pieces, handles, tuple(attributes)


def has_run_time_values(exc) -> bool:
    """Whether `exc`'s message or attributes hold values known only when it runs."""
    return any(hasattr(a, "run_time_fields") for a in exc.args) or \
        bool(_traced_attributes(exc))


def _traced_attributes(exc):
    """(name, value) of the instance attributes of `exc` that hold traced arrays."""
    return [(name, v) for name, v in getattr(exc, "__dict__", {}).items()
            if type(v) is AbstractArray]


def _kind(v) -> str:
    """What NumPy code holds where staging holds `v` (see `_as_held`)."""
    return "array" if v.ndim or is_marked(v) else ("item" if v.weak else "scalar")


class _Held:
    """An attribute of a staged exception whose value the run outputs (`raise_for`)."""
    __slots__ = ("position", "kind", "text")

    def __init__(self, position, kind, value):
        self.position, self.kind = position, kind
        self.text = f"<traced {value.dtype}>"

    def __repr__(self):
        return self.text


def _bits(v):
    """The bits of `v`'s elements, one int64 each (floats bit for bit)."""
    flat = S.reshape(v, shape=(v.size,))
    if v.dtype.kind == "f":
        flat = X.bitcast(flat, dtype=np.dtype(f"i{v.dtype.itemsize}"))
    return cast_to(flat, np.int64)


def _copy(exc):
    """A copy of the exception a program raised while it was staged, to raise now. An
    exception class with an `__init__` in Python gets no second call of it: `copy.copy`
    rebuilds an exception by calling its class, which would repeat what that
    `__init__` does (a user's exception that logs its message, converted and run in the
    program, would log again, with the staging-time text)."""
    cls = type(exc)
    if isinstance(cls.__init__, types.FunctionType):
        new = cls.__new__(cls, *exc.args)
        vars(new).update(vars(exc))
        return new.with_traceback(None)
    return copy.copy(exc).with_traceback(None)


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
        return _copy(entry)
    if isinstance(entry, tuple) and entry[0] == VALUES:
        _, exc, i, pieces, fields = entry
        exc = _copy(exc)
        if payloads is not None:
            values = [_unbits(np.asarray(payloads[o:o + int(np.prod(s, dtype=np.int64))]),
                              d, s) for o, d, s in fields]
            held = vars(exc) if hasattr(exc, "__dict__") else {}
            if i is not None:
                args = list(exc.args)
                staged, args[i] = args[i], "".join(
                    p if type(p) is str else
                    format_field(_as_held(values[p[0]], p[3]), p[1], p[2])
                    for p in pieces)
                exc.args = tuple(args)
                for name, value in list(held.items()):     # `self.message = message`
                    if isinstance(value, str) and str.__str__(value) == staged:
                        held[name] = args[i]
            for name, value in list(held.items()):         # `self.limit = limit`
                if type(value) is _Held:
                    held[name] = _as_held(values[value.position], value.kind)
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
