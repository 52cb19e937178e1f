"""Which carried values of a staged loop may share memory with arrays outside it.

A staged loop carries values: after it, a carried array is a new value, while in NumPy
it may still be (a view of) an array from before the loop, whose writes the caller
sees. `stage_while` asks these questions of each carried leaf: may it pass through as
the pre-loop handle (`Through`), must the first iteration be peeled so that its writes
reach the pre-loop array (`written_then_replaced`), and which outside arrays may the
result alias (`may_stay_alias`), so that later writes through it are kept or refused.
Where an iteration may leave one of several outside arrays in a variable, the loop
carries the number of the one it holds (`select_aliases`, `selection`).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, root_of
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.operators.conditionals import is_traced, to_pred
from npxla.runtime.operators.unify import ArrayType


# `may_stay_alias`: the carried array is, after the loop, the outside array the body
# left in it when an iteration ran, else its value before the loop
RAN = "ran"
# the dtype of a carried selection's number (`selection`)
CODE = np.dtype(np.int32)


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


# --- a carried record of which outside array a variable holds --------------------------

def selectable(alias, kind, new):
    """The outside arrays a carried array may be after the loop (`alias`, from
    `may_stay_alias`), as the options of a carried selection, or None where one cannot
    name them all: each must be a whole array of the variable's type (not a view, not
    itself ambiguous), and the body's value must be one of them, a selection among
    them and new arrays, or a new array (`decompose`)."""
    options = []
    for a in _flat_options(alias):
        if type(a) is not AbstractArray or a._view is not None or \
                a._alias_of is not None or a.shape != kind.shape or a.dtype != kind.dtype:
            return None
        if not any(a is o for o in options):
            options.append(a)
    if not options or decompose(new, options) is None:
        return None
    return tuple(options)


def _flat_options(arrays):
    """`arrays` with each selection replaced by the arrays it may select (a variable
    that an earlier loop or branch left as one of several arrays)."""
    out, stack = [], list(reversed(arrays))
    while stack:
        a = stack.pop()
        if type(a) is AbstractArray and a._switch is not None:
            stack.extend(reversed([o for _, o in a._switch[1]]))
        else:
            out.append(a)
    return out


def decompose(value, options):
    """How a body's value picks among `options` (numbered from 1; 0 is a new array):
    ((conditions, number), ...), each a list of traced bools that hold together on the
    paths that leave that option in the variable (none: always), or None where the
    value is something else (a view of an option, an ambiguous alias). Paths not
    listed leave a new array, whose value is the handle's own (a selection's merged
    value holds, on each path, the value of what that path chose)."""
    if type(value) is not AbstractArray:
        return None
    for j, o in enumerate(options):
        if value is o:
            return [([], j + 1)]
    if value._switch is not None:
        out = []
        for cond, o in value._switch[1]:
            inner = decompose(o, options)
            if inner is None:
                return None
            out += [([cond] + conds, j) for conds, j in inner]
        return out
    if value._view is not None or value._alias_of is not None:
        return None
    return []


def selection(fresh, which, options):
    """A carried array that is `options[j - 1]` where the carried number `which` is j,
    else the new array `fresh` (`AbstractArray.switch`)."""
    return AbstractArray.switch(fresh, [(E.compare(which, _code(j + 1), "EQ"), o)
                                        for j, o in enumerate(options)])


def which_number(value, options):
    """The carried number of the option `value` holds: a body's value, or the value
    before the loop (itself a selection when an earlier loop or branch left one: its
    own conditions decide). 0: a new array, or nothing `decompose` can name (the
    loop drops such a leaf from its selections before the body's values are
    exported, so there it does not occur)."""
    picks = decompose(value, options) if type(value) is AbstractArray else None
    which = _code(0)
    for conds, j in picks or ():
        if not conds:
            return _code(j)
        cond = conds[0]
        for c in conds[1:]:
            cond = dispatch(np.logical_and, (cond, c), {})
        which = S.select(to_pred(cond), _code(j), which)
    return which


def select_aliases(kinds, init_leaves, arg_leaves, new_leaves, pred0, born, selected,
                    through_ok, unselectable):
    """Carry a number for each array that an iteration may leave as one of several
    outside arrays (`for ...: if c: break; r = x`), where one can name them all
    (`selectable`): after the loop it reads and writes the one its last iteration
    left, as NumPy's variable would. Whether any was added (the body is traced
    again)."""
    added = False
    for k, (t, x, arg, new) in enumerate(zip(kinds, init_leaves, arg_leaves, new_leaves)):
        if k in selected or k in unselectable or not isinstance(t, ArrayType) or \
                not t.shape:
            continue
        alias, exact = may_stay_alias(x, arg, new, pred0, born)
        if not alias or exact:
            continue
        options = selectable(alias, t, new)
        if options is not None:
            selected[k] = options
            through_ok.discard(k)
            added = True
    return added


def _code(k):
    return AbstractArray.from_const(np.array(k, CODE), weak=False)
