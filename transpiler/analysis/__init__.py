"""Static analysis of gast trees: qualified names, CFG, activity, reaching
definitions and liveness, attached to the tree as `anno.Static` annotations.

Converters call `analyze` (again after each transformation that changes
control flow) and then ask the questions below, so that which variables a
branch returns or a loop carries follows from dataflow, not from "every
assigned name".
"""

import gast

from npxla.transpiler.analysis import activity
from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis import cfg
from npxla.transpiler.analysis import liveness
from npxla.transpiler.analysis import qual_names
from npxla.transpiler.analysis import reaching_definitions
from npxla.transpiler.analysis.anno import Static

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)
_LOOPS = (gast.While, gast.For, gast.AsyncFor)


def analyze(tree):
    """Annotate `tree` (a Module or a function definition) in place; return it.

    Every function in it, nested ones included, gets its own CFG
    (`Static.CFG`) and dataflow annotations. Stale annotations are dropped
    first, so re-running after a transformation is safe.
    """
    for node in gast.walk(tree):
        anno.clear(node, Static)
    qual_names.resolve(tree)
    activity.resolve(tree)
    for node in gast.walk(tree):
        if isinstance(node, _FUNCTIONS):
            graph = cfg.build(node)
            anno.setanno(node, Static.CFG, graph)
            reaching_definitions.resolve(node, graph)
            liveness.resolve(node, graph)
    return tree


def branch_outputs(if_node):
    """Names an `if` must return: modified in a branch and live after it."""
    modified = (anno.getanno(if_node, Static.BODY_SCOPE).modified_names
                | anno.getanno(if_node, Static.ORELSE_SCOPE).modified_names)
    return modified & anno.getanno(if_node, Static.LIVE_VARS_OUT)


def loop_carried(loop_node):
    """Names a loop must carry: modified in its body and needed by a later
    iteration, the `while` test, the `else` block or the code after the loop."""
    needed = (anno.getanno(loop_node, Static.BODY_LIVE_VARS_IN)
              | anno.getanno(loop_node, Static.ORELSE_LIVE_VARS_IN)
              | anno.getanno(loop_node, Static.LIVE_VARS_OUT))
    if isinstance(loop_node, gast.While):
        needed |= anno.getanno(loop_node, Static.HEADER_SCOPE).read_names
    return anno.getanno(loop_node, Static.BODY_SCOPE).modified_names & needed


def definitely_defined(node, after=False):
    """Names bound on every path to `node` (`after`: out of it)."""
    return anno.getanno(node, Static.DEFINED_VARS_OUT if after else Static.DEFINED_VARS_IN)


def maybe_defined(node, after=False):
    """Names bound on at least one path to `node` (`after`: out of it)."""
    key = Static.DEFINITIONS_OUT if after else Static.DEFINITIONS_IN
    return frozenset(anno.getanno(node, key))


def undefined_on_some_path(node, name, after=False):
    """Whether local `name` is unbound on some path to `node` (`after`: out of
    it), e.g. used before assignment or assigned in only one branch."""
    key = Static.MAYBE_UNDEFINED_VARS_OUT if after else Static.MAYBE_UNDEFINED_VARS_IN
    return name in anno.getanno(node, key)


def partially_defined(node, after=False):
    """Names bound on some paths but not all: e.g. after
    `if c: x = 1` (with `after=True`), `x`."""
    key = Static.MAYBE_UNDEFINED_VARS_OUT if after else Static.MAYBE_UNDEFINED_VARS_IN
    return maybe_defined(node, after) & anno.getanno(node, key)


__all__ = [
    'Static', 'analyze', 'branch_outputs', 'loop_carried', 'definitely_defined',
    'maybe_defined', 'undefined_on_some_path', 'partially_defined',
]
