"""Finding the jitted functions of a file, their flavour and static arguments, as the
linter sees them (the spellings themselves: tests/transpiler/analysis/test_jit_discovery.py)."""
import ast
import textwrap

from npxla.transpiler.lint import lint_source
from npxla.transpiler.lint.discovery import discover, module_info


def targets(src, **kw):
    tree = ast.parse(textwrap.dedent(src))
    return {t.node.name: t for t in discover(module_info(tree, "m.py"), **kw)}


def test_linter_sees_both_flavors():
    found = targets("import jax\nfrom npxla import jit\n\n@jit(static_argnums=1)\n"
                    "def a(x, n): return x\n@jax.jit\ndef b(x): return x\n")
    assert {k: (v.flavor, v.static) for k, v in found.items()} == {
        "a": ("npxla", {"n"}), "b": ("jax", frozenset())}


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


def test_discover_records_every_call_for_module_rules():
    tree = ast.parse("from npxla import jit\ndef f(x): return g(x)\nh = jit(f)\n")
    info = module_info(tree, "m.py")
    assert [t.qualname for t in discover(info)] == ["f"]
    assert sorted(c.func.id for c, _, _ in info.calls) == ["g", "jit"]


def test_unbound_jit_counts_as_npxla():
    assert targets("@jit\ndef f(x): return x\n")["f"].flavor == "npxla"


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
    src = "def f(x):\n    return x.tolist()\n\ncheck(f, 1)\n"
    assert lint_source(src) == []
    assert [f.code for f in lint_source(src, jit_wrappers=["check"])] == ["NPX121"]
    assert [f.code for f in lint_source(src, jitted=["f"])] == ["NPX121"]


def test_assume_jit_lints_every_function():
    src = "import numpy as np\n\ndef f(x):\n    return x.tolist()\n\nclass A:\n" \
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
