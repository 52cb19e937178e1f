"""NPX13x: restrictions on data-dependent (staged) control flow. npxla compiles an
`if`/`while`/`for` whose condition or trip count depends on traced values into an XLA
`if`/`while`; a few Python constructs cannot be expressed around or inside those."""
from __future__ import annotations

import ast
import os

from npxla.transpiler.lint.values import CONTAINERS, DATA, MAYBE
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import NPXLA, Rule, register

_NPXLA = frozenset({NPXLA})


def _header_end(node):
    return getattr(node, "test", None) or getattr(node, "iter", None)


def _jumps_out(node):
    """Whether an `if` holds a `return`, or a `break`/`continue` of an enclosing loop:
    such an `if` inside `try` has no staged form."""
    todo = list(node.body) + list(node.orelse)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Return, ast.Break, ast.Continue)):
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, (ast.For, ast.While)):
            todo.extend(c for c in ast.walk(n) if isinstance(c, ast.Return))
            todo.extend(n.orelse)
            continue
        todo.extend(ast.iter_child_nodes(n))
    return False


@register
class TryAroundStagedFlow(Rule):
    refusal = C.TRY_AROUND_STAGED_FLOW
    defaults = {"kind": "while loop"}
    targets = _NPXLA
    explain = """
        A `while` or `for` loop whose condition or trip count depends on traced values
        (array data, or a Python `int`/`bool` argument, which npxla traces) is compiled
        into the program, and inside a `try` it cannot be: the statements of an
        iteration that raises would have to stop where Python stops, and the `except`
        clause run, which a compiled loop cannot do. The same holds for a
        data-dependent `if` that holds a `return`, `break` or `continue`. An `if`
        without them is compiled inside `try` (a branch that raises, or a run-time
        check that fails, is then refused when it happens, NPX138). Move the `try`
        outside the jitted function, or make the condition static (`static_argnums`,
        a shape test). `try` around loops over Python values (shapes, static arguments)
        works."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def halve_until(x, tol):
            try:
                while x.max() > tol:
                    x = x / 2
            except FloatingPointError:
                pass
            return x
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def halve_until(x, tol):
            while x.max() > tol:
                x = x / 2
            return x
        """
    example_args = "(np.array([1.0, 2.0, 4.0]), 0.5)"

    def on_control(self, ctx, node, kind, cond):
        if kind not in ("if", "while", "for") or cond.condition_level < MAYBE:
            return
        if not ctx.in_try_body():
            return
        if kind == "if" and not _jumps_out(node):
            return
        what = {"if": "if statement", "while": "while loop", "for": "for loop"}[kind]
        self.report(ctx, node, end=_header_end(node), kind=what)


@register
class ElseOnStagedLoop(Rule):
    refusal = C.ELSE_ON_STAGED_LOOP
    defaults = {"kind": "while"}
    targets = _NPXLA
    explain = """
        `while ... else` and `for ... else` run the `else` block when the loop ends
        without `break`. On a loop compiled into an XLA `while` (condition or trip count
        depending on traced values, including Python `int` arguments) npxla cannot
        express that: set a flag before `break` and test it after the loop. Loops with
        Python conditions and static ranges (`range(x.shape[0])`) may keep their
        `else`."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def halve_until(x, tol):
            while x.max() > tol:
                x = x / 2
            else:
                x = x + 0.0
            return x
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def halve_until(x, tol):
            while x.max() > tol:
                x = x / 2
            x = x + 0.0
            return x
        """
    example_args = "(np.array([8.0, 3.0]), 1.0)"

    def on_control(self, ctx, node, kind, cond):
        if kind in ("while", "for") and node.orelse and cond.condition_level >= MAYBE:
            self.report(ctx, node, end=_header_end(node), kind=kind)


@register
class ContainerMutationInStagedFlow(Rule):
    refusal = C.CONTAINER_MUTATION
    defaults = {"what": "list.append()"}
    targets = _NPXLA
    explain = """
        The body of a loop on array data (a `while` on array values, a `for` over a
        range of data-dependent length) is traced once, however many times it runs, so
        a Python list, dict or set changed there would change once while compiling
        instead of once per iteration. That holds for every list changed while the loop
        runs: in a function it calls (even a list the helper makes for itself), in the
        wrapper a decorator puts around that function, in a helper imported from
        another module of your code. Preallocate an array and assign into it (`out[i] =
        ...`). Building a list in a loop over a static range, an array, or a Python
        `int` argument works (npxla runs that loop in Python), and so does a branch on
        array data outside such loops (its condition is assumed, checked when the
        program runs, and the branch taken runs as Python). Storing an attribute
        (`self.count += 1`) or rebinding a global in such a loop is refused for the same
        reason; elsewhere both are replayed after every run."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def doublings(x):
            out = []
            while x.sum() < 100:
                x = x * 2
                out.append(x.sum())
            return out
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def doublings(x):
            out = np.zeros(64)
            k = 0
            while x.sum() < 100:
                x = x * 2
                out[k] = x.sum()
                k += 1
            return out, k
        """
    example_args = "(np.array([1.0, 2.0]),)"

    @staticmethod
    def _in_staged_loop(ctx):
        """Under a loop on array data: a branch outside such loops has its condition
        assumed instead (checked when the program runs) and runs the branch taken as
        Python."""
        return any(f.kind != "if" for f in ctx.staged_frames(DATA))

    def on_container_mutation(self, ctx, node, container, what):
        if container.kind not in CONTAINERS or ctx.made_in_innermost(container):
            return
        if self._in_staged_loop(ctx):
            if what.startswith("assignment"):
                what = f"assignment into a Python {container.kind}"
            self.report(ctx, node, what=what)

    def on_attribute_store(self, ctx, node, target, base):
        # (an array's `.shape` is a reshape, refused or not by its own rule; a
        # data-dependent `if` carries the attribute through its branches: only loops
        # refuse it)
        if self._in_staged_loop(ctx) and not (target.attr == "shape" and base.arrayish):
            self.report(ctx, node, what=f"setting the attribute '.{target.attr}' of an "
                                        "object")

    def on_global_store(self, ctx, node, name):
        if self._in_staged_loop(ctx):
            self.report(ctx, node, what=f"rebinding the global '{name}'")

    def on_callee_mutation(self, ctx, node, callee, effect):
        # the callee, analysed alone, is under no branch: its change is refused here
        if self._in_staged_loop(ctx):
            kind, what, path, line = effect
            where = f"{os.path.basename(path)}:{line}"
            self.report(ctx, node, what=f"calling '{callee}', which changes a Python "
                                        f"{kind} ({what} at {where}),")


@register
class InplaceUpdateOfPathDependentAlias(Rule):
    refusal = C.PATH_DEPENDENT_ALIAS
    defaults = {"name": "y", "where": "branch or loop"}
    targets = _NPXLA
    explain = """
        NumPy's in-place updates change every variable bound to the same array. When a
        data-dependent branch rebinds a variable on some paths only (`y = x` then
        `if c: y = y + 1`), @jit keeps NumPy's aliasing by selecting at run time
        which array `y` is. It cannot when a path makes `y` a view (`y = x[::-1]`),
        nor after a data-dependent loop that leaves `y` the same array on some
        iterations and a new one on others: then the in-place update is refused.
        Copy first (`y = y.copy()`) or write `y = y + 1`; with a static condition or
        trip count NumPy's aliasing is kept exactly."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def bump(x, k):
            y = x * 2
            if k.sum() > x.mean():
                y = x[::-1]
            y += 1
            return x, y
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def bump(x, k):
            y = x * 2
            if k.sum() > x.mean():
                y = x[::-1]
            y = y + 1
            return x, y
        """
    example_args = "(np.array([1.0, 2.0]), np.array([1.0]))"

    def on_inplace(self, ctx, node, name, val):
        if not val.ambiguous or val.kind in CONTAINERS:
            return
        if val.nd == 1:          # an array (0-d values may be rebound freely)
            self.report(ctx, node, name=name, where="branch or loop")
