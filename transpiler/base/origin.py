"""Mapping runtime failures back to the user's source.

Converted code is compiled from an AST that keeps the user's line and column numbers
and file name, so a frame of converted code *is* a position in the user's file. The
set of converted code objects tells those frames apart from npxla's own.
"""
from __future__ import annotations

import weakref

from npxla.transpiler.base.errors import Location

_CONVERTED_CODES: "weakref.WeakSet" = weakref.WeakSet()


def register_code(code):
    """Remember `code` and every code object nested in it as converted user code."""
    _CONVERTED_CODES.add(code)
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            register_code(const)


def forget_code(code):
    """Treat `code` and the code nested in it as npxla's own again: npxla's helpers
    written as NumPy code and converted (runtime/operators/numpy_callbacks.py), whose
    errors belong to the user's line that called them."""
    _CONVERTED_CODES.discard(code)
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            forget_code(const)


def is_converted(code) -> bool:
    return code in _CONVERTED_CODES


def _position(code, lasti, lineno):
    try:
        positions = list(code.co_positions())
        line, _, col, end_col = positions[lasti // 2]
        if line is not None:
            return line, col or 0, end_col
    except (IndexError, ValueError):
        pass
    return lineno, 0, None


def locate(tb) -> Location | None:
    """Innermost frame of converted user code in traceback `tb`."""
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code in _CONVERTED_CODES:
            line, col, end_col = _position(code, tb.tb_lasti, tb.tb_lineno)
            found = Location(code.co_filename, line, col, end_col)
        tb = tb.tb_next
    return found


def locate_stack(frame) -> Location | None:
    """Innermost frame of converted user code on the live stack from `frame` outwards."""
    while frame is not None:
        code = frame.f_code
        if code in _CONVERTED_CODES:
            line, col, end_col = _position(code, frame.f_lasti, frame.f_lineno)
            return Location(code.co_filename, line, col, end_col)
        frame = frame.f_back
    return None


def innermost_module(tb, skip=()) -> str:
    """Module name of the innermost frame (to tell our bugs from user errors), passing
    over innermost frames of the packages `skip` (NumPy's own helpers, such as
    `normalize_axis_index`, raise NumPy's errors for npxla's implementation of NumPy)."""
    names = []
    while tb is not None:
        names.append(tb.tb_frame.f_globals.get("__name__", ""))
        tb = tb.tb_next
    while len(names) > 1 and names[-1].partition(".")[0] in skip:
        names.pop()
    return names[-1] if names else ""
