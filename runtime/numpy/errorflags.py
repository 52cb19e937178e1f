"""Runtime checks NumPy performs eagerly (index bounds): flags computed on device."""
from __future__ import annotations

import numpy as np

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
    current_trace().add_error_check(flag, message if error is IndexError else
                                    (error, message))


def raise_for(entry):
    """The exception a recorded check raises: `message` or `(class, message)`."""
    if isinstance(entry, tuple):
        cls, message = entry
        return cls(message)
    return IndexError(entry)


def combine(flags):
    """Concatenate the scalar flags into one i1 vector output."""
    vecs = [S.reshape(f, shape=(1,)) for f in flags]
    return vecs[0].ir if len(vecs) == 1 else S.concatenate(*vecs, axis=0).ir
