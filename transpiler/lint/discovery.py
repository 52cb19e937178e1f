"""The linter's view of a file before it looks inside functions: the module's names
(`ModuleInfo`), one walk that records every call and, per function, its nodes by type,
and the jitted functions to analyse.

Which functions are jitted, by which `jit` and with which static arguments is decided by
the shared jit discovery (`transpiler/analysis/jit_discovery.py`), the same one
`npxla convert` uses; this module only feeds it the calls its own walk found.
"""
from __future__ import annotations

import ast

from npxla.transpiler.analysis import jit_discovery
from npxla.transpiler.analysis.jit_discovery import JitTarget, ModuleNames


class ModuleInfo(ModuleNames):
    """What the linter knows about a file before looking inside functions: the module's
    names, plus what `discover` records."""

    def __init__(self, tree: ast.Module, path: str):
        super().__init__(tree)
        self.path = path
        self.calls: list = []          # (call, scope, in loop), by discover()
        self.node_tables: dict = {}    # fn id -> {type: [nodes]}, by discover()
        # fn id -> ast_facts.FunctionFacts (`taint.Analysis.facts`): kept with the parsed
        # module, so that a helper module read for several linted files is analysed once
        self.facts: dict = {}


def module_info(tree: ast.Module, path: str) -> ModuleInfo:
    return ModuleInfo(tree, path)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def _scan(info):
    """One walk over the module. Returns (decorated function defs, [(call, scope node,
    in a loop)] for every call), and fills `info.node_tables` (function id ->
    {node type: [nodes in it, nested functions included]}). "In a loop": lexically inside
    a loop body or a comprehension of the same function."""
    decorated, calls = [], []
    tables = info.node_tables
    stack = [(child, info.tree, False, ()) for child in reversed(info.tree.body)]
    pop, push = stack.pop, stack.append
    fields_of = _child_fields
    while stack:
        node, scope, in_loop, chain = pop()
        cls = node.__class__
        for table in chain:
            bucket = table.get(cls)
            if bucket is None:
                table[cls] = [node]
            else:
                bucket.append(node)
        if cls is ast.Call:
            calls.append((node, scope, in_loop))
        elif cls in _SCOPES:
            if node.decorator_list:
                decorated.append(node)
            own = {cls: [node]}
            tables[id(node)] = own
            inner = chain + (own,)
            for child in node.decorator_list:
                push((child, scope, in_loop, chain))
            push((node.args, scope, in_loop, inner))
            if node.returns is not None:
                push((node.returns, scope, in_loop, chain))
            for child in reversed(node.body):
                push((child, node, False, inner))
            continue
        elif cls in _LOOPS:
            for child in reversed(node.orelse):
                push((child, scope, in_loop, chain))
            for child in reversed(node.body):
                push((child, scope, True, chain))
            if cls is ast.While:
                push((node.test, scope, in_loop, chain))
            else:
                push((node.iter, scope, in_loop, chain))
                push((node.target, scope, in_loop, chain))
            continue
        elif cls in _COMPS:
            for g in node.generators:
                push((g.target, scope, in_loop, chain))
                push((g.iter, scope, in_loop, chain))
                for c in g.ifs:
                    push((c, scope, True, chain))
            for child in ([node.key, node.value] if cls is ast.DictComp else [node.elt]):
                push((child, scope, True, chain))
            continue
        elif cls is ast.Lambda:
            push((node.args, scope, in_loop, chain))
            push((node.body, scope, False, chain))
            continue
        elif cls is ast.ClassDef:
            for child in node.decorator_list + node.bases + node.keywords:
                push((child, scope, in_loop, chain))
            for child in reversed(node.body):
                push((child, scope, False, chain))
            continue
        for name in fields_of(cls):
            value = getattr(node, name, None)
            if value is None:
                continue
            if isinstance(value, list):
                for item in reversed(value):
                    if isinstance(item, ast.AST):
                        push((item, scope, in_loop, chain))
            elif isinstance(value, ast.AST):
                push((value, scope, in_loop, chain))
    return decorated, calls


_FIELDS_CACHE: dict = {}
_LEAF_FIELDS = {"ctx", "id", "attr", "arg", "name", "names", "module", "level", "op",
                "type_comment", "kind", "conversion", "is_async", "value_const"}


def _child_fields(cls):
    fields = _FIELDS_CACHE.get(cls)
    if fields is None:
        fields = tuple(f for f in cls._fields if f not in _LEAF_FIELDS or
                       (f == "op" and False))
        if cls is ast.Constant:
            fields = ()
        _FIELDS_CACHE[cls] = fields
    return fields


def discover(info: ModuleInfo, wrappers=(), extra=()) -> list[JitTarget]:
    """Every jitted function of the file (`jit_discovery.discover`), recording every call
    of the module in `info.calls` for the module-wide rules."""
    decorated, calls = _scan(info)
    info.calls = calls
    return jit_discovery.discover(info, wrappers, extra, found=(decorated, calls))


def all_functions(info: ModuleInfo, flavor="npxla") -> list[JitTarget]:
    """Every module-level function and method, for `--assume-jit`."""
    return jit_discovery.all_functions(info, flavor)
