"""The `swap_loops` family: loops that swap elements, rows and columns and write under
data-dependent `if`s, the shapes `lowering/branch_writes.py` and
`lowering/bundled_reads.py` rewrite, compared bit for bit (`__fuzz_exact__`).

A program runs one loop (or two nested ones) over a float vector `x` of 40-150
elements, a square float matrix `A` of 12-40 rows and an integer array `idx`. Its trips
swap elements (tuple assignment or through a temporary, at the counter, the mirrored
position, a neighbour or a position read from `idx`), rotate three, swap rows or
columns of `A` (through `.copy()`), and write under conditions on the data: a compare
and swap, a scaled or negated row when its sum is positive, a write in each branch of
an `if`/`else` at different positions, a counter beside a write, an index from `idx`
that is out of range now and then (the branch raises where it is taken, as in
NumPy). Some trips read what they just wrote, or break out of the loop.
"""
from __future__ import annotations

import random

import numpy as np

from .gen_families import _runs, first_program
from .model import Program


def gen_swaps(seed: int) -> Program:
    return first_program(seed, _gen_swaps, "swap-loop")


def _gen_swaps(seed, attempt):
    r = random.Random(seed * 64 + attempt + 7)
    rng = np.random.default_rng([seed, 47, attempt])
    n, m = r.randint(40, 150), r.randint(12, 40)
    x = rng.normal(size=n).round(3)
    A = rng.normal(size=(m, m)).round(3)
    wild = r.random() < 0.2                 # some indices out of range
    idx = rng.integers(-n - 3 if wild else 0, n + 3 if wild else n, n)
    lines, rets = _program(r)
    src = "import numpy as np\n\n__fuzz_exact__ = True\n\n\ndef f(x, A, idx):\n" + \
        "".join("    " + ln + "\n" for ln in lines) + f"    return {', '.join(rets)}\n"
    args = [x, A, idx]
    return Program(seed, src, args) if _runs(src, args) else None


def _program(r):
    lines = ["n = x.shape[0]", "m = A.shape[0]", "c = 0", "s = 0.0"]
    body = []
    for _ in range(r.randint(1, 3)):
        body += r.choice(_STATEMENTS)(r)
    if r.random() < 0.15:
        body += ["if x[i % n] > 2.5:", "    break"]
    if r.random() < 0.3:
        body.append(f"s += {r.choice(['x[i % n]', 'A[i % m, 0]', 'x[n - 1 - i % n]'])}")
    if r.random() < 0.25:
        lines.append("for k in range(2):")
        lines.append("    for i in range(" + r.choice(["n - 1", "n // 2", "m"]) + "):")
        lines += ["        " + ln for ln in body]
    else:
        lines.append("for i in range(" + r.choice(["n - 1", "n // 2", "m", "1, n - 2"]) + "):")
        lines += ["    " + ln for ln in body]
    return lines, ["x", "A", "c", "s"]


def _pos(r):
    return r.choice(["i % n", "n - 1 - i % n", "(i + 1) % n", "idx[i % n] % n",
                     "(i * 7) % n", "idx[i % n]" if r.random() < 0.3 else "i % n"])


def _swap(r):
    a, b = _pos(r), _pos(r)
    if r.random() < 0.5:
        return [f"x[{a}], x[{b}] = x[{b}], x[{a}]"]
    return [f"t = x[{a}]", f"x[{a}] = x[{b}]", f"x[{b}] = t"]


def _compare_swap(r):
    a, b = "i % n", r.choice(["(i + 1) % n", "n - 1 - i % n", "idx[i % n] % n"])
    return [f"if x[{a}] > x[{b}]:", f"    x[{a}], x[{b}] = x[{b}], x[{a}]"]


def _rotate(r):
    return ["x[i % n], x[(i + 1) % n], x[(i + 2) % n] = "
            "x[(i + 1) % n], x[(i + 2) % n], x[i % n]"]


def _row_swap(r):
    p = r.choice(["idx[i % n] % m", "m - 1 - i % m", "(i + 3) % m"])
    stmts = [f"p = {p}", "tmp = A[i % m].copy()", "A[i % m] = A[p]", "A[p] = tmp"]
    if r.random() < 0.6:
        return [stmts[0], "if p != i % m:"] + ["    " + s for s in stmts[1:]]
    return stmts


def _column_swap(r):
    q = r.choice(["idx[i % n] % m", "m - 1 - i % m"])
    return [f"q = {q}", "col = A[:, i % m].copy()", "A[:, i % m] = A[:, q]",
            "A[:, q] = col"]


def _row_scale(r):
    op = r.choice(["A[i % m] *= -1.0", "A[i % m] /= 2.0", "A[i % m] = A[i % m] + 1.0"])
    test = r.choice(["A[i % m].sum() > 0", "A[i % m, 0] < A[i % m, 1]", "x[i % n] > 0"])
    return [f"if {test}:", f"    {op}"]


def _either(r):
    a, b = _pos(r), _pos(r)
    return [f"if x[{a}] > {r.choice(['0.0', '0.5', '-0.5'])}:",
            f"    x[{a}] = x[{a}] * 2.0", "else:",
            f"    x[{b}] = {r.choice(['-x[%s]' % b, '0.25', 'x[%s] - 1.0' % a])}"]


def _count(r):
    a = _pos(r)
    return [f"if x[{a}] < 0:", f"    x[{a}] = 0.0", "    c += 1"]


_STATEMENTS = [_swap, _swap, _compare_swap, _rotate, _row_swap, _column_swap,
               _row_scale, _either, _count]
