"""NPX2xx: what `jax.jit` rejects although npxla's `@jit` compiles it. `jax.jit`
traces every non-static argument into an abstract tracer, so Python control flow,
in-place updates, NumPy calls and Python conversions on them fail."""
from __future__ import annotations

import ast

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import (ARRAY, BOOL, CONTAINERS, LIST, MAYBE, METHOD,
                                          PYTHON_ONLY, REF, TUPLE)
from npxla.transpiler.lint.rules._util import (is_at_property, numpy_name, shape_arguments,
                                               slice_parts, traced, traced_level)
from npxla.transpiler.lint.rules.base import JAX, Rule, register

_JAX = frozenset({JAX})
_NPXLA_NOTE = "npxla's @jit compiles this code unchanged."


@register
class JaxTracedCondition(Rule):
    code = "NPX201"
    name = "jax-traced-condition"
    message = "{what} on a traced value: jax.jit raises TracerBoolConversionError; use jnp.where/lax.cond/lax.while_loop, a static argument, or npxla's @jit"
    defaults = {"what": "Python control flow"}
    targets = _JAX
    error = "jax: TracerBoolConversionError / ConcretizationTypeError"
    explain = f"""
        `jax.jit` replaces every non-static argument by a tracer that has a shape and a
        dtype but no value, so Python cannot decide an `if`, `while`, conditional
        expression, `and`/`or`/`not`, `assert` or `min`/`max` on it. Rewrite with
        `jnp.where`, `jax.lax.cond`, `jax.lax.while_loop` / `fori_loop`, mark the
        argument static (`static_argnums`), or use npxla's `@jit`, which converts
        Python control flow on array data into XLA control flow. {_NPXLA_NOTE}"""
    bad = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def relu_sum(x):
            s = x.sum()
            if s > 0:
                return s
            return 0.0
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def relu_sum(x):
            s = x.sum()
            return jnp.where(s > 0, s, 0.0)
        """
    example_args = "(np.array([1.0, -2.0, 3.0]),)"

    _WHAT = {"if": "an if statement", "while": "a while loop", "ifexp":
             "a conditional expression", "assert": "an assert", "boolop": "and/or",
             "not": "'not'", "compare": "a chained comparison"}

    def on_control(self, ctx, node, kind, cond):
        if kind not in self._WHAT or cond.condition_level < MAYBE:
            return
        end = getattr(node, "test", None) if kind in ("if", "while") else None
        self.report(ctx, node, end=end, what=self._WHAT[kind])

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind == REF and callee.qual in ("builtins.min", "builtins.max",
                                                   "builtins.sorted"):
            vals = args if len(args) > 1 else [a for a in args]
            if any(traced(a) for a in vals):
                self.report(ctx, node, what=f"{callee.qual[9:]}()")


@register
class JaxInplaceUpdate(Rule):
    code = "NPX202"
    name = "jax-inplace-update"
    message = "{what}; write x = x.at[i].set(v) (or .add, .mul, ...), or use npxla's @jit"
    defaults = {"what": "JAX arrays are immutable: in-place item assignment fails"}
    targets = _JAX
    error = "jax: TypeError ('JAX arrays are immutable') / TracerArrayConversionError"
    explain = f"""
        JAX arrays are immutable, so `x[i] = v` and `x[i] += v` on an argument or on an
        array made with `jnp` fail; the JAX spelling is `x = x.at[i].set(v)`
        (`.add(v)`, `.multiply(v)`, ...). Assigning a traced value into a NumPy array
        (`buf = np.zeros(n); buf[i] = x[i]`) fails too. npxla's `@jit` keeps NumPy's
        in-place semantics, views and aliases included. {_NPXLA_NOTE}"""
    bad = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def set_first(x):
            x[0] = 0.0
            return x
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def set_first(x):
            return x.at[0].set(0.0)
        """
    example_args = "(np.array([1.0, -2.0, 3.0]),)"

    def on_subscript(self, ctx, node, base, index, mode, value):
        if mode == "load" or is_at_property(node):
            return
        if base.kind in CONTAINERS or base.kind in PYTHON_ONLY:
            return
        if base.level >= MAYBE:
            self.report(ctx, node)
        elif traced_level(value) >= MAYBE or traced_level(index) >= MAYBE:
            self.report(ctx, node, what="a traced value cannot be stored into a NumPy "
                        "array (TracerArrayConversionError)")


@register
class JaxTracedStaticValue(Rule):
    code = "NPX203"
    name = "jax-traced-static-value"
    message = "a traced value is used as {what}, which jax.jit needs static; mark the argument static (static_argnums/static_argnames) or compute it with NumPy/x.shape"
    defaults = {"what": "a shape"}
    targets = _JAX
    error = "jax: ConcretizationTypeError / TracerIntegerConversionError / IndexError"
    explain = """
        Under `jax.jit` every non-static argument, and everything computed from it with
        `jnp` (even `jnp.prod(x.shape)`), is a tracer. Shapes, sizes, axes, `range()`
        bounds, slice bounds and indexes into Python lists must be Python values.
        Mark the argument static (`jax.jit(f, static_argnums=1)`), compute static math
        with NumPy or Python (`np.prod(x.shape)`, `x.shape[0] // 2`), or use
        `jax.lax.dynamic_slice` for a traced start. npxla's `@jit` specialises Python
        `int` arguments automatically."""
    bad = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def head(x, n):
            return x[:n]
        """
    good = """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=1)
        def head(x, n):
            return x[:n]
        """
    example_args = "(np.array([1.0, -2.0, 3.0]), 2)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind == REF and callee.qual == "builtins.range":
            for a_node, a in zip(node.args, args):
                if traced(a):
                    self.report(ctx, a_node, what="a range() bound")
                    return
            return
        name = numpy_name(callee, jax=True)
        if name is not None:
            spec = K.SHAPE_PARAMS.get(name)
        elif callee.kind == METHOD and callee.qual in K.SHAPE_METHOD_PARAMS and \
                callee.items[0].kind in (ARRAY, BOOL):
            spec = K.SHAPE_METHOD_PARAMS[callee.qual]
        else:
            return
        if spec is None:
            return
        what = "an axis" if spec[1] == ("axis",) else "a shape or size"
        for arg_node, v in shape_arguments(node, args, kwargs, spec):
            if traced_level(v) >= MAYBE:
                self.report(ctx, arg_node, what=what)
                return

    def on_subscript(self, ctx, node, base, index, mode, value):
        if base.kind in (LIST, TUPLE) and index.kind not in ("slice", TUPLE) and \
                index.kind not in CONTAINERS and index.kind not in PYTHON_ONLY and \
                index.level >= MAYBE:
            self.report(ctx, node.slice, what="an index into a Python list or tuple")
            return
        if base.kind in PYTHON_ONLY and base.kind != REF:
            return
        for part in slice_parts(node.slice):
            if traced_level(ctx.value(part)) >= MAYBE:
                self.report(ctx, part, what="a slice bound")
                return


@register
class JaxPythonConversion(Rule):
    code = "NPX204"
    name = "jax-python-conversion"
    message = "'{fn}()' converts a traced value to a Python number: jax.jit raises ConcretizationTypeError; keep it an array (jnp.{hint}) or use npxla's @jit"
    defaults = {"fn": "float", "hint": "asarray"}
    targets = _JAX
    error = "jax: ConcretizationTypeError"
    explain = """
        `float()`, `int()`, `bool()`, `complex()` and the `math` module need a Python
        number, which a tracer does not have. Keep the value an array (`x.astype(float)`,
        `jnp.sqrt`, `jnp.floor`), or return it and convert after the call. npxla's
        `@jit` turns these conversions into traced scalars."""
    bad = """
        import math
        import jax
        import jax.numpy as jnp

        @jax.jit
        def norm(x):
            return math.sqrt(float((x * x).sum()))
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def norm(x):
            return jnp.sqrt((x * x).sum())
        """
    example_args = "(np.array([3.0, 4.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind != REF or not callee.qual or not args:
            return
        qual = callee.qual
        if qual.startswith("builtins.") and qual[9:] in K.BUILTIN_CONVERSIONS:
            fn = qual[9:]
            hint = {"float": "asarray(x, float)", "int": "asarray(x, int)",
                    "bool": "asarray(x, bool)", "complex": "asarray(x, complex)"}[fn]
        elif qual.startswith("math.") or qual == "operator.index":
            fn = qual
            hint = qual.split(".")[-1]
        else:
            return
        if any(traced(a) and a.kind not in CONTAINERS for a in args):
            self.report(ctx, node, fn=fn, hint=hint)


@register
class JaxNumpyOnTracer(Rule):
    code = "NPX205"
    name = "jax-numpy-on-tracer"
    message = "'{fn}' is a NumPy function called on a traced value: jax.jit raises TracerArrayConversionError; use jnp.{short} or npxla's @jit"
    defaults = {"fn": "np.sum", "short": "sum"}
    targets = _JAX
    error = "jax: TracerArrayConversionError"
    explain = """
        Inside `jax.jit`, NumPy functions cannot take tracers: they would need the
        array's values. Use the `jax.numpy` function of the same name, or keep plain
        NumPy code and compile it with npxla's `@jit`. NumPy on static values (shapes,
        constants) is fine and is the right way to do static math."""
    bad = """
        import numpy as np
        import jax

        @jax.jit
        def softplus(x):
            return np.log1p(np.exp(x))
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def softplus(x):
            return jnp.log1p(jnp.exp(x))
        """
    example_args = "(np.array([1.0, -2.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind != REF or not callee.qual or not callee.qual.startswith("numpy."):
            return
        name = callee.qual[6:]
        short = name.split(".")[-1]
        if name.startswith("random.") or short in K.STATIC_RESULT:
            return
        vals = list(args) + [v for k, v in kwargs.items() if k != "dtype"]
        if any(traced_level(v) >= MAYBE for v in vals):
            try:
                fn = ast.unparse(node.func)
            except Exception:
                fn = "np." + name
            self.report(ctx, node, fn=fn, short=name)
