"""Python bools assumed while staging, checked when the program runs.

Code that needs a traced condition as a Python `bool` where nothing can be staged (a
generator's `if`, a comprehension's filter, a library's `if` on array data) cannot
compile both paths. Staging then assumes a value for it (True, until a run says
otherwise), builds the program for that path, and records a check that the condition
had that value. A run whose check fails is discarded before anything reaches the
caller (`AssumptionFailed`); the driver stages again with the value the run found and
runs again. The program a call's result comes from has therefore followed exactly the
path NumPy takes for that call's data.

An assumption belongs to a site: the innermost converted frame's position and how many
assumptions that position made before it in the same staging (a generator yielding in
a loop makes one per item).
"""
from __future__ import annotations

from npxla.transpiler.base.origin import locate_stack


class RerunSignal(Exception):
    """A run that must be redone with other staging choices: raised by the checks of a
    run, caught by the driver, never seen by the user or by the user's `except`
    clauses."""


class AssumptionFailed(RerunSignal):
    """A run in which some assumed bools had the other value: `sites`, in staging
    order."""

    def __init__(self, sites):
        super().__init__(sites)
        self.sites = list(sites)


def site_of(trace, frame):
    """The site of an assumption made now (see the module's docstring)."""
    where = locate_stack(frame)
    place = (where.file, where.line, where.col) if where is not None else ("?", 0, 0)
    k = trace.bool_sites.get(place, 0)
    trace.bool_sites[place] = k + 1
    return place + (k,)


def assumes(staged) -> bool:
    """Whether a staged program assumed some bools (its runs may be redone)."""
    return any(type(m) is tuple and m and m[0] is AssumptionFailed
               for m in staged.error_messages)
