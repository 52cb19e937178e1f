"""`return` inside control flow -> flags, so the function returns once, at its end.

A staged branch or loop body is a region that yields values; it cannot leave the
function. So `return v` becomes `do_return__N = True; retval__N = v`, what could
follow is guarded by `if ag__.not_(do_return__N):`, loops around it also stop on the
flag (and skip their `else:`), and the function ends with `return retval__N`, or with
`return ag__.return_value(do_return__N, retval__N)` when it may fall off its end
(Python's implicit `None`). Functions whose only returns are top-level statements
are left as written.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.common import (JumpRewriter, add_loop_test, functions,
                                                guard, not_flag)


class _Returns(JumpRewriter):
    jump = gast.Return
    enters_loops = True

    def __init__(self, flag=None, retval=None):
        super().__init__(flag)
        self.retval = retval

    def replace(self, stmt):
        value = stmt.value if stmt.value is not None else gast.Constant(value=None, kind=None)
        return templates.replace(f"{self.flag} = True\n{self.retval} = __value__",
                                 origin=stmt, __value__=value)

    def loop_may_jump(self, loop):
        add_loop_test(loop, not_flag(self.flag, loop))
        if loop.orelse:
            loop.orelse = guard(loop.orelse, self.flag, loop.orelse[0])


def _terminates(stmts):
    """Whether control provably never falls off the end of `stmts`."""
    return any(_stmt_terminates(s) for s in stmts)


def _stmt_terminates(stmt):
    if isinstance(stmt, (gast.Return, gast.Raise)):
        return True
    if isinstance(stmt, gast.If):
        return _terminates(stmt.body) and _terminates(stmt.orelse)
    if isinstance(stmt, gast.With):
        return _terminates(stmt.body)
    if isinstance(stmt, (gast.Try, gast.TryStar)):
        return _terminates(stmt.finalbody) or (
            _terminates(stmt.body + stmt.orelse) and
            all(_terminates(h.body) for h in stmt.handlers))
    if isinstance(stmt, gast.While):  # breaks are flags by now: they changed the test
        return isinstance(stmt.test, gast.Constant) and bool(stmt.test.value)
    return False


def _has_docstring(fn):
    first = fn.body[0]
    return (isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant)
            and isinstance(first.value.value, str))


def _convert_function(fn, ctx):
    returns = _Returns()
    if not any(returns.may_jump(s) for s in fn.body if not isinstance(s, gast.Return)):
        return
    always = _terminates(fn.body)
    returns.flag, returns.retval = ctx.new_names("do_return", "retval")
    doc = fn.body[:1] if _has_docstring(fn) else []
    body = returns.rewrite(fn.body[len(doc):])
    prologue = templates.replace(
        f"{returns.flag} = False\n{returns.retval} = ag__.UndefinedReturnValue()", origin=fn)
    final = (f"return {returns.retval}" if always else
             f"return ag__.return_value({returns.flag}, {returns.retval})")
    fn.body = doc + prologue + body + templates.replace(final, origin=fn)


def transform(node, ctx):
    for fn in list(functions(node)):
        _convert_function(fn, ctx)
    return node
