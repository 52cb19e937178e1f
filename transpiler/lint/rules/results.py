"""NPX135: a function whose result is None on some paths of a data-dependent branch and
a value on others. A branch on traced values is compiled into the program with both
sides traced, so the function has one result, of one type, whatever the data. Outside
loops @jit assumes such a branch's condition instead (checked when the program runs,
staged again when wrong), so the path taken decides, as in NumPy; inside a loop, whose
body is staged once for every iteration, `None` on one side and an array or number on
the other (a `return None`, a bare `return`) is refused."""
from __future__ import annotations

import ast

from npxla.transpiler.lint.values import MAYBE
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import NPXLA, Rule, register


def _is_none(ret):
    return ret.value is None or (isinstance(ret.value, ast.Constant)
                                 and ret.value.value is None)


@register
class NoneOnDataDependentPath(Rule):
    refusal = C.NONE_ON_PATH
    defaults = {"inside": "None", "other": "a value"}
    targets = frozenset({NPXLA})
    explain = """
        A branch whose condition depends on traced values (array data, or a Python
        `int`/`bool`/`float` argument, which npxla traces) inside a loop is compiled
        with both sides, once for every iteration, and the compiled function has a
        single result whatever the data. Returning `None` on one side (`return None`, a
        bare `return`) and an array or number on the other cannot be compiled there.
        (Outside loops, and for falling off the end, @jit assumes the condition, checks
        it when the program runs and compiles again when it was wrong.) Return an array
        on every path (`np.nan`, a zero vector, or a flag returned beside the result),
        or make the condition static (`static_argnums`, a shape test)."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def halve_until_small(v):
            while np.abs(v).sum() > 1.0:
                if v[0] < 0.0:
                    return None
                elif v[0] > 100.0:
                    return v
                v = v * 0.5
            return v
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def halve_until_small(v):
            while np.abs(v).sum() > 1.0:
                if v[0] < 0.0:
                    return np.full_like(v, np.nan)
                elif v[0] > 100.0:
                    return v
                v = v * 0.5
            return v
        """
    example_args = "(np.array([3.0, 4.0]),)"

    def __init__(self):
        self._looped = {}

    def _loop_of(self, fn, node):
        """The innermost `for`/`while` of `fn` around `node`, or None."""
        hit = self._looped.get(id(fn))
        if hit is None or hit[0] is not fn:
            around = {}
            for loop in ast.walk(fn):       # outer loops first: inner ones overwrite
                if isinstance(loop, (ast.For, ast.While)):
                    for n in ast.walk(loop):
                        if n is not loop:
                            around[id(n)] = loop
            hit = self._looped[id(fn)] = (fn, around)
        return hit[1].get(id(node))

    def on_control(self, ctx, node, kind, cond):
        fn = getattr(ctx, "fn", None)
        if kind != "if" or cond.condition_level < MAYBE or \
                not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        loop = self._loop_of(fn, node)
        if loop is None:
            return
        # inside a loop (staged once for every iteration) a branch returning None
        # beside one of the same loop returning a value cannot be compiled; outside
        # loops, and after them, @jit assumes the condition instead
        in_loop = [r for r in ast.walk(loop) if isinstance(r, ast.Return)]
        nones = [r for r in ctx.facts.returns_within(fn, node) if _is_none(r)]
        if nones and any(not _is_none(r) for r in in_loop):
            self.report(ctx, nones[0], inside="None", other="a value")
