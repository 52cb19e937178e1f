"""The `list_builds` family: lists of arrays built from the rows of an argument, by a
comprehension or by `append` in a loop, then used as NumPy code uses them; compared
bit for bit (`__fuzz_exact__`: the items are elementwise work, whose values do not
depend on how the loop is run).

What a staged comprehension or append loop must get right (`operators/
comprehensions.py`, `operators/collected_appends.py`) is drawn here: items that are
new arrays, 0-d values, views of the argument (writes through them reach it), views
of new arrays, windows of several rows; an appended array changed after the append,
kept in a loop variable, appended to two lists, the list read while it fills; and
afterwards writes through an item, an item replaced, more appends, `np.array`,
`np.stack`, `len`, the list returned; running totals kept in list items
(`converters/list_items.py`). Sizes are mostly above the 16 items from which the
rewrites apply.
"""
from __future__ import annotations

import random

import numpy as np

from .gen_families import _runs, first_program
from .model import Program


def gen_lists(seed: int) -> Program:
    return first_program(seed, _gen_lists, "list-build")


def _gen_lists(seed, attempt):
    r = random.Random(seed * 64 + attempt)
    rng = np.random.default_rng([seed, 41, attempt])
    dtype = r.choice(["float64", "float64", "float32", "int64"])
    rows = r.choice([17, 20, 33, 64]) if r.random() < 0.85 else r.choice([3, 9, 16])
    cols = r.randint(1, 6)
    x = (rng.integers(-9, 10, (rows, cols)) if dtype == "int64"
         else rng.normal(size=(rows, cols))).astype(dtype)
    y = (rng.integers(-5, 6, cols) if dtype == "int64" else rng.normal(size=cols)).astype(dtype)
    t = 3 if dtype == "int64" else 0.5
    lines, rets = _build(r, rows, cols)
    lines += _uses(r, rows, rets)
    src = "import numpy as np\n\n__fuzz_exact__ = True\n\n\ndef f(x, y, t):\n" + \
        "".join("    " + ln + "\n" for ln in lines) + \
        f"    return {', '.join(dict.fromkeys(rets))}\n"
    args = [x, y, t]
    return Program(seed, src, args) if _runs(src, args) else None


def _item(r, i, cols):
    """An item made from row `i` of `x`: (expression, whether it is a new array)."""
    forms = [(f"x[{i}] * 2 + y", True), (f"np.abs(x[{i}]) - y", True),
             (f"np.maximum(x[{i}], y)", True), (f"np.where(x[{i}] > t, x[{i}], -x[{i}])", True),
             (f"x[{i}][::-1] * t", True), (f"x[{i}] ** 2", True),
             (f"x[{i}, 0] * 2", True), (f"(x[{i}] + 1)[::2]", True),
             (f"x[{i}]", False), (f"x[{i}, ::2]", False), (f"x[{i}:{i} + 2]", False),
             (f"np.stack([x[{i}], y])", True), (f"float(x[{i}].sum())", True),
             (f"int(x[{i}, 0] > t)", True)]
    return r.choice(forms)


def _items(r):
    """Running totals in the items of a list (`converters/list_items.py`)."""
    start = r.choice(["[0.0, 0]", "[y * 0, 0.0]", "[0, 0, t]", "[t]"])
    size = start.count(",") + 1
    lines = [f"acc = {start}", "for i in range(x.shape[0]):"]
    for _ in range(r.randint(1, 3)):
        k = r.choice([str(j) for j in range(size)] + ["-1"])
        lines.append(r.choice([f"    acc[{k}] += x[i, 0] * 2", f"    acc[{k}] = (acc[{k}] * t + 1) % 7",
                               f"    acc[{k}] += np.sum(x[i] > t)",
                               f"    if x[i, 0] > t:\n        acc[{k}] = acc[{k}] - 1"]))
    lines.append("out = [np.asarray(v) * 1.0 for v in acc]")
    return lines, ["acc"]


def _build(r, rows, cols):
    """The lines that build `out` (and maybe `other`, `keep`), and what to return."""
    kind = r.choice(["comp", "comp_rows", "comp_enum", "append", "append", "append",
                     "items"])
    if kind == "items":
        return _items(r)
    n = "x.shape[0]" if r.random() < 0.7 else "x.shape[0] - 1"
    if kind.startswith("comp"):
        expr, _ = _item(r, "i", cols)
        head = {"comp": f"for i in range({n})", "comp_rows": "for i, _r in enumerate(x)",
                "comp_enum": f"for i, _r in enumerate(x[:{n}])"}[kind]
        return [f"out = [{expr} {head}]"], ["out"]
    expr, _ = _item(r, "i", cols)
    lines = ["out = []" if r.random() < 0.85 else "out = [y * 0]"]
    rets = ["out"]
    hazard = r.choice(["none", "none", "none", "after", "keep", "twice", "read", "branch",
                       "before"])
    if hazard == "keep":
        lines.append("keep = y")
    if hazard == "twice":
        lines.append("other = []")
    lines.append(f"for i in range({n}):")
    lines.append(f"    v = {expr}")
    if hazard == "before":
        lines.append("    v = v + t")
    if hazard == "read":
        lines.append("    v = v + (out[-1] if out else y)")
    if hazard == "branch":
        lines.append("    if v.sum() > t:\n        v = v * 2")
    lines.append("    out.append(v)")
    if hazard == "after":
        lines.append(r.choice(["    v *= 2", "    v[...] = 0", "    v += t"]))
    if hazard == "keep":
        lines.append("    keep = v")
        rets.append("keep")
    if hazard == "twice":
        lines.append("    other.append(v)")
        rets.append("other")
    return lines, rets


# what the program does with the list afterwards: (statement, the name it makes)
_USES = [("a = np.array(out)", "a"), ("s = np.stack(out)", "s"), ("out[1][...] = 7", None),
         ("out[0] = y", None), ("out.append(y + 1)", None), ("m = len(out)", "m"),
         ("last = out[-1]", "last"), ("x[2] = -1", None)]


def _uses(r, rows, rets):
    lines = []
    for _ in range(r.randint(1, 3)):
        stmt, made = r.choice(_USES)
        lines.append(stmt)
        if made:
            rets.append(made)
    if "a" not in rets and r.random() < 0.5:
        lines.append("a = np.array(out)")
        rets.append("a")
    rets.append("x")
    return lines
