"""`self.__w` in a method -> `self._Cls__w`: Python's name mangling, done by hand.

Python mangles private names (`__name`, not ending in `__`) used inside a class body at
compile time. Converted code is compiled outside the class, so without this pass a
method reading `self.__w` would look up the raw name: an AttributeError on valid code,
or silently another attribute where one with the raw name exists. Mangled here are
attribute names (loads and stores) and the names declared `global`/read in the method,
with the innermost enclosing class of the converted function (`Context.class_name`).
"""
from __future__ import annotations

import gast


def mangle(name, class_name):
    """The name Python compiles `name` to inside class `class_name`."""
    stripped = (class_name or "").lstrip("_")
    if not stripped or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    return f"_{stripped}{name}"


def innermost_class(qualname):
    """The innermost class enclosing a function with this `__qualname__`, or ""."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i]
    return ""


class _Transformer(gast.NodeTransformer):
    def __init__(self, class_name):
        self.class_name = class_name

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = mangle(node.attr, self.class_name)
        return node

    def visit_Name(self, node):
        node.id = mangle(node.id, self.class_name)
        return node

    def visit_Global(self, node):
        node.names = [mangle(n, self.class_name) for n in node.names]
        return node

    def visit_ClassDef(self, node):
        return node          # a class defined inside: its own mangling, not converted


def transform(node, ctx):
    if not ctx.class_name:
        return node
    return _Transformer(ctx.class_name).visit(node)
