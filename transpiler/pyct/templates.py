"""Code generation from small source templates instead of hand-built AST.

`replace("ag__.set_item(target, index, value)", origin=node, target=..., ...)` parses
the template and substitutes names with nodes (or strings, which become names).
Substituted user nodes keep their own positions; template nodes take `origin`'s, so
errors raised by generated code still point at the user's line. A placeholder written
as a statement of its own (`body` on a line) may be replaced by a list of statements:
they are spliced in as they are (moved, not copied), so a converter can wrap user code.
"""
from __future__ import annotations

import copy
import textwrap

import gast

_MARK = "_npxla_template"


class _Substitute(gast.NodeTransformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and isinstance(
                self.replacements.get(node.value.id), list):
            return self.replacements[node.value.id]
        return self.generic_visit(node)

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
    span = _header_span(origin) if origin is not None else None
    for stmt in tree.body:
        for node in gast.walk(stmt):
            if getattr(node, _MARK, False):
                if span is not None and "lineno" in node._attributes:
                    (node.lineno, node.col_offset, node.end_lineno,
                     node.end_col_offset) = span
                delattr(node, _MARK)
    return tree.body


def _header_span(origin):
    """Where generated code points: a compound statement's header line only (`if c:`),
    not its whole body, so tracebacks and carets show the line that was converted."""
    start = (origin.lineno, origin.col_offset)
    end = (getattr(origin, "end_lineno", None) or origin.lineno,
           getattr(origin, "end_col_offset", None) or origin.col_offset)
    if isinstance(origin, gast.stmt) and hasattr(origin, "body") or end[0] != start[0]:
        header = getattr(origin, "test", None) or getattr(origin, "iter", None)
        if header is not None and header.end_lineno == origin.lineno:
            return start + (origin.lineno, header.end_col_offset)
        return start + (origin.lineno, origin.col_offset + 1)
    return start + end


def replace_expr(template: str, origin=None, **replacements):
    return replace(template, origin, **replacements)[0].value
