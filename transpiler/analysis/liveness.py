"""Liveness: which names may still be read before being rebound.

This is what keeps branch-local and loop-local temporaries out of the values a
converted `if` returns or a converted loop carries: a name modified in a branch
is an output only if it is live after the `if`.

Annotations (frozensets of plain names, see `anno.Static`): `LIVE_VARS_IN` /
`LIVE_VARS_OUT` on every statement (OUT: after it falls through, so empty for
`return` / `break` / `continue` / `raise`), plus `BODY_LIVE_VARS_IN` /
`ORELSE_LIVE_VARS_IN` on `if` / `while` / `for`. For `for` the body is entered
through its target, so `BODY_LIVE_VARS_IN` is measured before the target is
bound.
"""

import gast

from npxla.transpiler.analysis import activity
from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis import dataflow
from npxla.transpiler.analysis.anno import Static

_BRANCHING = (gast.If, gast.While, gast.For, gast.AsyncFor)


class Liveness(dataflow.Dataflow):
    """States are frozensets of names; `ins` holds the names live before a node."""

    forward = False

    def __init__(self, graph):
        super().__init__(graph)
        self._effects = {}
        for node in graph.nodes:
            if node.ast_node is not None:
                scope = activity.node_scope(node.ast_node)
                # Reads happen before writes within a node, so `x += 1` and
                # `a[i] = v` keep `x` / `a` live.
                kill = scope.modified_names | scope.deleted_names | scope.param_names
                self._effects[node] = kill, scope.read_names

    def transfer(self, node, state):
        if node not in self._effects:
            return state
        kill, gen = self._effects[node]
        return (state - kill) | gen


def resolve(fn_node, graph):
    """Annotate the statements of `fn_node` (activity must have run)."""
    solution = Liveness(graph).solve()
    for stmt in graph.statements():
        anno.setanno(stmt, Static.LIVE_VARS_IN, solution.meet_ins(graph.entries(stmt)))
        anno.setanno(stmt, Static.LIVE_VARS_OUT, solution.meet_ins(graph.successors(stmt)))
        if isinstance(stmt, _BRANCHING):
            header = graph.index[stmt]
            body_side = graph.nodes_within(stmt) - graph.block_nodes(stmt.orelse)
            starts = header.next
            anno.setanno(stmt, Static.BODY_LIVE_VARS_IN,
                         solution.meet_ins(starts & body_side))
            anno.setanno(stmt, Static.ORELSE_LIVE_VARS_IN,
                         solution.meet_ins(starts - body_side))
    return solution
