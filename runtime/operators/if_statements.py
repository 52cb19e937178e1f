"""The converted `if` statement: the chosen branch as Python, or one staged `if` that
carries the attributes and items its branches store.

An attribute stored in a branch of a data-dependent `if` (`if c: self.count += 1`), or an
existing item of a list or dict (`if c: acc[i] = s`), would be stored once while
staging, not on the path taken. Such a store is refused inside the branch with the
object and the slot named (`effects`); the `if` is then staged again with that slot as
an extra result of both branches, each starting from its value before the `if`, and the
selected value is stored once after it.
"""
from __future__ import annotations

from npxla.transpiler.base.catalogue import NONE_ON_PATH
from npxla.transpiler.base.errors import ShapeMismatchError, UnsupportedOperationError

from npxla.runtime.staging import journal
from npxla.runtime.staging.pytypes import python_type
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.numpy.core.speculate import assume
from npxla.runtime.operators import effects
from npxla.runtime.operators.conditionals import (exact_dtypes_for, is_traced, stage_if,
                                                  to_pred)
from npxla.runtime.operators.mutation import ContainerMutation
from npxla.runtime.staging.variables import UndefinedReturnValue

_MAX_CARRIED = 32      # attributes one data-dependent `if` may carry


def if_stmt(test, body, orelse, inputs, names):
    if not is_traced(test):
        return (body if test else orelse)(*inputs)
    pred = to_pred(test)
    # where the condition could be assumed, arrays of different dtypes on the paths are
    # not promoted: the path taken runs as Python and gives NumPy's dtype
    exact = exact_dtypes_for.set(pred if _can_assume(pred) else None)
    try:
        return _staged(pred, body, orelse, inputs, names)
    finally:
        exact_dtypes_for.reset(exact)


def _staged(pred, body, orelse, inputs, names):
    branches = [lambda: body(*inputs), lambda: orelse(*inputs)]
    carried: list = []
    while True:
        try:
            if not carried:
                return stage_if(pred, branches, names)
            return _stage_if_carrying(pred, branches, names, carried)
        except ContainerMutation as e:
            # an attribute or existing item stored in a branch (`if c: self.count += 1`,
            # `if c: acc[i] = s`): staged again, carrying its value through both
            # branches like a variable
            key = getattr(e, "attribute", None)
            if key is None or any(key[0] is o and key[1] == n for o, n in carried) or \
                    len(carried) >= _MAX_CARRIED or \
                    effects.read_slot(*key) is effects.MISSING:
                return _assumed(pred, body, orelse, inputs, e)
            carried.append(key)
        except (UnsupportedOperationError, ShapeMismatchError) as e:
            if not getattr(e, "paths_differ", False):
                raise
            return _assumed(pred, body, orelse, inputs, e)


def _assumed(pred, body, orelse, inputs, error):
    """What no staged `if` can hold (the paths give a variable values no program holds
    both of: `return None` on one, an array on the other; a branch appends to a list):
    the condition is assumed, checked when the program runs, and the branch it selects
    runs as Python, as a Python `if` would (a run that finds the assumption wrong is
    staged again). Where nothing can be assumed (inside a staged loop or branch) the
    refusal stands."""
    taken = _assumable(pred)
    if taken is None:
        raise error
    return (body if taken else orelse)(*inputs)


def _can_assume(pred) -> bool:
    """Whether `pred` can be assumed here (asked before staging too: it records
    nothing)."""
    trace = current_trace()
    return trace is not None and trace.assumptions is not None and not trace.scopes \
        and not pred.deps & trace.specialisable


def _assumable(pred):
    """The value assumed for `pred` (checked when the program runs), or None: where
    nothing can be assumed, and on Python number arguments, which the driver
    specialises instead (the refusal carries their positions)."""
    return assume(pred) if _can_assume(pred) else None


def _stage_if_carrying(pred, branches, names, carried):
    """`stage_if` with the attributes `carried` ((object, name) pairs, existing before
    the `if`) as extra results of both branches: each branch starts from the value
    before the `if`, and the selected value is stored once after it (recorded for
    replay by `effects`, or carried again by an enclosing `if`)."""
    recorder = effects.recorder()
    before = [effects.read_slot(o, n) for o, n in carried]
    kinds: list = []

    def carry(fn):
        def run():
            with recorder.carrying(carried, len(journal._scopes)):
                try:
                    out = fn()
                    values = tuple(effects.read_slot(o, n) for o, n in carried)
                finally:
                    for (o, n), v in zip(carried, before):
                        effects.write_slot(o, n, v)
            mine = tuple(_kind_of(v) for v in values)
            if kinds and kinds[0] != mine:
                # the slot gets objects of different types or dtypes on the paths: the
                # object stored is the path's own (`lst[-1] = y` replaces a float
                # array by an int one), which one carried value of one dtype cannot be
                # (raised while this branch is traced: nothing is staged yet)
                slot = next(k for k, (a, b) in enumerate(zip(kinds[0], mine)) if a != b)
                err = UnsupportedOperationError(
                    f"'{labels[len(names) + slot]}' is given objects of different types "
                    "or dtypes on the paths of a data-dependent branch",
                    hint="store the same type and dtype on every path")
                err.paths_differ = True
                raise err
            kinds.append(mine)
            return tuple(out) + values
        return run

    labels = tuple(names) + tuple(f"{type(o).__name__}{n!r}" if type(n) is effects.Item
                                  else f"{type(o).__name__}.{n}" for o, n in carried)
    result = stage_if(pred, [carry(fn) for fn in branches], labels)
    k = len(names)
    for (o, n), v in zip(carried, result[k:]):
        recorder.store(o, n, v)
    return tuple(result[:k])


def return_value(do_return, retval):
    """The converted function's result when it may also fall off its end (-> None).
    Whether it returned is data-dependent: assumed, checked when the program runs (as
    for an `if` whose paths differ), or refused where nothing can be assumed (a helper
    called inside a staged loop or branch). A function whose returns give None (`return`
    alone, Numba-style kernels that write their outputs) returns None on every path:
    nothing to decide."""
    if retval is None or type(retval) is UndefinedReturnValue:
        return None
    if is_traced(do_return):
        returned = _assumable(to_pred(do_return))
        if returned is None:
            raise NONE_ON_PATH.error_for(deps=do_return.deps, inside="a value",
                                         other="None (it falls off its end)")
        do_return = returned
    if do_return:
        return None if type(retval) is UndefinedReturnValue else retval
    return None


def _kind_of(value):
    """What a stored object is, as NumPy code would see it: its type and dtype."""
    return (python_type(value), getattr(value, "dtype", None))
