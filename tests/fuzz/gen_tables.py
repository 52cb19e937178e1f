"""The `table_loops` family: dynamic-programming tables filled row by row, the shape
`lowering/rows.py` rewrites (the inner loop carries the row it writes), compared bit for
bit (`__fuzz_exact__`).

A program fills an (n + 1) x (m + 1) table (a fresh one, a copy of an argument or the
argument itself, written back) with two nested counted loops. Each cell reads cells of
earlier rows (`T[i - 1, j - 1]`, two rows up), of its own row behind it (`T[i, j - 1]`,
`T[i, j - 2]`: the trips before wrote them) and ahead of it (`T[i, j + 1]`: not written
yet), rows that are sometimes the written one (`T[(i + j) % (n + 1), j - 1]`, a row
picked by data), and the cell itself, through `min`/`max`, sums and a data-dependent `if` on the
two sequences. The loops start at row 0, 1 or 2 (row 0 reads row -1, the last row,
which a rewrite must not take for another row), columns start at 1 or 2 and may stop
one early; some programs write a second cell per trip or run the columns backwards,
which the rewrite must leave alone. Some pick the cheapest of three reads from a list by
data, and some break out of the row when the cell just written passes a limit: what
`lowering/read_ahead.py` takes a trip ahead.
"""
from __future__ import annotations

import random

import numpy as np

from .gen_families import _runs, first_program
from .model import Program


def gen_tables(seed: int) -> Program:
    return first_program(seed, _gen_tables, "table-loop")


def _gen_tables(seed, attempt):
    r = random.Random(seed * 64 + attempt)
    rng = np.random.default_rng([seed, 41, attempt])
    integer = r.random() < 0.6
    n, m = r.choice([1, 2, 3, 6, 9, 40]), r.choice([1, 2, 4, 7, 12, 50])
    a, b = rng.integers(0, 4, n), rng.integers(0, 4, m)
    table = (rng.integers(-9, 10, (n + 1, m + 1)) if integer
             else rng.normal(size=(n + 1, m + 1)))
    lines = _program(r, integer)
    src = "import numpy as np\n\n__fuzz_exact__ = True\n\n\ndef f(a, b, T0, g):\n" + \
        "".join("    " + ln + "\n" for ln in lines)
    args = [a, b, table, 2 if integer else 0.75]
    return Program(seed, src, args) if _runs(src, args) else None


def _program(r, integer):
    i0, j0 = r.choice([0, 1, 1, 2]), r.choice([1, 1, 2])
    stop = r.choice(["m + 1", "m + 1", "m"])
    lines = ["n, m = a.shape[0], b.shape[0]",
             r.choice(["T = T0.copy()", "T = T0", "T = np.zeros_like(T0)"])]
    lines.append(f"for i in range({i0}, n + 1):")
    cols = f"range({j0}, {stop})" if r.random() < 0.85 else f"range({stop} - 1, {j0} - 1, -1)"
    lines.append(f"    for j in {cols}:")
    reads = ["T[i - 1, j]", "T[i - 1, j - 1]", "T[i, j - 1]", "T[i, j]"]
    if j0 >= 2:
        reads.append("T[i, j - 2]")
    if stop == "m":
        reads.append("T[i, j + 1]")
    if i0 >= 2:
        reads.append("T[i - 2, j]")
    if r.random() < 0.3:         # rows that are sometimes the written one
        reads.append(r.choice(["T[(i + j) % (n + 1), j - 1]", "T[a[j % n] % (n + 1), j]"]))
    pick = lambda: r.choice(reads)            # noqa: E731
    same = "a[i - 1] == b[j - 1]" if i0 >= 1 else "a[i - 1] == b[j - 1] + 1"
    if integer:
        exprs = [f"min({pick()} + 1, {pick()} + g, {pick()} + (0 if {same} else 1))",
                 f"max({pick()} - g, {pick()}) + 1", f"({pick()} * 3 + {pick()}) % 11"]
    else:
        exprs = [f"max({pick()} + g, {pick()} * 0.5)", f"{pick()} * 0.25 + {pick()} - g",
                 f"min({pick()}, {pick()} + 1.5) * 0.5"]
    kind = r.randrange(5)
    body = []
    if kind == 0:
        body.append(f"T[i, j] = {r.choice(exprs)}")
    elif kind == 1:
        body.append(f"T[i, j] += {r.choice(exprs)}")
    elif kind == 2:
        body += [f"if {same}:", f"    T[i, j] = {pick()} + g", "else:",
                 f"    T[i, j] = {r.choice(exprs)}"]
    elif kind == 3:
        body += [f"v = {r.choice(exprs)}", "T[i, j] = v"]
    else:           # the cheapest of three reads, picked from a list by data
        body += [f"opts = [{pick()}, {pick()}, {pick()}]", "k = 0",
                 "if opts[1] < opts[k]:", "    k = 1", "if opts[2] < opts[k]:",
                 "    k = 2", "T[i, j] = opts[k] + g"]
    if r.random() < 0.15:
        body.append(f"T[i, j - 1] = {pick()} - g")     # a second write per trip
    stops = r.random() < 0.35
    if stops:       # a break on the cell just written (its reads then go a trip ahead)
        limit = r.choice(["g * 4", "g", "-g"])
        body += [f"if T[i, j] > {limit}:", "    hits += j", "    break"]
    lines += ["        " + ln for ln in body]
    if stops:
        lines.insert(2, "hits = 0")
    lines.append("return (T, hits)" if stops else "return T")
    return lines
