"""NPX125: `%`-formatting of a traced value with a template held in a variable.
`fmt % s` needs the Python number `s` while compiling, when a traced value has none;
a literal template (`"%e" % s`), f-strings and `str.format` are staged by @jit and
print the value at run time."""
from __future__ import annotations

import ast

from npxla.transpiler.lint.values import CONTAINERS, DICT, MAYBE, PYTHON_ONLY, STR
from npxla.transpiler.lint.rules._util import traced_level
from npxla.transpiler.lint.rules._watch import get, watch, watched
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import NPXLA, Rule, register


def _traced_operands(v):
    if v is None:
        return False
    if v.kind in CONTAINERS:
        if v.kind == DICT:
            return traced_level(v) >= MAYBE
        items = v.items if v.items is not None else ((v.elem,) if v.elem else ())
        return any(_traced_operands(i) for i in items) or (
            v.items is None and v.level >= MAYBE)
    if v.kind in PYTHON_ONLY:
        return False
    return v.level >= MAYBE


@register
class PercentFormatOfTracedValue(Rule):
    refusal = C.PERCENT_FORMAT
    plain = True
    targets = frozenset({NPXLA})
    explain = """
        `fmt % s`, with the template `fmt` held in a variable, converts `s` to a Python
        number (or string) while the function is compiled, but a value computed from
        the inputs (or a Python `int`/`float` argument, which npxla traces) has no
        value then. A literal template (`"total %.3f" % s`), f-strings and
        `str.format` work: @jit formats them when the compiled program runs, so they
        print the real value (in messages of `print`, `logging`, `warnings` and
        exceptions alike)."""
    bad = """
        import numpy as np
        from npxla import jit

        FORMAT = "total %.3f"

        @jit
        def report(x):
            print(FORMAT % x.sum())
            return x
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def report(x):
            print(f"total {x.sum():.3f}")
            return x
        """
    example_args = "(np.array([1.0, 2.0]),)"

    def _hook(self, ctx):
        if not watched(ctx, ast.BinOp, self.code):
            watch(ctx, ast.BinOp, self.code, self._on_binop)

    def _on_binop(self, ctx, node, value):
        if not isinstance(node.op, ast.Mod) or isinstance(node.left, ast.JoinedStr) or (
                isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
            return
        left = get(ctx, node.left)
        if left is None or left.kind != STR:
            return
        if _traced_operands(get(ctx, node.right)):
            self.report(ctx, node)

    def on_function(self, ctx, fn):
        self._hook(ctx)

    def on_call(self, ctx, node, callee, args, kwargs):
        self._hook(ctx)

    def on_control(self, ctx, node, kind, cond):
        self._hook(ctx)
