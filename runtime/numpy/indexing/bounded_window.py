"""Speculative windows: slices whose bounds come from array data, at the length the data
has so far needed instead of the whole axis.

A slice like `A_col[A_row[i]:A_row[i + 1]]` has no bound smaller than its axis that
staging could prove, so its buffer is the whole axis and every row of a CSR mat-vec
costs all the nonzeros (10^4 rows x 1.6 * 10^5 nonzeros: seconds where NumPy takes
milliseconds). Real data is usually far shorter than that bound. Such a slice is
therefore staged as a window of a static length `w` (the trace's guess for its site,
first `FIRST`) placed over the valid part, with a run-time check that the window held
it. A run where some window was too short raises `WindowOverflow` with the lengths
needed before anything reaches the caller; the driver widens those windows (to the next
power of two, so a site is widened a few times at most), stages again and reruns. A
window as long as half its axis is no better than the axis: the slice then keeps the
whole axis, as without speculation.

While a run overflows, its windows hold a prefix of the true slice (the count is
clipped to the window), so everything computed from them stays inside its buffers;
the run's results are discarded.
"""
from __future__ import annotations

import os
import sys

from npxla.transpiler.base.origin import locate_stack

from npxla.runtime.staging.bounded import WindowOverflow
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.errorflags import check_window

# the first guess, in elements (NPXLA_WINDOW sets it: a larger one where rows are known
# to be long saves the first widening; 1 makes nearly every slice widen, for testing)
FIRST = max(int(os.environ.get("NPXLA_WINDOW", "64")), 1)
MIN_AXIS = max(4 * FIRST, 4)    # shorter axes keep the whole axis as the buffer


def site_here() -> str:
    """The user's source position being staged: windows on one line share a length."""
    where = locate_stack(sys._getframe(1))
    return "?" if where is None else f"{where.file}:{where.line}:{where.col}"


def speculate(start, stop, n):
    """(static or fixed-window slice for the buffer, offset, count) for the slice
    `start:stop` (normalised bounds, step 1) of an axis of length `n`, as a window of the
    trace's length for this site; None where speculation does not apply: no policy, a
    short axis, a count that a loop index already bounds, or a window grown to half
    the axis."""
    trace = current_trace()
    if trace is None or trace.windows is None or n < MIN_AXIS:
        return None
    count = B.maximum(B.sub(stop, start), 0)
    if B.value_range(count) is not None:
        return None
    site = site_here()
    w = trace.windows.get(site, FIRST)
    if 2 * w > n:
        return None
    ks = B.known(start)
    if ks is not None:
        if ks + w > n:
            return None
        cut, offset = slice(ks, ks + w), 0
    else:
        first = B.minimum(start, n - w)
        first._range = (0, n - w)       # start is normalised into [0, n]
        cut, offset = slice(first, B.add(first, w)), B.sub(start, first)
    check_window(B.compare(count, w, "GT"), site, B.traced(count))
    return cut, offset, B.minimum(count, w)


def widened(windows: dict, needs: dict) -> dict:
    """`windows` with each site in `needs` grown to the power of two at or above the
    length it needed (and at least double its old length)."""
    out = dict(windows)
    for site, need in needs.items():
        w = max(out.get(site, FIRST) * 2, 1)
        while w < need:
            w *= 2
        out[site] = w
    return out


def speculates(staged) -> bool:
    """Whether a staged program has speculative windows (its runs may be redone)."""
    return any(type(m) is tuple and m[0] is WindowOverflow for m in staged.error_messages)
