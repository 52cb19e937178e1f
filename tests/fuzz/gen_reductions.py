"""The `reduce_loops` family: counted loops that fold integers, the shape
`lowering/loop_reductions.py` turns into one `reduce`, compared bit for bit
(`__fuzz_exact__`).

A program runs one counted loop over an integer array `x` and a float array `y` with
NaNs in it (long enough for the rewrite: 9,000-12,000 trips; now and then a short one,
which stays a loop), or a triangular pair of loops whose inner bound comes from the
outer counter. Its accumulators (each of one dtype throughout: int64 from the start, or
a Python int only ever added Python ints) are int64 sums of elements and of products,
bit folds (`|=`, `^=`, `&=`), and counts kept in Python ints (whose overflow check the
rewrite must prove away) under conditions on `y` and on `x`, with an `else` branch now
and then. Some programs also do what the rewrite must leave alone: read a partial sum in the
trip, break out on a condition, keep a float sum or a running maximum beside the
integers.
"""
from __future__ import annotations

import random

import numpy as np

from .gen_families import _runs, first_program
from .model import Program


def gen_reductions(seed: int) -> Program:
    return first_program(seed, _gen_reductions, "reduce-loop")


def _gen_reductions(seed, attempt):
    r = random.Random(seed * 64 + attempt)
    rng = np.random.default_rng([seed, 43, attempt])
    n = r.choice([9000, 10000, 12000]) if r.random() < 0.85 else r.choice([5, 60])
    dtype = r.choice(["int64", "int32", "int16", "uint8", "uint16"])
    x = rng.integers(0 if dtype.startswith("u") else -300, 300, n).astype(dtype)
    y = rng.normal(size=n)
    y[rng.integers(0, n, max(1, n // 50))] = np.nan
    lines, rets = _program(r, n)
    src = "import numpy as np\n\n__fuzz_exact__ = True\n\n\ndef f(x, y):\n" + \
        "".join("    " + ln + "\n" for ln in lines) + f"    return {', '.join(rets)}\n"
    args = [x, y]
    return Program(seed, src, args) if _runs(src, args) else None


def _program(r, n):
    lines, body, rets = [], [], []
    triangular = r.random() < 0.2
    index = "j" if triangular else "i"
    for k in range(r.randint(1, 3)):
        name = f"s{k}"
        init, stmts = _accumulator(r, name, index)
        lines.append(f"{name} = {init}")
        body += stmts
        rets.append(name)
    extra = r.random()
    if extra < 0.15:                      # a partial sum read in the trip
        lines.append("out = np.zeros(x.shape[0], dtype=np.int64)")
        body.append(f"out[{index}] = {rets[0]}")
        rets.append("out")
    elif extra < 0.25:                    # a break: the loop may end sooner
        body.append(f"if y[{index}] > 3.2:")
        body.append("    break")
    elif extra < 0.35:                    # a float sum beside the integers
        lines.append("t = 0.0")
        body.append(f"t += y[{index}] * 0.5")
        rets.append("t")
    elif extra < 0.45:                    # a running maximum beside them
        lines.append("m = x[0]")
        body.append(f"if x[{index}] > m:")
        body.append(f"    m = x[{index}]")
        rets.append("m")
    start = r.choice(["0", "0", "1", "7"])
    if triangular:
        rows = r.choice([3, 4])
        lines.append(f"for i in range({rows}):")
        lines.append(f"    for j in range(i * (x.shape[0] // {rows})):")
        lines += ["        " + ln for ln in body]
    else:
        stop = r.choice(["x.shape[0]", "x.shape[0] - 3"]) if n > 10 else "x.shape[0]"
        lines.append(f"for i in range({start}, {stop}):")
        lines += ["    " + ln for ln in body]
    return lines, rets


def _accumulator(r, name, i):
    """(initial value, loop statements) of one integer accumulator."""
    kind = r.choice(["sum", "sum", "square", "bits", "count", "count", "count_else"])
    if kind == "sum":
        return r.choice(["np.int64(0)", "np.int64(5)"]), \
            [f"{name} += {r.choice(['x[%s]', 'x[%s] * 3', '-x[%s]', 'x[%s] // 7']) % i}"]
    if kind == "square":
        return "np.int64(0)", [f"{name} += np.int64(x[{i}]) * x[{i}]"]
    if kind == "bits":
        op = r.choice(["|=", "^=", "&="])
        init = "np.int64(-1)" if op == "&=" else "np.int64(0)"
        return init, [f"{name} {op} x[{i}]" + r.choice(["", " * 5", " + 1"])]
    test = r.choice([f"y[{i}] > 0.3", f"not (y[{i}] < 0)", f"x[{i}] % 3 == 0",
                     f"-1.0 <= y[{i}] < 1.0", f"x[{i}] > 100 or y[{i}] < -1"])
    step = r.choice(["1", "1", "2", "-1"])
    start = r.choice(["0", "0", "10"])
    stmts = [f"if {test}:", f"    {name} += {step}"]
    if kind == "count_else":
        stmts += ["else:", f"    {name} += {r.choice(['3', '-2'])}"]
    return start, stmts
