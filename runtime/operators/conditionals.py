"""`if` statements and conditional expressions.

A Python (or constant) condition runs the chosen branch as plain Python, exactly like
the original code. A traced condition traces both branches into the regions of one
`stablehlo.if`; the variables the converter lists as outputs, the arrays updated in
place and the runtime error checks leave the op as results, typed by `unify`.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from transpiler.errors import UnsupportedOperationError, UnsupportedSyntaxError

from .. import journal
from ..abstract import AbstractArray, is_abstract
from ..hlo.types import element_count, tensor_type
from ..pytree import unflatten
from ..regions import trace_body
from ..trace import current_trace
from ..unify import (ArrayType, PythonValue, conform_unset, index_tree, lift, reflatten, unify,
                     zeros)
from .variables import UndefinedReturnValue


def is_traced(x) -> bool:
    return is_abstract(x) and x.const is None


def to_pred(test):
    """A traced condition as a scalar bool handle (NumPy's truth rules)."""
    if test.size != 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")
    from ..numpy.registry import dispatch
    from ..primitives import structural as S
    pred = test if test.dtype == np.bool_ else dispatch(np.not_equal, (test, 0), {})
    return S.reshape(pred, shape=()) if pred.shape else pred


def raise_uncatchable(err):
    """Raise a refusal that an enclosing user `try/except` must not swallow: it is
    located now and staging re-raises it when the function returns."""
    import sys
    from transpiler.pyct.origin import locate_stack
    err = err.with_location(locate_stack(sys._getframe(1)))
    trace = current_trace()
    if trace is not None:
        trace.pending_errors.append(err)
    raise err


def refuse_in_try(what):
    raise_uncatchable(UnsupportedSyntaxError(
        f"a data-dependent {what} inside try/except cannot be compiled: the compiled "
        "program cannot raise, so the except clause would never run",
        hint="move the try/except outside the jitted function, or check the condition "
             "explicitly (e.g. with np.where) instead of catching an exception"))


def if_stmt(test, body, orelse, inputs, names, *, in_try=False):
    if not is_traced(test):
        return (body if test else orelse)(*inputs)
    if in_try:
        refuse_in_try("if statement")
    return stage_if(to_pred(test), [lambda: body(*inputs), lambda: orelse(*inputs)],
                    names)


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
        out += [name] * n if n == 1 else [f"{name} (element {i})" for i in range(n)]
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


def stage_if(pred, branches, names, single=False):
    """Trace `branches` (true first) into one `stablehlo.if`; returns their result."""
    from .loops import staged_on
    with staged_on(pred):
        bodies = [trace_body(fn) for fn in branches]
    try:
        _expand_unset(bodies)
        _check_structure(bodies, names, single)
        lnames = leaf_names(bodies[0].treedef, names, single)
        assigned = _union_handles(bodies)
        passthrough, types = [], []
        for k, name in enumerate(lnames):
            objs = [b.originals[k] for b in bodies]
            same = all(o is objs[0] for o in objs) and is_abstract(objs[0]) and \
                not any(objs[0] is h for h in assigned)
            passthrough.append(same)
            types.append(None if same else unify([b.leaves[k] for b in bodies], name, "if"))
        checks = [(i, flag, msg) for i, b in enumerate(bodies) for flag, msg in b.checks]
        out_types = [t for t in types if isinstance(t, ArrayType)]
        result_types = [tensor_type(*t.aval) for t in out_types] + \
            [tensor_type(h.shape, h.dtype) for h in assigned] + \
            [tensor_type((), np.bool_)] * len(checks)
        for i, b in enumerate(bodies):
            b.emit(lambda b=b, i=i: b.finish(_exports(b, i, types, assigned, checks)))
    except BaseException:
        for b in bodies:
            b.discard()
        raise
    results = iter(_inline_as_select(pred, bodies) or _if_op(pred, bodies, result_types))
    deps = pred.deps.union(*[x.deps for b in bodies for x in b.leaves if is_abstract(x)])
    leaves = []
    for k, t in enumerate(types):
        if passthrough[k]:
            leaves.append(bodies[0].originals[k])
        elif isinstance(t, PythonValue):
            leaves.append(t.value)
        else:
            out = AbstractArray(t.shape, t.dtype, ir=next(results), weak=t.weak, deps=deps)
            if t.shape:
                out._alias_of = _ambiguous_alias(bodies, k)
            leaves.append(out)
    for h in assigned:
        rebind(h, next(results), deps)
    trace = current_trace()
    for _, _, msg in checks:
        flag = AbstractArray((), np.bool_, ir=next(results), deps=deps)
        trace.add_error_check(flag, msg)
    # an in-place-updated handle returned by every branch stays the same object
    for k in range(len(leaves)):
        obj = bodies[0].originals[k]
        if any(obj is h for h in assigned) and all(b.originals[k] is obj for b in bodies):
            leaves[k] = obj
    return unflatten(bodies[0].treedef, iter(leaves))


def _if_op(pred, bodies, result_types):
    op = hlo.IfOp(result_types, pred.ir)
    bodies[0].move_to(op.true_branch)
    bodies[1].move_to(op.false_branch)
    return op.results


# Branches this small are computed both and selected: XLA runs a `conditional` as a
# call into separate computations (tens of ns, and no fusion across it), which
# dominates scalar recurrences like `if x[i] > peak: peak = x[i]` inside a loop.
SELECT_MAX_ELEMENTS = 64
SELECT_MAX_OPS = 48
_NOT_INLINED = frozenset({"stablehlo.custom_call", "stablehlo.while", "stablehlo.if",
                          "stablehlo.case", "func.call", "stablehlo.rng",
                          "stablehlo.rng_bit_generator"})


def _inline_as_select(pred, bodies):
    """The branch values as `select(pred, true, false)` with both branches' ops moved
    in front of it, when both are small and side-effect free; else None."""
    if not all(_cheap(b.block) for b in bodies):
        return None
    ends = []
    for b in bodies:
        ops = list(b.block.operations)
        for op in ops[:-1]:
            ir.InsertionPoint.current.insert(op.detach_from_parent())
        ends.append(list(ops[-1].operands))
        b.discard()
    return [hlo.SelectOp(pred.ir, t, f).result for t, f in zip(*ends)]


def _cheap(block):
    ops = list(block.operations)
    if len(ops) > SELECT_MAX_OPS + 1:
        return False
    for op in ops:
        if op.name in _NOT_INLINED:
            return False
        values = op.operands if op.name == "stablehlo.return" else op.results
        if not all((element_count(v.type) or np.inf) <= SELECT_MAX_ELEMENTS for v in values):
            return False
    return True


def _ambiguous_alias(bodies, k):
    """Whether leaf k is an existing array on some paths and a new one on others."""
    objs = [b.originals[k] for b in bodies]
    if any(b.existed_before(o) or o._alias_of is not None if type(o) is AbstractArray
           else False for b, o in zip(bodies, objs)):
        return "branch"
    return None


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
    handle._ir, handle._const = value, None
    handle.deps = handle.deps | deps
    handle._version += 1
