"""Calls that ask about a value's type -> `ag__.converted_call`, like every other call.

`isinstance(x, np.ndarray)`, `type(x)`, `hasattr(x, "shape")`, `getattr(x, name, d)` and
`callable(x)` are left alone by the call converter (they are cheap and see no frame),
but asked of a traced array they would describe npxla's abstract handle: NumPy code
takes the other branch of `if isinstance(x, np.ndarray)`. Routed through
`converted_call`, the runtime answers for the value NumPy would hold (ndarray, NumPy
scalar or Python scalar). The name is looked up at run time, so a user's own `type`
variable is still called as it is. Applied after the converter passes (see
`conversion.convert_ast`).
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates

QUERIES = frozenset({"isinstance", "type", "hasattr", "getattr", "callable"})


class _Transformer(gast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, gast.Name) and func.id in QUERIES) or node.keywords or \
                any(isinstance(a, gast.Starred) for a in node.args):
            return node
        args = gast.Tuple(elts=list(node.args), ctx=gast.Load())
        gast.copy_location(args, node)
        return templates.replace_expr("ag__.converted_call(f, args, None)", origin=node,
                                      f=func, args=args)


def transform(node, ctx=None):
    return _Transformer().visit(node)
