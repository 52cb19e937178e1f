"""Time to first result in a fresh process, with a cold or a warm persistent cache.

    python -m tests.benchmarks.coldstart PEER KERNEL MODE CACHE_DIR

PEER is `npxla` (NPXLA_CACHE_DIR=CACHE_DIR) or `jax` (JAX's persistent compilation
cache in CACHE_DIR, every entry kept). Prints one JSON line (`second_call_s`: the next
call, i.e. the run alone): `import_s` (`import jax`,
the compiler's modules and the jit object: npxla would otherwise import JAX lazily in its
first call), `first_call_s` (the first call: backend start-up, then for npxla conversion +
staging + compile, or a disk-cache load, then the run; for JAX trace + compile or a
cache load, then the run) and `total_s` (from interpreter start to the first result).

`measure()` runs this script in subprocesses: a new cache directory, one cold run that
fills it, then warm runs that read it.
"""
from __future__ import annotations

import time

_T0 = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def child(peer, name, mode, cache_dir):
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import numpy as np
    from tests.benchmarks import kernels
    kernel = kernels.BY_NAME[name]
    args = kernel.inputs(mode)
    fn = kernel.original()
    t_import = time.perf_counter()
    if peer == "npxla":
        os.environ["NPXLA_CACHE_DIR"] = cache_dir
        import jax  # noqa: F401  (npxla imports it lazily; both peers pay it here)
        from npxla import jit
        call = jit(fn)
    else:
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_compilation_cache_dir", cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
        from tests.benchmarks import ports
        jf = jax.jit(getattr(ports, name), static_argnums=kernel.jax_static)

        def call(*a):
            return jax.tree.map(np.asarray, jf(*a))
    t_call = time.perf_counter()
    call(*args)
    t_done = time.perf_counter()
    call(*args)                       # the run alone, to split the first call
    t_second = time.perf_counter()
    print(json.dumps({"import_s": t_call - t_import, "first_call_s": t_done - t_call,
                      "total_s": t_done - _T0, "second_call_s": t_second - t_done}))


def run_child(peer, name, mode, cache_dir, timeout=600):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("NPXLA_CACHE_DIR", None)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tests.benchmarks.coldstart", peer, name,
                           mode, cache_dir], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{peer} {name}: exit {proc.returncode}: "
                           f"{proc.stderr.strip().splitlines()[-1:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = wall
    return out


def measure(names, mode, pairs=2, peers=("npxla", "jax"), log=print):
    """[{kernel, peer, cold: [...], warm: [...], ...medians}] over `pairs` fresh cache
    directories, each used for one cold then one warm process."""
    rows = []
    for name in names:
        for peer in peers:
            cold, warm = [], []
            for _ in range(pairs):
                d = tempfile.mkdtemp(prefix=f"npxla-bench-{peer}-")
                try:
                    cold.append(run_child(peer, name, mode, d))
                    warm.append(run_child(peer, name, mode, d))
                except Exception as e:  # noqa: BLE001
                    rows.append({"kernel": name, "peer": peer, "error": str(e)[:300]})
                    break
                finally:
                    shutil.rmtree(d, ignore_errors=True)
            else:
                row = {"kernel": name, "peer": peer, "cold": cold, "warm": warm}
                for r in cold + warm:
                    r["overhead_s"] = max(r["first_call_s"] - r["second_call_s"], 0.0)
                for key in ("first_call_s", "total_s", "process_s", "import_s",
                            "second_call_s", "overhead_s"):
                    row[f"cold_{key}"] = statistics.median(r[key] for r in cold)
                    row[f"warm_{key}"] = statistics.median(r[key] for r in warm)
                rows.append(row)
                log(f"fresh process {name:18s} {peer:6s} first call cold "
                    f"{row['cold_first_call_s'] * 1e3:8.1f} ms, warm "
                    f"{row['warm_first_call_s'] * 1e3:8.1f} ms "
                    f"({row['warm_first_call_s'] / row['cold_first_call_s']:.0%}); "
                    f"process cold {row['cold_process_s']:.2f} s, warm "
                    f"{row['warm_process_s']:.2f} s")
                continue
            log(f"fresh process {name:18s} {peer:6s} FAILED: {rows[-1]['error']}")
    return rows


if __name__ == "__main__":
    child(*sys.argv[1:5])
