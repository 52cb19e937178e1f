"""The one jit discovery that `npxla convert` and the linter share: every spelling, the
flavour (npxla / jax), static arguments, qualified names, and that both sides agree."""
import ast
import textwrap

import pytest

from npxla.transpiler import module_convert
from npxla.transpiler.analysis import jit_discovery
from npxla.transpiler.analysis.jit_discovery import ModuleNames, discover
from npxla.transpiler.lint import discovery as lint_discovery


def found(src, **kw):
    tree = ast.parse(textwrap.dedent(src))
    return {t.qualname: t for t in discover(ModuleNames(tree), **kw)}


def flavors(src, **kw):
    return {q: t.flavor for q, t in found(src, **kw).items()}


DECORATORS = """
    import functools
    from functools import partial
    import jax
    import npxla
    import npxla as npx
    from npxla import jit
    from npxla import jit as njit
    from jax import jit as jjit
    from npxla.runtime.driver.api import jit as deep

    @jit
    def a(x): return x
    @jit(static_argnums=1)
    def b(x, n): return x
    @npxla.jit
    def c(x): return x
    @npx.jit(static_argnames="n")
    def d(x, n): return x
    @njit
    def e(x): return x
    @jax.jit
    def f(x): return x
    @jjit
    def g(x): return x
    @partial(jax.jit, static_argnums=(1,))
    def h(x, n): return x
    @functools.partial(njit, static_argnames=("n",))
    def i(x, n): return x
    @deep
    def j(x): return x
    @jit(None, static_argnums=0)
    def k(n): return n
    def plain(x): return x
"""


def test_decorator_forms_and_flavors():
    assert flavors(DECORATORS) == {
        "a": "npxla", "b": "npxla", "c": "npxla", "d": "npxla", "e": "npxla",
        "f": "jax", "g": "jax", "h": "jax", "i": "npxla", "j": "npxla", "k": "npxla"}


def test_decorator_static_arguments():
    t = found(DECORATORS)
    assert t["b"].static == {"n"} and t["d"].static == {"n"} and t["h"].static == {"n"}
    assert t["i"].static == {"n"} and t["k"].static == {"n"}
    assert t["a"].static == frozenset() and not t["a"].all_static
    assert isinstance(t["b"].where, ast.Call)


def test_call_forms():
    t = found("""
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
        jit(d)(2.0)

        def outer():
            def inner(x): return x
            return jit(inner)
    """)
    assert set(t) == {"a", "b", "c", "d", "outer.<locals>.inner"}
    assert t["a"].static == {"n", "m"} and t["a"].flavor == "npxla"
    assert t["b"].flavor == "jax" and t["c"].static == {"k"} and t["c"].flavor == "jax"


def test_methods_and_nested_qualnames():
    t = found("""
        from npxla import jit
        class Model:
            @jit
            def step(self, x): return x
            class Inner:
                @jit
                def go(self, x): return x
        def outer():
            @jit
            def inner(x): return x
            return inner
    """)
    assert set(t) == {"Model.step", "Model.Inner.go", "outer.<locals>.inner"}


def test_bare_partial_and_unbound_jit():
    # what `npxla convert` always accepted: `partial` and `jit` with no import
    assert flavors("@partial(jit, static_argnums=0)\ndef f(n): return n\n") == {"f": "npxla"}
    assert flavors("@jit\ndef f(x): return x\n") == {"f": "npxla"}


def test_names_resolve_through_imports_not_spelling():
    assert flavors("import jax as npxla\n@npxla.jit\ndef f(x): return x\n") == {"f": "jax"}


def test_module_alias_of_jit():
    assert flavors("""
        import npxla, jax
        njit = npxla.jit
        jj = jax.jit
        @njit
        def f(x): return x
        @jj
        def g(x): return x
    """) == {"f": "npxla", "g": "jax"}


@pytest.mark.parametrize("src", [
    "from numba import jit\n@jit\ndef f(x): return x\n",
    "jit = make_decorator()\n@jit\ndef f(x): return x\n",
    "from npxla import jit\n@jit(other)\ndef f(x): return x\n",
])
def test_not_npxla_or_jax_jit(src):
    assert found(src) == {}


def test_static_args_follow_constants_and_intersect_over_sites():
    t = found("""
        from npxla import jit
        STATIC = (1,)
        def f(x, n): return x
        def g(x, n): return x
        def h(x, n, m): return x
        jit(f, static_argnums=STATIC)
        jit(g, static_argnums=compute())
        jit(h, static_argnums=(1, 2))
        jit(h, static_argnames="n")
    """)
    assert t["f"].static == {"n"} and not t["f"].all_static
    assert t["g"].all_static
    assert t["h"].static == {"n"}


def test_wrappers_and_extra_names():
    src = """
        def f(x): return x
        class A:
            def m(self, x): return x
        check(f, 1)
    """
    assert found(src) == {}
    assert flavors(src, wrappers=["check"]) == {"f": "npxla"}
    assert flavors(src, extra=["A.m"]) == {"A.m": "npxla"}


def test_all_functions_are_module_level_and_methods():
    tree = ast.parse("def f():\n    def g(): pass\nclass A:\n    def m(self): pass\n"
                     "if True:\n    def h(): pass\n")
    got = jit_discovery.all_functions(ModuleNames(tree), "jax")
    assert [(t.qualname, t.flavor) for t in got] == [("f", "jax"), ("A.m", "jax"), ("h", "jax")]


def test_converter_and_linter_agree():
    """`npxla convert` converts exactly the npxla-jitted functions the linter lints
    (those it can replace on their own: module level and methods)."""
    src = textwrap.dedent(DECORATORS + """
    def w(x): return x
    W = jit(w)
    class K:
        @njit
        def m(self, x): return x
    """)
    tree = ast.parse(src)
    linted = [t.qualname for t in lint_discovery.discover(lint_discovery.module_info(tree, "m.py"))
              if t.flavor == "npxla"]
    converted = [q for _, q in module_convert.jitted_functions(tree)]
    assert converted == linted == ["a", "b", "c", "d", "e", "i", "j", "k", "w", "K.m"]
