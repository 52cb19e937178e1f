"""NPX3xx: performance pitfalls and side effects that run once, while compiling."""
from __future__ import annotations

import ast

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import REF
from npxla.transpiler.lint.rules.base import JAX, Rule, register


@register
class JitInLoop(Rule):
    code = "NPX301"
    name = "jit-in-loop"
    message = "'{fn}(...)' is applied inside a loop: wrap the function once, outside the loop, and call the jitted function in it"
    defaults = {"fn": "jit"}
    severity = "warning"
    explain = """
        `jit(f)` builds a new jitted function. Applying it inside a loop (or a
        comprehension) repeats the wrapping on every iteration, and with a lambda or a
        nested function (a new object each time) it recompiles on every iteration under
        `jax.jit`. Wrap once, outside the loop, and call the result inside it."""
    bad = """
        import numpy as np
        from npxla import jit

        def step(u):
            return 0.5 * (np.roll(u, 1) + np.roll(u, -1))

        def run(u, n):
            for _ in range(n):
                u = jit(step)(u)
            return u
        """
    good = """
        import numpy as np
        from npxla import jit

        def step(u):
            return 0.5 * (np.roll(u, 1) + np.roll(u, -1))

        def run(u, n):
            fast_step = jit(step)
            for _ in range(n):
                u = fast_step(u)
            return u
        """

    def on_module(self, mctx, tree):
        for call, _scope, in_loop in mctx.info.calls:
            if in_loop and call.args and mctx.jit_flavor(call.func):
                self.report(mctx, call, fn=ast.unparse(call.func))


@register
class PrintInJaxJit(Rule):
    code = "NPX302"
    name = "print-at-trace-time"
    message = "print() inside jax.jit runs once, while tracing, and prints tracers; use jax.debug.print (npxla's @jit prints at run time)"
    severity = "warning"
    targets = frozenset({JAX})
    explain = """
        Under `jax.jit`, Python code runs only while the function is traced: `print`
        shows abstract tracers once per compilation, not the values of each call. Use
        `jax.debug.print("x = {}", x)`. npxla's `@jit` compiles `print` into the
        program, so it prints the values on every call."""
    bad = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            print("x =", x)
            return x * 2
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            jax.debug.print("x = {}", x)
            return x * 2
        """

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind == REF and callee.qual == "builtins.print":
            self.report(ctx, node)


@register
class TraceTimeSideEffect(Rule):
    code = "NPX303"
    name = "trace-time-side-effect"
    message = "{what} runs once, while compiling, not on every call"
    defaults = {"what": "this side effect"}
    severity = "warning"
    explain = """
        A jitted function's Python code runs while it is compiled (once per input
        signature); only array computations end up in the compiled program. Side
        effects outside npxla's reach, such as writing or reading files, sleeping,
        exiting, running subprocesses or Python's `random`, happen once at compile
        time and are baked in or skipped on later calls. Do them outside the jitted
        function, or return the values. (`print`, `logging`, `warnings.warn` and the
        clocks of `time` run at run time under npxla's `@jit`, and attribute stores,
        `global` and changes to outside lists and dicts are replayed after every
        run.)"""
    bad = """
        import time
        import numpy as np
        from npxla import jit

        @jit
        def throttled(x):
            time.sleep(0.01)
            return (x * x).sum()
        """
    good = """
        import time
        import numpy as np
        from npxla import jit

        @jit
        def throttled(x):
            return (x * x).sum()

        # time.sleep(0.01); throttled(x)
        """

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind != REF or not callee.qual:
            return
        qual = callee.qual
        if qual in K.SIDE_EFFECT_CALLS or qual.startswith(K.SIDE_EFFECT_MODULES):
            self.report(ctx, node, what=f"'{qual.replace('builtins.', '')}(...)'")

