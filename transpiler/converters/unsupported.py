"""First pass: refuse syntax that cannot be compiled at all, with the user's location.

Refusing here, before anything runs, gives one clear error at the user's line instead
of a wrong result later: a compiled program cannot rebind variables outside the
function's enclosing function (`nonlocal`), delete attributes, or await (`async`);
`match` and `:=` in a `while` condition are not converted (yet). (`yield` is converted:
a generator the function calls runs while staging; a jitted function that is one
itself is refused by the driver, `conversion.refuse_generator`.)
"""
from __future__ import annotations

import gast

from npxla.transpiler.base import catalogue as C
from npxla.transpiler.base.errors import Location
from npxla.transpiler.converters.attribute_stores import is_attribute_store
from npxla.transpiler.converters.common import walk_scope

# node type -> (refusal, its fields): the messages and hints live in the catalogue
_REFUSED = {
    gast.AsyncFunctionDef: (C.ASYNC, {}),
    gast.Await: (C.ASYNC, {}),
    gast.AsyncFor: (C.ASYNC, {}),
    gast.AsyncWith: (C.ASYNC, {}),
    gast.Match: (C.MATCH, {}),
}


def _jumps_out_of(stmts, in_loop=False):
    """`return`/`break`/`continue` statements in `stmts` that leave them."""
    for stmt in stmts:
        if isinstance(stmt, gast.Return) or (
                isinstance(stmt, (gast.Break, gast.Continue)) and not in_loop):
            yield stmt
        elif not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    yield from _jumps_out_of(inner, in_loop or (
                        field == "body" and isinstance(stmt, (gast.For, gast.While))))


def _refusal(child):
    """(refusal, fields[, node to point at]) for a node that cannot be compiled, else None."""
    if isinstance(child, gast.Nonlocal):      # (`global` is converted: global_stores.py)
        names = ", ".join(child.names)
        return C.REBIND_OUTSIDE, {"stmt": f"nonlocal {names}", "names": names}
    if isinstance(child, (gast.Try, gast.TryStar)):
        jump = next(_jumps_out_of(child.finalbody), None)
        if jump is not None:
            return C.JUMP_IN_FINALLY, {"what": type(jump).__name__.lower()}, jump
    if isinstance(child, gast.While) and any(
            isinstance(n, gast.NamedExpr) for n in gast.walk(child.test)):
        return C.WALRUS_IN_WHILE, {}
    if isinstance(child, gast.Delete):
        attr = next((t for t in child.targets if isinstance(t, gast.Attribute)), None)
        if attr is not None:
            return C.ATTRIBUTE_STORE, {"attr": attr.attr}, child
    if isinstance(child, gast.Attribute) and isinstance(child.ctx, gast.Store):
        return C.ATTRIBUTE_STORE, {"attr": child.attr}
    return _REFUSED.get(type(child))


def generator_error(node, filename):
    """The refusal of a function that is itself a generator (its own `yield`, not one
    of a function it defines), for a *jitted* function: a compiled program returns
    once. None for other functions. (A generator called from converted code is
    converted and runs while staging.)"""
    for child in walk_scope(node):
        if isinstance(child, (gast.Yield, gast.YieldFrom)):
            what = "yield from" if isinstance(child, gast.YieldFrom) else "yield"
            return C.GENERATOR.error_for(
                Location(filename, child.lineno, child.col_offset,
                         getattr(child, "end_col_offset", None)), what=what)
    return None


def transform(node, ctx):
    # attribute stores in assignments are converted by attribute_stores.py
    stores = {id(a) for n in gast.walk(node) if is_attribute_store(n)
              for t in (getattr(n, "targets", None) or [n.target]) for a in gast.walk(t)}
    for child in gast.walk(node):
        refusal = None if id(child) in stores else _refusal(child)
        if refusal is not None:
            entry, fields, where = (refusal + (child,))[:3]
            raise entry.error_for(
                Location(ctx.filename, where.lineno, where.col_offset,
                         getattr(where, "end_col_offset", None)), **fields)
    return node
