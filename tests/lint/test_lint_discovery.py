"""Finding the jitted functions of a file, their flavour and static arguments."""
import ast
import textwrap

from npxla.transpiler.lint import lint_source
from npxla.transpiler.lint.discovery import discover, module_info


def targets(src, **kw):
    tree = ast.parse(textwrap.dedent(src))
    return {t.node.name: t for t in discover(module_info(tree, "m.py"), **kw)}


def test_decorator_spellings():
    found = targets("""
        import functools
        from functools import partial
        import jax
        import npxla
        from npxla import jit
        from jax import jit as jjit

        @jit
        def a(x): return x
        @jit(static_argnums=1)
        def b(x, n): return x
        @npxla.jit
        def c(x): return x
        @jax.jit
        def d(x): return x
        @partial(jax.jit, static_argnums=(1,))
        def e(x, n): return x
        @functools.partial(jit, static_argnames="n")
        def f(x, n): return x
        @jjit
        def g(x): return x
        def plain(x): return x
    """)
    assert {k: v.flavor for k, v in found.items()} == {
        "a": "npxla", "b": "npxla", "c": "npxla", "d": "jax", "e": "jax", "f": "npxla",
        "g": "jax"}
    assert found["b"].static == {"n"} and found["e"].static == {"n"}
    assert found["f"].static == {"n"}


def test_call_spellings_and_static_args():
    found = targets("""
        import jax
        from functools import partial
        from npxla import jit

        def a(x, n, m): return x
        def b(x): return x
        def c(x, k): return x
        def d(x): return x
        fast_a = jit(a, static_argnums=(1, -1))
        jax.jit(b)(1.0)
        c2 = partial(jax.jit, static_argnames=["k"])(c)

        def outer():
            def inner(x): return x
            return jit(inner)
    """)
    assert set(found) == {"a", "b", "c", "inner"}
    assert found["a"].static == {"n", "m"}
    assert found["b"].flavor == "jax" and found["c"].static == {"k"}


def test_other_jits_are_not_linted():
    src = """
        import numpy as np
        from numba import jit

        @jit
        def f(x):
            return x[x > 0]
    """
    assert targets(src) == {}
    assert lint_source(textwrap.dedent(src)) == []


def test_unbound_jit_counts_as_npxla():
    assert targets("@jit\ndef f(x): return x\n")["f"].flavor == "npxla"


def test_static_args_from_module_constants_and_unreadable():
    found = targets("""
        from npxla import jit
        STATIC = (1,)
        def f(x, n): return x
        def g(x, n): return x
        jit(f, static_argnums=STATIC)
        jit(g, static_argnums=compute())
    """)
    assert found["f"].static == {"n"} and not found["f"].all_static
    assert found["g"].all_static


def test_static_argument_is_not_traced():
    src = """
        import numpy as np
        from npxla import jit

        @jit(static_argnums=1)
        def f(x, n):
            return x[:n], np.zeros(n)

        @jit
        def g(x, n):
            m = int(x.max())
            return x[:n], np.zeros(m)
    """
    found = lint_source(textwrap.dedent(src))
    assert [(f.line, f.code) for f in found] == [(12, "NPX122")]


def test_jit_wrappers_and_explicit_functions():
    src = "def f(x):\n    return x.item()\n\ncheck(f, 1)\n"
    assert lint_source(src) == []
    assert [f.code for f in lint_source(src, jit_wrappers=["check"])] == ["NPX121"]
    assert [f.code for f in lint_source(src, jitted=["f"])] == ["NPX121"]


def test_assume_jit_lints_every_function():
    src = "import numpy as np\n\ndef f(x):\n    return x.item()\n\nclass A:\n" \
          "    def m(self, x):\n        return np.zeros(int(x[0]))\n"
    assert lint_source(src) == []
    assert [f.code for f in lint_source(src, assume_jit="npxla")] == ["NPX121", "NPX122"]
    # the flavour decides the rules: jax.jit refuses a boolean mask, @jit does not
    src = "import jax.numpy as jnp\n\ndef f(x):\n    return x[x > 0]\n\nclass A:\n" \
          "    def m(self, x):\n        return jnp.nonzero(x)\n"
    assert lint_source(src, assume_jit="npxla") == []
    assert [f.code for f in lint_source(src, assume_jit="jax")] == ["NPX111", "NPX112"]


def test_methods_ignore_self():
    src = """
        from npxla import jit
        class Model:
            @jit
            def f(self, x):
                if self.flag:
                    return x
                return -x
    """
    assert lint_source(textwrap.dedent(src)) == []
