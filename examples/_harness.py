"""Shared check-and-time harness for the example programs in this folder.

Every example module defines one `@jit`-decorated NumPy function and an `Example`
describing its inputs per size and how closely npxla must match NumPy:

    EXAMPLE = Example(jacobi, make_inputs, sizes={"small": 16, "medium": 200, "large": 1000},
                      rtol=1e-8)
    if __name__ == "__main__":
        EXAMPLE.main()

`python examples/<name>.py [--size small|medium|large]` then runs the original NumPy
function (`fn.__wrapped__`) and the compiled one on the same inputs, checks the results
and prints both timings; `tests/test_examples.py` calls `EXAMPLE.check("small")`.
`python examples/_harness.py [--size medium] [names...]` prints one table for all.

`--peers` (both entry points) also runs the same unmodified source with Numba
(`numba.njit(fn.__wrapped__)`) and `jax.jit(fn.__wrapped__)` where installed, checks
each against NumPy and times it (examples/_peers.py). `--cold` bypasses npxla's disk
cache so that its first call compiles. To compare first-call times across sizes, run
once per size: `--size medium --cold`, then `--size large --cold`.
"""
from __future__ import annotations

import argparse
import copy
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

SIZES = ("small", "medium", "large")


@dataclass
class Comparison:
    max_abs_err: float
    ok: bool
    detail: str = ""


@dataclass
class Timing:
    first: float           # seconds: the first call (npxla: staging + XLA compile)
    median: float          # seconds: median of the later calls
    runs: int


@dataclass
class Example:
    """`fn`: the @jit function; `make_inputs(n, rng)` -> tuple of arguments for size
    parameter `n` (looked up in `sizes`); results must match within `rtol`/`atol`
    (`exact=True`: bit-for-bit, the right test for integer and min/max results)."""
    fn: Callable
    make_inputs: Callable
    sizes: dict
    rtol: float = 1e-9
    atol: float = 0.0
    exact: bool = False
    description: str = ""
    name: str = field(default="")

    def __post_init__(self):
        self.name = self.name or self.fn.__name__
        missing = set(SIZES) - set(self.sizes)
        if missing:
            raise ValueError(f"{self.name}: no input size for {sorted(missing)}")

    # --- running ----------------------------------------------------------------------

    def inputs(self, size: str):
        return self.make_inputs(self.sizes[size], np.random.default_rng(0))

    def run_both(self, size: str):
        """(NumPy result, npxla result), each computed on its own copy of the inputs:
        the examples update arrays in place, as legacy code does."""
        args = self.inputs(size)
        return _call(self.fn.__wrapped__, args)[0], _call(self.fn, args)[0]

    def check(self, size: str = "small") -> Comparison:
        """Raise AssertionError unless npxla's result matches NumPy's (the tests' entry)."""
        return self._verdict(size, *self.run_both(size))

    def _verdict(self, size, expected, got) -> Comparison:
        result = compare(expected, got, self.rtol, self.atol, self.exact)
        if not result.ok:
            raise AssertionError(f"{self.name} ({size}): npxla differs from NumPy: "
                                 f"{result.detail}")
        return result

    def report(self, size: str = "medium", budget: float = 3.0, peers: bool = False) -> dict:
        """Check and time both implementations. The first calls (for npxla: conversion,
        staging and XLA compilation) are timed apart from the median of later calls;
        every call gets fresh copies of the inputs (copying is not timed). `peers=True`
        adds Numba and jax.jit on the same source under "peers" (name -> PeerResult)."""
        args = self.inputs(size)
        expected, np_first = _call(self.fn.__wrapped__, args)
        got, jit_first = _call(self.fn, args)
        comparison = self._verdict(size, expected, got)
        r = {"name": self.name, "size": size, "n": self.sizes[size],
             "comparison": comparison,
             "numpy": _repeat(self.fn.__wrapped__, args, np_first, budget),
             "npxla": _repeat(self.fn, args, jit_first, budget), "peers": {}}
        if peers:
            from _peers import run_peers
            r["peers"] = run_peers(self, args, expected, budget)
        return r

    def main(self, argv=None):
        parser = argparse.ArgumentParser(description=self.description or self.name)
        parser.add_argument("--size", choices=SIZES, default="medium")
        parser.add_argument("--budget", type=float, default=3.0,
                            help="seconds of repeated runs per implementation")
        parser.add_argument("--cold", action="store_true",
                            help="bypass npxla's disk cache so that the first call compiles")
        parser.add_argument("--peers", action="store_true",
                            help="also check and time numba.njit and jax.jit on the source")
        ns = parser.parse_args(argv)
        if ns.cold:
            os.environ["NPXLA_CACHE_DIR"] = "off"
        print(f"{self.name} ({ns.size}, n={self.sizes[ns.size]})"
              + (f": {self.description}" if self.description else ""))
        r = self.report(ns.size, ns.budget, peers=ns.peers)
        print(format_report(r))
        return r


def _call(fn, args):
    """(result, seconds) of one call on a deep copy of `args`; the copy is not timed."""
    fresh = copy.deepcopy(args)
    t0 = time.perf_counter()
    result = fn(*fresh)
    return result, time.perf_counter() - t0


def _repeat(fn, args, first, budget, max_runs=15, min_runs=3) -> Timing:
    samples = []
    while len(samples) < max_runs and (len(samples) < min_runs or sum(samples) < budget):
        samples.append(_call(fn, args)[1])
    return Timing(first, statistics.median(samples), len(samples))


# --- comparing results ----------------------------------------------------------------

def _flatten(tree, out):
    if isinstance(tree, (tuple, list)):
        for t in tree:
            _flatten(t, out)
    else:
        out.append(tree)
    return out


def compare(expected, got, rtol, atol, exact=False) -> Comparison:
    exp_leaves, got_leaves = _flatten(expected, []), _flatten(got, [])
    if len(exp_leaves) != len(got_leaves):
        return Comparison(np.inf, False, f"{len(got_leaves)} results, expected "
                                         f"{len(exp_leaves)}")
    worst, problems = 0.0, []
    for i, (e, g) in enumerate(zip(exp_leaves, got_leaves)):
        e, g = np.asarray(e), np.asarray(g)
        if e.shape != g.shape:
            problems.append(f"result {i}: shape {g.shape}, expected {e.shape}")
            continue
        if e.size:
            with np.errstate(invalid="ignore"):          # inf - inf where both are inf
                diff = np.abs(g.astype(np.complex128) - e.astype(np.complex128))
            worst = max(worst, float(np.max(np.where(np.isnan(diff), 0.0, diff))))
        if exact or e.dtype.kind in "biu":
            ok = np.array_equal(e, g, equal_nan=e.dtype.kind in "fc")
            if not ok:
                bad = int(np.sum(e != g))
                problems.append(f"result {i}: {bad} of {e.size} elements differ (exact "
                                f"comparison)")
        elif not np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True):
            problems.append(f"result {i}: not within rtol={rtol:g}, atol={atol:g}")
    return Comparison(worst, not problems, "; ".join(problems))


# --- printing -------------------------------------------------------------------------

def _ms(seconds):
    return f"{seconds * 1e3:9.2f} ms"


def format_report(r) -> str:
    c, t_np, t_jit = r["comparison"], r["numpy"], r["npxla"]
    lines = [
        f"  check : matches NumPy (max |err| {c.max_abs_err:.2e})",
        f"  NumPy : first call {_ms(t_np.first)}, median {_ms(t_np.median)} "
        f"({t_np.runs} runs)",
        f"  npxla : first call {_ms(t_jit.first)}, median {_ms(t_jit.median)} "
        f"({t_jit.runs} runs); the first call stages and compiles (or loads from the "
        f"disk cache)",
        f"  speed-up (median): {t_np.median / t_jit.median:.2f}x",
    ]
    if r.get("peers"):
        from _peers import format_peer
        lines += [format_peer(p, t_np.median, _ms) for p in r["peers"].values()]
    return "\n".join(lines)


# --- every example at once: `python examples/_harness.py [--size medium]` ---------------

def example_names(folder=None):
    """The example modules next to this file (demo.py and kernels.py are not examples)."""
    folder = Path(folder or Path(__file__).resolve().parent)
    return sorted(p.stem for p in folder.glob("*.py")
                  if not p.stem.startswith("_") and p.stem not in ("demo", "kernels"))


def run_all(argv=None):
    import importlib
    parser = argparse.ArgumentParser(description="check and time every example")
    parser.add_argument("--size", choices=SIZES, default="medium")
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--peers", action="store_true",
                        help="add rows for numba.njit and jax.jit on the same source")
    parser.add_argument("names", nargs="*", help="examples to run (default: all)")
    ns = parser.parse_args(argv)
    print(f"{'example':22s} {'n':>9s} {'max |err|':>10s} {'NumPy':>11s} "
          f"{'npxla 1st':>11s} {'npxla':>11s} {'speed-up':>9s}")
    for name in ns.names or example_names():
        try:
            r = importlib.import_module(name).EXAMPLE.report(ns.size, ns.budget,
                                                             peers=ns.peers)
        except Exception as e:                       # report it, go on with the others
            message = getattr(e, "message", None) or str(e).splitlines()[-1]
            print(f"{name:22s} FAILED: {type(e).__name__}: {message}")
            continue
        t_np, t_jit = r["numpy"], r["npxla"]
        print(f"{name:22s} {r['n']:9d} {r['comparison'].max_abs_err:10.2e} "
              f"{_ms(t_np.median)} {_ms(t_jit.first)} {_ms(t_jit.median)} "
              f"{t_np.median / t_jit.median:8.2f}x", flush=True)
        if r["peers"]:
            from _peers import table_row
            for p in r["peers"].values():
                print(table_row(p, t_np.median, _ms), flush=True)


if __name__ == "__main__":
    run_all()
