"""First pass: refuse syntax that cannot be compiled at all, with the user's location.

Refusing here, before anything runs, gives one clear error at the user's line instead
of a wrong result later: a compiled program cannot rebind variables outside the
function (`global`, `nonlocal`), update attributes of outside objects, or suspend
(`yield`, `async`); `match` and `:=` in a `while` condition are not converted (yet).
"""
from __future__ import annotations

import gast

from npxla.transpiler.base.errors import Location, UnsupportedSyntaxError

_GENERATOR = ("generators cannot be compiled: XLA programs return once",
              "build the values into an array and return it")
_ASYNC = ("async code cannot be compiled", "use a plain def and plain for/with statements")

_REFUSED = {
    gast.Yield: _GENERATOR,
    gast.YieldFrom: _GENERATOR,
    gast.AsyncFunctionDef: _ASYNC,
    gast.Await: _ASYNC,
    gast.AsyncFor: _ASYNC,
    gast.AsyncWith: _ASYNC,
    gast.Match: ("match statements cannot be compiled yet",
                 "write the cases as an if/elif chain"),
}


def _scope_refusal(child):
    names = ", ".join(child.names)
    if isinstance(child, gast.Global):
        return (f"'global {names}' cannot be compiled: a compiled function cannot rebind "
                "module variables",
                f"pass {names} in as an argument and return the new value; assign it to the "
                "global outside the jitted function")
    return (f"'nonlocal {names}' cannot be compiled: a compiled function cannot rebind "
            "variables of an enclosing function",
            f"pass {names} in as an argument and return the new value")


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
    """(message, hint[, node to point at]) for a node that cannot be compiled, else None."""
    if isinstance(child, (gast.Global, gast.Nonlocal)):
        return _scope_refusal(child)
    if isinstance(child, (gast.Try, gast.TryStar)):
        jump = next(_jumps_out_of(child.finalbody), None)
        if jump is not None:
            return (f"'{type(jump).__name__.lower()}' inside 'finally' cannot be compiled: "
                    "it would silently discard an exception being raised",
                    "move the statement after the try statement", jump)
    if isinstance(child, gast.While) and any(
            isinstance(n, gast.NamedExpr) for n in gast.walk(child.test)):
        return ("an assignment expression (:=) in a while condition cannot be compiled: "
                "the condition is evaluated apart from the loop body",
                "assign the value before the loop and again at the end of the body, and "
                "test the variable")
    if isinstance(child, gast.Attribute) and isinstance(child.ctx, gast.Store):
        return (f"assigning to an attribute ('.{child.attr} = ...') cannot be compiled: "
                "the object lives outside the compiled program",
                "keep the value in a local variable (or return it) and set the attribute "
                "outside the jitted function")
    return _REFUSED.get(type(child))


def transform(node, ctx):
    for child in gast.walk(node):
        refusal = _refusal(child)
        if refusal is not None:
            message, hint, where = (refusal + (child,))[:3]
            raise UnsupportedSyntaxError(
                message, hint=hint,
                location=Location(ctx.filename, where.lineno, where.col_offset,
                                  getattr(where, "end_col_offset", None)))
    return node
