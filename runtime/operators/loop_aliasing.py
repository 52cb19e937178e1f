"""Which carried values of a staged loop may share memory with arrays outside it.

A staged loop carries values: after it, a carried array is a new value, while in NumPy
it may still be (a view of) an array from before the loop, whose writes the caller
sees. `stage_while` asks these questions of each carried leaf: may it pass through as
the pre-loop handle (`Through`), must the first iteration be peeled so that its writes
reach the pre-loop array (`written_then_replaced`), and which outside arrays may the
result alias (`may_stay_alias`), so that later writes through it are kept or refused.
"""
from __future__ import annotations

from npxla.runtime.staging.abstract import AbstractArray, root_of
from npxla.runtime.operators.conditionals import is_traced
from npxla.runtime.operators.unify import ArrayType


# `may_stay_alias`: the carried array is, after the loop, the outside array the body
# left in it when an iteration ran, else its value before the loop
RAN = "ran"


class Through:
    """The kind of a carried variable that the body only updates in place: the body
    gets the pre-loop handle itself, and its updates travel as journaled handles."""
    __slots__ = ()

    def __eq__(self, other):
        return type(other) is Through

    def __hash__(self):
        return 0


def written_then_replaced(b, init_leaves, arg_leaves, kinds, born, trusted):
    """Leaves the body rebinds to a new array while they start as an array that exists
    outside the loop, when the first iteration must see that array itself: the body
    writes the leaf in place first (in NumPy the writes reach that array, and the
    caller's for an argument), or the leaf starts as an array the body writes through
    any alias, or a view of one (`u = x[::2]`, then `x[::2] = ...; u = u.copy()`:
    NumPy's first copy reads the updated view; `v = x[:, 2]`, then `t = x; v[:1] = 1;
    x = t + t`: NumPy's sum reads the write). A carried value would lose either. These
    leaves are peeled."""
    written = {id(root_of(h)) for h, _ in b.assigned}
    out = []
    for k, (t, x) in enumerate(zip(kinds, init_leaves)):
        if not isinstance(t, ArrayType) or type(x) is not AbstractArray or not x.shape:
            continue
        arg = arg_leaves[k]
        if type(arg) is not AbstractArray or b.originals[1 + k] is arg:
            continue
        shared = id(x) not in trusted and not independent(x, born) or \
            any(y is x for j, y in enumerate(init_leaves) if j != k)
        if arg.mutated and shared or id(root_of(x)) in written:
            out.append(k)
    return out


def independent(x, born):
    """Whether `x` was made after the stamp `born` and is no view of an older array."""
    while x._view is not None:
        x = x._view[0]
    return x._born >= born and x._alias_of is None and x._switch is None


def may_stay_alias(init, arg, new, pred0, born):
    """(arrays, exact): the arrays outside the loop that a carried array may share
    memory with after it ran (no iteration ran, no iteration replaced it, or the body
    made it a view of such an array: `x = x[::2]`) while the loop carries it as a new
    value, and whether it is exactly "`init` when no iteration ran, else a new array"
    (then a switch on the loop's first condition keeps NumPy's aliasing; otherwise
    writes through it after the loop are refused), or exactly "`init` when no iteration
    ran, else the outside array every iteration left in it" (`RAN`: `for ...: r = x`,
    the return value of a loop that returns an argument). ((), False) when there are
    none."""
    if type(init) is not AbstractArray or not init.shape:
        return (), False
    if type(new) is AbstractArray:
        root = new
        while root._view is not None and root._alias_of is None:
            root = root._view[0]
        if root._switch is not None:
            # a branch of the body picked it (`if c: y = x`): every outside array the
            # selection may be is a candidate too, not only the pre-loop value
            outside = _outside_options(root, arg, born)
            return ((init,) + outside if outside else (init,)), False
        if root._alias_of is not None:
            # a branch left it ambiguous (`if c: y = x[::-1]`): the arrays it may be
            outside = tuple(b for b, _ in (root._alias_bases or ())
                            if b is not arg and b._born < born)
            return (init,) + outside, False
        if root is arg:
            return (init,), False
        if root._born < born:
            if new is root and init._alias_of is None and root._alias_of is None:
                return (init, root), RAN
            return (init, root), False
    if is_traced(pred0):
        return (init,), init._alias_of is None
    return (), False


def _outside_options(switch, arg, born):
    """The arrays from before the loop (not its own carried argument) that the
    selection `switch` may be, through nested selections and views."""
    out, stack, seen = [], [switch], set()
    while stack:
        h = stack.pop()
        if id(h) in seen:
            continue
        seen.add(id(h))
        while h._view is not None and h._alias_of is None:
            h = h._view[0]
        if h._switch is not None:
            stack.extend(o for _, o in h._switch[1])
        elif h is not arg and h._born < born:
            out.append(h)
    return tuple(out)
