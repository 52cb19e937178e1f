"""Code generation from small source templates instead of hand-built AST.

`replace("ag__.set_item(target, index, value)", origin=node, target=..., ...)` parses
the template and substitutes names with nodes (or strings, which become names).
Substituted user nodes keep their own positions; template nodes take `origin`'s, so
errors raised by generated code still point at the user's line.
"""
from __future__ import annotations

import copy
import textwrap

import gast

_MARK = "_npxla_template"


class _Substitute(gast.NodeTransformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def visit_Name(self, node):
        if node.id not in self.replacements:
            return node
        new = self.replacements[node.id]
        if isinstance(new, str):
            node.id = new
            return node
        new = copy.deepcopy(new)
        if hasattr(new, "ctx") and isinstance(new, (gast.Name, gast.Attribute,
                                                    gast.Subscript, gast.Tuple, gast.List)):
            new.ctx = node.ctx
        return new


def replace(template: str, origin=None, **replacements):
    """Statements from `template` with names substituted; positions from `origin`."""
    tree = gast.parse(textwrap.dedent(template))
    for node in gast.walk(tree):
        setattr(node, _MARK, True)
    tree = _Substitute(replacements).visit(tree)
    for stmt in tree.body:
        for node in gast.walk(stmt):
            if getattr(node, _MARK, False):
                if origin is not None and "lineno" in node._attributes:
                    gast.copy_location(node, origin)
                delattr(node, _MARK)
    return tree.body


def replace_expr(template: str, origin=None, **replacements):
    return replace(template, origin, **replacements)[0].value
