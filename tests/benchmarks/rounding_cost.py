"""What NumPy's rounding costs: every kernel of the suite under `jit(f)` (each float
product rounded, no fused multiply-add) against `jit(f, fast_math=True)`, timed in
interleaved rounds in one process, with how many result elements of each differ from
NumPy's bit for bit.

    python -m tests.benchmarks.rounding_cost [--suite all] [--mode full] [--only K ...]
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from . import harness as H


def _differing(expected, got):
    """Elements whose bits differ (NaNs equal), over every array of the results."""
    a, b = H.flatten(expected), H.flatten(got)
    total = 0
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape:
            return -1
        same = (x == y) | ((x != x) & (y != y)) if x.dtype.kind in "fc" else x == y
        total += int(np.size(same) - np.count_nonzero(same))
    return total


def measure(kernel, cfg, mode):
    from npxla import jit
    fn, _ = kernel.resolve()
    args = kernel.inputs(mode)
    mutates = H.mutates_arguments(fn, args)
    expected = fn(*H.fresh_args(args, True))
    calls = {"exact": jit(fn), "fast_math": jit(fn, fast_math=True)}
    diffs = {p: _differing(expected, f(*H.fresh_args(args, True))) for p, f in calls.items()}
    times = H.steady_state(calls, args, mutates, cfg, budget_s=2.0)
    return {p: (times[p]["median_s"], diffs[p]) for p in calls}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", choices=sorted(H.SUITES), default="all")
    ap.add_argument("--mode", choices=("smoke", "quick", "full"), default="full")
    ap.add_argument("--only", nargs="+")
    opts = ap.parse_args(argv)
    cfg = H.config(opts.mode)
    kernels = [k for k in H.SUITES[opts.suite] if not opts.only or k.name in opts.only]
    ratios = []
    print("| kernel | exact (ms) | fast_math (ms) | ratio | differing elements exact / fast |")
    print("|---|---:|---:|---:|---:|")
    with H.x64(), H.no_disk_cache():
        for kernel in kernels:
            try:
                r = measure(kernel, cfg, opts.mode)
            except Exception as e:       # a kernel npxla refuses: listed, not timed
                print(f"| {kernel.name} | - | - | - | {H.describe(e)} |")
                continue
            (te, de), (tf, df) = r["exact"], r["fast_math"]
            ratios.append(te / tf)
            print(f"| {kernel.name} | {te * 1e3:.3f} | {tf * 1e3:.3f} | {te / tf:.2f} | "
                  f"{de} / {df} |", flush=True)
    if ratios:
        worst = max(ratios)
        print(f"\ngeomean time ratio exact / fast_math over {len(ratios)} kernels: "
              f"{H.geomean(ratios):.3f}; worst {worst:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
