"""What `jit` stages for callables that are not plain Python functions, and where errors
with no user line of their own point.

`jit(obj.method)`, `jit(np.sum)`, `jit(np.add)`, `jit(abs)`, `jit(functools.partial(...))`:
the call path (guards, the disk cache's digest, conversion) works on a Python function
with source, so such a callable is staged through `forwarder(target)`, a function whose
converted body is one `converted_call(target, args, kwargs)`: the registry lowers NumPy
functions, a bound method's function is converted with `self` passed first (and
`guards` follow what it reads through `self`), anything else is called as is.

An error raised before any user code ran (a bad argument, a registry function given bad
arguments through the forwarder) is located at the line that called the jitted function
(`caller_location`): the first frame on the stack outside npxla.
"""
from __future__ import annotations

import inspect
import os
import re
import sys

from npxla.transpiler.base.errors import Location

from npxla.runtime.operators.call import call_name
from npxla.runtime.operators.provenance import NPXLA, USER, origin_of_file


def forwarder(target):
    """A Python function calling `target` with its arguments, named after it."""
    def forward(*args, **kwargs):
        return target(*args, **kwargs)
    # the disk cache's digest names a function by module and qualname, so two forwarders
    # must not share one (`np.add` and another library's ufunc `add`); it also names the
    # file of the converted source, hence the plain characters
    forward.__qualname__ = "forward[" + re.sub(r"[^\w.:-]", "_", call_name(target)) + "]"
    forward.__doc__ = getattr(target, "__doc__", None)
    try:        # argument names for messages (see `argcheck`)
        forward.__signature__ = inspect.signature(target)
    except (TypeError, ValueError):
        pass
    return forward


_FILE = os.path.realpath(__file__)


def is_forwarder_file(path) -> bool:
    return os.path.realpath(path) == _FILE


def caller_location(frame=None) -> Location | None:
    """The innermost frame of the user's code on the live stack (the call of the jitted
    function), else the innermost one outside npxla."""
    frame = frame or sys._getframe(1)
    fallback = None
    while frame is not None:
        code = frame.f_code
        origin = origin_of_file(code.co_filename)
        if origin == USER:
            return _location(frame)
        if origin != NPXLA and fallback is None:
            fallback = _location(frame)
        frame = frame.f_back
    return fallback


def _location(frame):
    """The position of the call `frame` is executing (the whole call expression)."""
    code = frame.f_code
    try:
        line, _, col, end_col = list(code.co_positions())[frame.f_lasti // 2]
    except (AttributeError, IndexError, ValueError):    # Python 3.10: lines only
        line, col, end_col = None, None, None
    if line is None or col is None:
        return Location(code.co_filename, frame.f_lineno)
    return Location(code.co_filename, line, col, end_col)
