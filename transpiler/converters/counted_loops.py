"""Counted `while` loops: `while p < n: ...; p += 1` with a static bound on their trips.

Legacy iterative code writes its iteration limit as a counter (`while it < maxiter:`
with `it += 1` and a data-dependent `break`) and often grows a history inside
(`errors = np.hstack((errors, e))`). Staged, such a variable needs a bound on its
length, which a `for` loop over a static range has and a `while` has not. This pass
runs before the jump converters rewrite the loop, recognises the counter, and marks
the loop (attribute `COUNTER`) so that the control-flow converter passes the runtime
a thunk of its start and limit; when both are Python numbers the runtime computes the
trip bound from them (`ag__.trip_bound`).

The shape recognised, so that every iteration but the last moves the counter by one
fixed step toward its limit:
- the test is one comparison of a name with an expression (`p < n`, `n >= p`, ...);
- the body assigns that name once, as a statement of its own top level:
  `p += c` / `p -= c` / `p = p + c` with `c` a positive int literal, moving toward
  the limit;
- the body has no `continue` of its own (which could skip the step);
- the limit is built from names and constants the body does not assign.
An iteration that ends the loop (`break`, `return`, raising) may skip the step: it
runs no more iterations. The bound is still checked at run time where it is used.
"""
from __future__ import annotations

import gast

from npxla.transpiler.converters.common import SCOPES, walk_scope

COUNTER = "npxla_counter"  # (counter name, limit expression, step, inclusive, direction)

_LOOPS = (gast.For, gast.AsyncFor, gast.While)
_TOWARD = {gast.Lt: (1, False), gast.LtE: (1, True), gast.Gt: (-1, False),
           gast.GtE: (-1, True)}
_FLIPPED = {gast.Lt: gast.Gt, gast.LtE: gast.GtE, gast.Gt: gast.Lt, gast.GtE: gast.LtE}


def _comparisons(test):
    """Each reading of `a <op> b` as (counter name, limit, direction, inclusive)."""
    if not isinstance(test, gast.Compare) or len(test.ops) != 1 or \
            type(test.ops[0]) not in _TOWARD:
        return []
    left, op, right = test.left, type(test.ops[0]), test.comparators[0]
    return [(a.id, b) + _TOWARD[o] for a, o, b in ((left, op, right),
                                                   (right, _FLIPPED[op], left))
            if isinstance(a, gast.Name)]


def _step(stmt, name):
    """The signed step of `name += c`, `name -= c` or `name = name ± c`, else None."""
    if isinstance(stmt, gast.AugAssign) and _is_name(stmt.target, name):
        op, value = type(stmt.op), stmt.value
    elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
            _is_name(stmt.targets[0], name) and isinstance(stmt.value, gast.BinOp) and \
            _is_name(stmt.value.left, name):
        op, value = type(stmt.value.op), stmt.value.right
    else:
        return None
    if not (isinstance(value, gast.Constant) and type(value.value) is int and value.value > 0):
        return None
    return {gast.Add: 1, gast.Sub: -1}.get(op, 0) * value.value or None


def _is_name(node, name):
    return isinstance(node, gast.Name) and node.id == name


def _stored_names(stmts):
    out = set()
    for stmt in stmts:
        for node in walk_scope(stmt):
            if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                out.add(node.id)
            elif isinstance(node, (gast.Global, gast.Nonlocal)):
                out.update(node.names)
    return out


def _own_continue(stmts):
    """Whether a `continue` in `stmts` belongs to the loop they are the body of."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.Continue):
            return True
        if not isinstance(node, SCOPES + _LOOPS):
            todo.extend(gast.iter_child_nodes(node))
        elif isinstance(node, _LOOPS):
            todo.extend(node.orelse)      # a nested loop's `else:` is this loop's code
    return False


def _simple_limit(expr):
    return all(isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp,
                              gast.operator, gast.unaryop, gast.Load))
               for n in gast.walk(expr))


def counter_of(loop):
    """(name, limit, step > 0, inclusive, direction +1/-1) when `loop` is a counted
    `while`, else None."""
    if loop.orelse or _own_continue(loop.body):
        return None
    for name, limit, direction, inclusive in _comparisons(loop.test):
        stepping = [(s, k) for s, k in ((s, _step(s, name)) for s in loop.body)
                    if k is not None]
        if len(stepping) != 1 or not _simple_limit(limit):
            continue
        stmt, step = stepping[0]
        limit_names = {n.id for n in gast.walk(limit) if isinstance(n, gast.Name)}
        if step * direction > 0 and \
                name not in _stored_names([s for s in loop.body if s is not stmt]) and \
                not _stored_names(loop.body) & limit_names:
            return name, limit, abs(step), inclusive, direction
    return None


class _Marker(gast.NodeVisitor):
    def visit_While(self, node):
        self.generic_visit(node)
        found = counter_of(node)
        if found is not None:
            setattr(node, COUNTER, found)


def transform(node, ctx):
    _Marker().visit(node)
    return node
