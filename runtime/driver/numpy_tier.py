"""Calls that NumPy answers sooner than any compiled program: a small, loop-free
function may run as itself.

A call of a compiled program costs about 10 µs before it does any work (JAX's C++
dispatch, reading the result back, the copy NumPy's contract needs), where NumPy's
own call of a ufunc costs about 1 µs. So on arrays of a few thousand elements a
function of a few NumPy calls is slower compiled than as written: a 100 x 100
matrix-vector product 31 µs against NumPy's 4.9, the summary statistics of 1,000
numbers 63 against 37 (the suite's scaling sweep, docs/benchmarks.md). No program can
close a gap that is its call's fixed cost; the function itself can. npxla's contract is
NumPy's answer, and the function run by NumPy is that answer by definition.

So the fast path's runner of a signature whose program qualifies (`eligible`) times
both on the calls after the first few: the compiled program on each, and on every
other one the function as Python too, beside it (twice, the second run timed: the
first pays for the program's call just before; results and warnings dropped: the
call answers with the program's result, so the bits a call returns change at most once,
when the choice is made, and then to NumPy's own). Once NumPy has run `PROBES` times
the faster is kept (NumPy only when its best call is `MARGIN` times quicker), and the
signature's later calls take that runner with no timing. Signatures whose compiled call
takes `COMPILED_MAX_S` or more keep the program without a Python run: there NumPy's
runs beside it would cost more than a few calls' worth.

The fixed cost is not the only gap. On a 2-core host XLA:CPU splits kernels of a few
hundred KB over both cores, and the handing over costs more than it saves: a centred
Gram product of 2,000 x 50 (the suite's `covariance` at 10^5 elements) 0.72-1.4 ms
compiled against NumPy's 0.41-0.76, its column mean alone 0.32 ms against 0.07. So
programs up to 10 ms are timed too; for those from `QUICK_GIVE_UP_S` on, one NumPy
run `GIVE_UP` times slower ends the timing.

A program qualifies when running the function again as Python does exactly what the
program does, and the Python run's cost is bounded by the program's size: CPU programs
without loops (a Python loop staged as a `while` could run for any time; a library
routine's own loop, such as np.cumsum's, is NumPy's loop in C), of at most
`MAX_OPS` ops (a Python loop unrolled while staging runs its trips again in Python),
that write nothing back into arguments, replay no Python side effects and call no host
code but npxla's library routines, for calls with positional NumPy arrays and Python
numbers (a guard that holds: the function reads its globals itself). A Python run
that raises (a function that needs npxla) settles the signature on the program.

`NPXLA_NUMPY_TIER=off` (or 0, no, false) keeps every call compiled; each signature that
settles on NumPy is logged (INFO, `npxla` logger) with both times.
"""
from __future__ import annotations

import os
import time
import warnings

import numpy as np

from npxla.runtime.lowering.callbacks import recipes
from npxla.runtime.lowering.scan import LIBRARY_LOOP
from npxla.runtime.xla.superset import building


def _enabled() -> bool:
    return os.environ.get("NPXLA_NUMPY_TIER", "").strip().lower() not in \
        ("0", "off", "no", "false")


# read when a runner is installed (the test suite turns it off: it tests the programs)
ENABLED = _enabled()
# calls before the timing starts (and calls while a superset variant compiles, which
# takes a core, are not timed): caches and JAX's dispatch settle
WARM = 2
# timed calls of each runner before the choice
PROBES = 5
# NumPy runs before each timed one: right after a compiled call NumPy runs 1.3-1.5x
# slower than it will once settled (XLA:CPU's worker threads still spin on the cores,
# the caches hold the program's buffers; summary statistics of 1,000 numbers: best 65-68
# against 43-45 µs), which kept programs twice NumPy's time; a second run is already
# at NumPy's settled speed
UNTIMED_RUNS = 1
# NumPy's best call must be this much faster than the program's
MARGIN = 1.05
# compiled calls this slow keep the program untimed
COMPILED_MAX_S = 10e-3
# NumPy's best of two runs this many times the program's best call ends the probing
GIVE_UP = 4.0
# ... and of one run, for programs this slow (each NumPy run costs a few calls' time)
QUICK_GIVE_UP_S = 1e-3
# programs larger than this (ops) are not run as Python
MAX_OPS = 2000
_clock = time.perf_counter


def eligible(entry, output) -> bool:
    """Whether calls of the Compiled `entry` (results as `output`) may run as the
    function's own Python."""
    st = entry.staged
    if not ENABLED or output != "numpy" or entry.device.platform != "cpu" or \
            st.writeback or st.effects:
        return False
    text = st.module_text
    if text.count("stablehlo.while") > text.count(LIBRARY_LOOP) or \
            text.count("stablehlo.") > MAX_OPS:
        return False
    return not st.host_callbacks or recipes(st.host_callbacks) is not None


class Tier:
    """The fast-path runner of one signature while it is timed: `compiled(args)` is the
    program's runner (`args`: the call's `n` positional arguments, then the arrays its
    guard reads from the function's environment), `fn` the function, and
    `settle(runner, times)` installs the chosen runner for the signature's later calls
    (`times`: the best calls, NumPy's and the program's, in seconds, when NumPy's is
    chosen; else None)."""
    __slots__ = ("compiled", "fn", "n", "_settle", "calls", "best_compiled", "best_numpy",
                 "numpy_runs", "done")

    def __init__(self, compiled, fn, settle, n=None):
        self.compiled, self.fn, self._settle, self.n = compiled, fn, settle, n
        self.calls = self.numpy_runs = 0
        self.best_compiled = self.best_numpy = float("inf")
        self.done = False

    def settle(self, runner, times):
        self.done = True            # (a call already holding this runner: the program)
        self._settle(runner, times)

    def __call__(self, args):
        if self.done or building():        # (a compile in flight slows every call)
            return self.compiled(args)
        self.calls += 1
        if self.calls <= WARM:
            return self.compiled(args)
        started = _clock()
        out = self.compiled(args)
        self.best_compiled = min(self.best_compiled, _clock() - started)
        if self.best_compiled >= COMPILED_MAX_S:
            self.settle(self.compiled, None)
        elif self.calls % 2 == 0:
            self.probe(args)
        return out

    def probe(self, args):
        """One timed run of the function as Python, beside the program's (whose result
        the call returns: until the choice, every call answers with the same bits)."""
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")     # (NumPy's run is a probe here)
                for _ in range(UNTIMED_RUNS):
                    self.fn(*args[:self.n])
                started = _clock()
                self.fn(*args[:self.n])
                took = _clock() - started
        except Exception:  # noqa: BLE001 - the function needs npxla: keep the program
            self.settle(self.compiled, None)
            return
        self.best_numpy = min(self.best_numpy, took)
        self.numpy_runs += 1
        enough = 1 if self.best_compiled >= QUICK_GIVE_UP_S else 2
        if self.numpy_runs >= enough and self.best_numpy > GIVE_UP * self.best_compiled:
            self.settle(self.compiled, None)
        elif self.numpy_runs >= PROBES:
            if self.best_numpy * MARGIN < self.best_compiled:
                self.settle(self.python_runner(), (self.best_numpy, self.best_compiled))
            else:
                self.settle(self.compiled, None)

    def python_runner(self):
        fn, n = self.fn, self.n

        def run(args):
            return fn(*args[:n])
        run.npxla_numpy_tier = True
        return run
