"""Helpers shared by rules."""
from __future__ import annotations

import ast

from npxla.transpiler.lint.values import CONTAINERS, MAYBE, PYTHON_ONLY, REF, element_of


def numpy_name(callee, jax=False):
    """Short NumPy name of a library callee (`"zeros"`, `"linalg.norm"`), or None.
    With `jax=True`, also jax.numpy names."""
    if callee.kind != REF or not callee.qual:
        return None
    if callee.qual.startswith("numpy."):
        return callee.qual[6:]
    if jax and callee.qual.startswith("jax.numpy."):
        return callee.qual[10:]
    return None


def is_jnp(callee):
    return callee.kind == REF and bool(callee.qual) and callee.qual.startswith("jax.numpy.")


def traced_level(v):
    """How traced a value used as data is (containers: their items)."""
    if v is None:
        return 0
    if v.kind in CONTAINERS:
        return max(v.level, element_of(v).level)
    if v.kind in PYTHON_ONLY:
        return 0
    return v.level


def arg_nodes(call):
    """(positional argument nodes, keyword name -> node)."""
    return list(call.args), {k.arg: k.value for k in call.keywords if k.arg}


def shape_arguments(call, args, kwargs, spec, offset=0):
    """Yield (node, value) for the arguments `spec = (positions, keywords)` names."""
    positions, keywords = spec
    pos_nodes, kw_nodes = arg_nodes(call)
    for p in positions:
        if p == "*":
            start = max([q for q in positions if q != "*"], default=-1) + 1
            for k in range(start, len(args)):
                yield pos_nodes[k], args[k]
            continue
        if p < len(args) and not isinstance(pos_nodes[p], ast.Starred):
            yield pos_nodes[p], args[p]
    for name in keywords:
        if name in kwargs:
            yield kw_nodes[name], kwargs[name]


def slice_parts(index_node):
    """The expressions of slice bounds in a subscript index."""
    nodes = index_node.elts if isinstance(index_node, ast.Tuple) else [index_node]
    for n in nodes:
        if isinstance(n, ast.Slice):
            for part in (n.lower, n.upper, n.step):
                if part is not None:
                    yield part


def is_at_property(node):
    """`x.at[...]` (JAX's functional update syntax) or `xpx.at(x)[...]`
    (array-api-extra's)."""
    if not isinstance(node, ast.Subscript):
        return False
    base = node.value
    if isinstance(base, ast.Call):
        base = base.func
        return (isinstance(base, ast.Attribute) and base.attr == "at") or \
            (isinstance(base, ast.Name) and base.id == "at")
    return isinstance(base, ast.Attribute) and base.attr == "at"


def traced(v, level=MAYBE):
    return traced_level(v) >= level
