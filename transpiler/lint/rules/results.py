"""NPX135: a function whose result is None on some paths of a data-dependent branch and
a value on others. A branch on traced values is compiled into the program with both
sides traced, so the function has one result, of one type, whatever the data: @jit
refuses `None` on one side and an array or number on the other (a `return None`, a
bare `return`, or falling off the end of the function)."""
from __future__ import annotations

import ast

from npxla.transpiler.lint.values import DATA, MAYBE
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import NPXLA, Rule, register

def _is_none(ret):
    return ret.value is None or (isinstance(ret.value, ast.Constant)
                                 and ret.value.value is None)


def _exit_call(stmt) -> bool:
    """`sys.exit(...)`, `os.abort()`: a statement after which control does not go on,
    though the control-flow graph (which knows no callee) lets it fall through."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    f = stmt.value.func
    return isinstance(f, (ast.Name, ast.Attribute)) and \
        getattr(f, "id", getattr(f, "attr", "")) in ("exit", "abort")


class _Shape:
    """Which kinds of result a function has, from its control-flow graph: the `return`
    statements, and whether a path falls off the end (not counting one that ends in a
    call to `exit`)."""
    __slots__ = ("returns_none", "falls_off", "value")

    def __init__(self, facts, fn):
        rets = facts.returns_within(fn)
        self.returns_none = any(_is_none(r) for r in rets)
        self.falls_off = not all(_exit_call(s) for s in facts.fallthrough(fn))
        self.value = any(not _is_none(r) for r in rets)


@register
class NoneOnDataDependentPath(Rule):
    refusal = C.NONE_ON_PATH
    defaults = {"inside": "None", "other": "a value"}
    targets = frozenset({NPXLA})
    explain = """
        A branch whose condition depends on traced values (array data, or a Python
        `int`/`bool`/`float` argument, which npxla traces) is compiled with both sides,
        and the compiled function has a single result whatever the data. Returning
        `None` on one side (`return None`, a bare `return`, or falling off the end)
        and an array or number on the other cannot be compiled (falling off the end
        under a condition on a Python `int` argument is the exception: @jit then
        recompiles for the int's value). Return an array on
        every path (`np.nan`, a zero vector, or a flag returned beside the result), or
        make the condition static (`static_argnums`, a shape test)."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def safe_normalize(v):
            n = np.sqrt(np.sum(v * v))
            if n == 0.0:
                return None
            return v / n
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def safe_normalize(v):
            n = np.sqrt(np.sum(v * v))
            return np.where(n == 0.0, np.nan, v / np.where(n == 0.0, 1.0, n))
        """
    example_args = "(np.array([3.0, 4.0]),)"

    def __init__(self):
        self._shapes = {}

    def _shape(self, ctx, fn):
        hit = self._shapes.get(id(fn))
        if hit is None or hit[0] is not fn:
            hit = self._shapes[id(fn)] = (fn, _Shape(ctx.facts, fn))
        return hit[1]

    def on_control(self, ctx, node, kind, cond):
        fn = getattr(ctx, "fn", None)
        if kind != "if" or cond.condition_level < MAYBE or \
                not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        shape = self._shape(ctx, fn)
        if not ((shape.returns_none or shape.falls_off) and shape.value):
            return
        inside = ctx.facts.returns_within(fn, node)
        if not inside:
            return
        nones = [r for r in inside if _is_none(r)]
        if nones:
            self.report(ctx, nones[0], inside="None", other="a value")
        elif shape.returns_none or cond.condition_level >= DATA:
            # falling off the end on a Python int condition is specialised instead
            # (@jit recompiles for the int's value); a `return None` is not
            self.report(ctx, inside[0], inside="a value", other="None")
