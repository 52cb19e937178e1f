"""Benchmark harness: NumPy vs npxla `@jit` vs `jax.jit` (hand port) vs Numba `@njit`
vs `torch.compile` (on the same NumPy source).

All peers run in one process on identical inputs. Every peer's result is checked against
NumPy before it is timed; a peer that fails (an npxla error, a Numba typing error, a
mismatch) is recorded with its reason and left out of the timings, and the suite goes on.

Metrics (medians over repeated runs):
  * steady state: time per call after the first; peers are sampled in interleaved rounds
    (a shared, noisy machine slows all peers alike) and each sample averages enough calls
    to last `sample_s`;
  * first call: conversion + staging + XLA compile + one run for npxla with every cache
    emptied (conversion cache, per-function executable cache, disk cache off); trace +
    compile + one run for `jax.jit` after `jax.clear_caches()` with a new jit object; a
    new `njit` dispatcher for Numba;
  * dispatch: per-call time on 4-element arrays (`x + 1` and two more probes); `jax.jit`
    is called with the same NumPy arguments, once converting its result with
    `np.asarray` (what npxla returns) and once raw (`block_until_ready`);
  * fresh process: see `coldstart.py`;
  * scaling sweep: steady state over input sizes x10 apart.

npxla and JAX both return NumPy arrays in the steady-state timings (the drop-in contract:
NumPy in, NumPy out). JAX runs with `jax_enable_x64` (float64 like NumPy), switched on
for the duration of `x64()` only.
"""
from __future__ import annotations

import contextlib
import copy
import gc
import importlib
import math
import os
import re
import signal
import statistics
import threading
import time
import types
from dataclasses import dataclass

import numpy as np

from . import kernels as K
from . import loop_kernels as L
from . import real_kernels as R

PEERS = ("numpy", "npxla", "jax", "numba", "torch")
SUITES = {"core": K.KERNELS, "real": R.REAL_KERNELS, "loops": L.LOOP_KERNELS,
          "all": K.KERNELS + R.REAL_KERNELS + L.LOOP_KERNELS}
BY_NAME = {**K.BY_NAME, **R.BY_NAME, **L.BY_NAME}


@dataclass
class Config:
    mode: str = "full"          # which kernel sizes: smoke | quick | full
    sample_s: float = 0.02      # target duration of one timing sample
    min_rounds: int = 11
    max_rounds: int = 80
    budget_s: float = 5.0       # per kernel, all peers together, after min_rounds
    first_call_reps: int = 3
    dispatch_calls: int = 2000
    dispatch_rounds: int = 21
    sweep_budget_s: float = 2.0
    peers: tuple = PEERS
    first_call_limit_s: float = 60.0    # a longer first call (compile) is abandoned where
    #                                     the peer's compiler runs Python (torch.compile);
    #                                     npxla/XLA compiles in C++ and always finishes
    repeat_first_over_s: float = 10.0   # first calls longer than this are not repeated


QUICK = dict(mode="quick", sample_s=0.005, min_rounds=3, max_rounds=10, budget_s=0.3,
             first_call_reps=1, dispatch_calls=300, dispatch_rounds=5, sweep_budget_s=0.2,
             first_call_limit_s=8.0)
SMOKE = dict(mode="smoke", sample_s=0.0005, min_rounds=1, max_rounds=2, budget_s=0.0,
             first_call_reps=1, dispatch_calls=20, dispatch_rounds=1, sweep_budget_s=0.0,
             first_call_limit_s=20.0)


def config(mode="full", **overrides):
    base = {"full": {}, "quick": QUICK, "smoke": SMOKE}[mode]
    return Config(**{**base, **overrides})


# --- environment -------------------------------------------------------------------------

@contextlib.contextmanager
def x64():
    """float64 for JAX, restored afterwards (npxla scopes x64 itself)."""
    import jax
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", previous)


@contextlib.contextmanager
def no_disk_cache():
    """In-process first calls must compile: npxla's persistent cache off."""
    previous = os.environ.get("NPXLA_CACHE_DIR")
    os.environ["NPXLA_CACHE_DIR"] = "off"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["NPXLA_CACHE_DIR"]
        else:
            os.environ["NPXLA_CACHE_DIR"] = previous


def numba_available():
    try:
        import numba  # noqa: F401
        return True
    except ImportError:
        return False


def torch_available():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


class FirstCallTimeout(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds):
    """Raise FirstCallTimeout in the main thread after `seconds` (SIGALRM; only Python
    code is interrupted: a compiler busy in C++ is interrupted when it returns). The
    alarm repeats every second until the block ends: an exception raised inside a
    callback the interpreter runs for a C library (a garbage-collection hook) is
    printed and dropped, and a one-shot alarm would then never stop the compile."""
    if not seconds or threading.current_thread() is not threading.main_thread() or \
            not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(signum, frame):
        raise FirstCallTimeout(f"first call (compile) did not finish in {seconds:.0f} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- building each peer's callable -------------------------------------------------------

def npxla_callable(fn, fresh=False):
    """npxla `jit` of the unmodified source. `fresh`: a new jitted object with empty
    caches (conversion included), for first-call timings."""
    if not fresh:
        from npxla import jit
        return jit(fn)
    from npxla.runtime.driver.jitted import JittedFunction
    from npxla.transpiler import conversion
    conversion._CACHE.clear()        # converted twins of fn and of the helpers it calls
    return JittedFunction(fn)


def jax_callable(kernel, raw=False):
    """A new `jax.jit` object on the hand port; returns NumPy arrays unless `raw`."""
    import jax
    ports = importlib.import_module(f"{__package__}.{kernel.ports}")
    jf = jax.jit(getattr(ports, kernel.name), static_argnums=kernel.jax_static)
    if raw:
        return lambda *a: jax.block_until_ready(jf(*a))
    to_numpy = np.asarray
    tree_map = jax.tree.map
    return lambda *a: tree_map(to_numpy, jf(*a))


def numba_callable(fn):
    """Numba `njit` on the original code object. Plain Python helpers the function calls
    (module-level functions of its module, e.g. `norm_cdf` in black_scholes.py) are
    njit-ed the same way, since Numba cannot call uncompiled Python; the code itself
    is untouched."""
    import numba
    return numba.njit(_with_numba_helpers(fn, {}))


def torch_callable(fn, fresh=False):
    """`torch.compile` on the unmodified NumPy function: TorchDynamo traces NumPy calls
    through `torch._numpy` (NumPy arrays in, NumPy arrays out); float64 stays float64
    (`numpy_default_float`). `fresh`: Dynamo's caches are reset first."""
    import logging
    import torch
    import torch._dynamo
    import torch._inductor.config
    # first calls must compile: Inductor's on-disk FX graph cache off (as npxla's)
    torch._inductor.config.fx_graph_cache = False
    logging.getLogger("torch._inductor.codecache").setLevel(logging.ERROR)
    if fresh:
        torch._dynamo.reset()
    torch._dynamo.config.numpy_default_float = "float64"
    torch._dynamo.config.numpy_default_int = "int64"
    # a kernel called at many sizes / with new scalars must not fall back to eager
    torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
    return torch.compile(fn)


def _with_numba_helpers(fn, seen):
    if fn in seen:
        return seen[fn]
    import numba
    g = dict(fn.__globals__)
    clone = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    seen[fn] = clone
    for name in _global_names(fn.__code__):
        value = g.get(name)
        wrapped = getattr(value, "__wrapped__", None)       # an npxla @jit helper
        target = wrapped if callable(wrapped) else value
        if isinstance(target, types.FunctionType) and target.__module__ == fn.__module__:
            g[name] = numba.njit(_with_numba_helpers(target, seen))
    return clone


def _global_names(code):
    names, stack = set(), [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names


def build_peers(kernel, fn, peers, fresh=False):
    """{peer: callable} for the peers that can be built; failures as {peer: reason}."""
    calls, problems = {}, {}
    for peer in peers:
        try:
            if peer == "numpy":
                calls[peer] = fn
            elif peer == "npxla":
                calls[peer] = npxla_callable(fn, fresh)
            elif peer == "jax":
                calls[peer] = jax_callable(kernel)
            elif peer == "numba":
                if not numba_available():
                    problems[peer] = "n/a: numba is not installed (pip install .[bench])"
                else:
                    calls[peer] = numba_callable(fn)
            elif peer == "torch":
                if not torch_available():
                    problems[peer] = "n/a: torch is not installed (see docs/benchmarks.md)"
                else:
                    calls[peer] = torch_callable(fn, fresh)
        except Exception as e:  # noqa: BLE001 - reported, the suite goes on
            problems[peer] = f"error: {describe(e)}"
    return calls, problems


# --- checking ----------------------------------------------------------------------------

def flatten(tree, out=None):
    out = [] if out is None else out
    if isinstance(tree, (tuple, list)):
        for t in tree:
            flatten(t, out)
    else:
        out.append(tree)
    return out


def compare(expected, got, rtol, atol):
    """None when `got` matches `expected` (values; exact for integers or rtol=atol=0),
    else a description of the difference."""
    e_leaves, g_leaves = flatten(expected), flatten(got)
    if len(e_leaves) != len(g_leaves):
        return f"{len(g_leaves)} results, expected {len(e_leaves)}"
    for i, (e, g) in enumerate(zip(e_leaves, g_leaves)):
        e, g = np.asarray(e), np.asarray(g)
        if e.shape != g.shape:
            return f"result {i}: shape {g.shape}, expected {e.shape}"
        exact = (rtol == 0 and atol == 0) or e.dtype.kind in "biu"
        if exact:
            if not np.array_equal(e, g, equal_nan=e.dtype.kind in "fc"):
                return f"result {i}: {int(np.sum(e != g))} of {e.size} elements differ"
        elif not np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True):
            with np.errstate(invalid="ignore"):
                err = np.nanmax(np.abs(g.astype(complex) - e.astype(complex))) if e.size else 0
            return f"result {i}: max |err| {err:.3g} above rtol={rtol:g}, atol={atol:g}"
    return None


def describe(exc):
    """One readable line (npxla errors carry their own message and location)."""
    text = str(exc).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if type(exc).__module__.startswith("numba"):
        # Numba: "Failed in nopython mode pipeline (step: ...)" then the reason
        lines = [ln for ln in lines if not ln.startswith(("Failed in", "During:", "File "))
                 and not ln.startswith("^")] or lines
    head = " ".join(lines[:2]) if lines else ""
    if not head and exc.__traceback__ is not None:        # e.g. a bare assert
        import traceback
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = "/".join(frame.filename.split("/")[-3:])
        head = f"raised at {where}:{frame.lineno} `{frame.line}`"
    head = head.replace("\x1b[1m", "").replace("\x1b[0m", "")
    head = re.sub(r"<function (\w+) at 0x[0-9a-f]+>", r"\1", head)
    return f"{type(exc).__name__}: {head[:300]}"


def fresh_args(args, mutates):
    return copy.deepcopy(args) if mutates else args


def mutates_arguments(fn, args):
    """Does the NumPy original write into its arguments? (then every call gets copies)"""
    probe = copy.deepcopy(args)
    fn(*probe)
    return any(isinstance(a, np.ndarray) and not np.array_equal(a, b, equal_nan=True)
               for a, b in zip(probe, args))


def check_peers(kernel, fn, args, calls, problems, mutates, limit_s=None):
    """Run each peer once and compare with NumPy; returns {peer: seconds of that first
    call}. The peers were just built (empty caches), so this first call converts, stages
    and compiles; JAX's caches are cleared before npxla's and jax.jit's first calls.
    Failing peers move from `calls` to `problems`."""
    import jax
    args_np = fresh_args(args, True)
    t0 = time.perf_counter()
    expected = fn(*args_np)
    first = {"numpy": time.perf_counter() - t0}
    for peer in [p for p in calls if p != "numpy"]:
        try:
            if peer in ("npxla", "jax"):
                jax.clear_caches()
            a = fresh_args(args, True)
            t0 = time.perf_counter()
            with deadline(limit_s if peer == "torch" else None):
                got = calls[peer](*a)
            first[peer] = time.perf_counter() - t0
            diff = compare(expected, got, kernel.rtol, kernel.atol)
            if diff:
                problems[peer] = f"mismatch: {diff}"
        except FirstCallTimeout as e:
            problems[peer] = f"n/a: {e}"
            if peer == "torch":
                import torch._dynamo
                torch._dynamo.reset()
        except Exception as e:  # noqa: BLE001
            tag = "n/a" if peer in ("numba", "torch") and _is_rejection(peer, e) else "error"
            problems[peer] = f"{tag}: {describe(e)}"
        if peer in problems:
            del calls[peer]
            first.pop(peer, None)
    return first


def _is_rejection(peer, e):
    """A typing/lowering failure inside Numba or torch.compile (not a wrong result)."""
    import traceback
    frames = traceback.extract_tb(e.__traceback__) if e.__traceback__ else []
    return (type(e).__module__.startswith(peer) or "nopython" in str(e)
            or any(f"/{peer}/" in f.filename for f in frames[-3:]))


# --- timing ------------------------------------------------------------------------------

class Timed:
    """Calls `fn(*args)`; mutating kernels get a fresh copy per call (copied untimed)."""

    def __init__(self, fn, args, mutates):
        self.fn, self.args, self.mutates = fn, args, mutates

    def sample(self, number):
        argsets = [copy.deepcopy(self.args) for _ in range(number)] if self.mutates else \
            [self.args] * number
        fn = self.fn
        gc_was = gc.isenabled()
        gc.disable()
        try:
            t0 = time.perf_counter()
            for a in argsets:
                fn(*a)
            dt = time.perf_counter() - t0
        finally:
            if gc_was:
                gc.enable()
        return dt / number


def steady_state(calls, args, mutates, cfg, budget_s=None):
    """{peer: {"median_s", "min_s", "runs", "number"}} from interleaved rounds."""
    from npxla.runtime.xla import superset     # lazy, as each peer's import
    budget_s = cfg.budget_s if budget_s is None else budget_s
    timed = {p: Timed(f, args, mutates) for p, f in calls.items()}
    number = {}
    for p, t in timed.items():
        # npxla compiles a variant for unaligned arguments, on a thread of its own, from
        # the second call that brings them (`superset`), which may be the first call
        # here or the second (check_peers called with copies): three warm-up calls, the
        # builds they started finished, then the calibration, the fastest of three
        for _ in range(3):
            t.sample(1)
        superset.wait_for_variants()
        one = min(t.sample(1) for _ in range(3))
        number[p] = max(1, min(10_000, int(cfg.sample_s / max(one, 1e-7))))
    samples = {p: [] for p in timed}
    peers = list(timed)
    start, r = time.perf_counter(), 0
    while r < cfg.max_rounds and (r < cfg.min_rounds or time.perf_counter() - start < budget_s):
        order = peers[r % len(peers):] + peers[:r % len(peers)]
        for p in order:
            samples[p].append(timed[p].sample(number[p]))
        r += 1
    return {p: {"median_s": statistics.median(s), "min_s": min(s), "runs": len(s),
                "number": number[p]} for p, s in samples.items()}


def first_calls(kernel, fn, args, peers, reps):
    """{peer: [seconds of `reps` more first calls]}, each with new objects and emptied
    caches (see `check_peers`). Run after the steady-state timings: it leaves JAX's
    caches empty."""
    import jax
    out = {p: [] for p in peers}
    for _ in range(reps):
        for peer in peers:
            a = fresh_args(args, True)
            if peer == "numpy":
                f = fn
            elif peer == "npxla":
                jax.clear_caches()
                f = npxla_callable(fn, fresh=True)
            elif peer == "jax":
                jax.clear_caches()
                f = jax_callable(kernel)
            elif peer == "numba":
                f = numba_callable(fn)
            else:
                f = torch_callable(fn, fresh=True)
            t0 = time.perf_counter()
            f(*a)
            out[peer].append(time.perf_counter() - t0)
    return out


# --- the benchmarks ----------------------------------------------------------------------

def run_kernel(kernel, cfg, log=print, n=None, first=True, budget_s=None):
    """Check and time one kernel through every peer; returns a JSON-able record."""
    record = {"name": kernel.name, "family": kernel.family, "source": kernel.source,
              "note": kernel.note}
    try:
        fn = kernel.original()
        args = kernel.inputs(cfg.mode, n)
    except Exception as e:  # noqa: BLE001
        record["status"] = {p: f"error: {describe(e)}" for p in cfg.peers}
        return record
    record["n"] = kernel.sizes.get(cfg.mode) if n is None else n
    record["inputs"] = [_describe_arg(a) for a in args]
    mutates = mutates_arguments(fn, args)
    record["mutates"] = mutates
    with no_disk_cache(), x64():
        calls, problems = build_peers(kernel, fn, cfg.peers, fresh=True)
        first_times = check_peers(kernel, fn, args, calls, problems, mutates,
                                  cfg.first_call_limit_s)
        record["status"] = {p: problems.get(p, "ok") for p in cfg.peers}
        record["steady"] = steady_state(calls, args, mutates, cfg, budget_s)
        if first:
            again = [p for p in calls if first_times.get(p, 0) <= cfg.repeat_first_over_s]
            more = first_calls(kernel, fn, args, again, cfg.first_call_reps - 1)
            record["first_call_runs"] = {p: [t] + more.get(p, []) for p, t in
                                         first_times.items()}
            record["first_call"] = {p: statistics.median(v) for p, v in
                                    record["first_call_runs"].items()}
    _log_kernel(record, log)
    return record


def run_dispatch(cfg, log=print):
    """Per-call overhead on 4-element arrays, in microseconds."""
    rows = []
    with no_disk_cache(), x64():
        for kernel in K.DISPATCH:
            fn, args = kernel.fn, kernel.inputs(n=4)
            calls, problems = build_peers(kernel, fn, cfg.peers, fresh=True)
            check_peers(kernel, fn, args, calls, problems, False)
            if "jax" in calls:
                calls["jax_raw"] = jax_callable(kernel, raw=True)
                calls["jax_raw"](*args)
            timed = {p: Timed(f, args, False) for p, f in calls.items()}
            samples = {p: [] for p in timed}
            peers = list(timed)
            for r in range(cfg.dispatch_rounds):
                for p in peers[r % len(peers):] + peers[:r % len(peers)]:
                    samples[p].append(timed[p].sample(cfg.dispatch_calls))
            row = {"name": kernel.name, "doc": (fn.__doc__ or "").strip(),
                   "status": {p: problems.get(p, "ok") for p in cfg.peers},
                   "us": {p: statistics.median(s) * 1e6 for p, s in samples.items()},
                   "us_min": {p: min(s) * 1e6 for p, s in samples.items()}}
            rows.append(row)
            log(f"dispatch {kernel.name:14s} " + "  ".join(
                f"{p}={v:7.1f}us" for p, v in row["us"].items()))
    return rows


def _working(cfg, name, kernels):
    """`cfg` without the peers that failed on kernel `name` in the main run: a larger
    size only makes them fail more slowly (torch.compile unrolls Python loops, and at
    10^5 iterations its compile does not return)."""
    failed = {p for rec in kernels if rec.get("name") == name
              for p, status in (rec.get("status") or {}).items() if status != "ok"}
    return Config(**{**cfg.__dict__, "peers": tuple(p for p in cfg.peers
                                                    if p == "numpy" or p not in failed)})


def run_sweep(cfg, log=print, kernels=()):
    rows = []
    for name in K.SWEEP:
        kernel = K.BY_NAME[name]
        for n in K.SWEEP_SIZES[cfg.mode]:
            rec = run_kernel(kernel, _working(cfg, name, kernels), log=lambda *_: None, n=n,
                             first=False, budget_s=cfg.sweep_budget_s)
            rows.append({"name": name, "n": n, "status": rec.get("status"),
                         "steady": {p: v["median_s"] for p, v in rec.get("steady", {}).items()}})
            log(f"sweep {name:18s} n={n:>9d} " + "  ".join(
                f"{p}={v * 1e3:9.3f}ms" for p, v in rows[-1]["steady"].items()))
    return rows


def run_real_sweep(cfg, log=print, kernels=()):
    """Steady state of some real kernels over sizes 10^4 .. 10^8 elements."""
    rows = []
    sizes = R.SWEEP_QUICK if cfg.mode != "full" else R.SWEEP
    if cfg.mode == "smoke":
        sizes = {name: (400,) for name in R.SWEEP_QUICK}
    peers = tuple(p for p in cfg.peers if p != "torch") + (
        ("torch",) if "torch" in cfg.peers else ())
    for name, ns in sizes.items():
        kernel = R.BY_NAME[name]
        working = _working(cfg, name, kernels).peers
        for n in ns:
            sub = Config(**{**cfg.__dict__, "peers": tuple(p for p in peers if p in working),
                            "min_rounds": 3 if n >= 10**8 else cfg.min_rounds,
                            "max_rounds": 3 if n >= 10**8 else cfg.max_rounds})
            rec = run_kernel(kernel, sub, log=lambda *_: None, n=n, first=False,
                             budget_s=cfg.sweep_budget_s)
            rows.append({"name": name, "n": n, "status": rec.get("status"),
                         "inputs": rec.get("inputs"),
                         "steady": {p: v["median_s"] for p, v in rec.get("steady", {}).items()}})
            log(f"sweep {name:18s} n={n:>9d} " + "  ".join(
                f"{p}={v * 1e3:9.3f}ms" for p, v in rows[-1]["steady"].items()))
            gc.collect()
    return rows


def run_all(cfg, names=None, log=print, dispatch=True, sweep=True, suite="core"):
    results = {"kernels": [], "dispatch": [], "sweep": [], "suite": suite}
    if names is None and cfg.mode == "quick":
        names = {"core": K.QUICK, "real": R.QUICK, "loops": L.QUICK,
                 "all": K.QUICK + R.QUICK + L.QUICK}[suite]
    kernels = SUITES["all"] if names else SUITES[suite]
    for kernel in kernels:
        if names and kernel.name not in names:
            continue
        results["kernels"].append(run_kernel(kernel, cfg, log))
    if dispatch:
        results["dispatch"] = run_dispatch(cfg, log)
    if sweep:
        if suite in ("core", "all"):
            results["sweep"] = run_sweep(cfg, log, results["kernels"])
        if suite in ("real", "all"):
            results["sweep"] += run_real_sweep(cfg, log, results["kernels"])
    return results


# --- HLO for a kernel (what the worst kernels look like) ---------------------------------

def hlo_texts(kernel, mode="full"):
    """{"npxla.stablehlo", "npxla.hlo", "jax.stablehlo", "jax.hlo"}: the staged modules
    and XLA's optimised HLO for both compilers on the benchmark inputs."""
    import jax
    from npxla import jit
    ports = importlib.import_module(f"{__package__}.{kernel.ports}")
    fn, args = kernel.original(), kernel.inputs(mode)
    texts = {}
    with no_disk_cache(), x64():
        lowered = jit(fn).lower(*copy.deepcopy(args))
        texts["npxla.stablehlo"] = lowered.as_text()
        texts["npxla.hlo"] = lowered.as_text("hlo")
        jl = jax.jit(getattr(ports, kernel.name), static_argnums=kernel.jax_static).lower(*args)
        texts["jax.stablehlo"] = jl.as_text()
        texts["jax.hlo"] = jl.compile().as_text()
    return texts


# --- logging -----------------------------------------------------------------------------

def _describe_arg(a):
    if isinstance(a, np.ndarray):
        return f"{a.dtype}{list(a.shape)}"
    return repr(a)


def _log_kernel(rec, log):
    st = rec.get("steady", {})
    parts = [f"{p}={st[p]['median_s'] * 1e3:9.3f}ms" for p in PEERS if p in st]
    if "npxla" in st and "jax" in st:
        parts.append(f"npxla/jax={st['npxla']['median_s'] / st['jax']['median_s']:.2f}")
    bad = [f"{p}: {s}" for p, s in rec.get("status", {}).items() if s != "ok"]
    log(f"{rec['name']:20s} " + "  ".join(parts))
    for b in bad:
        log(f"{'':20s} ! {b[:240]}")


def geomean(values):
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")
