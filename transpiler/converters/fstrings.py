"""`f"a{x:.2f}"` -> `ag__.format_string(("a", (x, -1, ".2f")))`, and
`"a %.2f" % x` -> `ag__.percent_format("a %.2f", x)`.

Python formats an f-string's values when it is evaluated; a traced array has no digits
then. The runtime operator formats what is known now and defers what is traced to the
program's run (print, logging and warnings fill it in; see
`runtime.operators.fstrings`). Each formatted value becomes a (value, conversion, spec)
triple; a nested spec (`{x:{width}}`) is converted first, so it is a string by then.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.common import ExpressionConverter


class _Transformer(ExpressionConverter):
    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, gast.FormattedValue):
                spec = self.visit(v.format_spec) if v.format_spec is not None else \
                    gast.Constant(value="", kind=None)
                parts.append(gast.Tuple(elts=[self.visit(v.value),
                                              gast.Constant(value=v.conversion, kind=None),
                                              spec], ctx=gast.Load()))
            else:
                parts.append(v)
        return templates.replace_expr("ag__.format_string(__parts__)", origin=node,
                                      __parts__=gast.Tuple(elts=parts, ctx=gast.Load()))


    def visit_BinOp(self, node):
        """`'%'-formatting with a literal template: formatted like an f-string (what is
        traced is filled in at run time); `fmt % x` with a variable `fmt` is left to
        Python (and to NumPy's `%` when `fmt` is an array)."""
        self.generic_visit(node)
        left = node.left
        if isinstance(node.op, gast.Mod) and (
                isinstance(left, gast.Constant) and isinstance(left.value, str) or
                isinstance(left, gast.JoinedStr)):
            return templates.replace_expr("ag__.percent_format(__left__, __right__)",
                                          origin=node, __left__=left, __right__=node.right)
        return node


def transform(node, ctx):
    return _Transformer().visit(node)
