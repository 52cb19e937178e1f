"""f-strings in compiled code: formatted when the values exist.

`f"mean={x.mean():.2f}"` formats an array value, but while staging the value is traced
and has no digits yet. Converted code builds every f-string with
`ag__.format_string(parts)`: with Python values and constants only it is the ordinary
string; with traced values it is a `DeferredStr`, which `print`, `logging` and
`warnings` (run-time host callbacks, see `printing` and `hostcalls`) fill in and format
when the program runs, exactly as the f-string would have. Anywhere else (an exception
message, a string concatenation) its text shows each traced value as
`<traced float64>`: the digits do not exist while the program is built.
"""
from __future__ import annotations

from npxla.runtime.staging.abstract import AbstractArray

_CONVERSIONS = {-1: lambda v: v, 115: str, 114: repr, 97: ascii}


class _Traced:
    """Stands for a traced value in the staging-time text of a DeferredStr."""

    def __init__(self, x):
        self.text = f"<traced {x.dtype}{list(x.shape) if x.shape else ''}>"

    def __format__(self, spec):
        return self.text

    def __str__(self):
        return self.text

    __repr__ = __str__


class DeferredStr(str):
    """An f-string whose values are only known at run time. `parts`: strings and
    (value, conversion, format spec) triples, as `format_string` received them."""

    def __new__(cls, parts, text=None):
        self = super().__new__(cls, render(parts, _staging_value) if text is None else text)
        self.parts = parts
        return self

    def map_values(self, fn):
        """The same f-string with `fn` applied to each value (print's lifting)."""
        return DeferredStr(tuple(
            p if type(p) is str else
            (fn(p[0]), p[1], fn(p[2]) if type(p[2]) is DeferredStr else p[2])
            for p in self.parts), str.__str__(self))

    def render(self, value_of):
        return render(self.parts, value_of)


def format_string(parts):
    """`f"..."` in converted code (see the module docstring)."""
    if any(type(p) is tuple and (_is_traced(p[0]) or type(p[2]) is DeferredStr)
           for p in parts):
        return DeferredStr(tuple(parts))
    return render(parts, _staging_value)


def render(parts, value_of):
    out = []
    for p in parts:
        if type(p) is str:
            out.append(p)
            continue
        value, conversion, spec = p
        spec = spec.render(value_of) if type(spec) is DeferredStr else str(spec)
        out.append(format(_CONVERSIONS[conversion](value_of(value)), spec))
    return "".join(out)


def _is_traced(x):
    return type(x) is AbstractArray and x.const is None


def _staging_value(x):
    """What NumPy code would hold for `x` now: constants become NumPy values."""
    if type(x) is not AbstractArray:
        return x
    const = x.const
    if const is None:
        return _Traced(x)
    if const.ndim == 0:
        return const.item() if x.weak else const[()]
    return const
