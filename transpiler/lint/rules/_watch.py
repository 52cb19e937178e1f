"""Expression-level hooks for rules that need values the analysis has no event for.

The traced-value analysis (`transpiler.lint.taint`) reports calls, subscripts, control
flow and mutations to the rules, but not every expression: an attribute read
(`a, b = M.flat`) or a `%` formatting (`"%e" % s`) can sit anywhere. It records the
value of every expression it evaluates in `ctx.values` (what `ctx.value(node)` reads),
children before parents; `watch` replaces that table, per analysed function, with one
that calls the rule back as each expression of a given node type gets its value, with
its children's values already recorded.

Where the table cannot be replaced (an analysis without `ctx.values`), `watch` returns
False and the rule falls back to the expressions its events carry.
"""
from __future__ import annotations


class _Watched(dict):
    __slots__ = ("ctx", "callbacks")

    def __init__(self, table, ctx):
        super().__init__(table)
        self.ctx = ctx
        self.callbacks = {}          # node class -> {key: callback}

    def __setitem__(self, node, value):
        dict.__setitem__(self, node, value)
        hooks = self.callbacks.get(node.__class__)
        if hooks:
            for callback in list(hooks.values()):
                callback(self.ctx, node, value)


def watch(ctx, node_class, key, callback) -> bool:
    """Call `callback(ctx, node, value)` whenever the analysis of `ctx`'s function
    records the value of a `node_class` expression. `key` identifies the callback (a
    second `watch` with the same key replaces it). Returns whether the hook is in place."""
    table = getattr(ctx, "values", None)
    if not isinstance(table, _Watched):
        if type(table) is not dict:
            return False
        table = _Watched(table, ctx)
        try:
            ctx.values = table
        except AttributeError:
            return False
    table.callbacks.setdefault(node_class, {})[key] = callback
    return True


def watched(ctx, node_class, key) -> bool:
    table = getattr(ctx, "values", None)
    return isinstance(table, _Watched) and key in table.callbacks.get(node_class, {})


def get(ctx, node):
    """The recorded value of `node`, or None when it has none yet."""
    table = getattr(ctx, "values", None)
    return dict.get(table, node) if isinstance(table, dict) else None
