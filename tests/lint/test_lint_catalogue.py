"""Lint codes and compiler errors share one catalogue: each rule's bad example really is
refused by the compiler it applies to (npxla's @jit raises the TranspileError the rule
names; jax.jit raises), and its good example really compiles and runs."""
import importlib.util
import re
import textwrap
import warnings

import numpy as np
import pytest

from npxla.transpiler.base.errors import TranspileError
from npxla.transpiler.lint import lint_source
from npxla.transpiler.lint.discovery import discover, module_info
from npxla.transpiler.lint.rules import RULES

import ast

CHECKED = [c for c, r in RULES.items() if r.example_args is not None]


def _load(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tree = ast.parse(path.read_text())
    targets = discover(module_info(tree, str(path)))
    return module, targets


def _call(module, targets, args_src):
    assert targets, "the example has no jitted function"
    fn = getattr(module, targets[0].node.name)
    args = eval(args_src, {"np": np})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def test_most_rules_are_checked_against_the_compiler():
    errors = [c for c, r in RULES.items() if r.severity == "error"]
    assert len(CHECKED) >= len(errors) - 2


@pytest.mark.parametrize("code", CHECKED)
def test_bad_example_is_refused(code, tmp_path):
    rule = RULES[code]
    if "npxla" in rule.targets:
        module, targets = _load(tmp_path, f"bad_{code}", rule.bad)
        with pytest.raises(TranspileError) as info:
            _call(module, targets, rule.example_args)
        expected = re.findall(r"NPX0\d\d", rule.error)
        assert info.value.code in expected, (info.value.code, expected, str(info.value))
    else:
        pytest.importorskip("jax")
        module, targets = _load(tmp_path, f"bad_{code}", rule.bad)
        with pytest.raises(Exception):
            _call(module, targets, rule.example_args)


@pytest.mark.parametrize("code", CHECKED)
def test_good_example_compiles(code, tmp_path):
    rule = RULES[code]
    if "npxla" not in rule.targets:
        pytest.importorskip("jax")
    module, targets = _load(tmp_path, f"good_{code}", rule.good)
    if not targets:          # the fix is "do not jit this"
        return
    args = getattr(rule, "example_good_args", None) or rule.example_args
    _call(module, targets, args)


# --- the syntax the converter refuses, and the linter ---------------------------------
REFUSED_SYNTAX = {
    "NPX101": "def f(x):\n    yield x\n",
    "NPX102": "def f(x):\n    def g(y):\n        nonlocal x\n        x = y\n        return y\n"
              "    return g(x)\n",
    "NPX103": "def f(x, o):\n    del o.v\n    return x\n",
    "NPX105": "def f(x):\n    match x.ndim:\n        case _:\n            return x\n",
    "NPX106": "def f(x):\n    while (s := x.sum()) < 3:\n        x = x * 2\n    return x\n",
    "NPX107": "def f(x):\n    try:\n        y = x\n    finally:\n        return x\n",
}


@pytest.mark.parametrize("code", sorted(REFUSED_SYNTAX))
def test_linter_and_converter_agree_on_refused_syntax(code, tmp_path, monkeypatch):
    import gast
    from npxla.transpiler.converters import unsupported
    from npxla.transpiler.converters.context import Context
    from npxla.transpiler.base.errors import UnsupportedSyntaxError
    source = REFUSED_SYNTAX[code]
    node = gast.ast_to_gast(ast.parse(source).body[0])
    if code == "NPX101":          # a generator: converted as a helper, refused as the entry
        from npxla.transpiler.conversion import refuse_generator
        (tmp_path / "gen_case.py").write_text(source)
        monkeypatch.syspath_prepend(str(tmp_path))
        import gen_case

        class info:
            value = refuse_generator(gen_case.f)
    else:
        with pytest.raises(UnsupportedSyntaxError) as info:
            unsupported.transform(node, Context("t.py", "f"))
    found = lint_source("from npxla import jit\n" + source + "jit(f)\n", "t.py")
    assert code in {f.code for f in found}
    flagged = next(f for f in found if f.code == code)
    assert flagged.line == info.value.line + 1          # the same statement
    # the message is the converter's own words (up to the variable parts)
    words = set(re.findall(r"[a-z]{5,}", info.value.message))
    assert len(words & set(re.findall(r"[a-z]{5,}", flagged.message))) >= 3
