"""List comprehensions (`[e for i in it]`, see `converters.comprehensions`).

Run as written, a comprehension over a static range puts one copy of its element's
work into the program per item: 200 `np.polyfit` calls stage 27,000 lines and take
6 s to compile. When every item is a new array of one shape and dtype, the
comprehension is staged instead as one loop that writes item i into row i of an
array, and the list returned holds the rows of that array (`staging.stacked`:
`np.array(lst)` is then that array, not a reassembly of its rows).

The first item is computed before the loop, as the comprehension would: it gives the
rows' shape and dtype, and where it is not a new array (a view of an argument, a
Python number, a tuple) the rest runs as Python, exactly as before. An item inside
the loop that differs from the first in kind makes the loop's trace be discarded and
the rest run as Python too. A comprehension whose index is needed as a Python value
(`np.zeros(i)`) is restaged unrolled, as loops are (`LoopToken`), without the
performance warning a loop gets: running as written is what the code says.
Comprehensions short enough to be unrolled for fusion (`loops.FUSE_MAX_TRIPS`) stay
Python, and so do those inside a user `try` (as `for` loops there do: a check that
fails inside the loop must reach the `except` clause or be refused, located).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging import journal
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.stacked import remember
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.operators.items import set_item
from npxla.runtime.operators.iteration import iteration_of
from npxla.runtime.operators.collected_appends import (Uncollectable, kind_of, new_array,
                                                       row_items, zero_rows)
from npxla.runtime.operators.loop_tokens import LoopToken, _unrolled
from npxla.runtime.operators.loops import FUSE_MAX_TRIPS
from npxla.runtime.operators.mutation import ContainerMutation
from npxla.runtime.operators.while_staging import stage_while


def list_comp(iterable, element, unpack):
    """`[element(x) for x in iterable]` (`element(*x)` with `unpack`)."""
    call = _unpacking(element) if unpack else element
    trace = current_trace()
    it = None if trace is None else iteration_of(iterable)
    if it is None or not it.static or it.count * trace.fuse_factor <= FUSE_MAX_TRIPS or \
            element.__code__ in _unrolled or trace.user_tries:
        return [call(x) for x in iterable]
    items = iter(it.python())
    born = journal.stamp()
    first = call(next(items))
    if new_array(first, born):
        rows = _staged(it, call, first, LoopToken(element.__code__, True))
        if rows is not None:
            return rows
    return [first] + [call(x) for x in items]


def _unpacking(element):
    n = element.__code__.co_argcount

    def call(item):
        *parts, = item               # Python's error for what cannot be unpacked
        if len(parts) != n:
            raise ValueError(f"not enough values to unpack (expected {n}, got "
                             f"{len(parts)})" if len(parts) < n else
                             f"too many values to unpack (expected {n})")
        return element(*parts)
    return call


def _staged(it, call, first, token):
    """The comprehension's list as the rows of one array filled by a staged loop over
    items 1.. (`first` is item 0), or None when it must run as Python."""
    count, kind = it.count, kind_of(first)
    rows = zero_rows(first, count)
    start = AbstractArray.from_const(1)
    start.deps = frozenset([token])

    def test(i, rows):
        return i < count

    def step(i, rows):
        i._range = (1, count - 1)
        born = journal.stamp()
        x = call(it.item(i))
        if not new_array(x, born) or kind_of(x) != kind:
            raise Uncollectable("an item that is not one row of an array")
        set_item(rows, i, x)
        return i + 1, rows

    true = AbstractArray.from_const(np.bool_(True), weak=False)
    try:
        out = stage_while(true, test, step, (start, rows), ("<item index>", "<items>"),
                          probe=token, key=token.code)
    except ContainerMutation:        # Uncollectable, or a list changed in the item
        return None
    if out is None:
        return None
    stacked = out[1]
    return remember(stacked, row_items(stacked, count, first.weak))
