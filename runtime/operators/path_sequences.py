"""A variable that is a list of numbers on one path of a data-dependent branch and a
1-D array of the same length on the other.

Legacy code falls back to a literal where a computation cannot run (nolds' `dfa`:
`poly = [np.nan, np.nan]` when every fluctuation is zero, `np.polyfit(...)` otherwise)
and then only indexes the result (`return poly[0]`). One compiled program cannot hold
a list on one path and an array on the other, but for indexing with an int, `len()`,
iterating and passing it to NumPy functions the two behave alike. So the array path's
value is split into its elements (a list of 0-d arrays, as `list(arr)` gives), the
paths unify element by element, and the variable after the branch is a
`PathSequence`: a list that refuses, located at the branch, everything a list and an
array do differently (`+`, `*`, comparisons, slicing, truth, printing, list methods,
copies) and being returned or stored where the caller would see its type.
"""
from __future__ import annotations

import sys

import numpy as np

from npxla.transpiler.base.catalogue import PATH_TYPED_SEQUENCE
from npxla.transpiler.base.origin import locate_stack

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.operators.unify import index_tree, reflatten


class PathSequence(list):
    """The list of one path, standing for both (see the module)."""
    __slots__ = ("name", "kind", "site")

    def refuse(self, what, at_branch=False):
        """Located where the user's code does `what` (the driver finds that frame), or
        at the branch for what has no line of its own (being returned)."""
        raise PATH_TYPED_SEQUENCE.error_for(self.site if at_branch else None,
                                            name=self.name, kind=self.kind, what=what)

    def __getitem__(self, index):
        if isinstance(index, slice):
            self.refuse("slicing it")
        return list.__getitem__(self, index)

    def __bool__(self):
        self.refuse("its truth value")

    def __hash__(self):
        self.refuse("hashing it")


def _refusing(what):
    def method(self, *args, **kwargs):
        self.refuse(what)
    return method


for _name, _what in {
        "__add__": "'+'", "__radd__": "'+'", "__iadd__": "'+='", "__mul__": "'*'",
        "__rmul__": "'*'", "__imul__": "'*='", "__eq__": "'=='", "__ne__": "'!='",
        "__lt__": "'<'", "__le__": "'<='", "__gt__": "'>'", "__ge__": "'>='",
        "__setitem__": "item assignment", "__delitem__": "'del'",
        "__repr__": "its text", "__str__": "its text", "__format__": "its text",
        "__copy__": "copying it", "__deepcopy__": "copying it", "__reduce_ex__": "pickling",
        "append": ".append()", "extend": ".extend()", "insert": ".insert()",
        "pop": ".pop()", "remove": ".remove()", "clear": ".clear()", "sort": ".sort()",
        "reverse": ".reverse()", "copy": ".copy()", "index": ".index()",
        "count": ".count()"}.items():
    setattr(PathSequence, _name, _refusing(_what))


def _numbers(sub, leaves):
    """The length of a flat list or tuple of number leaves at `sub`, else None."""
    if type(sub) not in (list, tuple) or not sub or \
            not all(type(p) is int and p >= 0 for p in sub):
        return None
    for p in sub:
        v = leaves[p]
        if not (isinstance(v, (bool, int, float, np.bool_, np.number)) or
                (isinstance(v, (AbstractArray, np.ndarray)) and not is_bounded(v) and
                 v.shape == () and v.dtype.kind in "biuf")):
            return None
    return len(sub)


def _vector(sub, leaves):
    """The length of a 1-D real array leaf at `sub`, else None."""
    if type(sub) is not int or sub < 0:
        return None
    v = leaves[sub]
    if isinstance(v, (AbstractArray, np.ndarray)) and not is_bounded(v) and \
            len(v.shape) == 1 and v.dtype.kind in "biuf":
        return v.shape[0]
    return None


def split_arrays_beside_lists(bodies, names):
    """Where one branch gives a name a flat list (or tuple) of n numbers and the other
    a 1-D array of n, split the array into its elements inside its branch. Returns
    {position: (name, "list"/"tuple", site)} of the names changed so (for `wrap`)."""
    if len(bodies) != 2 or bodies[0].treedef is None or bodies[0].treedef[0] is not tuple:
        return {}
    trees = [list(index_tree(b.treedef, len(b.leaves))) for b in bodies]
    changed = {}
    for k in range(min(len(trees[0]), len(trees[1]), len(names))):
        for i, j in ((0, 1), (1, 0)):
            n = _numbers(trees[i][k], bodies[i].leaves)
            if n is None or _vector(trees[j][k], bodies[j].leaves) != n:
                continue
            b, position = bodies[j], trees[j][k]
            array = b.leaves[position]
            elements = b.emit(lambda a=array: [a[m] for m in range(n)])
            start = len(b.leaves)
            b.leaves.extend(elements)
            b.originals.extend(elements)
            kind = type(trees[i][k])
            trees[j][k] = kind(range(start, start + n))
            changed[k] = (names[k], kind.__name__, locate_stack(sys._getframe()))
    if changed:
        for b, tree in zip(bodies, trees):
            _, b.originals = reflatten(tuple(tree), b.originals)
            b.treedef, b.leaves = reflatten(tuple(tree), b.leaves)
    return changed


def wrap(result, changed):
    """`result` (the branch's tuple of values) with the changed names' lists made
    `PathSequence`s."""
    if not changed:
        return result
    out = list(result)
    for k, (name, kind, site) in changed.items():
        seq = PathSequence(out[k])
        seq.name, seq.kind, seq.site = name, kind, site
        out[k] = seq
    return type(result)(out)


def refuse_escaping(tree, what="returning it"):
    """Refuse a `PathSequence` among results (the caller would see a list where NumPy
    may give an array)."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if type(x) is PathSequence:
            x.refuse(what, at_branch=True)
        if type(x) in (list, tuple):
            stack.extend(x)
        elif type(x) is dict:
            stack.extend(x.values())
