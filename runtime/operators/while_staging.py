"""Staging one `stablehlo.while`: the fixed point of a loop body's carried types.

`loops` decides whether a loop runs as Python or is staged; this module stages it.
The body is traced, what it returns is unified with what it got, and the carried
kinds are widened until nothing changes (`_WhileStager`); then the `while` op is
built with the carried arrays, the handles the body updates in place, the carried
selections of outside arrays and one check code as operands (`_build`). A body that
writes a variable in place and then replaces it has its first iteration peeled off
(`_peel`).
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

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
from npxla.runtime.operators.conditionals import (is_traced, leaf_names, raises_at_run_time,
                                                  rebind, stage_if, to_pred, until_raise)
from npxla.runtime.operators.loop_aliasing import (RAN, Through, decompose, independent,
                                                   may_stay_alias,
                                                   select_aliases, selection, which_number,
                                                   written_then_replaced)
from npxla.runtime.operators.loop_tokens import warn_unrolled
from npxla.runtime.staging.variables import Undefined, UndefinedReturnValue
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.extents import value_range
from npxla.runtime.numpy.core.errorflags import check_raises
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.core.layouts import (carried_layouts, has_layout, path_layouts,
                                             set_path_layouts)
from npxla.runtime.operators.logical import and_
from npxla.runtime.operators.mutation import staged_on
from npxla.runtime.operators import bounded_carry

_MAX_ATTEMPTS = 10
# a short static loop over at least this many elements is unrolled after all (`loops`)
FUSE_MIN_ELEMENTS = 1 << 12
# what unifying carried values can raise: a loop that would stage only by choice
# (static trip count) then runs as Python instead
_TYPING_ERRORS = (ShapeMismatchError, UnsupportedOperationError, UndefinedVariableError,
                  IntegerOverflowError)
_BOOL = np.dtype(np.bool_)
_CODE = np.dtype(np.int32)     # which check failed in a staged loop (see `_exports`)


def stage_while(pred0, test, body, init, names, probe=None, fuse=False, peel=None,
                key=None, trips=None):
    """`_stage_while` with carried arrays of run-time length carried as their parts
    (`bounded_carry`; `trips`: a static trip count, with which a variable may grow by
    a fixed step per iteration)."""
    return bounded_carry.stage_while(pred0, test, body, init, names, _stage_while,
                                     trips=trips, probe=probe, fuse=fuse, peel=peel, key=key)


def _stage_while(pred0, test, body, init, names, probe=None, fuse=False, peel=None,
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
    stager = _WhileStager(pred0, test, body, init, names, probe, fuse, peel, key)
    for attempt in range(_MAX_ATTEMPTS):
        b = stager.trace(attempt)
        if b is _AGAIN:
            continue
        if type(b) is _Done:
            return b.value
        try:
            outcome = stager.settle(b)
        except _TYPING_ERRORS as e:
            b.discard()
            if probe is not None and not stager.peeled:   # static trip count: Python
                warn_unrolled(probe, "its variables change shape or type between "
                                     f"iterations ({_short(e)})")
                return None
            raise
        except BaseException:
            b.discard()
            raise
        if outcome is _AGAIN:
            b.discard()
            continue
        if type(outcome) is _Done:
            return outcome.value
        if outcome is _PEEL:
            b.discard()
            return _peel(pred0, test, body, init, names, probe, fuse, stager.born,
                         stager.key)
        return stager.build(b)
    raise InternalCompilerError("the types of the loop's carried values did not settle")


class _Done:
    """The loop's result without a `while` op (None: run it as a Python loop)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


_AGAIN, _PEEL = object(), object()      # trace the body again; peel the first iteration


class _WhileStager:
    """The state of `stage_while`'s fixed-point iteration: the carried leaves' kinds
    (array types, Python values, `Through` for arrays only updated in place) and
    dependencies, the handles the body updates, the check messages it raises, and the
    carried selections of outside arrays (`loop_aliasing`)."""

    def __init__(self, pred0, test, body, init, names, probe, fuse, peel, key):
        self.pred0, self.test, self.body, self.names = pred0, test, body, names
        self.init = init
        self.probe, self.fuse = probe, fuse
        self.peeled = peel is not None
        self.born, self.trusted = peel if self.peeled else (journal.stamp(), frozenset())
        init_leaves: list = []
        self.treedef = flatten(tuple(init), init_leaves, everything=True)
        # with a probe, everything carried depends on the loop: a carried value needed
        # as a Python value later restarts staging with this loop unrolled
        self.loop_dep = frozenset() if probe is None else frozenset([probe])
        self._start(init_leaves)
        self.memo = current_trace().loop_handles
        self.key = key if key is not None else body.__code__
        self.handles = [h for h in self.memo.get(self.key, ())
                        if h._born < self.born and journal.visible(h)]
        self.messages: list = []
        self.arg_leaves: list = []
        # leaf -> the outside arrays it may hold after an iteration: carried as a
        # number too (`select_aliases`); `unselectable`: leaves whose selection failed
        # in a later trace
        self.selected: dict = {}
        self.unselectable: set = set()

    def _start(self, init_leaves):
        """Kinds, dependencies and pass-through candidates of a (re)flattened init."""
        self.init_leaves = init_leaves
        self.lnames = leaf_names(self.treedef, self.names)
        self.kinds = [_initial_kind(x) for x in init_leaves]
        self.deps = [(x.deps if is_abstract(x) else frozenset()) | self.loop_dep
                     for x in init_leaves]
        # leaves that may be passed through as the original handle
        self.through_ok = {k for k, x in enumerate(init_leaves) if type(x) is AbstractArray}
        # k -> the memory layouts carried array k may have in some trip, where any is
        # not C (`numpy.core.layouts`: `w = (w * 2).T` alternates): the body is traced
        # again until they settle, so that its views and copies see every one
        self.layouts = {k: path_layouts(x) for k, x in enumerate(init_leaves)
                        if has_layout(x)}

    def _params(self):
        kinds, pred0 = self.kinds, self.pred0
        arrays = [k for k, t in enumerate(kinds) if isinstance(t, ArrayType)]
        params = [((), _BOOL, False, pred0.deps)] + \
            [(kinds[k].shape, kinds[k].dtype, kinds[k].weak, self.deps[k]) for k in arrays] + \
            [(h.shape, h.dtype, h.weak, h.deps) for h in self.handles] + \
            [((), _CODE, False, pred0.deps)] * len(self.selected) + \
            [((), _CODE, False, frozenset())] * bool(self.messages)
        return arrays, params

    def trace(self, attempt):
        """The traced body (a region builder), `_AGAIN`, or `_Done`."""
        arrays, params = self._params()
        n_in = 1 + len(arrays)
        kinds, init_leaves, selected = self.kinds, self.init_leaves, self.selected
        n_handles = len(self.handles)

        def run(_pred, *args):
            vals = iter(args[:len(arrays)])
            leaves = [next(vals) if isinstance(t, ArrayType) else
                      (t.value if isinstance(t, PythonValue) else init_leaves[k])
                      for k, t in enumerate(kinds)]   # Through and unset: the object
            picks = args[len(arrays) + n_handles:]
            for which, k in zip(picks, sorted(selected)):
                leaves[k] = selection(leaves[k], which, selected[k])
            for k, lays in self.layouts.items():
                if isinstance(kinds[k], ArrayType) and leaves[k] is not init_leaves[k]:
                    set_path_layouts(leaves[k], lays)
            self.arg_leaves[:] = leaves
            new = tuple(self.body(*unflatten(self.treedef, iter(leaves))))
            return (self.test(*new), new)

        try:
            with staged_on(self.pred0):
                b = trace_body(run, params,
                               bind=[(h, n_in + j) for j, h in enumerate(self.handles)])
        except UnsupportedOperationError:
            if not selected:
                raise
            # the body refused what it got (a selection it could not name again):
            # back to carrying plain values for those leaves
            self.unselectable.update(selected)
            self.through_ok.update(k for k in selected
                                   if type(init_leaves[k]) is AbstractArray)
            selected.clear()
            return _AGAIN
        except Exception as e:
            if not raises_at_run_time(e):
                raise
            checked = current_trace().raised_after_checks
            if self.pred0.const is not None:
                if bool(self.pred0.const) and checked:
                    # the loop surely runs and its first trip raises after run-time
                    # checks (`assert ...` then a write into a read-only array): that
                    # trip again, in line, so that its checks fire first (the same
                    # exception ends staging, `driver.staging`, or the enclosing region)
                    self.body(*unflatten(self.treedef, iter(self.init_leaves)))
                raise
            # the body raises on every path: the program raises exactly when the loop
            # runs at all (after the first trip's checks); otherwise nothing changed
            check_raises(self.pred0, e, until_raise(
                self.pred0, lambda: self.body(*unflatten(self.treedef, iter(self.init_leaves))),
                e, checked))
            return _Done(tuple(self.init))
        if self.probe is not None and attempt == 0 and not self.peeled and \
                not _computes(b, b.leaves[1:], self.probe):
            b.discard()
            return _Done(None)
        return b

    def settle(self, b):
        """Compare what the body returned with what it got: `_AGAIN` (widened,
        restructured or newly selected: trace again), `_PEEL`, `_Done(None)` (a short
        fused loop runs as Python), or None (settled: the region is finished)."""
        if b.treedef[1][1] != self.treedef:
            return self._restructure(b)
        replaced = [k for k in written_then_replaced(b, self.init_leaves, self.arg_leaves,
                                                     self.kinds, self.born, self.trusted)
                    if k not in self.selected]
        if replaced:
            if self.peeled:
                raise _replaced_error(self.lnames[replaced[0]])
            if self.fuse:        # short and static: unrolled, every alias exact
                b.discard()
                return _Done(None)
            return _PEEL
        changed = self._widen_kinds(b)
        for k, t in enumerate(self.kinds):
            grown = isinstance(t, ArrayType) and \
                carried_layouts(self.layouts.get(k), b.originals[1 + k], t.shape)
            if grown:
                self.layouts[k], changed = grown, True
        if not changed:
            changed = select_aliases(self.kinds, self.init_leaves, self.arg_leaves,
                                     b.originals[1:], self.pred0, self.born, self.selected,
                                     self.through_ok, self.unselectable)
        changed = self._update_handles(b) or changed
        if b.checks and not self.messages and not changed:
            # the body never reads the carried check code (each iteration starts
            # with none failed): its block argument is added, not traced again
            b.block.add_argument(tensor_type((), _CODE), ir.Location.unknown())
        elif bool(b.checks) != bool(self.messages):
            changed = True
        self.messages = [m for _, m in b.checks]
        if changed:
            return _AGAIN
        self.memo[self.key] = list(self.handles)
        b.emit(lambda: b.finish(_exports(b, self.kinds, self.handles, self.selected)))
        return None

    def _restructure(self, b):
        """The body returned another tree (a variable first assigned inside the loop):
        expand the carried tree and start the kinds afresh."""
        tree = index_tree(self.treedef, len(self.init_leaves))
        like = index_tree(b.treedef[1][1], len(b.leaves) - 1)
        expanded = conform_unset(tree, like, self.init_leaves)
        if expanded == tree:
            raise _structure_error(self.names)
        self.treedef, init_leaves = reflatten(expanded, self.init_leaves)
        self._start(init_leaves)      # positions moved: pass-through decided afresh
        return _AGAIN

    def _widen_kinds(self, b):
        """Widen each carried kind by the value the body returned; True if any changed."""
        changed = False
        kinds, init_leaves = self.kinds, self.init_leaves
        for k, (t, leaf) in enumerate(zip(kinds, b.leaves[1:])):
            if type(t) is Through:
                if b.originals[1 + k] is not init_leaves[k]:   # rebound after all
                    kinds[k], changed = type_of(init_leaves[k]), True
                    self.through_ok.discard(k)
                continue
            if k in self.through_ok and b.originals[1 + k] is self.arg_leaves[k]:
                kinds[k], changed = Through(), True
                continue
            nt = _widen(t, init_leaves[k], leaf, self.lnames[k])
            if nt != t:
                kinds[k], changed = nt, True
            if is_abstract(leaf) and not leaf.deps <= self.deps[k]:
                self.deps[k], changed = self.deps[k] | leaf.deps, True
        for k in [k for k in self.selected
                  if decompose(b.originals[1 + k], self.selected[k]) is None]:
            del self.selected[k]                 # not one of its options any more
            self.unselectable.add(k)
            changed = True
        return changed

    def _update_handles(self, b):
        """The handles the body updates in place: those remembered but not updated are
        dropped, new ones added; True if the set changed."""
        changed = False
        assigned = {id(h) for h, _ in b.assigned}
        if not all(id(h) in assigned for h in self.handles):   # remembered, not updated
            self.handles = [h for h in self.handles if id(h) in assigned]
            changed = True
        for h, _ in b.assigned:
            if not any(h is x for x in self.handles):
                self.handles.append(h)
                changed = True
        return changed

    def build(self, b):
        """The `while` op of the settled body (or None: a short loop over large arrays
        runs as Python, unrolled and fused)."""
        aliased = [type(t) is not Through and k not in self.selected and
                   may_stay_alias(x, arg, new, self.pred0, self.born)
                   for k, (t, x, arg, new) in enumerate(zip(self.kinds, self.init_leaves,
                                                            self.arg_leaves,
                                                            b.originals[1:]))]
        if self.fuse and not self.peeled and b.largest_value() >= FUSE_MIN_ELEMENTS:
            b.discard()
            current_trace().fused_loops.add(self.key)
            return None
        return _build(b, self.pred0, self.init_leaves, self.kinds, self.handles,
                      self.messages, self.treedef, self.deps, aliased, self.selected,
                      self.layouts)


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
    out = _stage_while(to_pred(pred), test, body, first, names, probe=probe, fuse=fuse,
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
           selected, layouts):
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
    for k, (t, x, alias, d, new) in enumerate(zip(kinds, init_leaves, aliased, deps,
                                                 b.leaves[1:])):
        if type(t) is Through:
            leaves.append(x)
        elif isinstance(t, ArrayType):
            out = AbstractArray(t.shape, t.dtype, ir=next(results), weak=t.weak,
                                deps=d | trips)
            if k in layouts:
                set_path_layouts(out, layouts[k])
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
