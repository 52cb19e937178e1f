"""Lists filled by `append` in a loop over a static range: staged as one loop that
writes each appended array into a row of one array.

`out = []; for i in range(n): out.append(f(x[i]))` is the most common way legacy code
collects results. A Python list cannot change inside a staged loop (the append would
run once, while tracing), so such a loop used to run as Python: one copy of its body
per iteration in the program. Here the first iteration runs as Python and shows what
each list receives; when a list got exactly one new array, the other iterations are
staged with that list's `append` writing row i of an array of n rows (`Collector`),
and afterwards the list holds views of the rows (`staging.stacked`: `np.array(out)`
is that array).

It applies only where the rows are the items NumPy would hold: each staged iteration
appends exactly once, at the body's top level (not inside a staged branch or loop),
a new array (not a view, not an argument) of the first item's shape and dtype, which
the iteration neither changes after appending it nor keeps in a loop variable nor
appends elsewhere. Anything else raises `Uncollectable` (a `ContainerMutation`, so a
user `try` re-raises it) while the staged trace is discarded, and the loop runs on as
Python from its second iteration.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging import journal
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.staging.stacked import register
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.lowering import structural as S
from npxla.runtime.operators.items import set_item
from npxla.runtime.numpy.core.values import fresh
from npxla.runtime.operators.loop_aliasing import independent
from npxla.runtime.operators.mutation import ContainerMutation
from npxla.runtime.operators.while_staging import stage_while

class Uncollectable(ContainerMutation):
    """A staged iteration's appends are not rows of one array."""


def new_array(x, born):
    """Whether `x` can be a row: a traced array made after stamp `born` that nothing
    else holds (no view of an older array), of one static shape, or a traced Python
    number (a weak 0-d value: immutable, so no aliasing to keep)."""
    if type(x) is not AbstractArray or is_bounded(x) or x.dtype == object:
        return False
    return not x.shape if x.weak else independent(x, born)


def kind_of(x):
    return x.shape, x.dtype, x.weak


def row_items(rows, count, weak):
    """The list's items: views of the rows, or for Python numbers values of their
    own (a weak 0-d value reads like a Python number in what follows)."""
    if weak:
        return [fresh(rows[k], weak=True) for k in range(count)]
    return [rows[k] for k in range(count)]


def zero_rows(first, count):
    """A new array of `count` rows shaped like `first`, row 0 holding `first`."""
    zero = S.broadcast_in_dim(AbstractArray.from_const(np.zeros((), first.dtype), weak=False),
                              shape=(count,) + first.shape, dims=())
    rows = AbstractArray(zero.shape, zero.dtype, ir=zero.ir, deps=zero.deps)
    set_item(rows, 0, first)
    return rows


class Collector:
    """One list's appends inside the staged iterations: each writes row `index`."""
    __slots__ = ("target", "rows", "kind", "index", "born", "depth", "taken")

    def __init__(self, target, first, count):
        self.target, self.kind = target, kind_of(first)
        self.rows = zero_rows(first, count)
        self.taken = []

    def start(self, index, born):
        """Before the body's trace: this iteration's row and the handle generation."""
        self.index, self.born, self.depth = index, born, len(journal._scopes)
        self.taken = []

    def append(self, x):
        if len(journal._scopes) != self.depth or self.taken or \
                not new_array(x, self.born) or kind_of(x) != self.kind:
            raise Uncollectable("an append that is not one row of an array")
        set_item(self.rows, self.index, x)
        self.taken.append((x, root_of(x), root_of(x)._version))

    def last(self):
        """`target[-1]` inside the staged iteration: what it appended, or before its
        append the row the iteration before wrote (a view: writes reach that row)."""
        if self.taken:
            return self.taken[0][0]
        return self.rows[self.index - 1]

    def finish(self, carried):
        """After the body's trace: exactly one append, whose array (and the array it
        views) nothing changed since and no loop variable holds."""
        if len(self.taken) != 1:
            raise Uncollectable("not one append per iteration")
        x, root, version = self.taken[0]
        if not x.weak and (root._version != version or kept(carried, x)):
            raise Uncollectable("an appended array is changed or kept after the append")


def root_of(x):
    """The array `x` views (itself when it is no view)."""
    while x._view is not None:
        x = x._view[0]
    return x


def kept(values, x):
    """Whether one of `values` is `x` or the array it views."""
    root = root_of(x)
    return any(v is x or v is root for v in values)


def append_hook(owner, args, kwargs):
    """`owner.append(*args)` from converted code: True when a staged loop collects it."""
    trace = current_trace()
    collector = None if trace is None else trace.append_slots.get(id(owner))
    if collector is None or collector.target is not owner or len(args) != 1 or kwargs:
        return False
    collector.append(args[0])
    return True


def collect(it, body, carried, names, token, appends, run_python):
    """A loop over the static `it` that appends to the lists `appends()` gives: its
    first iteration as Python, the others staged when it appended one new array to
    some of them (`stage_rest`), else run as Python (`run_python(items, carried)`)."""
    try:
        lists = [v for v in appends() if type(v) is list]
    except NameError:              # a list not made yet: the loop raises, as Python
        lists = []
    items = iter(it.python())
    before = [len(v) for v in lists]
    born = journal.stamp()
    carried = tuple(body(next(items), *carried))
    grown = [(v, v[-1], n) for v, n in zip(lists, before) if len(v) == n + 1]
    found = [(v, x, n) for v, x, n in grown
             if new_array(x, born) and (x.weak or not kept(carried, x)) and
             sum(root_of(y) is root_of(x) for _, y, _ in grown) == 1]
    if found and len(lists) == len(set(map(id, lists))):
        out = stage_rest(it, body, carried, names, token, found)
        if out is not None:
            return out
    return run_python(items, carried)


def stage_rest(it, body, carried, names, token, found):
    """Iterations 1.. of a loop over the static `it` staged, the lists in `found`
    collecting their appends; the carried values, or None (nothing staged) when the
    iterations are not all alike (the loop then goes on as Python from item 1)."""
    count = it.count
    collectors = [Collector(owner, value, count) for owner, value, _ in found]
    start = AbstractArray.from_const(1)
    start.deps = frozenset([token])

    def test(i, *vars_):
        return i < count

    def step(i, *vars_):
        i._range = (1, count - 1)
        born = journal.stamp()
        for c in collectors:
            c.start(i, born)
        new = tuple(body(it.item(i), *vars_))
        for c in collectors:
            c.finish(new)
        return (i + 1,) + new

    trace = current_trace()
    slots = trace.append_slots
    for c in collectors:
        slots[id(c.target)] = c
    true = AbstractArray.from_const(np.bool_(True), weak=False)
    try:
        out = stage_while(true, test, step, (start,) + tuple(carried),
                          ("<loop index>",) + tuple(names), probe=token, key=body.__code__)
    except ContainerMutation:        # Uncollectable, or another list changed
        out = None
    finally:
        for c in collectors:
            slots.pop(id(c.target), None)
    if out is None:
        return None
    for c, (owner, _, at) in zip(collectors, found):
        rows = row_items(c.rows, count, c.kind[2])
        owner[at:] = rows
        if at == 0:
            register(owner, c.rows)
    return out[1:]
