"""An `if` whose two arms each end by appending to one list, inside a loop:

    if avg_loss == 0:                    if avg_loss == 0:
        rsi.append(100)                      item__1 = 100
    else:                          ->    else:
        rs = avg_gain / avg_loss             rs = avg_gain / avg_loss
        rsi.append(100 - 100 / (1 + rs))     item__1 = 100 - 100 / (1 + rs)
                                         rsi.append(item__1)

Technical-indicator code fills its lists this way. With the append inside a branch
whose test depends on data, the loop cannot be staged with the list's items as rows of
one array (`collected_appends`: one append per iteration, at the body's top level),
so it ran as Python, one copy of the body per iteration. After this pass the append is
at the top level and the branch chooses the value.

It is the same program in Python: each arm's last statement runs exactly when control
reaches the arm's end, which is exactly when the `if` statement completes normally and
the hoisted append runs. Arms that may jump (`break`, `continue`, `return`, `raise`)
are left alone: staged, jumps become flags and the value would be unassigned on a path
the program still runs. The list's name must not be bound inside the arms and no
walrus may appear in the test or the values (either could change which list `name`
is). An `elif` chain whose every arm appends becomes one append (inner `if`s first).

Staged, the value then follows the rule of a staged `if` (docs/semantics.md): arms of
different types are promoted, so `append(100)` against `append(rs)` appends float64
items on every path, where Python's list would hold the int when that arm ran (NumPy's
array of the list is float64 unless every item came from the int arm).
"""
from __future__ import annotations

import gast

from npxla.transpiler.converters.common import functions


def _append_of(stmt):
    """(list name, value) of the statement `name.append(value)`, else None."""
    if not isinstance(stmt, gast.Expr):
        return None
    call = stmt.value
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and
            call.func.attr == "append" and isinstance(call.func.value, gast.Name) and
            len(call.args) == 1 and not call.keywords and
            not isinstance(call.args[0], gast.Starred)):
        return None
    return call.func.value.id, call.args[0]


def _binds(stmts, name):
    return any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
               for s in stmts for n in gast.walk(s))


def _jumps(stmts):
    """Whether a `break`, `continue`, `return`, `raise` or `yield` is among `stmts`:
    staged, such an arm would leave the value unassigned on a path the program still
    runs (flags, not jumps)."""
    return any(isinstance(n, (gast.Break, gast.Continue, gast.Return, gast.Raise,
                              gast.Yield, gast.YieldFrom))
               for s in stmts for n in gast.walk(s))


def _has_walrus(*nodes):
    return any(isinstance(n, gast.NamedExpr) for node in nodes for n in gast.walk(node))


class _Hoister(gast.NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.loops = 0

    def visit_FunctionDef(self, node):
        return node              # nested scopes: their own pass (`functions`)

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def _loop(self, node):
        self.loops += 1
        try:
            return self.generic_visit(node)
        finally:
            self.loops -= 1

    visit_For = visit_While = _loop

    def visit_If(self, node):
        self.generic_visit(node)
        if not self.loops or not node.body or not node.orelse:
            return node
        first, second = _append_of(node.body[-1]), _append_of(node.orelse[-1])
        if first is None or second is None or first[0] != second[0]:
            return node
        name = first[0]
        if _binds(node.body + node.orelse, name) or _jumps(node.body + node.orelse) or \
                _has_walrus(node.test, first[1], second[1]):
            return node
        temp = self.ctx.new_name("item")
        for arm, (_, value) in ((node.body, first), (node.orelse, second)):
            assign = gast.Assign(targets=[gast.Name(id=temp, ctx=gast.Store(),
                                                    annotation=None, type_comment=None)],
                                 value=value, type_comment=None)
            arm[-1] = gast.copy_location(assign, arm[-1])
        append = gast.Expr(value=gast.Call(
            func=gast.Attribute(value=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                type_comment=None),
                                attr="append", ctx=gast.Load()),
            args=[gast.Name(id=temp, ctx=gast.Load(), annotation=None, type_comment=None)],
            keywords=[]))
        for n in gast.walk(append):
            gast.copy_location(n, node)
        return [node, append]


def transform(node, ctx):
    for fn in functions(node):
        hoister = _Hoister(ctx)
        fn.body = [out for stmt in fn.body
                   for out in _as_list(hoister.visit(stmt))]
    return node


def _as_list(result):
    return result if isinstance(result, list) else [result]

