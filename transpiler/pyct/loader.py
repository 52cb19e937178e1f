"""Loading converted code as a function that shares the original's globals and cells.

The converted AST keeps the user's positions and is compiled under the user's file
name, so tracebacks show the user's own lines. The generated source is also written to
a real file (see `source_file`) for inspection with `to_source`/`npxla convert`.
"""
from __future__ import annotations

import ast
import os
import tempfile
import types

import gast

from npxla.transpiler.base.origin import register_code

RUNTIME_NAME = "ag__"
_FACTORY = "__npxla_factory"


def to_python_ast(node):
    tree = gast.gast_to_ast(node)
    return ast.fix_missing_locations(tree)


def source_of(node) -> str:
    return ast.unparse(to_python_ast(node))


def load(fn_node, original, filename, runtime_module):
    """Compile converted FunctionDef `fn_node` into a function bound like `original`."""
    freevars = original.__code__.co_freevars
    fn_ast = to_python_ast(fn_node)
    _defaults_from_original(fn_ast.args)
    factory = ast.FunctionDef(
        name=_FACTORY,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=RUNTIME_NAME)] +
                           [ast.arg(arg=v) for v in freevars], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fn_ast, ast.Return(value=ast.Name(id=fn_node.name,
                                                                ctx=ast.Load()))],
        decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    line = getattr(fn_node, "lineno", 1)
    for node in (factory, factory.body[1], factory.body[1].value):
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = line, 0, line, 0
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec")
    namespace: dict = {}
    exec(code, original.__globals__, namespace)
    placeholder = namespace[_FACTORY](runtime_module, *([None] * len(freevars)))
    cells = dict(zip(freevars, original.__closure__ or ()))
    own = dict(zip(placeholder.__code__.co_freevars, placeholder.__closure__ or ()))
    closure = tuple(cells.get(name, own.get(name)) for name in placeholder.__code__.co_freevars)
    new = types.FunctionType(placeholder.__code__, original.__globals__, original.__name__,
                             original.__defaults__, closure or None)
    new.__kwdefaults__ = original.__kwdefaults__
    new.__qualname__ = original.__qualname__
    new.__doc__ = original.__doc__
    new.__wrapped_original__ = original
    register_code(new.__code__)
    return new


def _defaults_from_original(args):
    """Blank the default values' expressions (the original's evaluated defaults are used):
    evaluated in the factory they could name what is not there (`lambda v, f=f: f(v)`
    made in a loop, `def g(x, k=k)` inside another function)."""
    args.defaults = [ast.Constant(value=None) for _ in args.defaults]
    args.kw_defaults = [None if d is None else ast.Constant(value=None)
                        for d in args.kw_defaults]


def source_file(name: str, source: str) -> str:
    """Write generated source to a real file (one per function) and return its path."""
    directory = os.path.join(tempfile.gettempdir(), f"npxla-{os.getuid()}-generated")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    path = os.path.join(directory, f"{name}.py")
    with open(path, "w") as fh:
        fh.write(source)
    return path
