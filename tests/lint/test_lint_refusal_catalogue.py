"""One catalogue of refusals (transpiler/base/catalogue.py): every entry has the lint rule
of its code reading it, and `@jit` and `npxla lint` report the same message for the
same code, so the two cannot drift apart."""

import numpy as np
import pytest

from npxla import TranspileError
from npxla.transpiler.base.catalogue import REFUSALS
from npxla.transpiler.lint import lint_source
from npxla.transpiler.lint.rules import RULES


@pytest.mark.parametrize("code", sorted(REFUSALS))
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
              "return x\n",
    "NPX107": "def f(x):\n    for i in range(2):\n        try:\n            x = x + 1\n"
              "        finally:\n            break\n    return x\n",
    "NPX131": "def f(x):\n    try:\n        if x.sum() > 0:\n            x = x + 1\n"
              "    except ValueError:\n        pass\n    return x\n",
    "NPX132": "def f(x):\n    i = 0\n    while x[i] < 2:\n        i += 1\n    else:\n"
              "        i = -1\n    return i\n",
    "NPX133": "def f(x):\n    out = []\n    if x.sum() > 0:\n        out.append(1)\n"
              "    return x\n",
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
