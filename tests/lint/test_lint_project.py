"""The project's own code: zero findings on the examples and on the test functions that
are expected to compile (those passed to the differential `check`, outside
`pytest.raises`), and docs/lint-rules.md is generated from the registry."""
import ast
import glob
import os

import pytest

from npxla.transpiler.lint import lint_file
from npxla.transpiler.lint.discovery import JitTarget
from npxla.transpiler.lint import engine

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "examples", "*.py"))),
                         ids=os.path.basename)
def test_examples_have_no_findings(path):
    assert lint_file(path) == []


def _raises_blocks(tree):
    """Nodes inside `with pytest.raises(...)` blocks."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
                isinstance(i.context_expr, ast.Call) and
                getattr(i.context_expr.func, "attr", "") == "raises" for i in node.items):
            for child in ast.walk(node):
                inside.add(id(child))
    return inside


def checked_functions(tree):
    """Function definitions passed to check(...) outside pytest.raises blocks."""
    raising = _raises_blocks(tree)
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    out = {}
    for scope in scopes:
        defs = {n.name: n for n in ast.walk(scope) if isinstance(n, ast.FunctionDef)}
        for node in ast.walk(scope):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check" \
                    and node.args and isinstance(node.args[0], ast.Name) \
                    and id(node) not in raising and node.args[0].id in defs:
                fn = defs[node.args[0].id]
                out[id(fn)] = fn
    return list(out.values())


TEST_FILES = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "**", "*.py"),
                                         recursive=True)
                    if os.sep + "lint" + os.sep not in p)


def test_supported_test_functions_have_no_findings():
    """Every error-severity rule is silent on the functions the differential tests
    compile. (Warnings are excluded: they point at costs, not refusals.)"""
    total, findings = 0, []
    for path in TEST_FILES:
        source = open(path, encoding="utf-8").read()
        tree = ast.parse(source)
        fns = checked_functions(tree)
        if not fns:
            continue
        total += len(fns)
        found = engine.run(tree, path, select=["NPX1", "NPX2"],
                           targets=[JitTarget(fn, "npxla") for fn in fns],
                           lines=source.splitlines())
        findings += found
    assert total > 100
    assert findings == [], "\n".join(map(str, findings))


def test_docs_are_generated_from_the_registry():
    from npxla.transpiler.lint.docs import render
    with open(os.path.join(ROOT, "docs", "lint-rules.md"), encoding="utf-8") as fh:
        committed = fh.read()
    assert committed == render(), \
        "docs/lint-rules.md is stale: run python -m npxla.transpiler.lint.docs > docs/lint-rules.md"
