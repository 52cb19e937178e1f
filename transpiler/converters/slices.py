"""Item assignment -> runtime operators with NumPy reference semantics.

`a[i] = v`      -> `ag__.set_item(a, ag__.index[i], v)`
`a[i:j] += v`   -> `ag__.aug_set_item(a, ag__.index[i:j], 'add', v)`
`a[0], b = t`   -> `(tmp, b) = t; ag__.set_item(a, ag__.index[0], tmp)`
`np.r_[a, b]`   -> `ag__.converted_call(np.r_.__getitem__, (ag__.index[a, b],), None)`
`a[i]`          -> `ag__.get_item(a, i)` (one expression as the index: a Python list
                   of numbers indexed by a traced value is read like an array)
`ag__.index[...]` returns the index object itself, so slice syntax stays readable. NumPy's
index tricks (`np.r_`, `np.c_`) build arrays with `__getitem__`, which would need the
values of traced arrays: reading one becomes a call, which the runtime lowers.
`a += b` on a name stays as written: abstract arrays implement `__iadd__` in place.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates

_AUG_OPS = {
    gast.Add: "add", gast.Sub: "subtract", gast.Mult: "multiply", gast.Div: "true_divide",
    gast.FloorDiv: "floor_divide", gast.Mod: "remainder", gast.Pow: "power",
    gast.MatMult: "matmul", gast.BitAnd: "bitwise_and", gast.BitOr: "bitwise_or",
    gast.BitXor: "bitwise_xor", gast.LShift: "left_shift", gast.RShift: "right_shift",
}


def _raw_index(subscript):
    expr = templates.replace_expr("ag__.index[0]", origin=subscript)
    expr.slice = subscript.slice
    return expr


def _set_item(subscript, value, origin):
    return templates.replace(
        "ag__.set_item(target, index, value)", origin=origin,
        target=subscript.value, index=_raw_index(subscript), value=value)


_INDEX_TRICKS = frozenset({"r_", "c_"})


class _Transformer(gast.NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_Subscript(self, node):
        self.generic_visit(node)
        value = node.value
        if isinstance(node.ctx, gast.Load) and isinstance(value, gast.Attribute) and \
                value.attr in _INDEX_TRICKS:
            return templates.replace_expr(
                "ag__.converted_call(owner.__getitem__, (index,), None)", origin=node,
                owner=value, index=_raw_index(node))
        if isinstance(node.ctx, gast.Load) and not isinstance(
                node.slice, (gast.Slice, gast.Tuple, gast.Constant)):
            return templates.replace_expr("ag__.get_item(target, index)", origin=node,
                                          target=value, index=node.slice)
        return node

    def _split_target(self, target, post):
        """Replace subscripts inside a (nested) target by temporaries."""
        if isinstance(target, gast.Subscript):
            tmp = self.ctx.new_name("item")
            post.extend(_set_item(target, gast.Name(id=tmp, ctx=gast.Load(), annotation=None,
                                                    type_comment=None), target))
            return gast.copy_location(
                gast.Name(id=tmp, ctx=gast.Store(), annotation=None, type_comment=None),
                target)
        if isinstance(target, (gast.Tuple, gast.List)):
            target.elts = [self._split_target(t, post) for t in target.elts]
        return target

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Subscript):
            return _set_item(node.targets[0], node.value, node)
        if not any(isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store)
                   for t in node.targets for n in gast.walk(t)):
            return node
        post: list = []
        node.targets = [self._split_target(t, post) for t in node.targets]
        return [node] + post

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.target, gast.Subscript):
            return node
        op = _AUG_OPS[type(node.op)]
        return templates.replace(
            f"ag__.aug_set_item(target, index, '{op}', value)", origin=node,
            target=node.target.value, index=_raw_index(node.target), value=node.value)


def transform(node, ctx):
    return _Transformer(ctx).visit(node)
