"""Attribute stores -> `ag__.set_attr(obj, 'name', value)`.

Legacy code keeps state on objects (`self.x = F @ self.x`, `self.steps += 1`,
`kf.P = P`). Python runs such a store once per execution; a compiled program runs
without Python, so the runtime's `set_attr` either applies the store at once (objects
made inside the function, and `a.shape = s`, NumPy's in-place reshape) or records it
while staging and has the driver replay it after every run with the run's values
(`runtime/operators/effects.py`). Stores inside targets that bind several values
(`self.x, self.P = x, P`) bind temporaries first and then store them in order; an
augmented store reads, updates and stores back, as Python does (`tmp = o.a; tmp += v;
o.a = tmp`, so an array attribute is still updated in place); an annotation without a
value (`self.x: T`) stores nothing and evaluates only the object. `del o.a`, and
attribute targets of `for` and `with`, stay refused (`unsupported.py`).
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.common import augmented_update, split_targets


def is_attribute_store(node) -> bool:
    """An assignment statement this pass rewrites: some target is (or holds) an
    attribute."""
    if isinstance(node, gast.Assign):
        return any(_has_attribute(t) for t in node.targets)
    if isinstance(node, (gast.AugAssign, gast.AnnAssign)):
        return isinstance(node.target, gast.Attribute)      # (`self.x: T` declares)
    return False


def _has_attribute(target):
    if isinstance(target, gast.Attribute):
        return True
    if isinstance(target, (gast.Tuple, gast.List)):
        return any(_has_attribute(e) for e in target.elts)
    if isinstance(target, gast.Starred):
        return _has_attribute(target.value)
    return False


def _store(attribute, value_name, origin):
    return templates.replace(f"ag__.set_attr(obj, '{attribute.attr}', {value_name})",
                             origin=origin, obj=attribute.value)


class _Transformer(gast.NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_Assign(self, node):
        self.generic_visit(node)
        if not is_attribute_store(node):
            return node
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Attribute):
            target = node.targets[0]
            return templates.replace(f"ag__.set_attr(obj, '{target.attr}', value)",
                                     origin=node, obj=target.value, value=node.value)
        value = self.ctx.new_name("value")
        out = templates.replace(f"{value} = rhs", origin=node, rhs=node.value)
        for target in node.targets:
            if isinstance(target, gast.Attribute):
                out.extend(_store(target, value, node))
                continue
            target, stores = split_targets(
                target, lambda t: isinstance(t, gast.Attribute),
                lambda t, name: _store(t, name, node), self.ctx, "attr")
            out.extend(templates.replace(f"target = {value}", origin=node, target=target))
            out.extend(stores)
        return out

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        if node.value is None and isinstance(node.target, gast.Attribute):
            # `self.richardson: Richardson` declares, and stores nothing: Python
            # evaluates the object only (numdifftools' _Limit.__init__)
            return gast.copy_location(gast.Expr(value=node.target.value), node)
        if not is_attribute_store(node):
            return node
        return templates.replace(f"ag__.set_attr(obj, '{node.target.attr}', value)",
                                 origin=node, obj=node.target.value, value=node.value)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not is_attribute_store(node):
            return node
        target = node.target
        obj, tmp = self.ctx.new_names("obj", "attr")
        out = templates.replace(f"{obj} = owner", origin=node, owner=target.value)
        out += templates.replace(f"{tmp} = {obj}.{target.attr}", origin=node)
        out.append(augmented_update(tmp, node))
        out += templates.replace(f"ag__.set_attr({obj}, '{target.attr}', {tmp})", origin=node)
        return out


def transform(node, ctx):
    return _Transformer(ctx).visit(node)
