"""NPX11x: data-dependent shapes. XLA needs every array's shape when it compiles, so
anything whose *size* depends on array values cannot be compiled."""
from __future__ import annotations

import ast

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import BOOL, CONTAINERS, MAYBE, METHOD, PYTHON_ONLY
from npxla.transpiler.lint.rules._util import is_at_property, is_jnp, numpy_name, traced
from npxla.transpiler.lint.rules.base import Rule, register

_ERR = "DataDependentShapeError (NPX004)"


@register
class BooleanMaskIndex(Rule):
    code = "NPX111"
    name = "boolean-mask-index"
    message = "boolean-mask indexing x[mask] gives an array whose length depends on the data; use np.where(mask, x, fill)"
    error = _ERR + "; jax: NonConcreteBooleanIndexError"
    explain = """
        `x[mask]` with a boolean array computed from traced values keeps only the
        selected elements, so the length of the result depends on the data. Keep the
        shape fixed instead: `np.where(mask, x, 0)` selects without shrinking, and
        reductions over the selection become masked reductions
        (`np.sum(np.where(mask, x, 0))`, `np.count_nonzero(mask)`). Updating through a
        mask (`x[mask] = 0`, `x[mask] += 1`) is fine: the shape does not change."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def positive_mean(x):
            return x[x > 0].mean()
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def positive_mean(x):
            mask = x > 0
            return np.where(mask, x, 0).sum() / np.count_nonzero(mask)
        """
    example_args = "(np.array([1.0, -2.0, 3.0]),)"

    def on_subscript(self, ctx, node, base, index, mode, value):
        if mode != "load" or is_at_property(node):
            return
        if base.kind in CONTAINERS or base.kind in PYTHON_ONLY:
            return
        parts = index.items if index.items is not None else (index,)
        for part in parts:
            if part.kind == BOOL and part.nd != 0 and part.level >= MAYBE:
                self.report(ctx, node)
                return


def _nonzero_call(callee, args, kwargs, ctx, names):
    """The data argument if this call is np.<name>(traced, ...) / x.<name>()."""
    if "size" in kwargs:          # jnp.nonzero(x, size=n): a static size
        return None
    name = numpy_name(callee, jax=True)
    if name is not None and name in names and (not is_jnp(callee) or ctx.is_jax):
        data = args[0] if args else (next(iter(kwargs.values()), None))
        if name == "compress" and args:
            data = args[0]            # the condition decides the size
        return data if data is not None and traced(data) else None
    if callee.kind == METHOD and callee.qual in names:
        recv = callee.items[0]
        if callee.qual == "compress":
            return args[0] if args and traced(args[0]) else None
        if recv.kind not in CONTAINERS and recv.kind not in PYTHON_ONLY and traced(recv):
            return recv
    return None


@register
class NonzeroFamily(Rule):
    code = "NPX112"
    name = "nonzero-indices"
    message = "'{fn}' returns indices whose count depends on the data; use a mask with np.where instead"
    defaults = {"fn": "np.nonzero"}
    error = "UnsupportedFunctionError (NPX002) / DataDependentShapeError (NPX004); jax: ConcretizationTypeError"
    explain = """
        `np.nonzero`, `np.flatnonzero`, `np.argwhere` and `x.nonzero()` return one
        index per non-zero element, so the result's length depends on the data. Work
        with the mask itself (`np.where(mask, a, b)`, `mask.sum()`,
        `np.argmax(mask)` for the first index). Under `jax.jit`, pass a static
        `size=` to `jnp.nonzero`."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def first_negative(x):
            return np.nonzero(x < 0)[0][0]
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def first_negative(x):
            return np.argmax(x < 0)
        """
    example_args = "(np.array([1.0, -2.0, -3.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if _nonzero_call(callee, args, kwargs, ctx, K.NONZERO_FAMILY) is not None:
            self.report(ctx, node, fn=_display(node))


@register
class UniqueFamily(Rule):
    code = "NPX113"
    name = "data-dependent-size"
    message = "'{fn}' returns an array whose size depends on the data, which cannot be compiled"
    defaults = {"fn": "np.unique"}
    error = "UnsupportedFunctionError (NPX002) / DataDependentShapeError (NPX004); jax: ConcretizationTypeError"
    explain = """
        `np.unique`, the set operations (`np.union1d`, `np.intersect1d`,
        `np.setdiff1d`, `np.setxor1d`), `np.extract`, `np.compress` with a traced
        condition and `np.trim_zeros` return as many elements as the data calls for.
        Compute them outside the jitted function, or rewrite with fixed-size masks
        (e.g. count distinct sorted values with `np.sum(np.diff(np.sort(x)) != 0) + 1`).
        Under `jax.jit`, pass a static `size=` to `jnp.unique`."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def n_distinct(x):
            return np.unique(x).shape[0]
        """
    good = """
        import numpy as np
        from npxla import jit

        def n_distinct(x):
            return np.unique(x).shape[0]      # not jitted: data-dependent size
        """
    example_args = "(np.array([1.0, 2.0, 2.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if _nonzero_call(callee, args, kwargs, ctx, K.UNIQUE_FAMILY) is not None:
            self.report(ctx, node, fn=_display(node))


@register
class WhereOneArgument(Rule):
    code = "NPX114"
    name = "where-one-argument"
    message = "np.where(condition) returns indices whose count depends on the data; use the 3-argument form np.where(condition, x, y)"
    error = _ERR + "; jax: ConcretizationTypeError"
    explain = """
        With one argument `np.where(c)` is `np.nonzero(c)`: its length depends on the
        data. The three-argument form `np.where(c, x, y)` keeps the shape and compiles.
        (Under `jax.jit`, `jnp.where(c, size=n)` with a static `n` also works.)"""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def clip_negative(x):
            x = x.copy()
            x[np.where(x < 0)] = 0.0
            return x
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def clip_negative(x):
            return np.where(x < 0, 0.0, x)
        """
    example_args = "(np.array([1.0, -2.0, 3.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        name = numpy_name(callee, jax=ctx.is_jax)
        if name != "where" or len(node.args) != 1 or "size" in kwargs or \
                any(k in kwargs for k in ("x", "y")):
            return
        if isinstance(node.args[0], ast.Starred):
            return
        if traced(args[0]):
            self.report(ctx, node)


def _display(call):
    try:
        return ast.unparse(call.func)
    except Exception:
        return "this function"
