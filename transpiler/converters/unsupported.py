"""First pass: refuse syntax that cannot be compiled at all, with the user's location."""
from __future__ import annotations

import gast

from ..errors import Location, UnsupportedSyntaxError

_REFUSED = {
    gast.Yield: ("generators cannot be compiled: XLA programs return once",
                 "build the values into an array and return it"),
    gast.YieldFrom: ("generators cannot be compiled: XLA programs return once",
                     "build the values into an array and return it"),
    gast.AsyncFunctionDef: ("async functions cannot be compiled", "use a plain def"),
    gast.Await: ("await cannot be compiled", "use a plain def"),
}


def transform(node, ctx):
    for child in gast.walk(node):
        refusal = _REFUSED.get(type(child))
        if refusal is not None:
            message, hint = refusal
            raise UnsupportedSyntaxError(
                message, hint=hint,
                location=Location(ctx.filename, child.lineno, child.col_offset,
                                  getattr(child, "end_col_offset", None)))
    return node
