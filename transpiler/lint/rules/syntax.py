"""NPX10x: syntax that `@jit` refuses before anything runs (`UnsupportedSyntaxError`,
the same refusals as `transpiler/converters/unsupported.py`)."""
from __future__ import annotations

import ast

from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import NPXLA, Rule, register

_TRY = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if t is not None)


def _nodes(ctx, fn, types):
    return sorted(ctx.nodes(types), key=lambda n: (n.lineno, n.col_offset))


def _own_nodes(fn, types):
    """Nodes of `types` in `fn`'s own scope (not in the functions it defines)."""
    found, todo = [], list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, types):
            found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


@register
class Generator(Rule):
    refusal = C.GENERATOR
    defaults = {"what": "yield"}
    explain = """
        A jitted function that contains `yield` is a generator, and a compiled
        program cannot suspend and resume: it returns once. `jax.jit` cannot trace one
        either. Build the values into an array and return it. (A generator the jitted
        function defines or calls is fine: it runs while the program is staged, as it
        runs under NumPy, and a condition on array data around its `yield` is checked
        when the program runs.)"""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def doubled(x):
            for v in x:
                yield 2 * v
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def doubled(x):
            return 2 * x
        """
    example_args = "(np.arange(3.0),)"

    def on_function(self, ctx, fn):
        if ctx.depth:           # a generator the jitted function calls: converted
            return
        for node in _own_nodes(fn, (ast.Yield, ast.YieldFrom)):
            self.report(ctx, node, what="yield from" if isinstance(node, ast.YieldFrom)
                        else "yield")


@register
class GlobalStatement(Rule):
    refusal = C.REBIND_OUTSIDE
    defaults = {"stmt": "nonlocal"}
    explain = """
        `nonlocal` lets a function rebind a variable of the function it is defined in.
        A compiled program cannot reach into the frame of a function that is still
        running: pass the value in as an argument and return the new value. (`global`
        works: npxla replays the new value of the module's variable after each run.)"""
    bad = """
        import numpy as np
        from npxla import jit

        def make_counter():
            total = 0.0

            @jit
            def accumulate(x):
                nonlocal total
                total = total + x.sum()
                return x
            return accumulate

        accumulate = make_counter()
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def accumulate(x, total):
            return x, total + x.sum()
        """
    example_args = "(np.arange(3.0),)"
    example_good_args = "(np.arange(3.0), 0.0)"

    def on_function(self, ctx, fn):
        for node in _nodes(ctx, fn, ast.Nonlocal):
            self.report(ctx, node, stmt=f"nonlocal {', '.join(node.names)}")


@register
class AttributeAssignment(Rule):
    refusal = C.ATTRIBUTE_STORE
    defaults = {"attr": "attr"}
    explain = """
        Assigning an attribute with `=` or an augmented assignment works (`self.x = F
        @ self.x`, `self.steps += 1`): npxla records the store while compiling and
        replays it with the run's values after every call. Deleting an attribute
        (`del obj.value`) or binding one as the target of a `for` loop or a `with`
        statement cannot be compiled: assign it with `=` instead."""
    bad = """
        import numpy as np
        from npxla import jit

        class Stats:
            norm = 1.0

        STATS = Stats()

        @jit
        def normalise(x):
            for STATS.norm in (np.sqrt((x * x).sum()),):
                pass
            return x / STATS.norm
        """
    good = """
        import numpy as np
        from npxla import jit

        class Stats:
            norm = 1.0

        STATS = Stats()

        @jit
        def normalise(x):
            STATS.norm = np.sqrt((x * x).sum())
            return x / STATS.norm
        """
    example_args = "(np.arange(1.0, 4.0),)"

    def on_function(self, ctx, fn):
        allowed = {id(a) for n in _nodes(ctx, fn, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                   for t in (getattr(n, "targets", None) or [n.target])
                   for a in ast.walk(t)}
        for node in _nodes(ctx, fn, ast.Attribute):
            if isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in allowed:
                self.report(ctx, node, attr=node.attr)


@register
class AsyncCode(Rule):
    refusal = C.ASYNC
    explain = """
        `async def`, `await`, `async for` and `async with` cannot be compiled: use a
        plain `def` and plain `for`/`with` statements."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        async def f(x):
            return x + 1
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def f(x):
            return x + 1
        """

    def on_function(self, ctx, fn):
        if isinstance(fn, ast.AsyncFunctionDef):
            self.report(ctx, fn, end=_header_end(fn))
        for node in _nodes(ctx, fn, (ast.Await, ast.AsyncFor, ast.AsyncWith,
                                     ast.AsyncFunctionDef)):
            if node is not fn:
                self.report(ctx, node, end=_header_end(node))


def _header_end(node):
    """A node to end the reported range at: the header of a compound statement."""
    for field in ("iter", "test"):
        if getattr(node, field, None) is not None:
            return getattr(node, field)
    if isinstance(node, ast.AsyncWith) and node.items:
        return node.items[-1].context_expr
    return None if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
        _NameEnd(node)


class _NameEnd:
    """End of `def name` for a function header."""
    def __init__(self, fn):
        self.end_lineno = fn.lineno
        self.end_col_offset = fn.col_offset + len("async def ") + len(fn.name) \
            if isinstance(fn, ast.AsyncFunctionDef) else fn.col_offset + 4 + len(fn.name)


@register
class MatchStatement(Rule):
    refusal = C.MATCH
    targets = frozenset({NPXLA})
    explain = """
        npxla does not convert `match` statements yet. Write the cases as an
        `if`/`elif` chain (which may test array data)."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def f(x):
            match x.ndim:
                case 1:
                    return x
                case _:
                    return x.ravel()
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def f(x):
            if x.ndim == 1:
                return x
            return x.ravel()
        """
    example_args = "(np.arange(3.0),)"

    def on_function(self, ctx, fn):
        for node in _nodes(ctx, fn, getattr(ast, "Match", ())):
            self.report(ctx, node, end=node.subject)


@register
class WalrusInWhile(Rule):
    refusal = C.WALRUS_IN_WHILE
    targets = frozenset({NPXLA})
    explain = """
        npxla evaluates a `while` condition as a function of its own, so a variable
        bound by `:=` there would not reach the body. Assign the value before the loop
        and again at the end of the body, and test the variable."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def f(x):
            while (s := x.sum()) < 100:
                x = x * 2
            return x, s
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def f(x):
            s = x.sum()
            while s < 100:
                x = x * 2
                s = x.sum()
            return x, s
        """
    example_args = "(np.arange(1.0, 4.0),)"

    def on_function(self, ctx, fn):
        for node in _nodes(ctx, fn, ast.While):
            for n in ast.walk(node.test):
                if isinstance(n, ast.NamedExpr):
                    self.report(ctx, n)
                    break


def _jumps_out_of(stmts, in_loop=False):
    for stmt in stmts:
        if isinstance(stmt, ast.Return) or (
                isinstance(stmt, (ast.Break, ast.Continue)) and not in_loop):
            yield stmt
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    yield from _jumps_out_of(inner, in_loop or (
                        field == "body" and isinstance(stmt, (ast.For, ast.While))))


@register
class JumpInFinally(Rule):
    refusal = C.JUMP_IN_FINALLY
    defaults = {"what": "return"}
    targets = frozenset({NPXLA})
    explain = """
        A `return`, `break` or `continue` in a `finally` block swallows any exception
        raised in the `try` block. npxla refuses it; move the statement after the
        `try` statement."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def f(x):
            try:
                y = x[0]
            finally:
                return x
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def f(x):
            try:
                y = x[0]
            finally:
                pass
            return x
        """
    example_args = "(np.arange(3.0),)"

    def on_function(self, ctx, fn):
        for node in _nodes(ctx, fn, _TRY):
            for jump in _jumps_out_of(node.finalbody):
                self.report(ctx, jump, what=type(jump).__name__.lower())
                break


_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _names_read(stmts):
    """The names the statements mention (read or assigned), nested scopes included."""
    return {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name)}


def _looked_up(call, parent):
    """The variable names looked up by string in the namespace `call` gives: a string
    passed beside it (`check(locals(), "v", ...)`) or its subscript (`locals()["v"]`)."""
    if isinstance(parent, ast.Call):
        items = list(parent.args) + [k.value for k in parent.keywords]
        if any(i is call for i in items):
            return [i.value for i in items
                    if isinstance(i, ast.Constant) and isinstance(i.value, str)]
    if isinstance(parent, ast.Subscript) and parent.value is call and \
            isinstance(parent.slice, ast.Constant) and isinstance(parent.slice.value, str):
        return [parent.slice.value]
    return []


def _namespace_misses(fn):
    """`locals()` / `vars()` calls inside an `if`, `for` or `while` arm of `fn` (not in
    the functions it defines) that look up, by string, a variable of `fn` the arm does
    not mention by name: (call, name, missing variable)."""
    variables = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and
        isinstance(n.ctx, ast.Store)}
    stack = [(child, None, None) for child in fn.body]
    while stack:
        node, arm, parent = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if arm is not None and isinstance(node, ast.Call) and not node.args and \
                not node.keywords and isinstance(node.func, ast.Name) and \
                node.func.id in ("locals", "vars"):
            mentioned = _names_read(arm)
            for name in _looked_up(node, parent):
                if name in variables and name not in mentioned:
                    yield node, node.func.id, name
                    break
        block = isinstance(node, _BLOCKS)
        for field, value in ast.iter_fields(node):
            inner = value if block and field in ("body", "orelse") else None
            for child in (value if isinstance(value, list) else [value]):
                if isinstance(child, ast.AST):
                    stack.append((child, inner if inner else arm, node))


@register
class NamespaceInBlock(Rule):
    code = "NPX108"
    name = "locals-in-block"
    message = "'{fn}()' inside an if/for/while body has no '{name}' under @jit: the " \
              "body is converted into a function of its own, which sees only the " \
              "variables it mentions"
    defaults = {"fn": "locals", "name": "v"}
    targets = frozenset({NPXLA})
    error = "none yet: the converted body's own namespace (a KeyError, or another " \
            "value) where UnsupportedSyntaxError (NPX001) belongs"
    explain = """
        @jit converts the body of every `if`, `for` and `while` (whether or not its
        condition depends on the data) into a function of its own, which the runtime
        calls or stages. `locals()` or `vars()` there gives that function's namespace,
        which lacks the variables the body does not mention by name, so looking one
        up by string (`check(locals(), "v", (3,))`, `locals()["v"]`) fails. Call
        `locals()` before the statement, or pass the values themselves."""
    bad = """
        import numpy as np
        from npxla import jit

        def check(namespace, name):
            assert namespace[name].ndim == 1

        @jit
        def f(v):
            if v.ndim == 1:
                check(locals(), "v")
            return v * 2
        """
    example_args = None
    good = """
        import numpy as np
        from npxla import jit

        def check(namespace, name):
            assert namespace[name].ndim == 1

        @jit
        def f(v):
            namespace = locals()
            if v.ndim == 1:
                check(namespace, "v")
            return v * 2
        """

    def on_function(self, ctx, fn):
        if isinstance(fn, ast.Lambda) or "locals" in ctx.info.functions:
            return
        for call, fn_name, name in _namespace_misses(fn):
            if ctx.qualify(call.func) in ("builtins.locals", "builtins.vars", None):
                self.report(ctx, call, fn=fn_name, name=name)
