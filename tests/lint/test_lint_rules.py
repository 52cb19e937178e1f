"""The rule registry: every rule is well formed, its bad example is flagged with its
code and its good example is not."""
import re
import textwrap

import pytest

from npxla.transpiler.base.catalogue import DATA_DEPENDENT_SHAPES
from npxla.transpiler.lint import lint_source
from npxla.transpiler.lint.rules import RULES, lookup, selected

CODES = list(RULES)
SHAPE_REFUSALS = [e.refusal for e in DATA_DEPENDENT_SHAPES.values() if not e.npxla]


def test_rule_count_and_code_scheme():
    assert len(RULES) >= 25
    for code, rule in RULES.items():
        assert re.fullmatch(r"NPX[123]\d\d", code), code
        assert rule.code == code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
        assert rule.severity in ("error", "warning")
        assert rule.targets and rule.targets <= {"npxla", "jax"}
        if code.startswith("NPX2"):
            assert rule.targets == {"jax"}
        if code.startswith("NPX3"):
            assert rule.severity == "warning"
        if code.startswith("NPX1"):
            assert re.search(r"NPX0\d\d", rule.error), code
            # NPX1: what npxla's @jit refuses, except the data-dependent shapes that it
            # learned to give a run-time length (the catalogue's table says which)
            assert "npxla" in rule.targets or rule.refusal in SHAPE_REFUSALS, code
    names = [r.name for r in RULES.values()]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("code", CODES)
def test_rule_texts(code):
    rule = RULES[code]
    message = rule.format()
    assert message and "\n" not in message and "{" not in message
    assert len(textwrap.dedent(rule.explain).split()) >= 15
    text = rule.explain_text()
    assert text.startswith(f"{code} {rule.name}")
    assert "Bad:" in text and "Good:" in text


@pytest.mark.parametrize("code", CODES)
def test_bad_example_is_flagged(code):
    rule = RULES[code]
    found = lint_source(textwrap.dedent(rule.bad), f"{code}_bad.py")
    assert code in {f.code for f in found}, found


@pytest.mark.parametrize("code", CODES)
def test_good_example_is_clean(code):
    rule = RULES[code]
    found = lint_source(textwrap.dedent(rule.good), f"{code}_good.py")
    assert found == [], found


def test_lookup_by_code_or_name():
    assert lookup("npx111") is RULES["NPX111"]
    assert lookup("boolean-mask-index") is RULES["NPX111"]
    assert lookup("NPX999") is None


def test_select_and_ignore_prefixes():
    assert selected() == frozenset(RULES)
    assert selected(["NPX1"]) == {c for c in RULES if c.startswith("NPX1")}
    assert selected("NPX1", "NPX13") == {c for c in RULES if c.startswith("NPX1")
                                         and not c.startswith("NPX13")}
    # the longer match wins
    assert "NPX131" in selected("NPX131", "NPX13")
    assert selected(None, "NPX2,NPX3") == {c for c in RULES if c.startswith("NPX1")}
    with pytest.raises(ValueError, match="unknown rule code"):
        selected("E501")
