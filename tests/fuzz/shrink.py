"""Greedy shrinking of a failing program to a small one that fails the same way.

Why on the Python AST: the program is stored as source (it must be, for `jit`), and
the AST is the structured form of that source, so the shrinker works the same on
freshly generated programs and on regression files written by hand. Edits are tried
in order of how much they remove — whole statements (outer ones first), then a compound
statement replaced by one of its bodies, then an expression replaced by one of its
operands, then a condition replaced by a constant. An edit is kept when the program
still yields the same `Outcome.key` (same kind, same category, NumPy raising or not),
so shrinking cannot drift from a crash into an unrelated refusal, nor into a program
NumPy rejects. Every kept edit makes the source strictly shorter, so it terminates.
"""
from __future__ import annotations

import ast
import copy
import time

from .runner import run_source

_PROTECTED = (ast.Import, ast.ImportFrom)


def _stmt_lists(tree):
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            lst = getattr(node, field, None)
            if isinstance(lst, list) and lst and isinstance(lst[0], ast.stmt):
                yield node, field, lst


def _is_entry(stmt):
    return isinstance(stmt, ast.FunctionDef) and stmt.name == "f" or \
        isinstance(stmt, ast.ClassDef) and stmt.name in ("State", "Model") or \
        _is_mark(stmt) or _assigns(stmt, "f", "OBJ", "__fuzz_exact__")


def _assigns(stmt, *names):
    """A module-level `f = OBJ.f`, `OBJ = Model(...)` (family `private_attrs`) or the
    bit-exact mark `__fuzz_exact__ = True` (families `exact_float`, `float_int_casts`)."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        getattr(stmt.targets[0], "id", None) in names


def _is_mark(stmt):
    """The line that starts the installed package's source (feature `helpers_pkg`)."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
        getattr(stmt.targets[0], "id", None) == "__fuzz_package__"


def _set_body(node, field, new):
    setattr(node, field, new if new or field != "body" else [ast.Pass()])


def _loop_guards(tree) -> set:
    """Ids of the statements and expressions that keep each `while` bounded: its test,
    the counter's `k += 1` and an `if k >= limit: break`. An edit there could make the
    reference run loop forever (and an XLA loop cannot be interrupted)."""
    keep = set()
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.While):
            continue
        keep |= {id(n) for n in ast.walk(loop.test)}
        counters = {s.target.id for s in loop.body
                    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name)}
        for stmt in loop.body:
            names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
            if isinstance(stmt, ast.AugAssign) and getattr(stmt.target, "id", None) in counters \
                    or \
                    isinstance(stmt, ast.If) and names & counters and \
                    any(isinstance(b, ast.Break) for b in stmt.body):
                keep |= {id(n) for n in ast.walk(stmt)}
    return keep


def _deletions(tree):
    keep = _loop_guards(tree)
    for node, field, lst in _stmt_lists(tree):
        for i, stmt in enumerate(lst):
            if isinstance(stmt, _PROTECTED) or _is_entry(stmt) or id(stmt) in keep:
                continue
            yield lambda node=node, field=field, i=i: _set_body(
                node, field, getattr(node, field)[:i] + getattr(node, field)[i + 1:])


def _unwraps(tree):
    keep = _loop_guards(tree)
    for node, field, lst in _stmt_lists(tree):
        for i, stmt in enumerate(lst):
            if isinstance(stmt, (ast.If, ast.For, ast.While)) and id(stmt) not in keep:
                for part in ("body", "orelse"):
                    inner = getattr(stmt, part)
                    if inner:
                        yield lambda node=node, field=field, i=i, inner=inner: _set_body(
                            node, field, getattr(node, field)[:i] + inner
                            + getattr(node, field)[i + 1:])
                if stmt.orelse:
                    yield lambda stmt=stmt: setattr(stmt, "orelse", [])


def _children(expr):
    for _, value in ast.iter_fields(expr):
        if isinstance(value, ast.expr) and not isinstance(value, ast.Slice):
            yield value
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, ast.expr) and not isinstance(v, (ast.Slice, ast.Starred)):
                    yield v


_SIMPLIFIABLE = (ast.BinOp, ast.UnaryOp, ast.Call, ast.BoolOp, ast.IfExp, ast.Compare)


def _guarded(tree) -> set:
    """Ids of nodes inside a division's denominator or a square root's argument: the
    generator made them safe (`abs(...) + 1`, `abs(...)`), and simplifying them would
    trade the bug being shrunk for a division by zero or a NaN."""
    roots = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv,
                                                                 ast.Mod)):
            roots.append(node.right)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("sqrt", "abs") and node.args:
            roots.append(node.args[0])
    return {id(n) for root in roots for n in ast.walk(root)}


def _expr_edits(tree):
    guarded = _guarded(tree) | _loop_guards(tree)
    for parent in ast.walk(tree):
        if id(parent) in guarded:
            continue
        for field, value in ast.iter_fields(parent):
            slots = [(None, value)] if isinstance(value, ast.expr) else \
                list(enumerate(value)) if isinstance(value, list) else []
            for idx, child in slots:
                if not isinstance(child, _SIMPLIFIABLE) or id(child) in guarded:
                    continue
                for sub in _children(child):
                    if isinstance(child, ast.Call) and sub is child.func:
                        continue
                    yield lambda parent=parent, field=field, idx=idx, sub=sub: _put(
                        parent, field, idx, copy.deepcopy(sub))


def _put(parent, field, idx, new):
    if idx is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[idx] = new


def _test_edits(tree):
    keep = _loop_guards(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)) and not isinstance(node.test, ast.Constant) \
                and id(node) not in keep:
            for const in (True, False) if isinstance(node, ast.If) else (False,):
                yield lambda node=node, const=const: setattr(node, "test", ast.Constant(const))


_PASSES = (_deletions, _unwraps, _expr_edits, _test_edits)


def _candidate(source, make, k):
    """Apply the k-th edit of `make` to a fresh parse of `source`; None when exhausted,
    "" when the edit leaves invalid Python."""
    tree = ast.parse(source)
    for j, edit in enumerate(make(tree)):
        if j == k:
            edit()
            src = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
            try:
                compile(src, "<candidate>", "exec")  # e.g. a `break` left outside its loop
            except SyntaxError:
                return ""
            return src
    return None


def _drop_params(source, args):
    """(source, args) pairs with one parameter of `f` (and its argument) removed."""
    for k in range(len(args)):
        tree = ast.parse(source)
        fn = next((s for s in ast.walk(tree) if isinstance(s, ast.FunctionDef)
                   and s.name == "f"), None)   # also the method `Model.f`
        if fn is None:
            return
        skip = 1 if fn.args.args and fn.args.args[0].arg == "self" else 0
        if len(fn.args.args) - len(fn.args.defaults) - skip != len(args):
            return   # (an array default `w=W` is not one of `args`)
        del fn.args.args[k + skip]
        yield ast.unparse(tree) + "\n", list(args[:k]) + list(args[k + 1:])


def shrink(source: str, args, key: str, run=run_source, max_runs: int = 500,
           max_seconds: float = 120.0):
    """Smallest program found (by greedy edits) whose outcome key is still `key`.
    Returns (source, args, outcome, number of runs): unused parameters are dropped too."""
    best = ast.unparse(ast.parse(source)) + "\n"
    best_outcome = run(best, args)
    if best_outcome.key != key:  # unparse changed the behaviour (should not happen)
        best, best_outcome = source, run(source, args)
    seen = {best}
    runs, deadline = 1, time.monotonic() + max_seconds
    improved = True
    while improved:
        improved = False
        for make in _PASSES:
            k = 0
            while runs < max_runs and time.monotonic() < deadline:
                cand = _candidate(best, make, k)
                if cand is None:
                    break
                if not cand or cand in seen or len(cand) >= len(best):
                    k += 1
                    continue
                seen.add(cand)
                runs += 1
                outcome = run(cand, args)
                if outcome.key == key:
                    best, best_outcome, improved = cand, outcome, True
                else:
                    k += 1
        for cand, cand_args in list(_drop_params(best, args)):
            if runs >= max_runs or time.monotonic() >= deadline:
                break
            runs += 1
            outcome = run(cand, cand_args)
            if outcome.key == key:
                best, args, best_outcome, improved = cand, cand_args, outcome, True
                break
    return best, args, best_outcome, runs
