"""The `row_loops` family: loops over the rows (or columns) of an array whose trips
touch only their own row, the shape `lowering/lanes.py` runs as lanes, compared bit
for bit (`__fuzz_exact__`).

A program has an outer counted loop over the rows of `x` (or its columns, or a view of
it written through), a scalar state per row, and an inner loop over the row (counted,
backwards, or a data-dependent `while`) whose statements mix a recursion on the state,
writes into an output (a new array, or `x` itself: a mutated argument), reads of the
previous element of the row, and data-dependent `if`s. About one program in eight also
reads or writes a neighbouring row or keeps a running value across rows, which must
keep the trips in order (the rewrite has to refuse it). Sizes reach 300 rows, where the
rewrite moves the rows' axis last.
"""
from __future__ import annotations

import random

import numpy as np

from .gen_families import _runs, first_program
from .model import Program

_DTYPES = (("float64", 7), ("int64", 2), ("float32", 1))


def gen_rows(seed: int) -> Program:
    return first_program(seed, _gen_rows, "row-loop")


def _gen_rows(seed, attempt):
    r = random.Random(seed * 64 + attempt)
    rng = np.random.default_rng([seed, 37, attempt])
    names, weights = zip(*_DTYPES)
    dtype = r.choices(names, weights)[0]
    rows = r.choice([1, 2, 3, 5, 8, 13]) if r.random() < 0.9 else r.choice([140, 300])
    cols = r.randint(1, 9)
    x = (rng.integers(-9, 10, (rows, cols)) if dtype == "int64"
         else rng.normal(size=(rows, cols))).astype(dtype)
    y = (rng.integers(-5, 6, cols) if dtype == "int64" else rng.normal(size=cols)).astype(dtype)
    lines = _program(r, dtype, rows, cols)
    src = "import numpy as np\n\n__fuzz_exact__ = True\n\n\ndef f(x, y, t):\n" + \
        "".join("    " + ln + "\n" for ln in lines)
    args = [x, y, 0.5 if dtype != "int64" else 3]
    return Program(seed, src, args) if _runs(src, args) else None


def _program(r, dtype, rows, cols):
    integer = dtype == "int64"
    lines = []
    view = r.choice(["x", "x", "x[::-1]", "x[:, ::-1]"])
    lines.append(f"v = {view}")
    target = r.choice(["out", "out", "v"])          # v: the argument, written back
    if target == "out":
        lines.append("out = np.zeros_like(v)")
    columns = r.random() < 0.2 and cols > 1         # lanes along axis 1
    n_outer, n_inner = ("v.shape[1]", "v.shape[0]") if columns else ("v.shape[0]", "v.shape[1]")

    def at(j):
        return f"[{j}, i]" if columns else f"[i, {j}]"

    start = r.choice(["0.0", f"v{at(0)}", "y[0]"]) if not integer else \
        r.choice(["0", f"v{at(0)}", "1"])
    dependent = r.random() < 0.125
    if dependent:
        lines.append(f"s = {start}")
    lines.append(f"for i in range({n_outer}):")
    if not dependent:
        lines.append(f"    s = {start}")
    kind = r.choice(["for", "for", "back", "while", "none"])
    if kind == "none":
        body = _statement(r, integer, at, "0", target)
        lines += ["    " + ln for ln in body]
    else:
        if kind == "for":
            lines.append(f"    for j in range(1, {n_inner}):")
        elif kind == "back":
            lines.append(f"    for j in range({n_inner} - 1, 0, -1):")
        else:
            lines.append("    j = 1")
            limit = "abs(s) < 40 * t" if not integer else "abs(s) < 40"
            lines.append(f"    while j < {n_inner} and {limit}:")
        for _ in range(r.randint(1, 3)):
            lines += ["        " + ln for ln in _statement(r, integer, at, "j", target)]
        if kind == "while":
            lines.append("        j += 1")
    lines.append(f"    {target}{at(r.choice(['0', '-1']))} = s")
    if dependent and rows > 1:
        lines.append(r.choice([f"    {target}{at('i - 1')} += s",
                               f"    s = s + {target}{at(0)}"]))
    lines.append(f"return {target}")        # (s: a Python or a NumPy scalar, by path)
    return lines


def _statement(r, integer, at, j, target):
    prev = "j - 1" if j == "j" else "0"
    term = r.choice([f"v{at(j)}", f"y[{j} % y.shape[0]]", f"{target}{at(prev)}", "s"])
    if integer:
        expr = r.choice([f"(s * 3 + {term}) % 7", f"max(s, {term})", f"s - {term}",
                         f"abs({term}) + 1"])
    else:
        expr = r.choice([f"s * 0.5 + {term}", f"max(s, {term})", f"s - {term} * t",
                         f"np.sqrt(abs({term}))", f"{term} / (abs(s) + 1.0)"])
    choice = r.randrange(5)
    if choice == 0:
        return [f"s = {expr}"]
    if choice == 1:
        return [f"{target}{at(j)} = {expr}"]
    if choice == 2:
        return [f"{target}{at(j)} += {expr}"]
    if choice == 3:
        return [f"if v{at(j)} > t:", f"    s = {expr}", "else:", f"    {target}{at(j)} = s"]
    return [f"s = {expr}", f"{target}{at(j)} = s"]
