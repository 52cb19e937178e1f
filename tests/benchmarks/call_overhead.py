"""Call overhead, side by side: median µs per call of `def f(x): return x * 2.0` on a
float64 array of 4 and of 1000 elements, through npxla's `jit`, `jax.jit` (x64 on,
called with the NumPy array; once converting the result with `np.asarray`, npxla's
contract, once raw after `block_until_ready`) and Numba's `njit` where installed.
`npxla` is what users get: such a call settles on running as NumPy
(`runtime/driver/numpy_tier.py`); `npxla compiled` is the same function with that
tier off, the cost of a call of a compiled program.

    python -m tests.benchmarks.call_overhead [--rounds 31] [--calls 2000] [--clock thread]

The peers are timed in interleaved rounds (a busy machine slows all of them alike):
each round times `--calls` calls of every peer in turn, and the median over rounds is
reported. Not a test (see docs/benchmarks.md, "Call overhead").
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def f(x):
    return x * 2.0


def f_compiled(x):
    return x * 2.0


def peers(sizes):
    """[(name, callable, argument)] of every peer that is installed."""
    import jax
    jax.config.update("jax_enable_x64", True)
    from npxla import jit
    from npxla.runtime.driver import numpy_tier
    out = []
    jf = jit(f)
    jc = jit(f_compiled)
    saved, numpy_tier.ENABLED = numpy_tier.ENABLED, False
    for n in sizes:           # (the tier is read when a signature's runner is installed)
        jc(np.linspace(0.0, 1.0, n))
    numpy_tier.ENABLED = saved
    jx = jax.jit(f)
    try:
        import numba
        nb = numba.njit(f)
    except ImportError:      # pragma: no cover - optional peer
        nb = None
    for n in sizes:
        x = np.linspace(0.0, 1.0, n)
        want = f(x)
        np.testing.assert_array_equal(jf(x), want)
        np.testing.assert_array_equal(np.asarray(jx(x)), want)
        np.testing.assert_array_equal(jc(x), want)
        out.append((f"npxla n={n}", jf, x))
        out.append((f"npxla compiled n={n}", jc, x))
        out.append((f"jax.jit -> np.asarray n={n}", lambda x, jx=jx: np.asarray(jx(x)), x))
        out.append((f"jax.jit raw n={n}", lambda x, jx=jx: jx(x).block_until_ready(), x))
        if nb is not None:
            np.testing.assert_array_equal(nb(x), want)
            out.append((f"numba n={n}", nb, x))
        out.append((f"numpy n={n}", f, x))
    return out


CLOCKS = {"wall": time.perf_counter, "thread": time.thread_time}


def sample(fn, x, calls, clock=time.perf_counter):
    """µs per call over `calls` calls."""
    start = clock()
    for _ in range(calls):
        fn(x)
    return (clock() - start) / calls * 1e6


def measure(sizes=(4, 1000), rounds=31, calls=2000, clock="wall"):
    """{peer: median µs per call}, peers interleaved round by round. `clock`: "wall"
    (elapsed time) or "thread" (CPU time of the calling thread: what the call costs
    the caller, robust to other processes on a busy machine, blind to work XLA runs on
    its own threads)."""
    ps = peers(sizes)
    for _, fn, x in ps:            # warm up (compile, caches)
        sample(fn, x, 200)
    samples: dict = {name: [] for name, _, _ in ps}
    for _ in range(rounds):
        for name, fn, x in ps:
            samples[name].append(sample(fn, x, calls, CLOCKS[clock]))
    return {name: statistics.median(v) for name, v in samples.items()}


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical "
            f"CPUs, Python {platform.python_version()}, load average "
            f"{'/'.join(f'{v:.1f}' for v in load)}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=31)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    p.add_argument("--json", action="store_true", help="print the medians as JSON")
    a = p.parse_args(argv)
    result = measure(rounds=a.rounds, calls=a.calls, clock=a.clock)
    if a.json:
        import json
        print(json.dumps(result))
        return result
    print(f"# {machine()}; median of {a.rounds} interleaved rounds of {a.calls} calls, "
          f"{a.clock} clock")
    width = max(map(len, result))
    for name, us in result.items():
        print(f"{name:<{width}}  {us:8.2f} us/call")
    for n in (4, 1000):
        theirs, raw = result[f"jax.jit -> np.asarray n={n}"], result[f"jax.jit raw n={n}"]
        for label in ("npxla", "npxla compiled"):
            ours = result[f"{label} n={n}"]
            print(f"n={n}: {label} / jax.jit (NumPy out) {ours / theirs:.2f}, "
                  f"{label} / jax.jit raw {ours / raw:.2f}")
    return result


if __name__ == "__main__":
    main()
