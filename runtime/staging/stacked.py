"""Python lists whose items are the rows of one array.

A comprehension staged as one loop (`operators.comprehensions`) fills the rows of an
array and returns a plain list of views of those rows: a list like any other
(indexing, iteration, `len`; a write into an item reaches the memory NumPy's item
would). Turning it back into an array (`np.array(lst)`, `np.stack(lst)`) would
reassemble the rows one by one, so the trace remembers which array each such list
was cut from: while the list still holds exactly those rows, in order, the array is
a copy of that one. A plain list rather than a subclass: many rules look for
`type(x) is list`.
"""
from __future__ import annotations

from npxla.runtime.staging.trace import current_trace


def remember(stack, rows):
    """A new list of `rows`, known to be the rows of the array `stack`."""
    return register(list(rows), stack)


def register(lst, stack):
    """`lst`, whose items are the rows of the array `stack`, remembered as such."""
    trace = current_trace()
    if trace is not None:
        trace.stacked_lists[id(lst)] = (lst, tuple(lst), stack)
    return lst


def stack_of(obj):
    """The array whose rows `obj` holds when it is a list `remember` made and nothing
    has replaced, added or removed an item since; else None."""
    trace = current_trace()
    if trace is None or type(obj) is not list:
        return None
    entry = trace.stacked_lists.get(id(obj))
    if entry is None or entry[0] is not obj:
        return None
    _, rows, stack = entry
    if len(obj) != len(rows) or any(a is not b for a, b in zip(obj, rows)):
        return None
    return stack
