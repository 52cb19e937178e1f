"""`for` loops that only append to a local list: `out = []; for i in ...: out.append(v)`.

A staged loop cannot change a Python list, so the runtime collects such appends into
the rows of one array instead (`runtime/operators/collected_appends.py`). That is
only right when nothing reads the list while the loop runs: a read of `out[-1]`
inside the loop would see the list as it was when the loop was traced. This pass
proves it from the source, before the other converters rewrite the loop, and marks
the loop (attribute `APPENDS`) with the names of such lists; the control-flow
converter passes the runtime a thunk of them (`for_stmt(..., appends=lambda: (out,))`).
A recurrence over the items (`path.append(path[-1] + step[i])`) qualifies: its only
read is of the last item.

A name qualifies for a loop when, in the function that holds the loop:
- it is a local made by `name = [...]` or `name = list(...)` (a new list; not a
  parameter, not `global`/`nonlocal`, not bound by a `for` or an augmented
  assignment), or rebound by a plain `name = value` only after the loop, outside every
  loop around it: `out = np.array(out)` once the loop is done, the commonest ending of
  such a loop, cannot bring the list back into the loop;
- no nested function, lambda or class mentions it (one could read it while the loop
  runs);
- inside the loop, it appears only as the receiver of `.append(...)` or read as
  `name[-1]` (the runtime serves the item appended last: `Collector.last`);
- before the loop's end, elsewhere, it appears only as the receiver of `.append` or
  subscripted (`name[0]`), never as a value that could be passed or stored away.
"""
from __future__ import annotations

import gast

from npxla.transpiler.converters.common import SCOPES, functions, walk_scope

APPENDS = "npxla_appends"     # the names of the lists a `For` loop only appends to


def _parents(fn):
    out = {}
    for node in walk_scope(fn):
        for child in gast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def is_receiver(name, parents):
    """Whether Name `name` is `name.append` called: `name.append(...)`."""
    attr = parents.get(id(name))
    call = parents.get(id(attr))
    return isinstance(attr, gast.Attribute) and attr.attr == "append" and \
        isinstance(call, gast.Call) and call.func is attr


def _is_last_read(name, parents):
    """Whether Name `name` is read as `name[-1]` (the item appended last)."""
    sub = parents.get(id(name))
    if not (isinstance(sub, gast.Subscript) and sub.value is name and
            isinstance(sub.ctx, gast.Load)):
        return False
    index = sub.slice
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub):
        index = index.operand
        return isinstance(index, gast.Constant) and type(index.value) is int and \
            index.value == 1
    return isinstance(index, gast.Constant) and type(index.value) is int and index.value == -1


def _new_list(value):
    return isinstance(value, gast.List) or (
        isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and
        value.func.id == "list")


def _nested_names(fn):
    """Names mentioned inside scopes nested in `fn` (and declared global/nonlocal)."""
    out = set()
    for node in walk_scope(fn):
        if node is not fn and isinstance(node, SCOPES):
            out.update(n.id for n in gast.walk(node) if isinstance(n, gast.Name))
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            out.update(node.names)
    return out


def candidates(fn):
    """The locals of `fn` bound only by plain assignments, at least one a new list, and
    unseen by nested scopes: {name: ([its Name nodes in fn's own scope], [the stores
    that bind something other than a new list])}."""
    params = {a.id for a in gast.walk(fn.args) if isinstance(a, gast.Name)}
    excluded = params | _nested_names(fn)
    uses: dict = {}
    for node in walk_scope(fn):
        if isinstance(node, gast.Name) and node.id not in excluded:
            uses.setdefault(node.id, []).append(node)
    parents = _parents(fn)
    out = {}
    for name, nodes in uses.items():
        stores = [n for n in nodes if not isinstance(n.ctx, gast.Load)]
        if not stores or not all(isinstance(parents.get(id(n)), gast.Assign) and
                                 len(parents[id(n)].targets) == 1 and
                                 parents[id(n)].targets[0] is n for n in stores):
            continue
        rebinds = [n for n in stores if not _new_list(parents[id(n)].value)]
        if len(rebinds) < len(stores):
            out[name] = (nodes, rebinds)
    return out, parents


def _loops_around(node, parents):
    """The ids of the loops that hold `node`."""
    out = set()
    up = parents.get(id(node))
    while up is not None:
        if isinstance(up, (gast.For, gast.While)):
            out.add(id(up))
        up = parents.get(id(up))
    return out


def _rebound_after(rebinds, loop, parents):
    """Whether every rebinding of the list's name comes after `loop` and outside every
    loop around it (so no iteration of `loop` can follow it)."""
    around = _loops_around(loop, parents)
    return all(not before(n, loop) and not (_loops_around(n, parents) & around)
               for n in rebinds)


def before(node, loop):
    return (node.lineno, node.col_offset) < (loop.end_lineno, loop.end_col_offset)


def mark(fn):
    lists, parents = candidates(fn)
    for loop in walk_scope(fn):
        if not isinstance(loop, gast.For) or loop.orelse:
            continue
        inside = {id(n) for s in loop.body for n in walk_scope(s)}
        names = []
        for name, (nodes, rebinds) in lists.items():
            if not _rebound_after(rebinds, loop, parents):
                continue
            loads = [n for n in nodes if isinstance(n.ctx, gast.Load)]
            appended = [n for n in loads if id(n) in inside and is_receiver(n, parents)]
            if not appended:
                continue
            ok = all(is_receiver(n, parents) or _is_last_read(n, parents)
                     for n in loads if id(n) in inside) and \
                all(is_receiver(n, parents) or
                    isinstance(parents.get(id(n)), gast.Subscript) and
                    parents[id(n)].value is n
                    for n in loads if id(n) not in inside and before(n, loop))
            if ok:
                names.append(name)
        if names:
            setattr(loop, APPENDS, tuple(sorted(names)))


def transform(node, ctx):
    for fn in functions(node):
        mark(fn)
    return node
