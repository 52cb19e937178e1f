"""NPX14x: state outside the function: NumPy's random streams.

(NPX142, updates of arrays the function did not create, is retired: @jit passes such
arrays to the program at each call and writes them back; under jax.jit NPX202 reports
the update.)"""
from __future__ import annotations

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import METHOD, REF, RNG
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import Rule, register


@register
class NumpyRandomState(Rule):
    refusal = C.RANDOM_STATE
    defaults = {"what": "np.random uses NumPy's global random state"}
    jax_note = "jax: runs once while tracing (the same numbers on every call)"
    explain = """
        NumPy's random numbers come from a state that lives in Python (the global
        `np.random` state, or a `Generator`/`RandomState` object). A compiled program
        cannot advance it, and XLA cannot reproduce its exact draws. Draw the numbers
        outside the jitted function, with the same seed or generator, and pass them in
        as an argument. (Under `jax.jit` the call runs once, while tracing, so every
        call sees the same numbers; use `jax.random` with an explicit key.)"""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def noisy(x):
            return x + 0.1 * np.random.randn(*x.shape)
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def noisy(x, noise):
            return x + 0.1 * noise

        # noisy(x, np.random.randn(*x.shape))
        """
    example_args = "(np.array([1.0, 2.0]),)"
    example_good_args = "(np.array([1.0, 2.0]), np.array([0.5, -0.5]))"

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind == REF and callee.qual and callee.qual.startswith("numpy.random."):
            name = callee.qual[len("numpy.random."):]
            if name.split(".")[0] in K.RANDOM_GENERATORS:
                what = f"np.random.{name} creates a NumPy random generator"
            else:
                what = f"np.random.{name} uses NumPy's global random state"
            self.report(ctx, node, what=what)
        elif callee.kind == METHOD and callee.items[0].kind == RNG:
            self.report(ctx, node,
                        what=f"'.{callee.qual}()' draws from a NumPy random generator")
