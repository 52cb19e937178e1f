"""`branch_appends`: an append ending both arms of an `if` in a loop moves after the
`if` (the arms assign the value), and only where that is the same Python program."""
import textwrap

import gast
import pytest

from npxla.transpiler.converters import branch_appends
from npxla.transpiler.converters.context import Context


def _rewritten(source):
    tree = gast.parse(textwrap.dedent(source))
    branch_appends.transform(tree, Context('t.py', 'f'))
    return gast.unparse(tree)


HOISTED = [
    """
    def f(x):
        out = []
        for v in x:
            if v > 0:
                out.append(v)
            else:
                w = -v
                out.append(w * 2)
        return out
    """,
    """
    def f(x):
        out = []
        i = 0
        while i < len(x):
            if x[i] > 1:
                out.append(1)
            elif x[i] < -1:
                out.append(-1)
            else:
                out.append(0)
            i += 1
        return out
    """,
]

KEPT = [
    # not in a loop
    "def f(c, out):\n    if c:\n        out.append(1)\n    else:\n        out.append(2)\n",
    # one arm only
    "def f(x, out):\n    for v in x:\n        if v:\n            out.append(v)\n",
    # two lists
    "def f(x, a, b):\n    for v in x:\n        if v:\n            a.append(v)\n"
    "        else:\n            b.append(v)\n",
    # the append is not the last statement of an arm
    "def f(x, out):\n    for v in x:\n        if v:\n            out.append(v)\n"
    "            v = 0\n        else:\n            out.append(v)\n",
    # the arm rebinds the list's name
    "def f(x, out, other):\n    for v in x:\n        if v:\n            out = other\n"
    "            out.append(v)\n        else:\n            out.append(v)\n",
    # a walrus in a value
    "def f(x, out):\n    for v in x:\n        if v:\n            out.append((w := v))\n"
    "        else:\n            out.append(v)\n",
    # an arm that may leave the loop body
    "def f(x, out):\n    for v in x:\n        if v:\n            if v > 2:\n"
    "                continue\n            out.append(v)\n        else:\n"
    "            out.append(v)\n",
    # keywords or a starred argument are not a plain append
    "def f(x, out):\n    for v in x:\n        if v:\n            out.append(*v)\n"
    "        else:\n            out.append(v)\n",
]


@pytest.mark.parametrize("source", HOISTED)
def test_both_arms_appending_become_one_append(source):
    text = _rewritten(source)
    body = textwrap.dedent(source)
    assert text.count(".append(") == 1, text
    assert "out.append(item__" in text and body.count(".append(") >= 2
    # the hoisted append follows the if, at the loop body's level
    lines = text.splitlines()
    k = next(i for i, ln in enumerate(lines) if "out.append(item__" in ln)
    indent = len(lines[k]) - len(lines[k].lstrip())
    ifs = [ln for ln in lines[:k] if ln.strip().startswith("if ")]
    assert ifs and len(ifs[0]) - len(ifs[0].lstrip()) == indent


@pytest.mark.parametrize("source", KEPT)
def test_other_ifs_are_left_alone(source):
    tree = gast.parse(source)
    before = gast.dump(tree)
    branch_appends.transform(tree, Context('t.py', 'f'))
    assert gast.dump(tree) == before
