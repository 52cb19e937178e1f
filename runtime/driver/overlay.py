"""The environment staging sees: captured arrays replaced by traced parameters.

A global array read by the code must be a traced value while staging (so the program
reads it at run time instead of baking its contents in), but the user's module, cells
and objects must not change: other threads and other code keep using them. So staging
runs a *copy* of exactly the path from the function to each captured array: the
function rebound to a copy of its globals dict and fresh closure cells, copies of the
user modules, containers and objects on the way, and copies of the helpers whose own
environment holds such an array. Everything else is the original object. Paths that
cannot be copied faithfully (class attributes) were pinned by `Environment` and their
arrays baked in by value instead.
"""
from __future__ import annotations

import sys
import types

from npxla.runtime.staging.trace import current_trace

_CONTAINERS = (tuple, list, dict)


class Overlay:
    def __init__(self, env, handles):
        self.env = env
        traced = [a for a in env.arrays if not a.pinned]
        # by input, not by value: two scalar attributes may hold one small int object
        self.subs = {id(a): h for a, h in zip(traced, handles)}
        self.memo: dict = {}        # id(original) -> substitute
        self.dicts: dict = {}       # id(globals dict) -> substitute dict

    def apply(self, converted, call_args, call_kwargs):
        """(function, args, kwargs) to stage: the converted function rebound to the
        substituted environment, static arguments replaced by their substitutes."""
        env = self.env
        fn = self._rebind(converted, env.top) if env.top.dirty else converted
        call_args, call_kwargs = list(call_args), dict(call_kwargs)
        for node in env.arg_nodes:
            if node.dirty and node.kind == "arg":
                call_args[node.key[0]] = self.value(node)
            elif node.dirty and node.kind == "kwarg":
                call_kwargs[node.key[0]] = self.value(node)
        return fn, tuple(call_args), call_kwargs

    # --- values -------------------------------------------------------------------------
    def value(self, node):
        """The substitute of a node's value (the value itself when nothing below it is
        traced)."""
        v = node.value
        if not node.dirty:
            return v
        if node.array is not None:
            return self.subs[id(node.array)]
        if node.fn is not None:
            return self.function(node.fn)
        t = type(v)
        if t is types.MethodType:
            return types.MethodType(self.value(node.children["__func__"]),
                                    self.value(node.children["__self__"]))
        if t is types.ModuleType:
            copy = self._module(v)
            for name, child in node.children.items():
                if child.dirty:
                    copy.__dict__[name] = self.value(child)
            return copy
        if t in _CONTAINERS or isinstance(v, tuple):
            return self._container(node)
        copy = self.memo.get(id(v))
        if copy is None:
            copy = self.memo[id(v)] = object.__new__(t)
            copy.__dict__.update(v.__dict__)
            trace = current_trace()
            if trace is not None:      # `return self` gives back the user's object
                trace.object_originals[id(copy)] = v
        for name, child in node.children.items():
            if child.dirty:
                copy.__dict__[name] = self.value(child)
        return copy

    def _container(self, node):
        v = node.value
        if type(v) is dict:
            return {k: self.value(node.children[k]) for k in v}
        items = [self.value(node.children[k]) for k in range(len(v))]
        if type(v) is list:
            return items
        return tuple(items) if type(v) is tuple else type(v)(*items)

    def _module(self, m):
        copy = self.memo.get(id(m))
        if copy is None:
            copy = self.memo[id(m)] = types.ModuleType(m.__name__, m.__doc__)
            copy.__dict__.update(m.__dict__)
            self.dicts[id(m.__dict__)] = copy.__dict__
        return copy

    def _globals(self, g):
        """The substitute of a globals dict: the dict of the module copy, so a helper
        and `module.attr` reads see the same substitutes."""
        d = self.dicts.get(id(g))
        if d is None:
            module = sys.modules.get(g.get("__name__", ""))
            if module is not None and module.__dict__ is g:
                d = self._module(module).__dict__
            else:
                d = self.dicts[id(g)] = dict(g)
        return d

    # --- functions ----------------------------------------------------------------------
    def function(self, info):
        fn = info.fn
        hit = self.memo.get(id(fn))
        if hit is not None:
            return hit
        new = self._copy_function(fn, fn, info)
        new.__npxla_original__ = fn
        return new

    def _rebind(self, converted, info):
        """The converted top-level function with the substituted globals and cells."""
        return self._copy_function(converted, info.fn, info, memo=False)

    def _copy_function(self, fn, original, info, memo=True):
        g = self._globals(fn.__globals__)
        cells = {}
        for name, node in info.cells.items():
            if node.dirty:
                cell = node.key[0]
                new_cell = self.memo.get(id(cell))
                if new_cell is None:
                    new_cell = self.memo[id(cell)] = types.CellType()
                    cells[name] = (new_cell, node)
                else:
                    cells[name] = (new_cell, None)
        closure = tuple(cells[n][0] if n in cells else c for n, c in
                        zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__,
                                 closure or None)
        new.__kwdefaults__ = fn.__kwdefaults__
        new.__qualname__ = fn.__qualname__
        new.__dict__.update(fn.__dict__)
        if memo:
            self.memo[id(original)] = new
        for name, node in info.globals.items():
            if node.dirty:
                g[name] = self.value(node)
        for new_cell, node in cells.values():
            if node is not None:
                new_cell.cell_contents = self.value(node)
        return new
