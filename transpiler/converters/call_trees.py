"""Calls -> `ag__.converted_call(f, args, kwargs)`.

The runtime decides per call: a registered NumPy/math/builtin function given abstract
arrays runs its lowering, a user helper is converted recursively, anything else is
called as is.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.common import is_runtime_call

# Calls that must see the caller's frame or are not worth routing. (`print` is routed:
# the runtime prints traced values when the program runs.)
_KEEP = {"super", "locals", "globals", "vars", "eval", "exec", "isinstance", "type",
         "hasattr", "getattr", "setattr", "id", "callable"}


class _Transformer(gast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if is_runtime_call(node) or (isinstance(func, gast.Name) and func.id in _KEEP):
            return node
        args = gast.Tuple(elts=list(node.args), ctx=gast.Load())
        if node.keywords:
            keys, values = [], []
            for kw in node.keywords:
                keys.append(None if kw.arg is None else gast.Constant(value=kw.arg, kind=None))
                values.append(kw.value)
            kwargs = gast.Dict(keys=keys, values=values)
        else:
            kwargs = gast.Constant(value=None, kind=None)
        for n in (args, kwargs):
            gast.copy_location(n, node)
        return templates.replace_expr("ag__.converted_call(f, args, kwargs)", origin=node,
                                      f=func, args=args, kwargs=kwargs)


def transform(node, ctx):
    return _Transformer().visit(node)
