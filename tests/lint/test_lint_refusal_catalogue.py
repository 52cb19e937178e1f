"""One catalogue of refusals (transpiler/base/catalogue.py): every entry has the lint rule
of its code reading it and a compiler raise site building its error from it (or says why
one side is missing), and `@jit` and `npxla lint` report the same message for the same
code, so the two cannot drift apart."""

import ast
import os

import numpy as np
import pytest

from npxla import TranspileError
from npxla.transpiler.base import catalogue
from npxla.transpiler.base.catalogue import DATA_DEPENDENT_SHAPES, REFUSALS
from npxla.transpiler.lint import lint_source
from npxla.transpiler.lint.rules import RULES


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENTRY_NAMES = {id(v): k for k, v in vars(catalogue).items()
               if isinstance(v, catalogue.Refusal)}


def _raise_sites():
    """{entry name: [file:line]} of the references to catalogue entries in the compiler
    (runtime/ and transpiler/, the linter and the catalogue aside): `ENTRY.error_for(...)`
    and the tables of entries that a raise site reads (`C.GENERATOR`)."""
    names = set(ENTRY_NAMES.values())
    sites = {}
    for top in ("runtime", "transpiler"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            if os.sep + "lint" in folder:
                continue
            for name in files:
                path = os.path.join(folder, name)
                if not name.endswith(".py") or name == "catalogue.py":
                    continue
                with open(path, encoding="utf-8") as fh:
                    tree = ast.parse(fh.read())
                for node in ast.walk(tree):
                    ref = node.attr if isinstance(node, ast.Attribute) else \
                        node.id if isinstance(node, ast.Name) else None
                    if ref in names:
                        sites.setdefault(ref, []).append(
                            f"{os.path.relpath(path, ROOT)}:{node.lineno}")
    return sites


SITES = _raise_sites()


@pytest.mark.parametrize("code", sorted(REFUSALS))
def test_each_refusal_is_raised_by_the_compiler_and_reported_by_a_rule(code):
    """Both sides read the entry, or it says which side does not and why; raise sites
    still to convert (modules being rewritten) are named and exist."""
    entry = REFUSALS[code]
    name = ENTRY_NAMES[id(entry)]
    if entry.only.startswith("lint-only:"):
        assert name not in SITES
    else:
        assert SITES.get(name) or entry.unconverted, \
            f"no compiler raise site builds its error from catalogue.{name}"
    for path in entry.unconverted:
        assert os.path.exists(os.path.join(ROOT, path)), path
    rule = RULES.get(code)
    if entry.only.startswith("compiler-only:"):
        assert rule is None or rule.refusal is not entry
    else:
        assert rule is not None and rule.refusal is entry
    assert entry.only in ("",) or entry.only.split(":", 1)[1].strip(), "say why"


def test_data_dependent_shapes_are_one_table():
    """The linter's shape rules read the catalogue's table: a flavour that stops
    refusing an entry stops being told about it. npxla's @jit gives these a run-time
    length (docs/semantics.md), jax.jit refuses them."""
    body = "    return np.unique(x), np.nonzero(x), x[x > 0], np.where(x > 0), x[:{k}]\n"
    npxla = "import numpy as np\nfrom npxla import jit\n\n@jit\ndef f(x):\n" + \
        body.format(k="int(x[0])")
    jax = "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x):\n" + \
        body.replace("np.", "jnp.").format(k="3")
    assert [f.code for f in lint_source(npxla, "t.py")] == []
    assert sorted(f.code for f in lint_source(jax, "t.py")) == \
        ["NPX111", "NPX112", "NPX113", "NPX114"]
    saved = dict(DATA_DEPENDENT_SHAPES)
    try:
        for key, entry in saved.items():
            DATA_DEPENDENT_SHAPES[key] = catalogue.ShapeRefusal(entry.refusal, npxla=True,
                                                                jax=False)
        assert [f.code for f in lint_source(jax, "t.py")] == []
        # NPX111-NPX114 apply to jax.jit only; the slice-bound check (NPX122) reads
        # the table for @jit
        assert [f.code for f in lint_source(npxla, "t.py")] == ["NPX122"]
    finally:
        DATA_DEPENDENT_SHAPES.update(saved)


@pytest.mark.parametrize("code", sorted(c for c in REFUSALS if c in RULES))
def test_each_refusal_has_the_rule_that_reads_it(code):
    rule = RULES[code]
    assert rule.refusal is REFUSALS[code]
    assert (rule.code, rule.name, rule.message) == (code, REFUSALS[code].name,
                                                    REFUSALS[code].message)
    assert rule.error.startswith(REFUSALS[code].error.__name__)


def _compile_error(source, tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    with pytest.raises(TranspileError) as info:
        namespace["f"](np.arange(3.0))
    return info.value


CASES = {
    "NPX101": "def f(x):\n    for v in x:\n        yield v\n",
    "NPX103": "class S:\n    pass\n\nstate = S()\n\ndef f(x):\n    state.last = x\n    "
              "del state.last\n    return x\n",
    "NPX107": "def f(x):\n    for i in range(2):\n        try:\n            x = x + 1\n"
              "        finally:\n            break\n    return x\n",
    "NPX131": "def f(x):\n    try:\n        while x.sum() > 0:\n            x = x - 1\n"
              "    except ValueError:\n        pass\n    return x\n",
    "NPX132": "def f(x):\n    i = 0\n    while x[i] < 2:\n        i += 1\n    else:\n"
              "        i = -1\n    return i\n",
    "NPX133": "def f(x):\n    out = []\n    while x.sum() < 10:\n        x = x * 2\n"
              "        out.append(1)\n    return x\n",
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_jit_and_lint_say_the_same(code, tmp_path, monkeypatch):
    source = "import numpy as np\nfrom npxla import jit\n\n" + CASES[code]
    source = source.replace("def f(x):", "@jit\ndef f(x):")
    monkeypatch.syspath_prepend(str(tmp_path))
    error = _compile_error(source, tmp_path, f"case_{code.lower()}")
    findings = [f for f in lint_source(source, "case.py") if f.code == code]
    assert len(findings) == 1
    assert isinstance(error, REFUSALS[code].error)
    assert findings[0].message in str(error)


# side effects inside data-dependent loops are refused by the compiler (NPX133) and
# flagged by the linter with the same words; outside them they compile (replayed, or
# carried through the branches of a data-dependent `if`)
EFFECT_CASES = {
    "attribute": ("class S:\n    count = 0\n\nstate = S()\n\ndef f(x):\n"
                  "    while x.max() > 0.5:\n        x = x / 2\n        state.count += 1\n"
                  "    return x\n",
                  "setting the attribute '.count'"),
    "global": ("TOTAL = 0\n\ndef f(x):\n    global TOTAL\n    while x.max() > 0.5:\n"
               "        x = x / 2\n        TOTAL = 1\n    return x\n",
               "rebinding the global 'TOTAL'"),
}


@pytest.mark.parametrize("case", sorted(EFFECT_CASES))
def test_side_effects_in_data_dependent_flow_jit_and_lint_agree(case, tmp_path,
                                                                monkeypatch):
    body, words = EFFECT_CASES[case]
    source = "import numpy as np\nfrom npxla import jit\n\n" + body.replace(
        "def f(x):", "@jit\ndef f(x):")
    monkeypatch.syspath_prepend(str(tmp_path))
    error = _compile_error(source, tmp_path, f"effect_{case}")
    findings = [f for f in lint_source(source, "case.py") if f.code == "NPX133"]
    assert len(findings) == 1 and words in findings[0].message
    assert words in str(error) and error.location is not None
    straight = source.replace("    while x.max() > 0.5:\n        x = x / 2\n        state.count "
                              "+= 1\n", "    state.count += 1\n").replace(
        "    while x.max() > 0.5:\n        x = x / 2\n        TOTAL = 1\n", "    TOTAL = 1\n")
    assert [f.code for f in lint_source(straight, "case.py")] == []


def test_attribute_store_in_a_data_dependent_if_compiles_and_lints_clean(tmp_path,
                                                                           monkeypatch):
    source = ("import numpy as np\nfrom npxla import jit\n\nclass S:\n    count = 0\n\n"
              "state = S()\n\n@jit\ndef f(x):\n    if x.sum() > 0:\n"
              "        state.count += 1\n    return x\n")
    assert [f.code for f in lint_source(source, "case.py")] == []
