"""NPX12x: a traced value needed as a Python value (`ConcretizationError`): it only
exists when the compiled program runs, but the code needs it while compiling."""
from __future__ import annotations

import ast

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import (ARRAY, BOOL, CONTAINERS, DATA, DICT, ITER, LIST,
                                          MAYBE, METHOD, NUMBER, PYTHON_ONLY, RANGE,
                                          TUPLE, UNKNOWN)
from npxla.transpiler.lint.rules._util import (numpy_name, shape_arguments, traced,
                                               traced_level)
from npxla.transpiler.base import catalogue as C
from npxla.transpiler.lint.rules.base import NPXLA, Rule, register



@register
class ItemTolist(Rule):
    refusal = C.ITEM_TOLIST
    plain = True
    defaults = {"method": "tolist"}
    jax_note = "jax: ConcretizationTypeError (also for `.item()`)"
    explain = """
        `.tolist()` asks for the Python values of an array computed from the inputs,
        but while compiling the array has no values yet. Keep it an array, or return
        it and convert after the call. (`.item()` compiles under npxla: the element
        becomes a traced Python scalar, as `float(s)` does; `jax.jit` refuses both.)"""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def scale(x):
            return x / max(x.tolist())
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def scale(x):
            return x / x.max()
        """
    example_args = "(np.array([1.0, 2.0, 4.0]),)"

    def on_call(self, ctx, node, callee, args, kwargs):
        if callee.kind != METHOD or callee.qual not in (
                ("item", "tolist") if ctx.is_jax else ("tolist",)):
            return
        recv = callee.items[0]
        if recv.kind in CONTAINERS or recv.kind in PYTHON_ONLY:
            return
        # array data; or an argument itself (Python numbers have no .item(), so it is
        # an array or a NumPy scalar). Not arrays computed from Python ints: npxla
        # specialises those.
        threshold = MAYBE if ctx.is_jax or recv.qual == "param" else DATA
        if traced(recv, threshold):
            self.report(ctx, node, method=callee.qual)


@register
class TracedShape(Rule):
    refusal = C.TRACED_SHAPE
    plain = True
    defaults = {"what": "a shape"}
    targets = frozenset({NPXLA})
    explain = """
        XLA compiles one program per set of shapes, so shapes, sizes, counts, axes and
        slice steps must be known before the run. A value computed from array *data*
        (`int(x.max())`, `x.argmax()`, an element of an array) is not. Derive it from
        shapes instead (`x.shape[0]`, `len(x)`), or pass it as a static argument
        (`jit(f, static_argnums=...)`). Python `int` arguments are fine: npxla
        specialises the function on their values. A traced *index* (`x[i]`) is fine
        too, and so are traced slice *bounds* and *steps* (`x[:k]`, `x[lo[i]:lo[i + 1]]`,
        `x[k::2]`, `x[::k]`): `@jit` gives such a slice a length known at run time
        (docs/semantics.md, "Lengths known at run time"); `jax.jit` refuses them."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def padded(x):
            k = int(x.max())
            return np.zeros(k)
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit(static_argnums=1)
        def padded(x, k):
            return np.zeros(k)
        """
    example_args = "(np.array([2.0, 5.0, 7.0]),)"
    example_good_args = "(np.array([2.0, 5.0, 7.0]), 2)"

    threshold = DATA

    def on_call(self, ctx, node, callee, args, kwargs):
        name = numpy_name(callee, jax=ctx.is_jax)
        if name is not None:
            spec = K.SHAPE_PARAMS.get(name)
            if spec is None:
                return
            what = "an axis" if spec[1] == ("axis",) else "a shape or size"
        elif callee.kind == METHOD and callee.qual in K.SHAPE_METHOD_PARAMS:
            recv = callee.items[0]
            if recv.kind not in (ARRAY, BOOL):       # an array, not e.g. a namespace
                return
            spec = K.SHAPE_METHOD_PARAMS[callee.qual]
            what = "an axis" if spec[1] == ("axis",) else "a shape or size"
        else:
            return
        for arg_node, v in shape_arguments(node, args, kwargs, spec):
            if traced_level(v) >= self.threshold:
                self.report(ctx, arg_node, what=what)
                return

    def on_subscript(self, ctx, node, base, index, mode, value):
        if base.kind in PYTHON_ONLY and base.kind != "ref":
            return
        bounds_refused = C.shape_refused("x[i:j]", ctx.flavor)
        strided_refused = C.shape_refused("x[i:j:k]", ctx.flavor)
        nodes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for part in nodes:
            if not isinstance(part, ast.Slice):
                continue
            # npxla gives a slice with traced bounds or a traced step a length known at
            # run time (docs/semantics.md); jax.jit refuses both
            if part.step is not None and strided_refused and \
                    traced_level(ctx.value(part.step)) >= self.threshold:
                self.report(ctx, part.step, what="a slice step")
                return
            for bound in (part.lower, part.upper):
                if bound is None or traced_level(ctx.value(bound)) < self.threshold:
                    continue
                if bounds_refused:
                    self.report(ctx, bound, what="a slice bound")
                    return
                if strided_refused and part.step is not None and \
                        not _unit_step(ctx.value(part.step)):
                    self.report(ctx, bound,
                                what="a slice bound with a step other than 1 or -1")
                    return


def _unit_step(v):
    """Whether a static slice step is 1 or -1 (or not known: no finding on a guess)."""
    return not v.has_const or v.const in (1, -1)


def _range_level(v):
    if v.kind == RANGE:
        return max((i.level for i in v.items or ()), default=0)
    if v.kind == ITER and v.qual and v.qual.startswith("range:"):
        return int(v.qual.split(":")[1])
    return 0


@register
class TracedRangeInPython(Rule):
    refusal = C.TRACED_RANGE_ITERATED
    plain = True
    defaults = {"how": "a comprehension"}
    targets = frozenset({NPXLA})
    explain = """
        A `for` loop over `range(n)` with `n` computed from array data compiles to an
        XLA loop. Iterating the same range in Python (a list comprehension,
        `list(range(n))`, `sum(range(n))`, `*range(n)`) needs its length while
        compiling. Write a `for` loop that fills a preallocated array, or use array
        operations (`np.arange(N)` with a mask)."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def partial_sums(x):
            n = int(x.min())
            return [x[:i + 1].sum() for i in range(n)]
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def partial_sums(x):
            n = int(x.min())
            total = np.zeros_like(x)
            acc = 0.0
            for i in range(n):
                acc = acc + x[i]
                total[i] = acc
            return total
        """
    example_args = "(np.array([2.0, 5.0, 7.0]),)"

    def on_iterate(self, ctx, node, iterable, how):
        if _range_level(iterable) >= DATA:
            self.report(ctx, node, how=how)


def _numbers(elem):
    """Whether a sequence's elements are (or may be) numbers, which @jit reads at a
    traced index like an array: the rule fires only for elements known to be other."""
    return elem is None or elem.kind in (UNKNOWN, MAYBE, NUMBER, BOOL) or \
        (elem.kind == ARRAY and elem.nd == 0)


@register
class TracedSequenceIndex(Rule):
    refusal = C.TRACED_SEQUENCE_INDEX
    plain = True
    defaults = {"kind": "list"}
    targets = frozenset({NPXLA})
    explain = """
        Python lists and tuples live outside the compiled program. One of numbers of one
        type (`[0.5, 1.0, 2.0]`) indexed by a value computed from array data is read like
        an array of them; one of arrays, or of numbers of mixed types, needs a Python
        `int` as its index. Stack it into an array first (`np.stack(rows)[i]`), or index
        with a static value. (The index of a loop over a static range is fine: npxla
        unrolls that loop.)"""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def pick(x):
            rows = [x, 2.0 * x, x ** 2]
            return rows[x.argmax()]
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def pick(x):
            rows = np.stack([x, 2.0 * x, x ** 2])
            return rows[x.argmax()]
        """
    example_args = "(np.array([2.0, 5.0, 7.0]),)"

    threshold = DATA

    def on_subscript(self, ctx, node, base, index, mode, value):
        if base.kind not in (LIST, TUPLE) or index.kind in ("slice", TUPLE) or \
                _numbers(base.elem):
            return
        if index.kind in CONTAINERS or index.kind in PYTHON_ONLY:
            return
        if index.level >= self.threshold:
            self.report(ctx, node.slice, kind="list" if base.kind == LIST else "tuple")


@register
class TracedDictKey(Rule):
    refusal = C.TRACED_KEY
    plain = True
    targets = frozenset({NPXLA})
    explain = """
        A Python dict or set lives outside the compiled program: looking a key up hashes
        it, which needs its value, and a value computed from array data (an element, or
        a tuple of a row's elements) has none while compiling. Count or accumulate in an
        array indexed by an integer code instead (`np.bincount`, `np.unique(...,
        return_inverse=True)`, `out[code] += w`)."""
    bad = """
        import numpy as np
        from npxla import jit

        @jit
        def pattern_weights(x):
            weights = {}
            for row in x:
                key = tuple(row.argsort())
                weights[key] = weights.get(key, 0.0) + row.var()
            return np.array(list(weights.values()))
        """
    good = """
        import numpy as np
        from npxla import jit

        @jit
        def pattern_weights(x):
            codes = (x.argsort(axis=1) * np.array([9, 3, 1])).sum(axis=1)
            return np.bincount(codes, weights=x.var(axis=1), minlength=27)
        """
    example_args = "(np.array([[1.0, 3.0, 2.0], [4.0, 0.0, 5.0]]),)"

    def on_subscript(self, ctx, node, base, index, mode, value):
        if base.kind == DICT and index.kind != "slice" and index.level >= DATA:
            self.report(ctx, node.slice)

