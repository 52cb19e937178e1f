"""`bool()` of a traced value where nothing can be staged: an assumed value, checked at
run time (see `staging.speculation`).

Refused as before (ConcretizationError, located) where a redone run could not give
the right answer or a better route exists: no trace or a run that cannot be redone
(`trace.assumptions` None: a program that reads the clock, a sharded one), a value of
more than one element (NumPy raises), a condition inside a region being staged (a
branch or loop body: one assumption would have to hold on every path and iteration),
a condition on Python number arguments (the driver specialises on those instead), and
a `bool()` that code npxla does not convert asks for (a library's sort or search, a
lambda without source: the refusal names the library call, `LibraryCallError`).
"""
from __future__ import annotations

import sys

import numpy as np

from npxla.transpiler.base.origin import is_converted

from npxla.runtime.lowering import structural as S
from npxla.runtime.staging.speculation import AssumptionFailed, site_of
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.numpy.core.registry import dispatch


# converted code's calls of builtins, and the recorder of its container methods
_ROUTING = frozenset({"npxla.runtime.operators.call", "npxla.runtime.operators.effects"})


def _asking(frame):
    """The frame whose code asks for the bool: a builtin (`any`, `all`, `sorted`,
    `list.sort`) that converted code called through `converted_call` asks on that
    code's behalf."""
    while frame is not None and frame.f_globals.get("__name__") in _ROUTING:
        frame = frame.f_back
    return frame


def assumed_bool(x) -> bool:
    """`bool(x)` for an abstract array `x`."""
    if x.const is not None:
        return bool(x.const)
    trace = current_trace()
    caller = _asking(sys._getframe(1))
    if trace is None or trace.assumptions is None or x.size != 1 or trace.scopes or \
            (x.deps & trace.specialisable) or caller is None or \
            not is_converted(caller.f_code):
        return bool(x._concrete("bool"))          # raises ConcretizationError
    site = site_of(trace, caller)
    pred = x if x.dtype == np.bool_ else dispatch(np.not_equal, (x, 0), {})
    return _assume(trace, pred, site)


def assume(pred):
    """An assumed value for the traced bool `pred` where one of npxla's own lowerings
    needs it as a Python value (a result dtype that NumPy picks from the data), or None
    where none can be made (see the module's docstring): the caller refuses then."""
    trace = current_trace()
    if trace is None or trace.assumptions is None or trace.scopes:
        return None
    return _assume(trace, pred, site_of(trace, sys._getframe(1)))


def _assume(trace, pred, site):
    """The value assumed at `site`, and the run-time check that `pred` has it."""
    value = bool(trace.assumptions.get(site, True))
    if pred.shape:
        pred = S.reshape(pred, shape=())
    wrong = dispatch(np.logical_not, (pred,), {}) if value else pred
    trace.add_error_check(wrong, (AssumptionFailed, site))
    return value
