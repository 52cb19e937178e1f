"""`while` and `for` loops.

A loop whose condition or trip count is a Python value runs as a Python loop (a loop
over a list stays exactly the original code). A traced condition or trip count becomes
one `stablehlo.while`. A loop over a *static* range or array whose body computes with
arrays is staged too, so the program does not grow with the trip count; if its index
is later needed as a Python value (`x[:i]`), staging restarts with that loop unrolled
(see `LoopToken`) and a performance warning names the loop.

Staged loops are *rotated*: the condition is evaluated once before the loop and again
at the end of each iteration, and carried as a predicate. The `while` op's own
condition region then only reads that predicate, so conditions that raise runtime
checks or print need no special treatment.
"""
from __future__ import annotations

import contextlib

import numpy as np

from npxla.transpiler.base.catalogue import ELSE_ON_STAGED_LOOP
from npxla.transpiler.base.errors import ConcretizationError

from npxla.runtime.staging.abstract import AbstractArray, is_abstract
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.operators.conditionals import (is_traced, raise_uncatchable,
                                                  refuse_in_try, stage_if, to_pred)
from npxla.runtime.operators.iteration import Iteration, iteration_of, over_run_time_length
from npxla.runtime.operators.loop_tokens import (  # noqa: F401  (loops' public names)
    LoopToken, NpxlaPerformanceWarning, _unrolled, warn_unrolled)
from npxla.runtime.operators.while_staging import FUSE_MIN_ELEMENTS, stage_while  # noqa: F401
from npxla.runtime.numpy.core.extents import value_range
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.operators.logical import and_
from npxla.runtime.operators.mutation import ContainerMutation
from npxla.runtime.operators.collected_appends import collect

# A static trip count up to this runs as Python (one iteration needs no loop).
UNROLL_MAX = 1
# the most trips a loop is unrolled for when a value needs its index (`x[:i]`)
UNROLL_LIMIT = 1 << 14
# A short static loop whose body computes with large arrays is unrolled after all: each
# iteration of an XLA loop writes its arrays to memory, while unrolled iterations fuse
# into one pass (a Horner loop over 16 coefficients on 1e6 elements is ~6x faster
# unrolled; k-means' loop over 8 centroids of 10^4 points 1.3x).
FUSE_MAX_TRIPS = 16


# --- while --------------------------------------------------------------------------
def while_stmt(test, body, carried, names, *, has_else=False, trips=None):
    """`trips`: a bound on the iterations of a counted loop (`trip_bound`), with which a
    variable may grow by a fixed step per iteration, as in a `for` over a range."""
    carried = tuple(carried)
    first = True
    while True:
        cond = test(*carried)
        if is_traced(cond):
            _refuse_else(has_else, "while loop")
            return stage_while(to_pred(_unless_overflowed(cond)), _stops_on_overflow(test),
                               body, carried, names, trips=trips)
        if not cond:
            return carried
        if first and not has_else:
            # a Python condition: staged like a static range when the body computes
            # with arrays, so the program does not grow with the iteration count
            out = _try_staged_while(test, body, carried, names, trips)
            if out is not None:
                return out
        first = False
        carried = tuple(body(*carried))


def _unless_overflowed(cond):
    """`cond and not overflowed` once a speculative window was too short (see
    `numpy/bounded_window`): the run is discarded and rerun, but a loop whose condition
    reads a truncated slice might never end on its own."""
    flag = current_trace().overflowed
    if flag is None or not is_traced(cond):
        return cond
    return dispatch(np.logical_and, (to_pred(cond), dispatch(np.logical_not, (flag,), {})), {})


def _stops_on_overflow(test):
    return lambda *values: _unless_overflowed(test(*values))


def _try_staged_while(test, body, carried, names, trips=None):
    token = LoopToken(body.__code__, True)
    if token.code in _unrolled or current_trace() is None:
        return None
    try:
        with _active(token):
            return stage_while(AbstractArray.from_const(np.bool_(True), weak=False), test,
                               body, carried, names, probe=token, trips=trips)
    except ContainerMutation:
        return None


@contextlib.contextmanager
def _active(token):
    """`token`'s loop body is being traced (`Trace.active_loops`)."""
    active = current_trace().active_loops
    active.append(token)
    try:
        yield
    finally:
        active.pop()


def trip_bound(start_and_limit, step, inclusive, direction):
    """The most iterations of a counted `while` (`counted_loops`): its counter starts at
    `start`, moves `step` toward `limit` in every iteration that does not end the loop,
    and the loop runs while it has not passed `limit`. An int when both are Python
    numbers; a thunk that asks the driver to specialise them when they come from Python
    int arguments (called only if a variable grows in the loop, so a loop that needs no
    bound is not recompiled per limit); else None."""
    try:
        start, limit = start_and_limit()
    except NameError:
        return None
    traced = [v for v in (start, limit) if is_abstract(v) and v.const is None]
    if traced:
        deps = frozenset().union(*[v.deps for v in traced])
        trace = current_trace()
        if not deps or trace is None or not deps <= trace.specialisable or \
                not all(v.weak and v.dtype.kind in "iu" for v in traced):
            return None
        return lambda: _specialise_counter(deps)
    start, limit = (v.const[()] if is_abstract(v) else v for v in (start, limit))
    if not all(isinstance(v, (int, float, np.integer, np.floating)) and
               not isinstance(v, (bool, np.bool_)) for v in (start, limit)) or \
            not isinstance(start, (int, np.integer)):
        return None
    span = (limit - start) * direction
    if not np.isfinite(span):
        return None
    if isinstance(limit, (int, np.integer)):
        trips = (int(span) + int(inclusive) + step - 1) // step
    else:
        trips = int(np.floor(span / step)) + 2     # float limit: one more, never fewer
    return max(trips, 0)


def _specialise_counter(deps):
    raise ConcretizationError("a variable grows in every iteration of a counted while loop, "
                              "whose bound needs the loop's limit as a Python number",
                              deps=deps)


def _refuse_else(has_else, what):
    if has_else:
        raise_uncatchable(ELSE_ON_STAGED_LOOP.error_for(kind=what.split()[0]))


# --- for ------------------------------------------------------------------------------
def for_stmt(iterable, extra_test, body, carried, names, *, has_else=False, appends=None):
    carried = tuple(carried)
    it = iteration_of(iterable)
    if it is not None and not it.static:
        _refuse_else(has_else, "for loop")
    # a loop too long to unroll counts as one of run-time length: a value its index
    # decides is refused, located, instead of a program of a million bodies (or, with
    # a data-dependent `break`, a staging that never ends)
    unrollable = it is not None and it.static and it.count <= UNROLL_LIMIT
    token = LoopToken(body.__code__, unrollable,
                      it.count.deps if it is not None and is_abstract(it.count) else frozenset(),
                      too_long=it is not None and it.static and not unrollable)
    # static trip count: `else`/`try` keep their Python meaning only in a Python loop
    trace = current_trace()
    if it is None or token.code in _unrolled or trace is None or (
            it.static and (it.count <= UNROLL_MAX or has_else)):
        return _python_for(iterable if it is None else it.python(), extra_test, body,
                           carried, names)
    if it.static and it.count == 0:
        return carried
    fuse = it.static and it.count * trace.fuse_factor <= FUSE_MAX_TRIPS
    if not (fuse and token.code in trace.fused_loops):  # not found short and large before
        try:
            out = _staged_for(it, extra_test, body, carried, names, token,
                              probe=it.static, fuse=fuse)
        except ContainerMutation as e:
            if not it.static:
                _hint_for_run_time_length(e, it, token)
                raise
            if appends is not None and extra_test is None and \
                    it.count * trace.fuse_factor > FUSE_MAX_TRIPS:
                # lists the loop only appends to: their items as one array's rows
                return collect(it, body, carried, names, token, appends,
                               lambda items, c: _python_for(items, None, body, c, names))
            out = None
        if out is not None:
            return out
    # a static trip count the staging declined: short and large, or no array work
    if fuse and token.code in trace.fused_loops:
        return _fused_for(it, extra_test, body, carried, names, trace)
    return _python_for(it.python(), extra_test, body, carried, names)


def _hint_for_run_time_length(e, it, token):
    """A Python container changed in a loop over an array of run-time length (`for c in
    x[m]: out.append(f(c))`) would have a run-time length itself: say what to write.
    The loop's token leaves the dependencies, so the driver keeps this hint."""
    if not over_run_time_length(it):
        return
    e.hint = ("a list filled in a loop over an array of run-time length would have a "
              "run-time length too; fill a preallocated array instead: out = "
              "np.zeros(len(v)), then out[i] = ... in `for i, e in enumerate(v)`")
    e.deps = frozenset(d for d in e.deps if d != token)


def _fused_for(it, extra_test, body, carried, names, trace):
    """A short loop over large arrays, unrolled so that XLA fuses its iterations."""
    trace.fuse_factor *= it.count
    try:
        return _python_for(it.python(), extra_test, body, carried, names)
    finally:
        trace.fuse_factor //= it.count


def items_in_try(iterable, extra_test):
    """The items of a `for` loop that stays a Python loop inside a user `try`, fetched
    as `_python_for` fetches them; `extra_test` (a thunk, or None) is the loop's `break`
    condition. Only a static trip count and a Python break condition can run so."""
    it = iteration_of(iterable)
    if it is not None and not it.static:
        refuse_in_try("for loop")

    def go():
        value = extra_test()
        if is_traced(value):
            refuse_in_try("break")
        return value
    return _items(iterable if it is None else it.python(),
                  None if extra_test is None else go)


def items_of(iterable, extra_test):
    """The items of a `for` loop around a `yield`, which stays a Python loop (a
    generator suspends inside it): a static trip count (a traced one is refused,
    located), and the `break` condition before each item as a Python bool (one on
    array data is assumed and checked at run time, `staging.speculation`)."""
    it = iteration_of(iterable)
    return _items(iterable if it is None else it, extra_test)


def _items(items, extra_test):
    """`items` while `extra_test()` (None: always) holds before each one."""
    iterator = iter(items)
    while extra_test is None or extra_test():
        try:
            item = next(iterator)
        except StopIteration:
            return
        yield item


def _python_for(items, extra_test, body, carried, names):
    iterator = iter(items)
    while True:
        go = True if extra_test is None else extra_test(*carried)
        if not is_traced(go) and not go:
            break       # before fetching: a `break` leaves the iterator where Python does
        try:
            item = next(iterator)
        except StopIteration:
            break
        if is_traced(go):   # a data-dependent break: guard each remaining iteration
            carried = tuple(stage_if(
                to_pred(go),
                [lambda c=carried: tuple(body(item, *c)), lambda c=carried: c], names))
        else:
            carried = tuple(body(item, *carried))
    return carried


def _staged_for(it: Iteration, extra_test, body, carried, names, token, probe, fuse=False):
    start = AbstractArray.from_const(0)
    start.deps = frozenset([token])

    def test(i, *vars_):
        if extra_test is None:
            return i < it.count
        return and_(lambda: i < it.count, lambda: extra_test(*vars_))

    # the counter's range while the body runs: the arithmetic on it (the item, `i + 1`)
    # then needs no run-time int64 overflow checks, which a staged loop would carry
    # and evaluate on every iteration. (Not for a trip count of unknown range: the
    # counter is below 2**63 - 1 then, but a range that wide sizes the buffers of
    # arrays whose length it bounds, `np.arange(k + 1)`, at 2**63 elements)
    most = it.count if it.static else (value_range(it.count) or (None, None))[1]

    def step(i, *vars_):
        if most is not None and most > 0:
            i._range = (0, most - 1)
        new = body(it.item(i), *vars_)
        return (i + 1,) + tuple(new)

    pred0 = test(start, *carried)
    if not is_traced(pred0):
        if not pred0:
            return carried
        pred0 = AbstractArray.from_const(np.bool_(True), weak=False)
    else:
        pred0 = to_pred(pred0)
    # a static trip count bounds what grows by a step per iteration; without a `break`
    # such a loop is unrolled instead, which keeps the final length static
    trips = it.count if it.static and extra_test is not None else None
    with _active(token):
        out = stage_while(pred0, test, step, (start,) + carried,
                          ("<loop index>",) + tuple(names), probe=token if probe else None,
                          fuse=fuse, key=body.__code__, trips=trips)
    return None if out is None else out[1:]


# --- the staged loop --------------------------------------------------------------------