"""The per-call guard of an `Environment`, generated as Python source.

It runs on the dispatch fast path, so each captured value costs one line of straight
code (a dict lookup or attribute read and a comparison against a constant) instead of
a walk over a description: a few tens of nanoseconds per value.
"""
from __future__ import annotations

import copy
import math
import types

import numpy as np

from npxla.runtime.driver.guardvalues import DATA_TYPED, MISSING, data_key, scalar_condition


def generate(env, writes_implicit=False):
    """`guard(args, kwargs=None)`: the current traced implicit arrays (a tuple) when
    every captured value still holds, else None. `writes_implicit`: the program writes
    arrays back, so distinct arrays must stay distinct objects."""
    ns = {"MISSING": MISSING, "ndarray": np.ndarray, "MethodType": types.MethodType,
          "copysign": math.copysign, "data_key": data_key}
    lines: list = []
    ref: dict = {}          # id(node) -> expression of its value for its children
    first: dict = {}        # id(_Array) -> variable of the node that returns it
    for i, node in enumerate(env.nodes):
        v = f"v{i}"
        kind, parent = node.kind, node.parent
        if kind == "const":
            ns[f"K{i}"] = node.value
            ref[id(node)] = f"K{i}"
            continue
        if kind == "global":
            holder, name = node.key
            ns[f"D{i}"] = holder
            if node.check == "missing":
                lines.append(f"if {name!r} in D{i}: return None")
                continue
            expr = f"D{i}.get({name!r}, MISSING)"
        elif kind == "cell":
            ns[f"C{i}"] = node.key[0]
            expr = f"C{i}.cell_contents"
        elif kind in ("arg", "kwarg"):
            key, static = node.key
            expr = f"args[{key}]" if kind == "arg" else f"kwargs[{key!r}]"
            if static:
                expr += ".value"
        elif kind == "attr":
            expr = f"getattr({ref[id(parent)]}, {node.key!r}, MISSING)"
        else:   # item
            ns[f"I{i}"] = node.key
            expr = f"{ref[id(parent)]}[I{i}]"
        lines.append(f"{v} = {expr}")
        cond = _condition(node, i, v, ns, first)
        if cond:
            lines.append(f"if not ({cond}): return None")
        ref[id(node)] = f"K{i}" if node.check == "is" else v
    traced = [a for a in env.arrays if not a.pinned]
    outs = [first[id(a)] for a in traced]
    arrays_out = [first[id(a)] for a in traced if not a.scalar]
    if writes_implicit:
        # the program was compiled for distinct arrays: an implicit array that became
        # another one (or an argument) must not share a buffer (the build refuses it)
        # (scalars excluded: equal small ints are one object)
        for j, a in enumerate(arrays_out):
            for b in arrays_out[j + 1:]:
                lines.append(f"if {a} is {b}: return None")
        if arrays_out:
            ns["_aliases"] = _aliases
            lines.append(f"if _aliases(({', '.join(arrays_out)},), args, kwargs): "
                         "return None")
    body = "\n".join("        " + line for line in lines) or "        pass"
    result = "(" + "".join(f"{o}, " for o in outs) + ")"
    src = (f"def guard(args=(), kwargs=None):\n    try:\n{body}\n"
           f"    except Exception:\n        return None\n    return {result}\n")
    code = compile(src, "<npxla guard>", "exec")
    exec(code, ns)
    guard = ns["guard"]
    guard.__npxla_source__ = src
    return guard


def _data_condition(value, v, k, ns):
    """Plain data: a typed comparison (1, 1.0 and True differ), element by element in
    Python up to DATA_TYPED elements; larger flat containers are compared in C (`==`
    plus the element types; a flat tuple, being immutable, by identity)."""
    t = type(value)
    items = list(value.values()) if t is dict else value
    flat = all(type(x) in _FLAT for x in items)
    if len(items) <= DATA_TYPED or not flat:
        ns[k] = data_key(value)
        return f"data_key({v}) == {k}"
    if t is tuple:
        ns[k] = value
        return f"{v} is {k}"
    ns[k], ns[f"TY{k}"] = copy.copy(value), [type(x) for x in items]
    values = f"{v}.values()" if t is dict else v
    keys = f" and list({v}) == list({k})" if t is dict else ""
    return (f"type({v}) is {t.__name__} and {v} == {k}{keys} and "
            f"list(map(type, {values})) == TY{k}")


_FLAT = (bool, int, float, complex, str, bytes, type(None))


def _aliases(arrays, args, kwargs):
    """Whether one of `arrays` is also passed as an argument."""
    values = list(args) + (list(kwargs.values()) if kwargs else [])
    return any(a is v for a in arrays for v in values)


def _condition(node, i, v, ns, first):
    """The Python source of one node's check in the generated guard (None when nothing
    needs checking): the guard is generated code because it runs on every call, and
    a chain of compiled comparisons is several times faster than walking the node
    tree."""
    check, value = node.check, node.value
    k = f"K{i}"
    if check is None:
        return None
    if check == "missing":
        return f"{v} is MISSING"
    if check == "is":
        ns[k] = value
        return f"{v} is {k}"
    if check == "scalar":
        ns[k], ns[f"T_{k}"] = value, type(value)
        return scalar_condition(v, value, k)
    if check == "data":
        return _data_condition(value, v, k, ns)
    if check == "array" and node.array.scalar:     # a stored Python scalar attribute
        first[id(node.array)] = v
        ns[f"T_{k}"] = type(value)
        if node.array.pinned:
            ns[k] = value
            return f"type({v}) is T_{k} and {v} == {k}"
        return f"type({v}) is T_{k}"
    if check == "array":
        arr = node.array
        if id(arr) in first:
            return f"{v} is {first[id(arr)]}"
        first[id(arr)] = v
        ns[f"S{i}"], ns[f"DT{i}"] = value.shape, value.dtype
        cond = (f"type({v}) is ndarray and {v}.shape == S{i} and "
                f"({v}.dtype is DT{i} or {v}.dtype == DT{i})")
        if arr.pinned:
            ns[f"B{i}"] = arr.snapshot
            cond += f" and {v}.tobytes() == B{i}"
        return cond
    if check == "method":
        ns[f"F{i}"], ns[f"O{i}"] = value.__func__, value.__self__
        return f"type({v}) is MethodType and {v}.__func__ is F{i} and {v}.__self__ is O{i}"
    if check == "bound":
        ns[f"T_{k}"], ns[f"O{i}"] = type(value), value.__self__
        return (f"type({v}) is T_{k} and {v}.__self__ is O{i} and "
                f"{v}.__name__ == {value.__name__!r}")
    if check == "container":
        ns[f"T_{k}"] = type(value)
        if type(value) is dict:
            ns[f"KEYS{i}"] = list(value)
            return f"type({v}) is dict and list({v}) == KEYS{i}"
        return f"type({v}) is T_{k} and len({v}) == {len(value)}"
    raise AssertionError(check)
