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

import warnings

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.transpiler.base.catalogue import ELSE_ON_STAGED_LOOP
from npxla.transpiler.base.errors import (IntegerOverflowError, InternalCompilerError,
                                          ShapeMismatchError, UndefinedVariableError,
                                          UnsupportedOperationError)

from npxla.runtime.staging import journal
from npxla.runtime.staging.abstract import AbstractArray, is_abstract, mark_ambiguous
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.staging.pytree import flatten, unflatten
from npxla.runtime.staging.regions import trace_body
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.operators.unify import (ArrayType, PythonValue, conform_unset,
                                           index_tree, lift, reflatten, type_of, unify,
                                           zeros)
from npxla.runtime.operators.conditionals import (is_traced, leaf_names, raise_uncatchable,
                                                  raises_at_run_time, rebind, refuse_in_try,
                                                  stage_if, to_pred)
from npxla.runtime.operators.iteration import Iteration, iteration_of
from npxla.runtime.operators.loop_aliasing import (RAN, Through, decompose, independent,
                                                   may_stay_alias,
                                                   select_aliases, selection, which_number,
                                                   written_then_replaced)
from npxla.runtime.staging.variables import Undefined, UndefinedReturnValue
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.bounded_core import value_range
from npxla.runtime.numpy.errorflags import check_raises
from npxla.runtime.numpy.registry import dispatch
from npxla.runtime.operators.logical import and_
from npxla.runtime.operators.mutation import ContainerMutation, staged_on

_MAX_ATTEMPTS = 10
# A static trip count up to this runs as Python (one iteration needs no loop).
UNROLL_MAX = 1
# A short static loop whose body computes with large arrays is unrolled after all: each
# iteration of an XLA loop writes its arrays to memory, while unrolled iterations fuse
# into one pass (a Horner loop over 16 coefficients on 1e6 elements is ~6x faster
# unrolled; k-means' loop over 8 centroids of 10^4 points 1.3x).
FUSE_MAX_TRIPS, FUSE_MIN_ELEMENTS = 16, 1 << 12
# what unifying carried values can raise: a loop that would stage only by choice
# (static trip count) then runs as Python instead
_TYPING_ERRORS = (ShapeMismatchError, UnsupportedOperationError, UndefinedVariableError,
                  IntegerOverflowError)
_BOOL = np.dtype(np.bool_)
_CODE = np.dtype(np.int32)     # which check failed in a staged loop (see `_exports`)


class NpxlaPerformanceWarning(UserWarning):
    """Code compiled correctly but slower or larger than it could be."""


class LoopToken:
    """Stands for a staged loop's index in `AbstractArray.deps`: a ConcretizationError
    carrying it means the loop must be unrolled (static trip count) or refused."""
    __slots__ = ("code", "static", "count_deps")

    def __init__(self, code, static, count_deps=frozenset()):
        self.code, self.static, self.count_deps = code, static, count_deps

    def __hash__(self):
        return hash(self.code)

    def __eq__(self, other):
        return type(other) is LoopToken and other.code is self.code

    @property
    def where(self):
        return f"{self.code.co_filename}:{self.code.co_firstlineno}"


class _Unrolled:
    """The loop bodies to unroll: a policy of the current trace (`Trace.unrolled`, set
    by the caller of `staging.stage`), so threads staging at once never share it."""

    def __contains__(self, code):
        trace = current_trace()
        return trace is not None and code in trace.unrolled


_unrolled = _Unrolled()


def warn_unrolled(token, reason="a value computed in this loop (e.g. its index) is needed "
                                "as a static value (a slice bound or a shape)"):
    warnings.warn_explicit(
        f"{reason}, so the loop is unrolled: the compiled program grows with the trip "
        "count", NpxlaPerformanceWarning, token.code.co_filename, token.code.co_firstlineno)


# --- while --------------------------------------------------------------------------
def while_stmt(test, body, carried, names, *, has_else=False):
    carried = tuple(carried)
    first = True
    while True:
        cond = test(*carried)
        if is_traced(cond):
            _refuse_else(has_else, "while loop")
            return stage_while(to_pred(_unless_overflowed(cond)), _stops_on_overflow(test),
                               body, carried, names)
        if not cond:
            return carried
        if first and not has_else:
            # a Python condition: staged like a static range when the body computes
            # with arrays, so the program does not grow with the iteration count
            out = _try_staged_while(test, body, carried, names)
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


def _try_staged_while(test, body, carried, names):
    token = LoopToken(body.__code__, True)
    if token.code in _unrolled or current_trace() is None:
        return None
    try:
        return stage_while(AbstractArray.from_const(np.bool_(True), weak=False), test, body,
                           carried, names, probe=token)
    except ContainerMutation:
        return None


def _refuse_else(has_else, what):
    if has_else:
        raise_uncatchable(ELSE_ON_STAGED_LOOP.error_for(kind=what.split()[0]))


# --- for ------------------------------------------------------------------------------
def for_stmt(iterable, extra_test, body, carried, names, *, has_else=False):
    carried = tuple(carried)
    it = iteration_of(iterable)
    if it is not None and not it.static:
        _refuse_else(has_else, "for loop")
    token = LoopToken(body.__code__, it is not None and it.static,
                      it.count.deps if it is not None and is_abstract(it.count) else frozenset())
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
        except ContainerMutation:
            if not it.static:
                raise
            out = None
        if out is not None:
            return out
    # a static trip count the staging declined: short and large, or no array work
    if fuse and token.code in trace.fused_loops:
        return _fused_for(it, extra_test, body, carried, names, trace)
    return _python_for(it.python(), extra_test, body, carried, names)


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
    iterator = iter(iterable if it is None else it.python())
    while True:
        go = True if extra_test is None else extra_test()
        if is_traced(go):
            refuse_in_try("break")
        if not go:
            return
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
    # and evaluate on every iteration
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
    out = stage_while(pred0, test, step, (start,) + carried, ("<loop index>",) + tuple(names),
                      probe=token if probe else None,
                      fuse=fuse, key=body.__code__)
    return None if out is None else out[1:]


# --- the staged loop --------------------------------------------------------------------
def stage_while(pred0, test, body, init, names, probe=None, fuse=False, peel=None,
                key=None):
    """One `stablehlo.while` running `body` while `test` holds, from `init`.

    Carried types are found by fixed-point iteration: trace the body, unify every value
    it returns with the value it got, widen and retrace until nothing changes. Handles
    the body updates in place and runtime checks it raises join the carried state.
    With `probe` (a LoopToken), return None instead when the first trace shows that
    the body computes only from the loop index (so a Python loop folds it).

    A variable the body only updates in place (`u += v`, returned as the very object it
    received) is not carried as a value: the body gets the original handle, so its
    writes reach the array's base and every alias (a view made before the loop writes
    into the grid it views) through the journal. A variable the body writes in place
    and then replaces (`x[0] = 5; x = x + 1`) is the pre-loop array in the first
    iteration only: that iteration is peeled off the loop (see `_peel`). `key` (the
    user's body code) remembers which handles the body updated, for the next time
    this loop is staged (inside each trace of an enclosing loop)."""
    peeled = peel is not None
    born, trusted = peel if peeled else (journal.stamp(), frozenset())
    init_leaves: list = []
    treedef = flatten(tuple(init), init_leaves, everything=True)
    lnames = leaf_names(treedef, names)
    kinds = [_initial_kind(x) for x in init_leaves]
    # with a probe, everything carried depends on the loop: a carried value needed as a
    # Python value later restarts staging with this loop unrolled
    loop_dep = frozenset() if probe is None else frozenset([probe])
    deps = [(x.deps if is_abstract(x) else frozenset()) | loop_dep for x in init_leaves]
    memo, key = current_trace().loop_handles, key if key is not None else body.__code__
    handles = [h for h in memo.get(key, ()) if h._born < born and journal.visible(h)]
    messages: list = []
    arg_leaves: list = []
    # leaves that may be passed through as the original handle
    through_ok = {k for k, x in enumerate(init_leaves) if type(x) is AbstractArray}
    # leaf -> the outside arrays it may hold after an iteration: carried as a number too
    # (`_select_aliases`); `unselectable`: leaves whose selection failed in a later trace
    selected: dict = {}
    unselectable: set = set()
    for attempt in range(_MAX_ATTEMPTS):
        arrays = [k for k, t in enumerate(kinds) if isinstance(t, ArrayType)]
        params = [((), _BOOL, False, pred0.deps)] + \
            [(kinds[k].shape, kinds[k].dtype, kinds[k].weak, deps[k]) for k in arrays] + \
            [(h.shape, h.dtype, h.weak, h.deps) for h in handles] + \
            [((), _CODE, False, pred0.deps)] * len(selected) + \
            [((), _CODE, False, frozenset())] * bool(messages)
        n_in = 1 + len(arrays)

        def run(_pred, *args):
            vals = iter(args[:len(arrays)])
            leaves = [next(vals) if isinstance(t, ArrayType) else
                      (t.value if isinstance(t, PythonValue) else init_leaves[k])
                      for k, t in enumerate(kinds)]   # Through and unset: the object
            picks = args[len(arrays) + len(handles):]
            for which, k in zip(picks, sorted(selected)):
                leaves[k] = selection(leaves[k], which, selected[k])
            arg_leaves[:] = leaves
            new = tuple(body(*unflatten(treedef, iter(leaves))))
            return (test(*new), new)

        try:
            with staged_on(pred0):
                b = trace_body(run, params,
                               bind=[(h, n_in + j) for j, h in enumerate(handles)])
        except UnsupportedOperationError:
            if not selected:
                raise
            # the body refused what it got (a selection it could not name again):
            # back to carrying plain values for those leaves
            unselectable.update(selected)
            through_ok.update(k for k in selected if type(init_leaves[k]) is AbstractArray)
            selected.clear()
            continue
        except Exception as e:
            if not raises_at_run_time(e) or pred0.const is not None:
                raise
            # the body raises on every path: the program raises exactly when the loop
            # runs at all; otherwise nothing changed
            check_raises(pred0, e)
            return tuple(init)
        if probe is not None and attempt == 0 and not peeled and \
                not _computes(b, b.leaves[1:], probe):
            b.discard()
            return None
        try:
            if b.treedef[1][1] != treedef:
                tree = index_tree(treedef, len(init_leaves))
                like = index_tree(b.treedef[1][1], len(b.leaves) - 1)
                expanded = conform_unset(tree, like, init_leaves)
                if expanded == tree:
                    raise _structure_error(names)
                treedef, init_leaves = reflatten(expanded, init_leaves)
                lnames = leaf_names(treedef, names)
                kinds = [_initial_kind(x) for x in init_leaves]
                deps = [(x.deps if is_abstract(x) else frozenset()) | loop_dep
                        for x in init_leaves]
                # positions moved: decide afresh which leaves may pass through
                through_ok = {k for k, x in enumerate(init_leaves) if type(x) is AbstractArray}
                b.discard()
                continue
            new_leaves = b.leaves[1:]
            replaced = [k for k in written_then_replaced(b, init_leaves, arg_leaves, kinds,
                                                         born, trusted) if k not in selected]
            if replaced:
                if peeled:
                    raise _replaced_error(lnames[replaced[0]])
                if fuse:        # short and static: unrolled, every alias exact
                    b.discard()
                    return None
                break
            changed = False
            for k, (t, leaf) in enumerate(zip(kinds, new_leaves)):
                if type(t) is Through:
                    if b.originals[1 + k] is not init_leaves[k]:   # rebound after all
                        kinds[k], changed = type_of(init_leaves[k]), True
                        through_ok.discard(k)
                    continue
                if k in through_ok and b.originals[1 + k] is arg_leaves[k]:
                    kinds[k], changed = Through(), True
                    continue
                nt = _widen(t, init_leaves[k], leaf, lnames[k])
                if nt != t:
                    kinds[k], changed = nt, True
                if is_abstract(leaf) and not leaf.deps <= deps[k]:
                    deps[k], changed = deps[k] | leaf.deps, True
            for k in [k for k in selected if decompose(b.originals[1 + k], selected[k]) is None]:
                del selected[k]                 # not one of its options any more
                unselectable.add(k)
                changed = True
            if not changed:
                changed = select_aliases(kinds, init_leaves, arg_leaves, b.originals[1:],
                                          pred0, born, selected, through_ok, unselectable)
            assigned = {id(h) for h, _ in b.assigned}
            if not all(id(h) in assigned for h in handles):   # remembered, not updated
                handles = [h for h in handles if id(h) in assigned]
                changed = True
            for h, _ in b.assigned:
                if not any(h is x for x in handles):
                    handles.append(h)
                    changed = True
            if b.checks and not messages and not changed:
                # the body never reads the carried check code (each iteration starts
                # with none failed): its block argument is added, not traced again
                b.block.add_argument(tensor_type((), _CODE), ir.Location.unknown())
            elif bool(b.checks) != bool(messages):
                changed = True
            messages = [m for _, m in b.checks]
            if changed:
                b.discard()
                continue
            memo[key] = list(handles)
            b.emit(lambda: b.finish(_exports(b, kinds, handles, selected)))
        except _TYPING_ERRORS as e:
            b.discard()
            if probe is not None and not peeled:   # static trip count: run as Python
                warn_unrolled(probe, "its variables change shape or type between "
                                     f"iterations ({_short(e)})")
                return None
            raise
        except BaseException:
            b.discard()
            raise
        aliased = [type(t) is not Through and k not in selected and
                   may_stay_alias(x, arg, new, pred0, born)
                   for k, (t, x, arg, new) in enumerate(zip(kinds, init_leaves, arg_leaves,
                                                            b.originals[1:]))]
        if fuse and not peeled and b.largest_value() >= FUSE_MIN_ELEMENTS:
            b.discard()
            current_trace().fused_loops.add(key)
            return None        # the caller runs it as Python: unrolled and fused
        return _build(b, pred0, init_leaves, kinds, handles, messages, treedef, deps, aliased,
                      selected)
    else:
        raise InternalCompilerError("the types of the loop's carried values did not settle")
    b.discard()
    return _peel(pred0, test, body, init, names, probe, fuse, born, key)


_UNSET = (Undefined, UndefinedReturnValue)


def _peel(pred0, test, body, init, names, probe, fuse, born, key):
    """Run the first iteration on the pre-loop values (guarded by `pred0`), then the
    rest as a loop. The loop's values that the first iteration made as new arrays are
    `trusted` to be independent: under a traced `pred0` they are `if` results that are
    the pre-loop arrays only when the loop does not run at all."""
    made_new: list = []

    def first_iteration():
        out = tuple(body(*init))
        leaves: list = []
        flatten(out, leaves, everything=True)
        made_new[:] = [type(x) is AbstractArray and independent(x, born) for x in leaves]
        return out

    if is_traced(pred0):
        first = tuple(stage_if(pred0, [first_iteration, lambda: tuple(init)], names))
        pred = and_(lambda: pred0, lambda: test(*first))
    else:
        first = first_iteration()
        pred = test(*first)
    leaves: list = []
    flatten(first, leaves, everything=True)
    trusted = frozenset(id(x) for x, ok in zip(leaves, made_new) if ok) \
        if len(leaves) == len(made_new) else frozenset()
    if not is_traced(pred):
        if not pred:
            return first
        pred = AbstractArray.from_const(np.bool_(True), weak=False)
    out = stage_while(to_pred(pred), test, body, first, names, probe=probe, fuse=fuse,
                      peel=(born, trusted), key=key)
    return out          # never None: a peeled loop cannot restart as a Python loop


def _replaced_error(name):
    return UnsupportedOperationError(
        f"'{name}' is updated in place and then replaced by a new array inside a loop, "
        "while it may still be the same array as another variable: the in-place update "
        "would reach that other array only in some iterations",
        hint=f"copy it first ({name} = {name}.copy()) or write '{name} = ...' instead of "
             "updating it in place")


def _short(err):
    return str(err.args[0]).split(" on one path")[0].split(";")[0]


def _initial_kind(x):
    if type(x) in _UNSET:
        return None
    if type(x) is AbstractArray or type(x) in (bool, int, float, complex):
        return type_of(x)
    return PythonValue(x)


def _widen(kind, init, new, name):
    """The carried type after one more iteration returned `new`."""
    if kind is None:       # first assigned inside the loop
        if type(new) in _UNSET:
            return None
        return type_of(new) if type_of(new) is not None else PythonValue(new)
    before = kind.value if isinstance(kind, PythonValue) else \
        AbstractArray(kind.shape, kind.dtype, weak=kind.weak, const=None)
    starts = [init] if type_of(init) is not None else []   # range checks need its value
    u = unify([before, new] + starts, name, "loop")
    return kind if isinstance(u, PythonValue) else u


def _computes(b, new_leaves, token):
    """Whether the body depends on anything but the loop index (arrays, arguments).
    A check on index-only values (a counter's overflow check) is a constant in a Python
    loop, so it does not count."""
    if b.assigned or any(flag.deps - {token} for flag, _ in b.checks):
        return True
    return any(is_abstract(x) and (x.deps - {token}) for x in new_leaves)


def _structure_error(names):
    return UnsupportedOperationError(
        "a variable changes structure (tuple/list/dict layout) inside a data-dependent "
        f"loop (carried: {', '.join(n for n in names if not n.startswith('<'))})",
        hint="keep each loop variable the same kind of value in every iteration")


def _exports(b, kinds, handles, selected):
    cond = b.leaves[0]
    pred = to_pred(cond) if is_traced(cond) else AbstractArray.from_const(
        np.bool_(bool(cond)), weak=False)
    values = [pred]
    for t, leaf in zip(kinds, b.leaves[1:]):
        if isinstance(t, ArrayType):
            values.append(zeros(t) if type(leaf) in _UNSET else lift(leaf, t))
    mine = {id(h): snap for h, snap in b.assigned}
    values += [mine[id(h)] for h in handles]
    values += [which_number(b.originals[1 + k], selected[k]) for k in sorted(selected)]
    if b.checks:
        # An iteration that raised ends the loop, as the exception would: the next
        # iterations could loop forever (a counter the raise skipped, an index that
        # went out of bounds) and their values are never seen. So every iteration
        # starts with no check failed, and the loop carries one code: which check of
        # this iteration failed first (1-based), or 0. One scalar instead of a flag
        # per check: XLA:CPU runs each carried scalar as a kernel of its own on every
        # iteration (csr_matvec: 5 flags, a quarter of the kernels of its loop body).
        code = _constant_code(0)
        for k in range(len(b.checks) - 1, -1, -1):
            code = S.select(to_pred(b.checks[k][0]), _constant_code(k + 1), code)
        values.append(code)
        values[0] = dispatch(np.logical_and,
                             (pred, E.compare(code, _constant_code(0), "EQ")), {})
    return values


def _constant_code(k):
    return AbstractArray.from_const(np.array(k, _CODE), weak=False)


def _exit_range(before, after):
    """(lo, hi) a carried Python int (immutable: never updated in place, so its range
    cannot go stale) lies in after the loop, or None: its value before the loop
    (the placeholder 0 when it had none) or the value of some iteration. A range staging
    derived for the body's value holds in every iteration: the carried values the body
    received had none, only the counter, whose range holds while the body runs. So the
    index of a `for` loop keeps its range after the loop (and `it + 1` then needs no
    run-time int64 overflow check)."""
    first = (0, 0) if type(before) in _UNSET else value_range(before)
    last = value_range(after)
    if first is None or last is None:
        return None
    return min(first[0], last[0]), max(first[1], last[1])


def _build(b, pred0, init_leaves, kinds, handles, messages, treedef, deps, aliased,
           selected):
    """Emit the stablehlo.while: the condition, the carried array values, the handles the
    body updates in place and its check flags are the loop's operands; returns the
    results mapped back to the carried tree, the handles and the checks (a flag that
    fires stops the loop)."""
    types = [tensor_type((), _BOOL)] + \
        [tensor_type(*t.aval) for t in kinds if isinstance(t, ArrayType)] + \
        [tensor_type(h.shape, h.dtype) for h in handles] + \
        [tensor_type((), _CODE)] * len(selected) + \
        [tensor_type((), _CODE)] * bool(messages)
    operands = [pred0]
    for t, x in zip(kinds, init_leaves):
        if isinstance(t, ArrayType):
            operands.append(zeros(t) if type(x) in _UNSET else lift(x, t))
    operands += handles
    operands += [which_number(init_leaves[k], selected[k]) for k in sorted(selected)]
    operands += [_constant_code(0)] * bool(messages)
    op = hlo.WhileOp(types, [x.ir for x in operands])
    cond = op.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.ReturnOp([cond.arguments[0]])
    b.move_to(op.body)
    all_deps = pred0.deps.union(*deps)
    cond = b.leaves[0]
    # a carried value depends on its own inputs and on how many iterations ran
    trips = pred0.deps | (cond.deps if is_abstract(cond) else frozenset())
    results = iter(list(op.results)[1:])
    leaves, ambiguous = [], []
    for t, x, alias, d, new in zip(kinds, init_leaves, aliased, deps, b.leaves[1:]):
        if type(t) is Through:
            leaves.append(x)
        elif isinstance(t, ArrayType):
            out = AbstractArray(t.shape, t.dtype, ir=next(results), weak=t.weak,
                                deps=d | trips)
            if t.weak and not t.shape and t.dtype.kind in "iu":
                out._range = _exit_range(x, new)
            alias, exact = alias or ((), False)
            same = all(a.shape == out.shape and a.dtype == out.dtype for a in alias)
            if exact == RAN and same and not is_traced(pred0):
                # the loop surely runs (or surely not): the outside array every
                # iteration left in it (or `x`) itself
                out = alias[1] if bool(pred0.const) else x
            elif exact == RAN and same:
                # the outside array every iteration left in it, or `x` if none ran
                out = AbstractArray.switch(out, [
                    (pred0, alias[1]), (dispatch(np.logical_not, (pred0,), {}), x)])
            elif exact and same:
                # still `x` exactly when no iteration ran, else the last new value
                out = AbstractArray.switch(out, [(dispatch(np.logical_not, (pred0,), {}),
                                                  x)])
            elif alias:
                ambiguous.append((out, alias))
            leaves.append(out)
        else:
            leaves.append(t.value if isinstance(t, PythonValue) else x)
    for h in handles:
        rebind(h, next(results), all_deps)
    for k in sorted(selected):       # the outside array each path left, or the new one
        which = AbstractArray((), _CODE, ir=next(results), deps=all_deps | trips)
        leaves[k] = selection(leaves[k], which, selected[k])
    for out, alias in ambiguous:      # after the rebinds: their versions are the baseline
        mark_ambiguous(out, "loop", alias)
    trace = current_trace()
    if messages:
        code = AbstractArray((), _CODE, ir=next(results), deps=all_deps)
        for k, msg in enumerate(messages):
            trace.add_error_check(E.compare(code, _constant_code(k + 1), "EQ"), msg)
    return unflatten(treedef, iter(leaves))
