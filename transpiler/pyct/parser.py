"""Source of a function -> gast tree whose positions are the user's file positions."""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import textwrap

import gast

from npxla.transpiler.base.errors import UnsupportedSyntaxError


class SourceUnavailable(Exception):
    """No usable source (builtins, functions built with exec, a lambda that cannot be
    told from another on its line)."""

# the name a lambda's function definition gets in converted code (`<lambda>` is not an
# identifier); the loaded code keeps `<lambda>` as its name for tracebacks
LAMBDA_NAME = "__npxla_lambda"


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
    if getattr(target, "co_name", None) == "<lambda>":
        return _lambda_function(target, filename), filename, source
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


def _lambda_function(code, filename):
    """The lambda of `code` as a gast FunctionDef `def __npxla_lambda(args): return body`
    with the lambda's positions. `inspect` gives only the lines a lambda starts on, which
    may hold several lambdas or end inside one, so the whole file is parsed and the
    lambda is told from the others on its first line by the columns its code covers."""
    tree = _module_tree(filename, tuple(linecache.getlines(filename)))
    if tree is None:
        raise SourceUnavailable("cannot parse source: the file of the lambda")
    lo, hi = _code_span(code)
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    found = [n for n in ast.walk(tree)
             if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
             and _starts(n.body) <= lo and hi <= _ends(n.body)
             and tuple(a.arg for a in n.args.posonlyargs + n.args.args
                       + n.args.kwonlyargs) == params]
    # nested lambdas on one line: the innermost whose body covers all of the code
    found.sort(key=lambda n: (_starts(n.body), tuple(-v for v in _ends(n.body))))
    if not found or (len(found) > 1 and _span(found[-1]) == _span(found[-2])):
        raise SourceUnavailable("lambda")
    lam = found[-1]
    ret = ast.Return(value=lam.body)
    ast.copy_location(ret, lam.body)
    fdef = ast.FunctionDef(name=LAMBDA_NAME, args=lam.args, body=[ret], decorator_list=[],
                           returns=None, type_params=[])
    ast.copy_location(fdef, lam)
    return gast.ast_to_gast(fdef)


@functools.lru_cache(maxsize=16)
def _module_tree(filename, lines):
    """The parsed file (None if it does not parse); keyed on its lines, so an edited
    file is parsed again."""
    try:
        return ast.parse("".join(lines), filename)
    except (SyntaxError, ValueError):
        return None


def _code_span(code):
    """The first and last (line, column) the instructions of `code` come from (the
    zero-width positions of its prologue and implicit return left out)."""
    spans = [(p[0], p[2], p[1], p[3]) for p in code.co_positions()
             if None not in p and (p[0], p[2]) != (p[1], p[3])]
    if not spans:
        raise SourceUnavailable("lambda")
    return min((a, b) for a, b, _, _ in spans), max((c, d) for _, _, c, d in spans)


def _starts(node):
    return (node.lineno, node.col_offset)


def _ends(node):
    return (node.end_lineno, node.end_col_offset)


def _span(node):
    return _starts(node.body), _ends(node.body)
