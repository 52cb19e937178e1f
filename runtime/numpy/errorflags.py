"""Runtime checks NumPy performs eagerly (index bounds): flags computed on device."""
from __future__ import annotations

import copy
import sys

import numpy as np

from transpiler.pyct.origin import locate, locate_stack

from ..primitives import structural as S
from ..trace import current_trace


def check(flag, message, error=IndexError):
    """Record `flag` (a bool AbstractArray, True = error) for the call path to raise
    `error(message)` (NumPy's exception class for the failure)."""
    if flag.const is not None:
        if bool(np.any(flag.const)):
            raise error(message)
        return
    if flag.ndim:
        from .registry import dispatch
        flag = dispatch(np.any, (flag,), {})
    current_trace().add_error_check(flag, (error, message, _where(sys._getframe(1))))


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


def raise_for(entry):
    """The exception a recorded check raises: `message`, `(class, message[, note])`, or a copy
    of the exception instance the program raised while it was staged."""
    if isinstance(entry, BaseException):
        return copy.copy(entry).with_traceback(None)
    if isinstance(entry, tuple):
        cls, message, note = entry if len(entry) == 3 else (*entry, None)
        exc = cls(message)
        if note is not None:
            exc.add_note(note)
        return exc
    return IndexError(entry)


def combine(flags):
    """Concatenate the scalar flags into one i1 vector output."""
    vecs = [S.reshape(f, shape=(1,)) for f in flags]
    return vecs[0].ir if len(vecs) == 1 else S.concatenate(*vecs, axis=0).ir
