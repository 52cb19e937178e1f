"""`[e for i in it]` -> `ag__.list_comp(it, lambda i: e, False)`.

A Python comprehension runs while the program is traced, so one over a static range
puts one copy of its element's work into the program per item: a comprehension of 200
`np.polyfit` calls stages 27,000 lines and compiles for 6 s. As a call, the runtime
can stage it as one loop that fills the rows of an array instead (when every item is a
new array of one shape and dtype) and still run it as written otherwise.

Only the plain form is converted: one `for`, no `if` filter (a filtered list has a
length known only at run time), a target that is a name or a flat tuple of names
(`for i, row in enumerate(d)`: the lambda then takes the item's parts, `True`), and an
element without a walrus (its target would bind in the lambda, not the function).
Sets, dicts and generator expressions stay Python.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.common import ExpressionConverter, lambda_safe


def _params(target):
    """The lambda's parameter names for the comprehension's target, and whether the
    item is unpacked; None for other targets (starred, nested, attributes)."""
    if isinstance(target, gast.Name):
        return [target.id], False
    if isinstance(target, (gast.Tuple, gast.List)) and target.elts and \
            all(isinstance(e, gast.Name) for e in target.elts):
        names = [e.id for e in target.elts]
        if len(set(names)) == len(names):
            return names, True
    return None


class _Transformer(ExpressionConverter):
    def visit_ListComp(self, node):
        self.generic_visit(node)          # inner comprehensions first
        if len(node.generators) != 1:
            return node
        gen = node.generators[0]
        if gen.ifs or gen.is_async or not lambda_safe(node.elt):
            return node
        params = _params(gen.target)
        if params is None:
            return node
        names, unpack = params
        return templates.replace_expr(
            f"ag__.list_comp(__iterable__, lambda {', '.join(names)}: __element__, "
            f"{unpack})", origin=node, __iterable__=gen.iter, __element__=node.elt)


def transform(node, ctx):
    return _Transformer().visit(node)
