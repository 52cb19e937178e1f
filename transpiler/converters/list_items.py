"""Items of a local list updated in a loop at constant positions: `counts[-1] += n`.

Legacy code keeps running totals in list items (nolds' `sampen`: `counts[-1] +=
np.sum(dsts < tolerance)` in a loop over every template). A list cannot change inside
a staged loop, so such a loop ran as Python, one copy of its body per iteration: 500
templates compiled for 64 s. This pass gives each item a variable of its own for the
loop (scalar replacement), which a staged loop carries like any accumulator:

    if ag__.list_items_distinct(counts, (-1,)):
        item__0 = counts[-1]
        for i in ...:
            item__0 += np.sum(...)
        counts[-1] = item__0
    else:
        <the loop as written>

It applies where the list is a local made only by `name = [...]` / `list(...)`, no
nested function or lambda mentions it, inside the loop it appears only subscripted by
int literals (read, assigned, augmented), before the loop's end elsewhere only as an
`.append` receiver or subscripted (it cannot have been passed or stored away:
`append_loops`), and the loop has no `return` or `yield` and is not inside a `try`
(the items are written back after the loop). At run time the positions must exist and
be distinct (`counts[0]` and `counts[-1]` of a one-item list are one item), else the
loop runs as written.
"""
from __future__ import annotations

import copy

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.append_loops import before, candidates, is_receiver
from npxla.transpiler.converters.common import functions, walk_scope

_LOOPS = (gast.For, gast.While)


def _constant(index):
    """The int of an index `k` / `-k` literal, else None."""
    sign = 1
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub):
        sign, index = -1, index.operand
    if isinstance(index, gast.Constant) and type(index.value) is int:
        return sign * index.value
    return None


def _positions(loop, nodes, parents):
    """{position: [Subscript nodes]} when every mention of the list inside `loop` is
    the list subscripted by an int literal (not deleted), else None."""
    inside = {id(n) for s in loop.body for n in walk_scope(s)}
    found: dict = {}
    for n in nodes:
        if id(n) not in inside:
            continue
        sub = parents.get(id(n))
        if not isinstance(sub, gast.Subscript) or sub.value is not n or \
                isinstance(sub.ctx, gast.Del) or _constant(sub.slice) is None:
            return None
        found.setdefault(_constant(sub.slice), []).append(sub)
    return found or None


def _escapes_before(loop, nodes, parents):
    inside = {id(n) for s in loop.body for n in walk_scope(s)}
    return not all(is_receiver(n, parents) or
                   isinstance(parents.get(id(n)), gast.Subscript) and
                   parents[id(n)].value is n
                   for n in nodes if isinstance(n.ctx, gast.Load) and
                   id(n) not in inside and before(n, loop))


def _plain(loop):
    """No `return`/`yield` inside (the items are written back after the loop)."""
    return not any(isinstance(n, (gast.Return, gast.Yield, gast.YieldFrom))
                   for s in loop.body + loop.orelse for n in walk_scope(s))


class _Rewriter(gast.NodeTransformer):
    def __init__(self, fn, ctx):
        self.ctx = ctx
        lists, self.parents = candidates(fn)
        # (only names never bound to anything but a new list)
        self.candidates = {name: nodes for name, (nodes, rebinds) in lists.items()
                           if not rebinds}
        self.in_try = 0

    def visit_Try(self, node):
        self.in_try += 1
        try:
            return self.generic_visit(node)
        finally:
            self.in_try -= 1

    def visit_FunctionDef(self, node):
        return node              # nested functions: their own pass (`functions`)

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def _loop(self, node):
        lists = [] if self.in_try or not _plain(node) else \
            [(name, found) for name, nodes in self.candidates.items()
             for found in [_positions(node, nodes, self.parents)]
             if found is not None and not _escapes_before(node, nodes, self.parents)]
        if not lists:
            return self.generic_visit(node)
        return self._rewrite(node, lists)

    visit_For = visit_While = _loop

    def _rewrite(self, loop, lists):
        original = copy.deepcopy(loop)
        tests, loads, stores = [], "", ""
        for name, found in lists:
            for k, subs in found.items():
                temp = self.ctx.new_name("item")
                for sub in subs:
                    _replace_child(self.parents[id(sub)], sub, gast.Name(
                        id=temp, ctx=sub.ctx, annotation=None, type_comment=None))
                loads += f"    {temp} = {name}[{k}]\n"
                stores += f"    {name}[{k}] = {temp}\n"
            tests.append(f"ag__.list_items_distinct({name}, "
                         f"({', '.join(str(k) for k in found)},))")
        self.generic_visit(loop)          # nested loops, for the other lists
        return templates.replace(
            f"if {' and '.join(tests)}:\n{loads}    __loop__\n{stores}"
            f"else:\n    __original__\n", origin=loop, __loop__=[loop],
            __original__=[original])


def _replace_child(parent, old, new):
    """Put `new` where `old` is among `parent`'s fields."""
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for i, v in enumerate(value):
                if v is old:
                    value[i] = new
                    return
    raise AssertionError("list_items: the subscript is not its parent's child")


def transform(node, ctx):
    for fn in functions(node):
        rewriter = _Rewriter(fn, ctx)
        body = []
        for stmt in fn.body:
            out = rewriter.visit(stmt)
            body.extend(out if isinstance(out, list) else [out])
        fn.body = body
    return node
