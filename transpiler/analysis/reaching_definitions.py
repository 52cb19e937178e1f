"""Reaching definitions: which assignments may reach each statement.

Converters need two questions answered: is `x` bound on *every* path to this
`if` / `while` (then it can be a loop or branch input), and is it bound on
only *some* paths (then a branch output or loop variable would be undefined
on the others). Both come from one forward analysis: on function entry every
local name gets an "undefined" pseudo-definition (`Definition(name, None)`),
which real assignments kill and `del` re-creates; a name is definitely defined
where it has definitions but no undefined one reaches, maybe undefined where
the undefined one reaches.

Statement-level annotations (see `anno.Static`): `DEFINITIONS_IN`,
`DEFINED_VARS_IN`, `MAYBE_UNDEFINED_VARS_IN` on entry to every statement (for a
loop: from before the loop, back edges excluded) and the `_OUT` variants after
every statement that can fall through.
"""

import collections
import dataclasses

from npxla.transpiler.analysis import activity
from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis import dataflow
from npxla.transpiler.analysis.anno import Static


@dataclasses.dataclass(frozen=True)
class Definition:
    """`name` bound by `node` (a statement, header, for target or the
    parameters); `node is None` marks the name as unbound."""

    name: str
    node: object

    @property
    def is_undefined(self):
        return self.node is None


class ReachingDefinitions(dataflow.Dataflow):
    """States are frozensets of `Definition`."""

    forward = True

    def __init__(self, graph, local_names):
        super().__init__(graph)
        self._unbound = {name: Definition(name, None) for name in local_names}
        self._effects = {}
        for node in graph.nodes:
            if node.ast_node is not None:
                self._effects[node] = self._effect(node.ast_node)

    def _effect(self, ast_node):
        scope = activity.node_scope(ast_node)
        deleted = scope.deleted_names & self._unbound.keys()
        bound = (scope.modified_names | scope.param_names) & self._unbound.keys()
        gen = {Definition(name, ast_node) for name in bound - deleted}
        gen.update(self._unbound[name] for name in deleted)
        return bound | deleted, frozenset(gen)

    def boundary(self):
        return frozenset(self._unbound.values())

    def transfer(self, node, state):
        if node not in self._effects:
            return state
        kill, gen = self._effects[node]
        return frozenset(d for d in state if d.name not in kill) | gen


def _annotate(node, state, definitions_key, defined_key, undefined_key):
    definitions = collections.defaultdict(set)
    undefined = set()
    for definition in state:
        if definition.is_undefined:
            undefined.add(definition.name)
        else:
            definitions[definition.name].add(definition)
    anno.setanno(node, definitions_key,
                 {name: frozenset(defs) for name, defs in definitions.items()})
    anno.setanno(node, defined_key, frozenset(definitions.keys() - undefined))
    anno.setanno(node, undefined_key, frozenset(undefined))


def resolve(fn_node, graph):
    """Annotate the statements of `fn_node` (activity must have run)."""
    local_names = anno.getanno(fn_node, Static.BODY_SCOPE).local_names
    solution = ReachingDefinitions(graph, local_names).solve()
    for stmt in graph.statements():
        _annotate(stmt, solution.meet_outs(graph.outside_preds(stmt)),
                  Static.DEFINITIONS_IN, Static.DEFINED_VARS_IN,
                  Static.MAYBE_UNDEFINED_VARS_IN)
        if graph.fallthrough_nodes(stmt):
            _annotate(stmt, solution.meet_outs(graph.fallthrough_nodes(stmt)),
                      Static.DEFINITIONS_OUT, Static.DEFINED_VARS_OUT,
                      Static.MAYBE_UNDEFINED_VARS_OUT)
    return solution
