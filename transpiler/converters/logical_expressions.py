"""`and` / `or` / `not` and chained comparisons -> runtime operators.

Python's `and`/`or`/`not` and `a < b < c` call `bool()` on their operands, which an
abstract array cannot answer while staging. The runtime operators keep Python's
semantics for Python values (short circuit, the deciding operand is the result,
each operand of a chain evaluated once) and compute element-wise logic for arrays.
Operands become lambdas so the runtime controls whether and when they run. Single
comparisons stay as written (arrays implement them), except `x is True` / `x is
False`, which no object can overload.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.common import ExpressionConverter, lambda_safe, thunk_call

_COMPARE = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
            gast.NotEq: "!=", gast.Is: "is", gast.IsNot: "is not", gast.In: "in",
            gast.NotIn: "not in"}


class _Transformer(ExpressionConverter):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if not lambda_safe(node):
            return node
        operator = "and_" if isinstance(node.op, gast.And) else "or_"
        return thunk_call(f"ag__.{operator}({{thunks}})", node, node.values)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return templates.replace_expr("ag__.not_(__operand__)", origin=node,
                                      __operand__=node.operand)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)) and \
                any(_bool_literal(side) for side in (node.left, node.comparators[0])):
            # `ok is False` where ok = bool(x > 0): a traced Python bool is one of the
            # two singletons when the program runs (`logical.is_`)
            template = "ag__.is_(__left__, __right__)" if isinstance(node.ops[0], gast.Is) \
                else "ag__.is_not(__left__, __right__)"
            return templates.replace_expr(template, origin=node, __left__=node.left,
                                          __right__=node.comparators[0])
        if len(node.ops) < 2 or not lambda_safe(node):
            return node
        ops = ", ".join(repr(_COMPARE[type(op)]) for op in node.ops)
        return thunk_call(f"ag__.compare_chain(({{thunks}}), ({ops}))", node,
                          [node.left] + node.comparators)


def _bool_literal(node) -> bool:
    return isinstance(node, gast.Constant) and (node.value is True or node.value is False)


def transform(node, ctx):
    return _Transformer().visit(node)
