"""The `ag__` contract (transpiler/contract.py) against its three parties: the converters
that emit the calls, the runtime operators that stage them, and the converter tests'
pure-Python double. A name or calling convention that drifts in one of them fails here,
not as an AttributeError inside some user's converted function."""
import glob
import inspect
import os
import re
import sys

import pytest

from npxla.runtime import operators as runtime
from npxla.transpiler.contract import OPERATORS
from npxla.transpiler.conversion import converted_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "transpiler", "converters"))
import cf_fake_runtime as double  # noqa: E402


def every_construct(x, n, items):
    """A function with each construct the converters rewrite."""
    total = 0
    for i in range(n):
        if x[i] > 0 and not x[i] > 9 or x[i] < -9:
            total += x[i] if 0 < x[i] <= 5 else -x[i]
            continue
        if i > 5:
            break
    while total > 100:
        total = total / 2
    if (total > 50) is False or bool(total) is not True:
        total = -total
    x[0] = total
    x[1:2] += 1
    print(f"{total:.2f}")
    if n > 3:
        return x
    return items


def _emitted():
    """The `ag__` names in the converted source, and in the converters' own text."""
    text = converted_source(every_construct)
    for path in glob.glob(os.path.join(ROOT, "transpiler", "**", "*.py"), recursive=True):
        text += open(path).read()
    return set(re.findall(r"\bag__\.(\w+)", text))


def test_converters_emit_only_contract_names_and_every_name_is_emitted():
    emitted = _emitted()
    assert emitted - set(OPERATORS) == set()
    assert set(OPERATORS) - emitted == set()


def _shape(obj):
    """(positional count, variadic, keyword-only names) of a callable, or None."""
    if not callable(obj):
        return None
    params = list(inspect.signature(obj).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
    keywords = tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)
    return len(positional), variadic, keywords


@pytest.mark.parametrize("party", [runtime, double], ids=["runtime", "test-double"])
@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_each_party_implements_the_contract(party, name):
    spec = OPERATORS[name]
    assert hasattr(party, name), f"{party.__name__} lacks ag__.{name}"
    obj = getattr(party, name)
    if not spec.positional and not spec.variadic and not callable(obj):
        assert hasattr(obj, "__getitem__")           # `index[...]`
        return
    expected = (0 if spec.variadic else len(spec.positional), spec.variadic,
                tuple(spec.keywords))
    assert _shape(obj) == expected
