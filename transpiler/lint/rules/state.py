"""NPX14x: state outside the function: NumPy's random streams, and NumPy arrays that
plain (library) code made, which a traced value cannot be written into (NPX143).

(NPX142, updates of arrays the function did not create, is retired: @jit passes global
and closure arrays to the program at each call and writes them back; under jax.jit
NPX202 reports the update. NPX143 is what is left of it: an array made by a function
@jit calls as plain Python is a NumPy array, not one of the program's.)"""
from __future__ import annotations

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import (ARRAY, BOOL, METHOD, REF, RNG, STR, UNKNOWN,
                                          traced_argument)
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import Rule, register


@register
class NumpyRandomState(Rule):
    refusal = C.RANDOM_STATE
    defaults = {"what": "np.random uses NumPy's global random state"}
    jax_note = "jax: runs once while tracing (the same numbers on every call)"
    explain = """
        NumPy's random numbers come from a state that lives in Python (the global
        `np.random` state, or a `Generator`/`RandomState` object). `@jit` calls NumPy's
        own generator from the program when it runs (the global functions, `seed`,
        `default_rng`, `RandomState`, and the methods of generators), so the numbers
        are NumPy's; it cannot make a bit generator itself (`PCG64(...)`,
        `MT19937(...)`): make the generator outside the jitted function and pass it in,
        or use `np.random.default_rng(seed)`. (Under `jax.jit` every NumPy random call
        runs once, while tracing, so every call sees the same numbers; use
        `jax.random` with an explicit key.)"""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def noisy(x):
            rng = np.random.Generator(np.random.PCG64(0))
            return x + 0.1 * rng.standard_normal(x.shape)
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
        npxla = ctx.flavor == "npxla"
        if callee.kind == REF and callee.qual and callee.qual.startswith("numpy.random."):
            name = callee.qual[len("numpy.random."):]
            if npxla and name.split(".")[0] not in K.BIT_GENERATORS:
                return          # called from the program when it runs (random_calls)
            if name.split(".")[0] in K.RANDOM_GENERATORS:
                what = f"np.random.{name} creates a NumPy random generator"
            else:
                what = f"np.random.{name} uses NumPy's global random state"
            self.report(ctx, node, what=what)
        elif callee.kind == METHOD and callee.items[0].kind == RNG and not npxla:
            self.report(ctx, node,
                        what=f"'.{callee.qual}()' draws from a NumPy random generator")


@register
class StoreIntoOutsideArray(Rule):
    refusal = C.OUTSIDE_ARRAY_STORE
    defaults = {"what": "a library function's result"}
    explain = """
        A function of an installed package (a library) runs as plain Python when a
        jitted function calls it: an array it returns, made from constants
        (`np.identity(4)`), is a NumPy array, not one of the compiled program's.
        Writing a traced value (or at a traced index) into it (`m[3, :3] = v`) would
        need the value while compiling, and @jit raises UnsupportedOperationError.
        Copy it into the program first (`m = np.array(make_matrix())`), or build the
        array in the jitted function. (Arrays from the module, globals and closures
        are passed to the program and written back; class attributes and static
        arguments are refused like library results, but the linter reports only the
        library results.)"""
    bad = """
        import numpy as np
        import scipy.linalg
        from npxla import jit

        @jit
        def signs(v):
            h = scipy.linalg.hadamard(4)
            h[0] = v
            return h
        """
    good = """
        import numpy as np
        import scipy.linalg
        from npxla import jit

        @jit
        def signs(v):
            h = np.array(scipy.linalg.hadamard(4), dtype=float)
            h[0] = v
            return h
        """
    example_args = "(np.array([1.0, 2.0, 3.0, 4.0]),)"

    def on_subscript(self, ctx, node, base, index, mode, value):
        if mode == "load" or ctx.plain or base.kind not in (ARRAY, BOOL, UNKNOWN):
            return
        if base.kind == UNKNOWN and index.kind == STR:     # a dict a library made
            return
        if not any(o[0] == "concrete" for o in base.origins):
            return
        if traced_argument(value) or traced_argument(index, ints=True):
            self.report(ctx, node)
