"""What @jit compiles, as the linter knows it: transpiler/base/supported.py is generated
from the runtime's registry and current, and the rules built on it (NPX151-153, with
NPX125 and NPX135) flag exactly the code that @jit refuses: each case below is compiled
and linted, and the rule must fire when, and only when, @jit raises."""
import ast
import importlib.util
import textwrap
import warnings

import numpy as np
import pytest

from npxla.transpiler.base import supported as S
from npxla.transpiler.base.errors import TranspileError
from npxla.transpiler.lint import lint_source
from npxla.transpiler.lint.rules import RULES


# --- the generated table -------------------------------------------------------------------
def test_supported_table_is_generated_from_the_registry():
    from npxla.runtime.driver import supported_api as support_table
    if np.__version__ != S.NUMPY_VERSION:
        pytest.skip(f"the table lists NumPy {S.NUMPY_VERSION}'s API; this is "
                    f"{np.__version__}")
    path = support_table.SUPPORTED_PATH
    with open(S.__file__, encoding="utf-8") as fh:
        committed = fh.read()
    assert committed == support_table.render_supported(), \
        f"{path} is stale: run {support_table.SUPPORTED_COMMAND}"


def test_supported_table_agrees_with_the_registry_by_object():
    from npxla.runtime.numpy import load_all
    from npxla.runtime.numpy.core import registry
    load_all()
    for qual in ("numpy.sum", "numpy.abs", "numpy.linalg.norm", "numpy.fft.rfft",
                 "numpy.where", "numpy.float64"):
        assert qual in S.NUMPY_SUPPORTED, qual
    for qual in ("numpy.i0", "numpy.resize", "numpy.block", "numpy.polyder"):
        assert qual in S.NUMPY_UNSUPPORTED, qual
        assert registry.lookup(eval("np." + qual[6:])) is None
    # results of data-dependent size: @jit gives them a run-time length (registered),
    # except the set operations, which have no implementation
    for qual in ("numpy.unique", "numpy.nonzero", "numpy.flatnonzero", "numpy.argwhere",
                 "numpy.compress", "numpy.extract"):
        assert qual in S.NUMPY_SUPPORTED and qual not in S.NUMPY_REFUSED, qual
    for qual in ("numpy.union1d", "numpy.intersect1d", "numpy.setdiff1d", "numpy.trim_zeros"):
        assert qual in S.NUMPY_UNSUPPORTED, qual
        assert registry.lookup(eval("np." + qual[6:])) is None
    assert not S.NUMPY_SUPPORTED & S.NUMPY_UNSUPPORTED
    assert {"resize", "view", "strides"} <= S.NDARRAY_UNSUPPORTED
    assert {"sum", "reshape", "T", "shape", "dtype"} <= S.NDARRAY_SUPPORTED
    assert "math.sqrt" in S.MATH_SUPPORTED and "math.gamma" in S.MATH_UNSUPPORTED
    assert "numpy.add.reduce" in S.UFUNC_METHODS_SUPPORTED
    assert S.NUMPY_REAL_ASSUMED == {"numpy.linalg.eig", "numpy.linalg.eigvals", "numpy.roots"}
    assert {"builtins.print", "builtins.range", "numpy.isscalar",
            "functools.reduce"} <= S.HANDLED_CALLS


def test_linter_does_not_import_the_runtime_for_the_table():
    import subprocess
    import sys
    code = ("import sys; from npxla.transpiler.lint import lint_source; "
            "lint_source('import numpy as np\\nfrom npxla import jit\\n@jit\\n"
            "def f(x):\\n    return np.i0(x)\\n'); "
            "bad = [m for m in sys.modules if m.startswith(('jax', 'npxla.runtime'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


# --- differential: the rule fires exactly when @jit raises ----------------------------------
HEADER = """\
import math
import statistics
import numpy as np
import scipy.special
import scipy.stats
from numpy.polynomial import polynomial as P

W = np.arange(3.0)
"""

# (name, source of `f`, arguments, the code expected when @jit refuses it, or None)
CASES = [
    # NPX151: NumPy functions without an implementation
    ("i0", "def f(x):\n    return np.i0(x)\n", "(np.arange(3.0),)", "NPX151"),
    ("unwrap", "def f(x):\n    return np.unwrap(x * 4.0)\n", "(np.arange(3.0),)", None),
    ("bitwise_count", "def f(x):\n    return np.bitwise_count(x * 4)\n", "(np.arange(3),)",
     None),
    ("float_arg", "def f(x, t):\n    return x * np.i0(t)\n", "(np.arange(3.0), 0.5)",
     "NPX151"),
    ("ufunc_reduceat", "def f(x):\n    return np.add.reduceat(x, [0, 2])\n",
     "(np.arange(3.0),)", "NPX151"),
    ("ufunc_outer", "def f(x):\n    return np.add.outer(x, x)\n", "(np.arange(3.0),)",
     None),
    ("set_operation", "def f(x):\n    return np.union1d(x, x + 1.0)\n", "(np.arange(3.0),)",
     "NPX151"),
    ("trim_zeros", "def f(x):\n    return np.trim_zeros(x)\n", "(np.arange(3.0),)",
     "NPX151"),
    ("apply_along_axis", "def f(x):\n    return np.apply_along_axis(np.sum, 0, x)\n",
     "(np.eye(3),)", None),
    ("block", "def f(x):\n    return np.block([[x, x]])\n", "(np.eye(3),)", "NPX151"),
    ("vectorize", "def f(x):\n    return np.vectorize(lambda t: t + 1)(x)\n",
     "(np.arange(3.0),)", "NPX151"),
    ("polynomial", "def f(x, c):\n    return P.polyval(x, c)\n",
     "(np.arange(3.0), np.array([1.0, 2.0]))", "NPX151"),
    ("polyder", "def f(c):\n    return np.polyder(c * 1.0)\n", "(np.array([1.0, -3.0, 2.0]),)",
     "NPX151"),
    ("window_of_constant", "def f(x):\n    return x * np.hanning(5)\n", "(np.ones(5),)", None),
    ("window_of_shape", "def f(x):\n    return x * np.hanning(x.shape[0])\n",
     "(np.ones(5),)", None),
    ("window_of_int_argument", "def f(x, n):\n    return x[:3] * np.hanning(n)[:3]\n",
     "(np.ones(5), 4)", None),
    ("finfo_of_dtype", "def f(x):\n    return x + np.finfo(x.dtype).eps\n", "(np.ones(2),)",
     None),
    ("constant_argument", "def f(x):\n    return x * np.i0(3.0)\n", "(np.ones(2),)", None),
    ("constant_array", "def f(x):\n    return x * np.i0(np.arange(2.0)).sum()\n",
     "(np.ones(2),)", None),
    ("supported", "def f(x):\n    return np.linalg.norm(x) + np.add.reduce(x) + "
     "np.maximum.accumulate(x)\n", "(np.arange(3.0),)", None),
    ("try_attribute", "def f(x):\n    s = x.sum()\n    try:\n        e = np.finfo(s.type).eps\n"
     "    except AttributeError:\n        e = 1e-9\n    return x + e\n", "(np.ones(2),)", None),
    ("eig_of_real", "def f(a):\n    w, v = np.linalg.eig(a)\n    return w\n",
     "(np.diag([1.0, 2.0]),)", None),
    ("eig_of_real_in_a_staged_loop", "def f(a, n):\n    s = 0.0\n    for i in range(n):\n"
     "        s = s + np.linalg.eigvals(a * i).real.sum()\n    return s\n",
     "(np.diag([1.0, 2.0]), np.int64(3))", "NPX151"),
    ("eig_of_complex", "def f(a):\n    c = a.astype(complex)\n    return np.linalg.eigvals(c)\n",
     "(np.diag([1.0, 2.0]),)", None),
    # complex on one path: a data-dependent branch joins it with the real one as complex
    # (reaching definitions, not the last assignment in the text)
    ("eig_complex_on_one_path", "def f(a, c):\n    m = a.astype(complex)\n    if c > 0:\n"
     "        m = a\n    return np.linalg.eigvals(m)\n", "(np.eye(2) + 1.0, 1)", None),
    # NPX152: ndarray attributes without an implementation
    ("resize", "def f(x):\n    y = x.copy()\n    y.resize((2,))\n    return y\n",
     "(np.arange(3.0),)", "NPX152"),
    ("flat_unpacking", "def f(m):\n    a, b, c, d = m.flat\n    return a * d - b * c\n",
     "(np.eye(2),)", None),
    ("strides", "def f(x):\n    return x * x.strides[0]\n", "(np.arange(3.0),)", "NPX152"),
    ("view_of_constant", "def f(x):\n    return np.zeros(3).view() + x\n",
     "(np.arange(3.0),)", "NPX152"),
    ("flat_of_module_array", "def f(x):\n    return x + sum(W.flat)\n", "(np.ones(3),)",
     None),
    ("mT_of_module_array", "def f(x):\n    return x + W.mT.sum()\n", "(np.ones(3),)",
     "NPX152"),
    ("supported_attributes", "def f(x):\n    return x.T.real.astype(float).reshape(-1) "
     "* x.ndim\n", "(np.arange(3.0),)", None),
    # NPX153: other libraries and math functions without a lowering
    ("scipy_ufunc", "def f(x):\n    return scipy.special.zeta(x + 2.0, 1.0)\n",
     "(np.arange(3.0),)", "NPX153"),
    ("scipy_distribution", "def f(x):\n    return scipy.stats.gamma.cdf(x, 2.0)\n",
     "(np.arange(3.0),)", "NPX153"),
    # SciPy functions npxla compiles (runtime/numpy/scipy_*.py)
    ("scipy_supported", "def f(x):\n    return scipy.special.erf(x)\n", "(np.arange(3.0),)",
     None),
    ("scipy_norm_supported", "def f(x):\n    return scipy.stats.norm.cdf(x)\n",
     "(np.arange(3.0),)", None),
    ("statistics", "def f(x):\n    return statistics.mean(x)\n", "(np.arange(3.0),)",
     "NPX153"),
    ("math_of_element", "def f(x):\n    return math.gamma(x[0])\n", "(np.arange(1.0, 3.0),)",
     "NPX153"),
    # a Python float argument a call needs as a value is specialised, like an int
    ("math_of_float_argument", "def f(x, a):\n    return x * math.lgamma(a)\n",
     "(np.ones(2), 2.5)", None),
    ("math_of_data", "def f(x):\n    return x * math.lgamma(x[0])\n",
     "(np.ones(2),)", "NPX153"),
    ("math_of_int_argument", "def f(x, n):\n    return x * math.factorial(n)\n",
     "(np.ones(2), 4)", None),
    ("scipy_of_constant", "def f(x):\n    return x * scipy.special.erf(0.5)\n",
     "(np.ones(2),)", None),
    ("math_supported", "def f(x):\n    return math.sqrt(x[0]) + math.gamma(3.0)\n",
     "(np.arange(1.0, 3.0),)", None),
    # NPX135: None on one path of a data-dependent branch
    # outside loops (and for falling off the end) @jit assumes the condition
    ("return_none", "def f(x):\n    if x.sum() > 0:\n        return None\n    return x\n",
     "(np.ones(2),)", None),
    ("bare_return", "def f(x, n):\n    if n > 1:\n        return\n    return x\n",
     "(np.ones(2), 3)", None),
    ("bare_return_on_data", "def f(x):\n    if x[0] > 1:\n        return\n    return x\n",
     "(np.ones(2),)", None),
    ("falls_off", "def f(x):\n    if x.sum() > 0:\n        return x * 2\n", "(np.ones(2),)",
     None),
    # inside a staged loop, None beside a value returned from the same loop is refused
    ("return_none_in_loop", "def f(x):\n    while np.abs(x).sum() < 10:\n"
     "        if x[0] > 3:\n            return None\n        elif x[0] < -3:\n"
     "            return x\n        x = x * 2\n    return x\n", "(np.ones(2),)", "NPX135"),
    ("return_none_in_loop_only", "def f(x):\n    while np.abs(x).sum() < 10:\n"
     "        if x[0] > 3:\n            return None\n        x = x * 2\n    return x\n",
     "(np.ones(2),)", None),
    ("both_branches", "def f(x):\n    if x.sum() > 0:\n        return x\n    else:\n"
     "        return -x\n", "(np.ones(2),)", None),
    ("static_none", "def f(x, scale=None):\n    if scale is None:\n        return x\n"
     "    return x * scale\n", "(np.ones(2),)", None),
    # NPX125: %-formatting of traced values with a template in a variable (a literal
    # template is formatted at run time, like an f-string)
    ("percent_traced", "def f(x):\n    t = 'total %f'\n    m = t % x.sum()\n    return x\n",
     "(np.ones(2),)", "NPX125"),
    ("percent_literal", "def f(x):\n    m = 'total %f' % x.sum()\n    return x\n",
     "(np.ones(2),)", None),
    ("percent_int_argument", "def f(x, n):\n    m = 'n=%d' % n\n    return x * n\n",
     "(np.ones(2), 3)", None),
    ("percent_shape", "def f(x):\n    m = 'shape %s' % (x.shape,)\n    return x\n",
     "(np.ones(2),)", None),
    ("fstring", "def f(x):\n    m = f'total {x.sum():.3f}'\n    return x\n", "(np.ones(2),)",
     None),
]
CODES = ("NPX125", "NPX135", "NPX151", "NPX152", "NPX153")


def _module(tmp_path, name, source):
    path = tmp_path / f"case_{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"case_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


@pytest.mark.parametrize("name,body,args,code", CASES,
                         ids=[c[0] if type(c) is tuple else c.values[0] for c in CASES])
def test_rule_fires_exactly_when_jit_refuses(name, body, args, code, tmp_path):
    pytest.importorskip("scipy.special")
    from npxla import jit
    source = HEADER + "\n" + body
    module, path = _module(tmp_path, name, source)
    arguments = eval(args, {"np": np})
    raised = None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            jit(module.f)(*arguments)
        except TranspileError as e:
            raised = e
        except (TypeError, ValueError, AttributeError) as e:   # not named by npxla
            raised = e
    found = [f for f in lint_source(source, path, select=list(CODES), jitted=("f",))]
    if code is None:
        assert raised is None, f"@jit refused the clean case: {raised}"
        assert found == [], found
        return
    assert raised is not None, "@jit compiled the case the rule is about"
    assert [f.code for f in found] == [code], (found, raised)
    if isinstance(raised, TranspileError):
        assert raised.code in RULES[code].error, (raised.code, RULES[code].error)
    # the finding is on the line @jit names (NPX135 points at one of the two paths,
    # @jit at the other)
    location = getattr(raised, "location", None)
    if code != "NPX135" and location is not None and location.file == path:
        assert found[0].line <= location.line <= found[0].end_line, (found, location)


def test_calls_into_the_users_own_modules_are_not_library_calls(tmp_path):
    source = textwrap.dedent("""
        import numpy as np
        from npxla import jit
        from mypackage.helpers import smooth
        from .siblings import scale

        @jit
        def f(x):
            return smooth(x) + scale(x)
        """)
    assert lint_source(source, str(tmp_path / "user.py")) == []


def test_installed_packages_are_libraries():
    from npxla.transpiler.lint.rules.support import library_module
    assert library_module("scipy") and library_module("pandas")
    assert library_module("pytest")                  # installed in site-packages
    assert not library_module("numpy") and not library_module("math")
    assert not library_module("functools") and not library_module("itertools")
    assert not library_module("no_such_module_here")


def test_messages_name_the_function_and_a_replacement():
    source = textwrap.dedent("""
        import numpy as np
        from npxla import jit

        @jit
        def f(x):
            y = np.asarray_chkfinite(x)
            return y.mT[0]
        """)
    found = {f.code: f.message for f in lint_source(source, "t.py")}
    assert "'np.asarray_chkfinite'" in found["NPX151"] and "np.asarray" in found["NPX151"]
    assert "'.mT'" in found["NPX152"] and "np.swapaxes" in found["NPX152"]


def test_jax_flavour_is_left_to_the_jax_rules():
    source = textwrap.dedent("""
        import numpy as np
        import jax

        @jax.jit
        def f(x):
            return np.i0(x)
        """)
    codes = {f.code for f in lint_source(source, "t.py")}
    assert "NPX151" not in codes and "NPX205" in codes


def test_every_supported_name_resolves_like_the_linter_spells_it():
    # names are qualified the way the linter's import resolution writes them
    for table in (S.NUMPY_SUPPORTED, S.NUMPY_UNSUPPORTED, S.MATH_SUPPORTED, S.HANDLED_CALLS):
        for qual in table:
            assert "." in qual and not qual.startswith(("np.", ".")), qual
            ast.parse(qual, mode="eval")


def test_suggested_replacements_compile():
    """The NumPy functions the messages suggest instead are themselves supported."""
    import re
    from npxla.transpiler.lint.rules import support
    texts = list(support.NUMPY_INSTEAD.values()) + list(support.NDARRAY_INSTEAD.values()) \
        + list(support.MATH_INSTEAD.values())
    named = set()
    for text in texts:
        named |= set(re.findall(r"np\.([a-z_.]+[a-z_])\(", text))
    assert named
    for name in named:
        assert "numpy." + name in S.NUMPY_SUPPORTED, name


# --- data-dependent sizes: @jit compiles them, jax.jit refuses them -------------------------
# (name, the expression returned, the code the linter gives it under jax.jit)
BOUNDED = [
    ("mask", "x[x > 1.0].sum()", "NPX111"),
    ("nonzero", "np.nonzero(x > 1.0)[0]", "NPX112"),
    ("flatnonzero", "np.flatnonzero(x)", "NPX112"),
    ("argwhere", "np.argwhere(x)", "NPX112"),
    ("unique", "np.unique(x)", "NPX113"),
    ("compress", "np.compress(x > 1.0, x)", "NPX113"),
    ("extract", "np.extract(x > 1.0, x)", "NPX113"),
    ("where_one_argument", "np.where(x > 1.0)[0]", "NPX114"),
    ("slice_bound_of_data", "x[:np.argmax(x)]", "NPX203"),
]


@pytest.mark.parametrize("name,expr,jax_code", BOUNDED, ids=[c[0] for c in BOUNDED])
def test_data_dependent_sizes_compile_and_are_not_flagged(name, expr, jax_code, tmp_path):
    from npxla import jit
    source = f"import numpy as np\n\ndef f(x):\n    return {expr}\n"
    module, path = _module(tmp_path, name, source)
    x = np.array([0.0, 2.0, 1.0, 3.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(jit(module.f)(x), module.f(x))
    assert lint_source(source, path, jitted=("f",)) == []
    jax_source = "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x):\n" + \
        f"    return {expr.replace('np.', 'jnp.')}\n"
    assert [f.code for f in lint_source(jax_source, "t.py")] == [jax_code]
