"""Source of a function -> gast tree whose positions are the user's file positions."""
from __future__ import annotations

import ast
import inspect
import textwrap

import gast

from npxla.transpiler.base.errors import UnsupportedSyntaxError


class SourceUnavailable(Exception):
    """No usable source (builtins, lambdas, functions built with exec)."""


def _shift(tree, line_offset, col_offset):
    for node in ast.walk(tree):
        if hasattr(node, "lineno") and node.lineno is not None:
            node.lineno += line_offset
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += line_offset
            node.col_offset += col_offset
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += col_offset


def parse_function(fn):
    """(gast FunctionDef, filename, source lines). Positions match the original file."""
    # The code object, not the function: `inspect` follows `__wrapped__`, which would give
    # a functools.wraps decorator's wrapped function instead of the wrapper itself.
    target = getattr(fn, "__code__", fn)
    try:
        lines, first = inspect.getsourcelines(target)
        filename = inspect.getsourcefile(target) or inspect.getfile(target)
    except (OSError, TypeError) as e:
        raise SourceUnavailable(str(e)) from None
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(lines[0]) - len(lines[0].lstrip())
    if fn.__name__ == "<lambda>":
        raise SourceUnavailable("lambda")
    try:
        tree = ast.parse(dedented)
        _shift(tree, first - 1, indent)
    except SyntaxError as e:
        # a line less indented than the `def` (a column-0 comment such as `# scop begin`,
        # the text of a multi-line string) stops textwrap.dedent: parse the method as
        # the body of an `if` instead, whose indentation it keeps
        try:
            wrapped = ast.parse("if 1:\n" + source)
        except SyntaxError:
            raise SourceUnavailable(f"cannot parse source: {e}") from None
        tree = ast.Module(body=wrapped.body[0].body, type_ignores=[])
        _shift(tree, first - 2, 0)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(defs) != 1 or defs[0].name != getattr(target, "co_name", fn.__name__):
        raise SourceUnavailable("source is not a single function definition")
    if isinstance(defs[0], ast.AsyncFunctionDef):
        raise UnsupportedSyntaxError("async functions cannot be compiled")
    return gast.ast_to_gast(defs[0]), filename, source
