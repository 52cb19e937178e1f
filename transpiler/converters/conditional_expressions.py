"""`a if c else b` -> `ag__.if_exp(c, lambda: a, lambda: b)`.

Python evaluates only the chosen operand; with an abstract-array condition XLA must
compute both and select. The operands become lambdas so the runtime can do either:
call one (Python condition) or stage both (array condition).
"""
from __future__ import annotations

from npxla.transpiler.converters.common import ExpressionConverter, lambda_safe, thunk_call


class _Transformer(ExpressionConverter):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        if not lambda_safe(node):
            return node
        return thunk_call("ag__.if_exp(__test__, {thunks})", node, [node.body, node.orelse],
                          __test__=node.test)


def transform(node, ctx):
    return _Transformer().visit(node)
