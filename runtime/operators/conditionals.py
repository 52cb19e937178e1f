"""`if` statements and conditional expressions.

A Python (or constant) condition runs the chosen branch as plain Python, exactly like
the original code. A traced condition traces both branches into the regions of one
`stablehlo.if`; the variables the converter lists as outputs, the arrays updated in
place and the runtime error checks leave the op as results, typed by `unify`.
"""
from __future__ import annotations

import contextlib
import types

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.transpiler.base.catalogue import TRY_AROUND_STAGED_FLOW
from npxla.transpiler.base.errors import (ConcretizationError, ShapeMismatchError,
                                          TranspileError, UnsupportedOperationError)
from npxla.transpiler.base.origin import innermost_module

from npxla.runtime.staging import journal
from npxla.runtime.staging.abstract import (AbstractArray, is_abstract, mark_ambiguous,
                                            root_of)
from npxla.runtime.staging.types import element_count, tensor_type
from npxla.runtime.staging.pytree import unflatten
from npxla.runtime.staging.regions import trace_body
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.operators.mutation import staged_on
from npxla.runtime.operators import bounded_carry, path_sequences
from npxla.runtime.operators.bounded_carry import exact_dtypes_for
from npxla.runtime.operators.unify import (ArrayType, PythonValue, conform_unset,
                                           index_tree, lift, reflatten, unify, zeros)
from npxla.runtime.staging.variables import UndefinedReturnValue
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.inplace import update_slice
from npxla.runtime.numpy.core.extents import same_value
from npxla.runtime.numpy.core.errorflags import (check_raises, has_run_time_values,
                                                 message_payloads)
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.core.layouts import branch_layouts
from npxla.transpiler.base.origin import locate_stack


def is_traced(x) -> bool:
    return is_abstract(x) and x.const is None


def to_pred(test):
    """A traced condition as a scalar bool handle (NumPy's truth rules)."""
    if test.size != 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")
    pred = test if test.dtype == np.bool_ else dispatch(np.not_equal, (test, 0), {})
    return S.reshape(pred, shape=()) if pred.shape else pred


def raise_uncatchable(err):
    """Raise a refusal that an enclosing user `try/except` must not swallow: it is
    located now and staging re-raises it when the function returns."""
    import sys
    err = err.with_location(locate_stack(sys._getframe(1)))
    trace = current_trace()
    if trace is not None:
        trace.pending_errors.append(err)
    raise err


def reraise_refusal():
    """The first statement of every `except` clause of converted code: a refusal of
    npxla's (a `TranspileError`) caught by the user's handler is raised again, so that
    a broad `except Exception:` cannot turn it into a silently different fallback."""
    import sys
    err = sys.exc_info()[1]
    if isinstance(err, TranspileError) and current_trace() is not None:
        raise err


def refuse_in_try(what):
    raise_uncatchable(TRY_AROUND_STAGED_FLOW.error_for(kind=what))


def test_in_try(test, kind):
    """The test of an `if` or `while` that stays a Python statement inside a user `try`
    (its body is not a function, so an exception keeps the assignments made before
    it); the compiled program cannot raise, so a traced test is refused there."""
    if is_traced(test):
        refuse_in_try(kind)
    return test


def if_exp(test, if_true, if_false):
    if not is_traced(test):
        return if_true() if test else if_false()
    return stage_if(to_pred(test), [if_true, if_false], ("<conditional expression>",),
                    single=True)


def leaf_names(treedef, names, single=False):
    """A readable name per flattened leaf of the branch results (for errors)."""
    if single:
        return [names[0]] * _count(treedef)
    out = []
    for name, sub in zip(names, treedef[1]):
        n = _count(sub)
        whole = n == 1 or (sub is not None and sub[0] == "namedtuple" and
                           sub[1] is bounded_carry.Parts)     # an array of run-time length
        out += [name] * n if whole else [f"{name} (element {i})" for i in range(n)]
    return out


def _count(treedef):
    if treedef is None:
        return 1
    if treedef[0] in (tuple, list):
        return sum(_count(d) for d in treedef[1])
    if treedef[0] is dict or treedef[0] == "namedtuple":
        return sum(_count(d) for d in treedef[2])
    return 0


def _check_structure(bodies, names, single):
    first = bodies[0].treedef
    for b in bodies[1:]:
        if b.treedef == first:
            continue
        if single:
            bad = names[0]
        else:
            bad = next(n for n, x, y in zip(names, first[1], b.treedef[1]) if x != y)
        raise UnsupportedOperationError(
            f"'{bad}' has a different structure (tuple/list/dict layout) on the two paths "
            "of a data-dependent branch",
            hint=f"give '{bad}' the same structure on both paths")


def raises_at_run_time(exc) -> bool:
    """Whether an exception raised while a branch was traced is the program's own
    behaviour on that path (a user's `raise`, or NumPy's error for the operands, as in
    `x + y` with shapes that do not broadcast), not a refusal or a compiler failure."""
    if isinstance(exc, TranspileError) or not isinstance(exc, Exception):
        return False
    if innermost_module(exc.__traceback__, skip=("numpy",)).startswith("npxla.runtime.numpy."):
        return True
    if isinstance(exc, AttributeError) and _missing_numpy_name(exc.__traceback__):
        return True
    return innermost_module(exc.__traceback__).partition(".")[0] not in _COMPILER_PACKAGES


_COMPILER_PACKAGES = frozenset({"npxla", "jax", "jaxlib", "gast", "numpy"})


def _missing_numpy_name(tb) -> bool:
    """Whether the innermost frame is NumPy's module `__getattr__` refusing a name
    (`np.NaN`, removed in NumPy 2): the user's line raises that when it runs, so a
    branch that does it raises only when taken (EntropyHub's `CoSiEn`:
    `if Bm == 1 or Bm == 0: CoSi = np.NaN`)."""
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    frame = tb.tb_frame
    return frame.f_code.co_name == "__getattr__" and \
        frame.f_globals.get("__name__", "").partition(".")[0] == "numpy"


def _trace_branches(branches):
    """The traced bodies, and (index, exception) for a branch that always raises."""
    bodies, raised = [], None
    try:
        for k, fn in enumerate(branches):
            try:
                bodies.append(trace_body(fn))
            except Exception as e:
                if raised is not None or not raises_at_run_time(e):
                    raise
                raised = (k, e, current_trace().raised_after_checks)
                bodies.append(None)
    except BaseException:
        for b in bodies:
            if b is not None:
                b.discard()
        raise
    return bodies, raised


def _raise_when_taken(pred, branches, bodies, raised):
    """One path raises: the program raises when it is taken (a runtime check), and
    otherwise runs the other path, which is then the only one left to compute."""
    k, exc, checked = raised
    other = 1 - k
    bodies[other].discard()
    taken = pred if k == 0 else dispatch(np.logical_not, (pred,), {})
    check_raises(taken, exc, until_raise(taken, branches[k], exc, checked))
    return branches[other]()


def until_raise(taken, branch, exc, checked):
    """The raising branch's trace ended with the exception, so what it holds is lost:
    the run-time checks it made before the `raise` (`checked`: a bad index, a cast
    that overflows, which NumPy raises first) and the values its message formats
    (`raise ValueError(f"{x.min()} < 0")`). It is staged again as a branch of its own
    that stops at the same `raise`: its checks come before the raise's, and it returns
    the message's values for the check (`errorflags.message_payloads`), or None when
    the message has no traced values or that branch cannot be staged so."""
    if not checked and not has_run_time_values(exc) and \
            not isinstance(type(exc).__init__, types.FunctionType):
        return None          # (a user's `__init__` may log: its host calls must run)
    kept: list = []

    def until_raise():
        try:
            branch()
        except Exception as e:
            if type(e) is type(exc) and raises_at_run_time(e):
                kept.append(message_payloads(e))
        return ()
    try:
        stage_if(taken, [until_raise, lambda: ()], ())
    except Exception:
        return None
    return kept[0] if kept else None


def stage_if(pred, branches, names, single=False):
    """Trace `branches` (true first) into one `stablehlo.if`; returns their result
    (arrays of run-time length carried as their parts: `bounded_carry`)."""
    return bounded_carry.stage_if(pred, branches, names, single, _stage_if,
                                  grow=not specialisable(pred))


def _same_dtypes(bodies, lnames):
    """Refuse (as paths that differ) an output that is an array of one dtype on one
    path and of another on the other (`indz = np.nonzero(m)[0]` on one, its midpoints
    `np.round(...)` on the other): NumPy's dtype follows the path taken, which one
    program cannot, so the condition is assumed instead (`if_statements`). Python
    numbers (NEP 50 weak scalars) on a path keep the documented promotion."""
    for k, name in enumerate(lnames):
        leaves = [b.leaves[k] for b in bodies]
        if not all(type(v) is AbstractArray and not v.weak for v in leaves):
            continue
        dtypes = sorted({np.dtype(v.dtype) for v in leaves}, key=str)
        if len(dtypes) > 1:
            err = UnsupportedOperationError(
                f"'{name}' is an array of dtype {dtypes[0]} on one path of a "
                f"data-dependent if and of dtype {dtypes[1]} on another",
                hint=f"give '{name}' one dtype on every path (x.astype(...))")
            err.paths_differ = True
            raise err


def _stage_if(pred, branches, names, single=False):
    with staged_on(pred):
        bodies, raised = _trace_branches(branches)
        if raised is not None:
            return _raise_when_taken(pred, branches, bodies, raised)
    try:
        sequences = {} if single else path_sequences.split_arrays_beside_lists(bodies, names)
        _expand_unset(bodies)
        with _unrolled_on_mismatch(pred):
            _check_structure(bodies, names, single)
            lnames = leaf_names(bodies[0].treedef, names, single)
            if exact_dtypes_for.get() is pred:
                _same_dtypes(bodies, lnames)
            assigned = _union_handles(bodies)
            passthrough, types = [], []
            for k, name in enumerate(lnames):
                objs = [b.originals[k] for b in bodies]
                same = all(o is objs[0] for o in objs) and is_abstract(objs[0]) and \
                    not any(objs[0] is h for h in assigned)
                passthrough.append(same)
                types.append(None if same else
                             unify([b.leaves[k] for b in bodies], name, "if"))
        checks = [(i, flag, msg) for i, b in enumerate(bodies) for flag, msg in b.checks]
        lifts = _inner_switches(bodies, types)
        # the conditions of switches made inside a branch leave the op like check flags
        flags = checks + [(i, cond, None) for i, _, cond, _ in lifts]
        out_types = [t for t in types if isinstance(t, ArrayType)]
        result_types = [tensor_type(*t.aval) for t in out_types] + \
            [tensor_type(h.shape, h.dtype) for h in assigned] + \
            [tensor_type((), np.bool_)] * len(flags)
        for i, b in enumerate(bodies):
            b.emit(lambda b=b, i=i: b.finish(_exports(b, i, types, assigned, flags)))
    except BaseException:
        for b in bodies:
            b.discard()
        raise
    selected = _inline_as_select(pred, bodies)
    results = list(_if_op(pred, bodies, result_types) if selected is None else selected)
    lifted: dict = {}
    for (_, k, _, o), r in zip(lifts, results[len(results) - len(lifts):]):
        lifted.setdefault(k, []).append((AbstractArray((), np.bool_, ir=r, deps=pred.deps), o))
    results = iter(results)
    deps = pred.deps.union(*[x.deps for b in bodies for x in b.leaves if is_abstract(x)])
    leaves, ambiguous = [], []
    for k, t in enumerate(types):
        if passthrough[k]:
            leaves.append(bodies[0].originals[k])
        elif isinstance(t, PythonValue):
            leaves.append(t.value)
        else:
            # its own dependencies: another leaf's data (a returned slice beside the
            # return flag) does not decide this one's value
            own = pred.deps.union(*[b.leaves[k].deps for b in bodies
                                    if is_abstract(b.leaves[k])])
            out = AbstractArray(t.shape, t.dtype, ir=next(results), weak=t.weak, deps=own)
            branch_layouts(out, [b.originals[k] for b in bodies])
            older = _ambiguous_alias(bodies, k) if t.shape else ()
            if older:
                switched = _switch(pred, bodies, k, out, lifted.get(k, ()))
                if switched is None:
                    ambiguous.append((out, older))
                else:
                    out = switched
            leaves.append(out)
    for h in assigned:
        rebind(h, next(results), deps)
    for out, older in ambiguous:      # after the rebinds: their versions are the baseline
        mark_ambiguous(out, "branch", older)
    trace = current_trace()
    for _, _, msg in checks:
        flag = AbstractArray((), np.bool_, ir=next(results), deps=deps)
        trace.add_error_check(flag, msg)
    # an in-place-updated handle returned by every branch stays the same object
    for k in range(len(leaves)):
        obj = bodies[0].originals[k]
        if any(obj is h for h in assigned) and all(b.originals[k] is obj for b in bodies):
            leaves[k] = obj
    return path_sequences.wrap(unflatten(bodies[0].treedef, iter(leaves)), sequences)


@contextlib.contextmanager
def _unrolled_on_mismatch(pred):
    """A condition computed only from the indices of staged loops with a static trip
    count (`kr:-1 + kr or None` in `for kr in range(2)`) whose paths give different
    Python values, shapes or structures: the branch needs the index as a Python value,
    so this raises ConcretizationError with those loops' tokens and staging restarts
    with them unrolled (the same path as `x[:i]`). The same for a condition on Python
    scalar arguments (`if order == 0: return np.eye(1)`): the driver specialises them.
    Conditions on array data keep the refusal."""
    try:
        yield
    except (UnsupportedOperationError, ShapeMismatchError) as e:
        if not specialisable(pred):
            e.paths_differ = True      # `if_stmt` may assume the condition instead
            raise
        raise ConcretizationError(f"a branch on {_decided_by(pred.deps)} needs its value: "
                                  f"{e.message}", deps=pred.deps) from e


def specialisable(pred) -> bool:
    """Whether `pred` depends only on the indices of static loops it is inside and on
    Python arguments (which unrolling or specialising makes Python values). A value a
    finished loop computed carries its token too, but it is array data unrolling does
    not make static (`if lc_nj > le_nj:` after two arc-length loops, paths of different
    shapes: similaritymeasures.pcm unrolled both in vain, 4.8 s to compile)."""
    trace = current_trace()
    special = trace.specialisable if trace is not None else frozenset()
    active = trace.active_loops if trace is not None else ()
    return bool(pred.deps) and all(d in special if type(d) is int
                                   else getattr(d, "static", None) is True and d in active
                                   for d in pred.deps)


def _decided_by(deps) -> str:
    return "a loop index" if any(type(d) is not int for d in deps) else \
        "a Python scalar argument"


def _if_op(pred, bodies, result_types):
    op = hlo.IfOp(result_types, pred.ir)
    bodies[0].move_to(op.true_branch)
    bodies[1].move_to(op.false_branch)
    return op.results


# Branches this small are computed both and selected: XLA runs a `conditional` as a
# call into separate computations (tens of ns, and no fusion across it), which
# dominates scalar recurrences like `if x[i] > peak: peak = x[i]` inside a loop.
# A branch may also write a few elements of a large array (`if i == j: L[i, j] = d`
# `else: L[i, j] = (A[i, j] - s) / L[j, j]`): then the written values are selected and
# written once, instead of a conditional that copies the whole array (Cholesky at
# n = 200 with that `if` in its inner loop: 260 ms as a conditional).
SELECT_MAX_ELEMENTS = 64
SELECT_MAX_OPS = 48
_NOT_INLINED = frozenset({"stablehlo.custom_call", "stablehlo.while", "stablehlo.if",
                          "stablehlo.case", "func.call", "stablehlo.rng",
                          "stablehlo.rng_bit_generator"})
_WRITE = "stablehlo.dynamic_update_slice"


def _inline_as_select(pred, bodies):
    """The branch values as `select(pred, true, false)` with both branches' ops moved
    in front of it, when both are small and side-effect free; else None. A large value
    that is a small write into the same array on both sides (or on one, the other
    leaving the array as it was) becomes one write of the selected element values."""
    ends = [list(list(b.block.operations)[-1].operands) for b in bodies]
    plans = [_plan(t, f) for t, f in zip(*ends)]
    if any(p is None for p in plans):
        return None
    large = {v for p in plans if p[0] == "write" for v in p[1:3] if v is not None}
    if not all(_cheap(b.block, large) for b in bodies):
        return None
    for b in bodies:
        for op in list(b.block.operations)[:-1]:
            ir.InsertionPoint.current.insert(op.detach_from_parent())
        b.discard()
    return [_merge(pred, p) for p in plans]


def _small(v) -> bool:
    return (element_count(v.type) or np.inf) <= SELECT_MAX_ELEMENTS


def _plan(t, f):
    """How to merge one result: ("select", t, f), or ("write", t, f, base, starts,
    update of t, update of f) when both are writes of small updates into `base` at the
    same position (or one is `base` itself: no write, its update None)."""
    if t == f or (_small(t) and _small(f)):
        return ("select", t, f)
    wt, wf = _write_of(t), _write_of(f)
    base = (wt or wf or (None,))[0]
    if base is None or (wt is None and t != base) or (wf is None and f != base):
        return None
    if wt is not None and wf is not None and (
            wt[0] != wf[0] or len(wt[2]) != len(wf[2]) or
            not all(same_value(x, y) for x, y in zip(wt[2], wf[2])) or
            wt[1].type != wf[1].type):
        return None
    starts = (wt or wf)[2]
    return ("write", t if wt else None, f if wf else None, base, starts,
            wt[1] if wt else None, wf[1] if wf else None)


def _write_of(v):
    """(base, update, start indices) when `v` is a small dynamic_update_slice."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != _WRITE:
        return None
    base, update, *starts = owner.operands
    return (base, update, starts) if _small(update) else None


def _merge(pred, plan):
    if plan[0] == "select":
        _, t, f = plan
        return t if t == f else hlo.SelectOp(pred.ir, t, f).result
    _, _, _, base, starts, ut, uf = plan
    shape = ir.RankedTensorType((ut or uf).type).shape
    sides = [u if u is not None else      # the side that leaves the array: what is there
             hlo.DynamicSliceOp(base, starts, ir.DenseI64ArrayAttr.get(shape)).result
             for u in (ut, uf)]
    update = hlo.SelectOp(pred.ir, *sides).result
    return update_slice(base, update, starts)


def _cheap(block, large=frozenset()):
    """Small, side-effect free, and large only in the writes `large` names."""
    ops = list(block.operations)
    if len(ops) > SELECT_MAX_OPS + 1:
        return False
    for op in ops:
        if op.name in _NOT_INLINED:
            return False
        if op.name == "stablehlo.return":
            continue
        if not all(_small(v) or v in large for v in op.results):
            return False
    return True


def _ambiguous_alias(bodies, k):
    """The existing arrays leaf k may be (itself, or the base of a view a branch made:
    `y = x[::2]`) on some paths, when it is a new array on others; () when none."""
    objs = [b.originals[k] for b in bodies]
    return [o for b, o in zip(bodies, objs) if type(o) is AbstractArray and (
        b.existed_before(root_of(o)) or o._alias_of is not None or o._switch is not None)]


def _switch(pred, bodies, k, merged, lifted):
    """Leaf k as a switch handle (see `AbstractArray.switch`): each branch that returned
    an array existing before the `if` contributes (its condition, that array), a branch
    that returned a switch of its own contributes that switch's options (`lifted`: their
    conditions, exported by the op), the others the merged value. None when a branch
    returned something that cannot be named outside it (a view made inside the branch)
    or an array of another dtype or shape; the result is then only ambiguous (writes
    refused)."""
    options = list(lifted)
    for i, b in enumerate(bodies):
        o = b.originals[k]
        if type(o) is not AbstractArray:      # unset, or a Python value: the merged one
            continue
        if not b.existed_before(o):
            if o._switch is not None and _liftable(b, o, merged):
                continue                      # its options are in `lifted`
            if b.existed_before(root_of(o)) or o._alias_of is not None or \
                    o._switch is not None:
                return None
            continue
        if o._alias_of is not None or o.shape != merged.shape or o.dtype != merged.dtype:
            return None
        cond = pred if i == 0 else dispatch(np.logical_not, (pred,), {})
        options.append((cond, o))
    return AbstractArray.switch(merged, _by_option(options, _disj))


def _liftable(body, switch, like):
    """Whether a switch made inside `body` has only options that exist outside it,
    directly or through switches made inside it as well."""
    return _flat_options(body, switch, like, _none, _none) is not None


def _none(a, b):
    return None


def _flat_options(body, switch, like, conj, disj=None):
    """((cond, option), ...) with every option of `switch` that exists outside `body`,
    switches made inside `body` expanded (their conditions joined with `conj`), one
    pair per option (`_by_option` with `disj`); None when an option cannot be named
    outside `body`."""
    if switch.shape != like.shape or switch.dtype != like.dtype:
        return None
    out = []
    for cond, o in switch._switch[1]:
        if body.existed_before(o):
            if o._alias_of is not None or o.shape != like.shape or o.dtype != like.dtype:
                return None
            out.append((cond, o))
        elif o._switch is not None:
            inner = _flat_options(body, o, like, conj, disj)
            if inner is None:
                return None
            out += [(conj(cond, c), x) for c, x in inner]
        else:
            return None
    return _by_option(out, disj or _disj)


def _disj(a, b):
    return dispatch(np.logical_or, (a, b), {})


def _by_option(options, disj):
    """(cond, option) pairs with one pair per option: the paths that choose one array
    are exclusive, so their conditions join with `or`. Nested switches name the same
    few arrays along every path, and without this the pairs multiplied at each level
    (a return in two nested unrolled loops after a `while` made 17,000 `and`s)."""
    at: dict = {}
    out: list = []
    for cond, o in options:
        k = at.get(id(o))
        if k is None:
            at[id(o)] = len(out)
            out.append((cond, o))
        else:
            out[k] = (disj(out[k][0], cond), o)
    return out


def _inner_switches(bodies, types):
    """(branch, leaf, condition, option) for every option of a switch that a branch
    made and returns, when the switch can be lifted out of the `if` (conditions of
    nested switches are joined inside the branch)."""

    def conj(a, b):
        return dispatch(np.logical_and, (a, b), {})
    out = []
    for k, t in enumerate(types):
        if not isinstance(t, ArrayType) or not t.shape:
            continue
        for i, b in enumerate(bodies):
            o = b.originals[k]
            if type(o) is AbstractArray and o._switch is not None and \
                    not b.existed_before(o) and _liftable(b, o, o):
                flat = b.emit(lambda b=b, o=o: _flat_options(b, o, o, conj))
                out += [(i, k, cond, option) for cond, option in flat]
    return out


def _expand_unset(bodies):
    trees = [index_tree(b.treedef, len(b.leaves)) for b in bodies]
    for i, b in enumerate(bodies):
        tree = trees[i]
        for other in trees:
            tree = conform_unset(tree, other, b.leaves)
        if tree != trees[i]:
            b.treedef, b.leaves = reflatten(tree, b.leaves)
            _, b.originals = reflatten(tree, b.originals)


def _union_handles(bodies):
    seen, out = set(), []
    for b in bodies:
        for h, _ in b.assigned:
            if id(h) not in seen:
                seen.add(id(h))
                out.append(h)
    return out


def _exports(body, index, types, assigned, checks):
    """The values one branch hands to the op's results (emitted inside its block)."""
    values = []
    for leaf, t in zip(body.leaves, types):
        if isinstance(t, ArrayType):
            values.append(zeros(t) if type(leaf) is UndefinedReturnValue else lift(leaf, t))
    mine = {id(h): snap for h, snap in body.assigned}
    for h in assigned:
        values.append(mine.get(id(h), h))
    false = AbstractArray((), np.bool_, const=np.array(False))
    values += [flag if i == index else false for i, flag, _ in checks]
    return values


def rebind(handle, value, deps):
    """Point a pre-existing handle at a new op result (an in-place update)."""
    journal.record(handle, True)
    handle._ir, handle._const, handle._range = value, None, None
    handle.deps = handle.deps | deps
    handle._version += 1
