"""Typed annotations on gast nodes.

Analyses communicate with converters only through annotations, so that a
converter never has to know which analysis produced a fact. Annotations live in
one dict attribute per node, keyed by enum members; a typo in a key is then an
``AttributeError`` instead of a silently missing fact.
"""

import enum

ANNO_ATTR = _ATTR = '__npxla_anno__'  # the attribute holding a node's annotations
_MISSING = object()


@enum.unique
class Static(enum.Enum):
    """Keys written by `transpiler.analysis` (recomputed by every `analyze`)."""

    # qual_names: the QN of a Name / Attribute / Subscript expression.
    QN = 'qualified name'
    # cfg: the control-flow graph of a function (on the FunctionDef).
    CFG = 'control-flow graph'

    # activity (`activity.Scope` values).
    SCOPE = ('what a statement reads / modifies, bodies included; also on for'
             ' iterables and targets, and on a function\'s arguments (its params)')
    HEADER_SCOPE = 'if/while test, with items, except type+name; empty for for'
    BODY_SCOPE = 'body of a compound statement, function, lambda or comprehension'
    ORELSE_SCOPE = 'else branch of if / while / for / try'
    FINALLY_SCOPE = 'finally block of try'

    # reaching definitions. *_IN: on entry to the statement (for loops: from
    # before the loop, back edges excluded). *_OUT: when it falls through.
    DEFINITIONS_IN = 'name -> frozenset of Definition reaching the entry'
    DEFINITIONS_OUT = 'name -> frozenset of Definition after the statement'
    DEFINED_VARS_IN = 'names bound on every path to the entry'
    DEFINED_VARS_OUT = 'names bound on every path out of the statement'
    MAYBE_UNDEFINED_VARS_IN = 'local names unbound on some path to the entry'
    MAYBE_UNDEFINED_VARS_OUT = 'local names unbound on some path out'

    # liveness (frozensets of names).
    LIVE_VARS_IN = 'names live on entry to the statement'
    LIVE_VARS_OUT = 'names live after the statement falls through'
    BODY_LIVE_VARS_IN = 'names live on entry to the body of if / while / for'
    ORELSE_LIVE_VARS_IN = 'names live when the else path of if / while / for starts'


def _annotations(node, create=False):
    annos = getattr(node, _ATTR, None)
    if annos is None and create:
        annos = {}
        setattr(node, _ATTR, annos)
    return annos


def setanno(node, key, value):
    _annotations(node, create=True)[key] = value


def hasanno(node, key):
    annos = _annotations(node)
    return annos is not None and key in annos


def getanno(node, key, default=_MISSING):
    """Return the annotation; without a default, a missing key raises KeyError."""
    annos = _annotations(node) or {}
    if key in annos:
        return annos[key]
    if default is _MISSING:
        raise KeyError('{} has no annotation {}'.format(type(node).__name__, key))
    return default


def delanno(node, key):
    annos = _annotations(node)
    if annos is not None:
        annos.pop(key, None)


def copyanno(from_node, to_node, key):
    """Carry a fact over to a node that replaces `from_node`."""
    if hasanno(from_node, key):
        setanno(to_node, key, getanno(from_node, key))


def clear(node, keys):
    """Remove `keys` (an iterable of keys, e.g. the `Static` enum) from `node`."""
    annos = _annotations(node)
    if annos:
        for key in keys:
            annos.pop(key, None)
