"""NPX14x: state outside the function: NumPy's random streams and arrays that the
compiled program did not create."""
from __future__ import annotations

from .. import knowledge as K
from ..values import CONTAINERS, MAYBE, METHOD, PYTHON_ONLY, REF, RNG
from ._util import traced_level
from .base import Rule, register


@register
class NumpyRandomState(Rule):
    code = "NPX141"
    name = "numpy-random-state"
    message = "{what}: a compiled function cannot advance NumPy's random streams; draw the numbers outside and pass them in"
    defaults = {"what": "np.random uses NumPy's global random state"}
    error = "UnsupportedOperationError (NPX009); jax: runs once while tracing (the same numbers on every call)"
    explain = """
        NumPy's random numbers come from a state that lives in Python (the global
        `np.random` state, or a `Generator`/`RandomState` object). A compiled program
        cannot advance it, and XLA cannot reproduce its exact draws. Draw the numbers
        outside the jitted function, with the same seed or generator, and pass them in
        as an argument. (Under `jax.jit` the call runs once, while tracing, so every
        call sees the same numbers; use `jax.random` with an explicit key.)"""
    bad = """
        import numpy as np
        from transpiler import jit

        @jit
        def noisy(x):
            return x + 0.1 * np.random.randn(*x.shape)
        """
    good = """
        import numpy as np
        from transpiler import jit

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


@register
class OutsideArrayMutation(Rule):
    code = "NPX142"
    name = "outside-array-mutation"
    message = "'{name}' was not created inside the compiled function (a global, a closure variable or a static argument) and is modified with a traced value"
    defaults = {"name": "array"}
    error = "UnsupportedOperationError (NPX009); jax: TracerArrayConversionError"
    explain = """
        A jitted function may update its array arguments in place (npxla writes them
        back after the call), but an array it did not create (a module global, a
        variable of an enclosing function, a static argument) is captured as a constant
        when compiling and cannot receive traced values. Pass the array in as an
        argument, or copy it first with `np.array(...)`. Python lists and dicts
        outside the function are reported by NPX303."""
    bad = """
        import numpy as np
        from transpiler import jit

        HISTORY = np.zeros(10)

        @jit
        def record(x, i):
            HISTORY[i] = x.sum()
            return x
        """
    good = """
        import numpy as np
        from transpiler import jit

        @jit
        def record(x, i, history):
            history[i] = x.sum()
            return x

        # record(x, 3, HISTORY)   # HISTORY is written back after the call
        """
    example_args = "(np.array([1.0, 2.0]), 3)"
    example_good_args = "(np.array([1.0, 2.0]), 3, np.zeros(10))"

    def on_subscript(self, ctx, node, base, index, mode, value):
        if mode == "load":
            return
        name = _outside_name(base)
        if name is None or base.kind in CONTAINERS or base.kind in PYTHON_ONLY:
            return
        if max(traced_level(value), traced_level(index)) >= MAYBE:
            self.report(ctx, node, name=name)

    def on_call(self, ctx, node, callee, args, kwargs):
        out = kwargs.get("out")
        if out is None or out.kind in PYTHON_ONLY:
            return
        outs = out.items if out.items is not None else (out,)
        for o in outs:
            name = _outside_name(o)
            if name is not None and max((traced_level(a) for a in args), default=0) >= MAYBE:
                self.report(ctx, node, name=name)
                return


def _outside_name(v):
    for origin in v.origins:
        if origin[0] == "outside":
            return origin[1]
    return None
