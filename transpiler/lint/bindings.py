"""Which names a piece of code binds, and what a function's parameters are.

The traced-value analysis needs these answers over and over (every branch and loop asks
which variables it rebinds, every call matches arguments to parameters), and they depend
on the syntax tree alone, not on any value: kept apart from the interpreter so that they
can be read, cached and tested as plain AST questions.
"""
from __future__ import annotations

import ast


def modified_names(stmts) -> frozenset:
    """Names a block (re)binds, not counting nested function/class/comprehension scopes.

    These are the variables whose values a branch or loop can change, so the only ones
    the join after it must re-examine (made traced by a traced condition, or ambiguous
    for the aliasing rule). A store into an item (`x[i] = v`, `x[i] += v`) counts as
    rebinding `x`: its value changes even though the name keeps its object."""
    out = set()
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            base = node.value
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                out.add((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            base = node.target.value
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Subscript):
                    base = t.value
                    while isinstance(base, ast.Subscript):
                        base = base.value
                    if isinstance(base, ast.Name):
                        out.add(base.id)
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(out)


_BLOCK_FIELDS = ("body", "orelse", "finalbody")


def block_modified(stmts, cache) -> frozenset:
    """Names a statement list binds, filling `cache[(id(stmt), field)]` for every
    compound statement inside it on the way (one pass, bottom-up).

    The same answers as `modified_names`, but asked for every nested `if`/`for`/`try`
    of a function they would walk the inner blocks again and again; computing the outer
    block fills the cache for all inner ones (`Analysis.modified` reads it), keeping the
    analysis linear in the function's size."""
    out = set()
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(stmt.name)
            continue
        compound = False
        for f in _BLOCK_FIELDS:
            value = getattr(stmt, f, None)
            if isinstance(value, list):
                compound = True
                key = (id(stmt), f)
                hit = cache.get(key)
                if hit is None:
                    hit = cache[key] = block_modified(value, cache)
                out |= hit
        handlers = getattr(stmt, "handlers", None)
        if handlers:
            for h in handlers:
                if h.name:
                    out.add(h.name)
                out |= block_modified(h.body, cache)
        cases = getattr(stmt, "cases", None)
        if cases:
            for c in cases:
                out |= block_modified(c.body, cache)
                out |= modified_names([c.pattern])
        if compound:
            heads = [getattr(stmt, f, None) for f in ("target", "test", "iter")]
            heads += [i.optional_vars for i in getattr(stmt, "items", ())
                      if i.optional_vars is not None]
            heads = [h for h in heads if h is not None]
            if heads:
                hit = modified_names(heads)
                cache[(id(stmt), "target")] = hit
                out |= hit
        else:
            cls = stmt.__class__
            if cls is ast.Assign:
                out |= modified_names(stmt.targets)
            elif cls is ast.AugAssign or cls is ast.AnnAssign:
                out |= modified_names([stmt.target])
            elif cls not in (ast.Expr, ast.Return, ast.Pass, ast.Raise, ast.Break,
                             ast.Continue, ast.Assert):
                out |= modified_names([stmt])
    return frozenset(out)


def parameters(fn):
    """Every parameter of `fn` in signature order, `*args` and `**kwargs` included."""
    a = fn.args
    out = list(a.posonlyargs) + list(a.args)
    if a.vararg:
        out.append(a.vararg)
    out += list(a.kwonlyargs)
    if a.kwarg:
        out.append(a.kwarg)
    return out


def default_of(fn, arg):
    """The default expression of parameter `arg` of `fn`, or None when it has none."""
    a = fn.args
    positional = list(a.posonlyargs) + list(a.args)
    if arg in positional:
        k = positional.index(arg) - (len(positional) - len(a.defaults))
        return a.defaults[k] if k >= 0 else None
    if arg in a.kwonlyargs:
        return a.kw_defaults[a.kwonlyargs.index(arg)]
    return None
