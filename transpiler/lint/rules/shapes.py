"""NPX11x: data-dependent shapes. XLA needs every array's shape when it compiles, so
`jax.jit` cannot compile anything whose *size* depends on array values. npxla's `@jit`
gives these a bounded, run-time length (docs/semantics.md, "Lengths known at run
time"), so NPX111-NPX114 apply to `jax.jit` only; the set operations npxla has no
compiled version of are NPX151 (unsupported function) under `@jit`. Only some functions
accept such an array (`transpiler.base.supported.NUMPY_RUN_TIME_LENGTH`, generated from
the runtime's bounded handlers): NPX115 reports the others."""
from __future__ import annotations

import ast

from npxla.transpiler.base import supported as S
from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import (ARRAY, BOOL, CONTAINERS, DATA, MAYBE, METHOD,
                                          NUMBER, PYTHON_ONLY, REF, element_of)
from npxla.transpiler.lint.rules._util import is_at_property, is_jnp, numpy_name, traced
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import JAX, NPXLA, Rule, register

_JAX_ONLY = frozenset({JAX})


@register
class BooleanMaskIndex(Rule):
    targets = _JAX_ONLY
    refusal = C.BOOLEAN_MASK
    jax_note = "jax: NonConcreteBooleanIndexError"
    explain = """
        `x[mask]` with a boolean array computed from traced values keeps only the
        selected elements, so the length of the result depends on the data. Keep the
        shape fixed instead: `np.where(mask, x, 0)` selects without shrinking, and
        reductions over the selection become masked reductions
        (`np.sum(np.where(mask, x, 0))`, `np.count_nonzero(mask)`). Updating through a
        mask (`x[mask] = 0`, `x[mask] += 1`) is fine: the shape does not change."""
    bad = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positive_mean(x):
            return x[x > 0].mean()
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positive_mean(x):
            mask = x > 0
            return jnp.where(mask, x, 0).sum() / jnp.count_nonzero(mask)
        """
    example_args = "(np.array([1.0, -2.0, 3.0]),)"

    def on_subscript(self, ctx, node, base, index, mode, value):
        if mode != "load" or is_at_property(node) or \
                not C.shape_refused("x[mask]", ctx.flavor):
            return
        if base.kind in CONTAINERS or base.kind in PYTHON_ONLY:
            return
        parts = index.items if index.items is not None else (index,)
        for part in parts:
            if part.kind == BOOL and part.nd != 0 and part.level >= MAYBE:
                self.report(ctx, node)
                return


def _refused(refusal, flavor):
    """The names of DATA_DEPENDENT_SHAPES that `flavor` refuses with `refusal`."""
    return frozenset(key for key, entry in C.DATA_DEPENDENT_SHAPES.items()
                     if entry.refusal is refusal and entry.refused_by(flavor))


def _nonzero_call(callee, args, kwargs, ctx, refusal):
    """The data argument if this call is np.<name>(traced, ...) / x.<name>() for a name
    that the catalogue's data-dependent-shape table refuses with `refusal`."""
    if "size" in kwargs:          # jnp.nonzero(x, size=n): a static size
        return None
    names = _refused(refusal, ctx.flavor)
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
    targets = _JAX_ONLY
    refusal = C.NONZERO
    defaults = {"fn": "np.nonzero"}
    jax_note = "jax: ConcretizationTypeError"
    explain = """
        `np.nonzero`, `np.flatnonzero`, `np.argwhere` and `x.nonzero()` return one
        index per non-zero element, so the result's length depends on the data. Work
        with the mask itself (`np.where(mask, a, b)`, `mask.sum()`,
        `np.argmax(mask)` for the first index). Under `jax.jit`, pass a static
        `size=` to `jnp.nonzero`."""
    bad = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def first_negative(x):
            return jnp.nonzero(x < 0)[0][0]
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def first_negative(x):
            return jnp.argmax(x < 0)
        """
    example_args = "(np.array([1.0, -2.0, -3.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if _nonzero_call(callee, args, kwargs, ctx, C.NONZERO) is not None:
            self.report(ctx, node, fn=_display(node))


@register
class UniqueFamily(Rule):
    targets = _JAX_ONLY
    refusal = C.DATA_DEPENDENT_SIZE
    defaults = {"fn": "np.unique"}
    jax_note = "jax: ConcretizationTypeError"
    explain = """
        `np.unique`, the set operations (`np.union1d`, `np.intersect1d`,
        `np.setdiff1d`, `np.setxor1d`), `np.extract`, `np.compress` with a traced
        condition and `np.trim_zeros` return as many elements as the data calls for.
        Compute them outside the jitted function, or rewrite with fixed-size masks
        (e.g. count distinct sorted values with `np.sum(np.diff(np.sort(x)) != 0) + 1`).
        Under `jax.jit`, pass a static `size=` to `jnp.unique`."""
    bad = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def n_distinct(x):
            return jnp.unique(x).shape[0]
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def n_distinct(x):
            s = jnp.sort(x)
            return jnp.sum(s[1:] != s[:-1]) + 1
        """
    example_args = "(np.array([1.0, 2.0, 2.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if _nonzero_call(callee, args, kwargs, ctx, C.DATA_DEPENDENT_SIZE) is not None:
            self.report(ctx, node, fn=_display(node))


@register
class WhereOneArgument(Rule):
    targets = _JAX_ONLY
    refusal = C.WHERE_ONE_ARGUMENT
    jax_note = "jax: ConcretizationTypeError"
    explain = """
        With one argument `np.where(c)` is `np.nonzero(c)`: its length depends on the
        data. The three-argument form `np.where(c, x, y)` keeps the shape and compiles.
        (Under `jax.jit`, `jnp.where(c, size=n)` with a static `n` also works.)"""
    bad = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def clip_negative(x):
            return x.at[jnp.where(x < 0)].set(0.0)
        """
    good = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def clip_negative(x):
            return jnp.where(x < 0, 0.0, x)
        """
    example_args = "(np.array([1.0, -2.0, 3.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        name = numpy_name(callee, jax=ctx.is_jax)
        if name != "where" or not C.shape_refused("where/1", ctx.flavor) or \
                len(node.args) != 1 or "size" in kwargs or \
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


# builtins that iterate their argument in Python (`len` too, in code run plainly: in
# converted code @jit answers it with the traced count)
_LENGTH_BUILTINS = frozenset({"builtins.list", "builtins.tuple", "builtins.sorted",
                              "builtins.set", "builtins.frozenset"})


def _run_time_length(v):
    """Where the data-dependent length of `v` (or of an item of a container `v`) comes
    from, or None."""
    if v is None or v.kind in PYTHON_ONLY:
        return None
    if v.dyn:
        return v.dyn
    if v.kind in CONTAINERS:
        for item in (v.items or ()) + (element_of(v),):
            if item is not None and item.dyn:
                return item.dyn
    return None


@register
class RunTimeLengthArgument(Rule):
    refusal = C.RUN_TIME_LENGTH
    targets = frozenset({NPXLA})
    plain = True
    defaults = {"fn": "np.correlate", "how": "a boolean mask"}
    explain = """
        `x[mask]`, `np.nonzero(m)[0]`, `np.unique(x)`, `np.extract`, `np.compress` and
        slices whose bounds are computed from array data (`x[:k]`, `k = np.argmax(x)`)
        give an array whose length depends on the data. `@jit` compiles them into a
        buffer as long as their bound plus a traced count, which elementwise
        operations, ufuncs, `np.where`, `np.clip`, reductions (`sum`, `mean`, `max`,
        `std`, ...), `np.cumsum`, dot products, `np.linalg.norm`, sorting, medians and
        quantiles, `np.unique`, `np.histogram`, `np.searchsorted`, `np.convolve`,
        `np.gradient` and `np.concatenate` of 1-d arrays accept (the list is
        `NUMPY_RUN_TIME_LENGTH` in npxla.transpiler.base.supported). Other functions
        (`np.correlate`, `np.cross`, `np.kron`, `list()`, ...) need the length while
        compiling and raise ConcretizationError. Compute on the whole array with a mask
        instead (weights, `np.where(mask, x, 0)`, the nan-functions on
        `np.where(mask, x, np.nan)`, `np.count_nonzero(mask)` for the length), or do it
        outside the jitted function."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def lag_one_product(x):
            return np.correlate(x[x > 0], [1.0, 1.0]).sum()
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def lag_one_product(x):
            p = x[x > 0]             # the 'valid' correlation with [1, 1], written out
            return (p[1:] + p[:-1]).sum()
        """
    example_args = "(np.array([1.0, -2.0, 3.0, 4.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        values = list(args) + list(kwargs.values())
        if callee.kind == REF and callee.qual:
            qual = callee.qual
            if qual.startswith("numpy."):
                # unsupported functions are NPX151 already; ufunc methods: NPX151 too
                if qual not in S.NUMPY_SUPPORTED or qual in S.NUMPY_RUN_TIME_LENGTH:
                    return
                fn = "np." + qual[len("numpy."):]
            elif qual in _LENGTH_BUILTINS or (qual == "builtins.len" and ctx.plain) or (
                    qual in S.BUILTINS_REGISTERED and qual not in S.NUMPY_RUN_TIME_LENGTH
                    and qual != "builtins.setattr"):
                # (`abs`, `sum`, `max` of such an array: the registry's builtins take
                # arrays of static shape only)
                fn = qual[len("builtins."):] + "()"
            else:
                return
            how = next((h for h in map(_run_time_length, values) if h), None)
            if how is not None:
                self.report(ctx, node, fn=fn, how=how)
        elif callee.kind == METHOD and callee.items:
            recv = callee.items[0]
            name = callee.qual
            if recv.kind in CONTAINERS or recv.kind in PYTHON_ONLY or not recv.dyn or \
                    name not in K.NDARRAY_ALL or name in S.NDARRAY_RUN_TIME_LENGTH or \
                    name in S.NDARRAY_UNSUPPORTED:
                return
            self.report(ctx, node, fn=f"ndarray.{name}", how=recv.dyn)

    # A staged branch or loop may carry an array of run-time length (its buffer, offsets
    # and counts: runtime/operators/bounded_carry.py), so carrying one is not reported.


@register
class ShapeOnTwoPaths(Rule):
    targets = frozenset({NPXLA})
    refusal = C.SHAPE_ON_TWO_PATHS
    explain = """
        Inside a loop on array data, `@jit` compiles one program for every iteration,
        so a variable has one shape on every path through the loop: the value before
        the loop, after each iteration, and in each branch taken on data. A Python
        number (`pi`, `0.0`) on one path and an array of one or more dimensions on
        another cannot be one program's value. The linter reports it where it knows the
        array's rank (`np.atleast_1d(x)`, arrays made in the function); with array
        arguments of unknown rank only `@jit` can tell. Give the variable an array on
        every path (`np.full_like(step, np.pi)`, `np.zeros_like(step)`). Outside such
        loops a branch on data is fine: its condition is assumed and checked when the
        program runs."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def settle(x):
            step = np.atleast_1d(x) / 2
            while np.abs(step).max() > 1e-9:
                if np.abs(step).max() > 1e6:
                    step = 0.0
                else:
                    step = step / 2
            return step
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def settle(x):
            step = np.atleast_1d(x) / 2
            while np.abs(step).max() > 1e-9:
                if np.abs(step).max() > 1e6:
                    step = np.zeros_like(step)
                else:
                    step = step / 2
            return step
        """
    example_args = "(np.array([3.0, 5.0]),)"
    defaults = {"name": "x", "a": "()", "b": "(n, ...)", "kind": "branch or loop"}

    _KIND = {"if": "branch", "loop": "loop (the value before the loop and after an "
                                     "iteration differ)"}
    _ADVICE = {"if": "give '{name}' an array on every path (e.g. np.full_like(...) or "
                     "np.zeros_like(...) instead of a Python number)",
               "loop": "start '{name}' as an array of its final shape before the loop "
                       "(e.g. np.zeros_like(...) instead of a Python number)"}

    def on_paths_joined(self, ctx, node, name, vals, what):
        if what == "if" and not any(f.kind != "if" for f in ctx.staged_frames(DATA)):
            return                # outside loops on data: the condition is assumed
        arrays = [v for v in vals if v is not None and v.nd == 1 and
                  v.kind not in CONTAINERS and v.kind not in PYTHON_ONLY]
        numbers = [v for v in vals if v is not None and v.nd == 0 and v.kind == NUMBER and
                   v.has_const]
        # A loop is analysed until its values settle, reporting only on the last pass;
        # by then the join of the two paths has forgotten the array's rank, so a
        # mismatch seen on an earlier pass is remembered for it (by the function's
        # analysis, whose AST nodes live as long as it does)
        seen = ctx.__dict__.setdefault("rank_mismatches", set())
        key = (id(node), name)
        if arrays and numbers:
            seen.add(key)
        if key in seen:
            self.report(ctx, node, name=name, a="()", b="(n, ...)", kind=self._KIND[what],
                        advice=self._ADVICE[what].format(name=name))
