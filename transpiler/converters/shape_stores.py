"""`a.shape = s` -> `ag__.converted_call(setattr, (a, 'shape', s), None)`.

NumPy reshapes an array in place through its `shape` attribute (every alias sees the
new shape). The runtime's registered `setattr` does that for arrays made inside the
compiled function and refuses it, located, for anything else. Every other attribute
store stays refused by `unsupported.py`, which lets exactly these statements through.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates


def is_shape_store(node) -> bool:
    """`x.shape = value` with one target (not chained, augmented or a loop target)."""
    return isinstance(node, gast.Assign) and len(node.targets) == 1 and \
        isinstance(node.targets[0], gast.Attribute) and node.targets[0].attr == "shape"


class _Transformer(gast.NodeTransformer):
    def visit_Assign(self, node):
        self.generic_visit(node)
        if not is_shape_store(node):
            return node
        return templates.replace(
            "ag__.converted_call(setattr, (target, 'shape', value), None)", origin=node,
            target=node.targets[0].value, value=node.value)


def transform(node, ctx):
    return _Transformer().visit(node)
