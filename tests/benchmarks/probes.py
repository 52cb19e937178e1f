"""Where the time goes under npxla for large inputs (issue 13's measurements).

    python -m tests.benchmarks.probes transfer        # 160 MB argument: 16- vs 64-byte
                                                      # aligned, np.copy, device_put
    python -m tests.benchmarks.probes chain           # (A @ x) @ A, 4000 x 5000
    python -m tests.benchmarks.probes breakdown [--only K ...]   # per real kernel:
        NumPy, npxla per call (default and 64-byte aligned arguments), the same executable
        on device-resident buffers (the computation alone), CPU time / wall time of that
        computation (threads in use), staging and XLA compile time
    python -m tests.benchmarks.probes all --json OUT.json

Run it twice, plain and under `taskset -c 0`, to see what the second core buys. Set
XLA_FLAGS (e.g. --xla_cpu_use_xnnpack=true) to try an XLA option; the JSON records it.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("NPXLA_CACHE_DIR", "off")

from tests.benchmarks import real_kernels as R  # noqa: E402


def aligned(a, align=64):
    """A copy of `a` whose data pointer is a multiple of `align` bytes."""
    buf = np.empty(a.nbytes + align, np.uint8)
    off = (-buf.ctypes.data) % align
    out = buf[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def misaligned16(a):
    """A copy of `a` whose data pointer is 16 mod 64 (what NumPy's allocator gives for
    large arrays here)."""
    buf = np.empty(a.nbytes + 128, np.uint8)
    off = (16 - buf.ctypes.data) % 64
    out = buf[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def timeit(fn, min_s=0.3, reps=7, warm=1):
    """Median seconds per call over `reps` samples of >= min_s / reps each."""
    for _ in range(warm):
        fn()
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    number = max(1, int(min_s / reps / max(one, 1e-7)))
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples)


def cpu_ratio(fn, calls=3):
    """CPU time of this process (all threads) / wall time over `calls` calls: ~1 when
    one core works, ~2 when both do."""
    fn()
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - c0) / (time.perf_counter() - w0)


def _x64():
    import jax
    return jax.enable_x64(True)


def _npxla_parts(fn, args):
    """(jitted, compiled, device buffers): npxla's own executable and its parameters
    placed on the device once."""
    from npxla import jit
    jf = jit(fn)
    lowered = jf.lower(*copy.deepcopy(args))
    compiled = lowered.compile()
    leaves = list(args)
    bufs = compiled.upload([leaves[i] for i in compiled.param_leaves])
    return jf, compiled, bufs


def transfer(log=print):
    import jax
    from npxla import jit
    out = {}
    base = np.random.default_rng(0).normal(size=(4000, 5000))      # 160 MB float64
    a16, a64 = misaligned16(base), aligned(base)
    out["numpy_default_alignment_mod64"] = int(base.ctypes.data % 64)
    out["np_copy_s"] = timeit(lambda: np.copy(base), reps=5)

    def first_element(a):
        return a[0, 0] + 1.0

    with _x64():
        for tag, arr in (("16", a16), ("64", a64)):
            dev = jax.device_put(arr)
            out[f"device_put_{tag}_zero_copy"] = bool(
                dev.unsafe_buffer_pointer() == arr.ctypes.data)
            del dev
            out[f"device_put_{tag}_s"] = timeit(
                lambda arr=arr: jax.block_until_ready(jax.device_put(arr)), reps=5)
        jf = jit(first_element)
        jx = jax.jit(first_element)
        for tag, arr in (("16", a16), ("64", a64)):
            out[f"npxla_first_element_{tag}_s"] = timeit(lambda arr=arr: jf(arr), reps=5)
            out[f"jax_first_element_{tag}_s"] = timeit(
                lambda arr=arr: np.asarray(jx(arr)), reps=5)
    out["numpy_first_element_s"] = timeit(lambda: first_element(base))
    for k, v in out.items():
        log(f"transfer {k:34s} {v * 1e3:10.3f} ms" if isinstance(v, float) and not
            isinstance(v, bool) else f"transfer {k:34s} {v}")
    return out


def chain(log=print):
    import jax
    rng = np.random.default_rng(0)
    A, xr = rng.normal(size=(4000, 5000)), rng.normal(size=5000)

    def f(A, x):
        return (A @ x) @ A
    # the quoted kernel: (A @ x) @ A with A 4000x5000 (x of length 5000)
    out = {"numpy_s": timeit(lambda: f(A, xr))}
    with _x64():
        jf, compiled, bufs = _npxla_parts(f, (A, xr))
        out["npxla_s"] = timeit(lambda: jf(A, xr))
        A64, x64 = aligned(A), aligned(xr)
        out["npxla_aligned64_s"] = timeit(lambda: jf(A64, x64))
        exe = compiled.executable
        out["npxla_exe_device_resident_s"] = timeit(
            lambda: jax.block_until_ready(exe.execute(bufs)))
        jx = jax.jit(f)
        dA, dx = jax.device_put(A), jax.device_put(xr)
        jax.block_until_ready(jx(dA, dx))
        out["jax_device_resident_s"] = timeit(lambda: jax.block_until_ready(jx(dA, dx)))
        out["jax_numpy_args_s"] = timeit(lambda: np.asarray(jx(A, xr)))
        out["npxla_exe_cpu_ratio"] = cpu_ratio(
            lambda: jax.block_until_ready(exe.execute(bufs)))
    out["numpy_cpu_ratio"] = cpu_ratio(lambda: f(A, xr))
    for k, v in out.items():
        log(f"chain {k:34s} " + (f"{v * 1e3:10.3f} ms" if k.endswith("_s") else f"{v:.2f}"))
    return out


def _alone(compiled, args):
    """One run of `compiled`'s executable on parameters placed once: a program that
    writes an argument back also takes the spare output buffers its write-back plan
    hands over (and takes back) on every call."""
    import jax
    bufs = compiled.upload([args[i] for i in compiled.param_leaves])
    exe, plan, device = compiled.executable, compiled._plan, compiled.device

    def run():
        outs = exe.execute(plan.donate(bufs, device) if plan is not None else bufs)
        jax.block_until_ready(outs)
        if plan is not None:
            plan.keep(outs, device)
    return run


def _resident(jf, args):
    """A call of `jf` on its array arguments held in device memory (`npxla.asarray`),
    waiting for the in-place updates: PJRT writes those into the donated buffer, where
    a NumPy argument gets its new value by one copy after the run."""
    import npxla
    held = [npxla.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    arrays = [a for a in held if isinstance(a, npxla.DeviceArray)]

    def run():
        jf(*held)
        for a in arrays:
            a.block_until_ready()
    return run


def breakdown(names=None, log=print):
    import jax
    from npxla import jit
    rows = []
    for kernel in R.REAL_KERNELS:
        if names and kernel.name not in names:
            continue
        fn, args = kernel.fn, kernel.inputs("full")
        row = {"name": kernel.name, "family": kernel.family}
        mutates = any(isinstance(a, np.ndarray) for a in args) and kernel.name in (
            "rank1_update",)
        # NumPy
        row["numpy_s"] = timeit(lambda: fn(*copy.deepcopy(args)) if mutates else fn(*args),
                                min_s=0.5, reps=5)
        if mutates:                      # the deepcopy is not the kernel's
            row["numpy_s"] -= timeit(lambda: copy.deepcopy(args), reps=5)
        row["numpy_cpu_ratio"] = cpu_ratio(lambda: fn(*args) if not mutates else
                                           fn(*copy.deepcopy(args)), calls=2)
        try:
            with _x64():
                from npxla.transpiler import conversion
                conversion._CACHE.clear()
                jax.clear_caches()
                t0 = time.perf_counter()
                jf = jit(fn)
                lowered = jf.lower(*copy.deepcopy(args))
                row["stage_s"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                compiled = lowered.compile()
                row["xla_compile_s"] = time.perf_counter() - t0
                row["hlo_instructions"] = lowered.as_text("hlo").count("\n")
                jf(*copy.deepcopy(args))
                a64 = [aligned(a) if isinstance(a, np.ndarray) else a for a in args]
                a16 = [misaligned16(a) if isinstance(a, np.ndarray) else a for a in args]
                row["npxla_s"] = timeit(lambda: jf(*a16), min_s=0.5, reps=5)
                row["npxla_aligned64_s"] = timeit(lambda: jf(*a64), min_s=0.5, reps=5)
                if mutates:     # the arrays in device memory (npxla.asarray): in place
                    row["npxla_resident_s"] = timeit(_resident(jf, args), min_s=0.5,
                                                     reps=5)
                alone = _alone(compiled, args)
                row["compute_alone_s"] = timeit(alone, min_s=0.5, reps=5)
                row["compute_cpu_ratio"] = cpu_ratio(alone, calls=3)
                row["arg_mb"] = sum(a.nbytes for a in args
                                    if isinstance(a, np.ndarray)) / 1e6
        except Exception as e:  # noqa: BLE001
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        rows.append(row)
        log("breakdown " + "  ".join(
            f"{k}={v * 1e3:.3f}ms" if k.endswith("_s") else f"{k}={v:.2f}"
            if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("transfer", "chain", "breakdown", "all"))
    p.add_argument("--only", nargs="+")
    p.add_argument("--json")
    ns = p.parse_args(argv)
    res = {"xla_flags": os.environ.get("XLA_FLAGS", ""),
           "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
           else None}
    if ns.what in ("transfer", "all"):
        res["transfer"] = transfer()
    if ns.what in ("chain", "all"):
        res["chain"] = chain()
    if ns.what in ("breakdown", "all"):
        res["breakdown"] = breakdown(ns.only)
    if ns.json:
        Path(ns.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
