"""`global x` then `x = v` -> `ag__.set_global('x', v)`.

A function that rebinds a module global (a counter, a cache, a log) changes state that
outlives the call. The `global` statement is dropped and every store of a declared name
becomes a call of the runtime's `set_global`, which writes the module's globals while
staging (so later reads in the same call see the new value) and has the driver replay
the store after every run with the run's values (`runtime/operators/effects.py`).
Reads of the name are left alone: with no local binding left they read the module's
globals, as the `global` statement made them do. `nonlocal` stays refused.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.common import augmented_update, split_targets, store_name


def _declared(fn):
    """Names declared `global` in function `fn`'s own scope (not in nested ones)."""
    names = set()
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Global):
            names.update(node.names)
        elif not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef,
                                   gast.Lambda)):
            stack.extend(gast.iter_child_nodes(node))
    return names


class _Scope(gast.NodeTransformer):
    """Rewrites one function's statements; nested functions get their own scope."""

    def __init__(self, ctx, names):
        self.ctx, self.names = ctx, names

    def visit_FunctionDef(self, node):
        return _convert_function(node, self.ctx)

    def visit_Global(self, node):
        return gast.Pass()

    def _store(self, name, value, origin):
        return templates.replace(f"ag__.set_global('{name}', value)", origin=origin,
                                 value=value)

    def _declared_name(self, target):
        return isinstance(target, gast.Name) and target.id in self.names

    def _split(self, target, origin):
        return split_targets(target, self._declared_name,
                             lambda t, tmp: self._store(t.id, store_name(tmp, load=True),
                                                        origin), self.ctx, "glob")

    def visit_Assign(self, node):
        self.generic_visit(node)
        stores: list = []
        targets = []
        for t in node.targets:
            t, more = self._split(t, node)
            targets.append(t)
            stores.extend(more)
        node.targets = targets
        return [node] + stores if stores else node

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        if self._declared_name(node.target):
            if node.value is None:
                return gast.Pass()
            return self._store(node.target.id, node.value, node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not self._declared_name(node.target):
            return node
        name = node.target.id
        tmp = self.ctx.new_name("glob")
        out = templates.replace(f"{tmp} = {name}", origin=node)
        out.append(augmented_update(tmp, node))
        out += self._store(name, store_name(tmp, load=True), node)
        return out

    def visit_For(self, node):
        self.generic_visit(node)
        node.target, stores = self._split(node.target, node)
        node.body = stores + node.body
        return node


def _convert_function(fn, ctx):
    names = _declared(fn)
    scope = _Scope(ctx, names)
    fn.body = [s for stmt in fn.body for s in _as_list(scope.visit(stmt))] or [gast.Pass()]
    return fn


def _as_list(x):
    return x if isinstance(x, list) else [x]


def transform(node, ctx):
    return _convert_function(node, ctx)
