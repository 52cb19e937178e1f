"""The refusal for text of a traced value (`str(x)`, `"%s" % x`, `format(x, spec)`),
shared by the NumPy layer (AbstractArray's `__str__`/`__format__`) and the operators
(`fstrings`), so both decide alike what the driver can still make static."""
from __future__ import annotations

from npxla.transpiler.base.catalogue import TEXT_OF_TRACED
from npxla.transpiler.base.errors import UnsupportedOperationError

from npxla.runtime.staging.trace import current_trace


def text_refusal(deps, what):
    """TEXT_OF_TRACED for a value with `deps`: a ConcretizationError naming what the
    driver can make static (Python int/bool arguments, loop indices to unroll), so it
    retries and the text is exact; an UnsupportedOperationError when nothing can
    (array data)."""
    trace = current_trace()
    special = trace.specialisable if trace is not None else frozenset()
    static = frozenset(d for d in deps if type(d) is not int or d in special)
    return TEXT_OF_TRACED.error_for(deps=static or None, what=what,
                                    cls=None if static else UnsupportedOperationError)


# an f-string field's conversion (`!s`, `!r`, `!a`, none) as CPython codes it
CONVERSIONS = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}


def format_field(value, conversion, spec) -> str:
    """One field of an f-string, `%`-template or `str.format` call: `conversion` is a
    CPython conversion code, or a whole `%` spec (a str) for a `%` field."""
    if type(conversion) is str:
        return conversion % (value,)
    return format(CONVERSIONS[conversion](value), spec)
