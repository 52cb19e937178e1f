"""Run the benchmark suite and write its report.

    python -m tests.benchmarks.run            # full: ~20-30 min on 2 cores; updates
                                              # docs/benchmarks.md, docs/benchmarks.png and
                                              # tests/benchmarks/results.json
    python -m tests.benchmarks.run --quick    # smoke run (small sizes, few repeats), written
                                              # to $TMPDIR/npxla-bench-quick/ unless --out
    python tests/benchmarks/run.py --only jacobi newton_sqrt --no-coldstart
    python -m tests.benchmarks.run --hlo jacobi   # dump both compilers' modules for a kernel
    python -m tests.benchmarks.run --suite real --out /tmp/real   # the real-kernel classes
                                              # of issue 13 (~15 min; --quick: < 2 min)
    python -m tests.benchmarks.run --suite loops --out /tmp/loops   # the loop kernels
                                              # of issue 37 (loop_kernels.py)
    python -m tests.benchmarks.run --peers numpy npxla jax   # leave peers out

Needs the `bench` extra (`pip install -e .[bench]`: numba, matplotlib); without Numba the
Numba column reads n/a. torch.compile is a peer when `torch` is importable (a CPU build;
not part of any install requirement); otherwise its column reads n/a.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:                 # `python tests/benchmarks/run.py`
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from tests.benchmarks import coldstart, harness, kernels, report  # noqa: E402


def machine():
    info = {}
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        models = [ln.split(":", 1)[1].strip() for ln in cpuinfo.splitlines()
                  if ln.startswith("model name")]
        flags = next((ln for ln in cpuinfo.splitlines() if ln.startswith("flags")), "")
        simd = [f for f in ("avx512f", "avx2", "fma") if f" {f}" in flags]
        info["cpu"] = (models[0] if models else platform.processor()) + (
            f" ({', '.join(simd)})" if simd else "")
    except OSError:
        info["cpu"] = platform.processor()
    info["cores"] = f"{os.cpu_count()} logical CPUs"
    try:
        mem = next(ln for ln in Path("/proc/meminfo").read_text().splitlines()
                   if ln.startswith("MemTotal"))
        info["memory"] = f"{int(mem.split()[1]) / 2**20:.1f} GiB"
    except (OSError, StopIteration):
        pass
    info["platform"] = platform.platform()
    info["python"] = platform.python_version()
    import jax
    import jaxlib
    import numpy
    import npxla
    versions = [f"npxla {npxla.__version__}", f"numpy {numpy.__version__}",
                f"jax {jax.__version__}", f"jaxlib {jaxlib.__version__}"]
    try:
        import numba
        versions.append(f"numba {numba.__version__}")
    except ImportError:
        versions.append("numba not installed")
    try:
        import torch
        versions.append(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    except ImportError:
        versions.append("torch not installed")
    info["versions"] = ", ".join(versions)
    dev = jax.devices()[0]
    info["xla_device"] = f"{dev.platform}: {getattr(dev, 'device_kind', dev)}"
    return info


def load():
    try:
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv=None):
    parser = argparse.ArgumentParser(description="npxla benchmark suite")
    parser.add_argument("--quick", action="store_true", help="smoke run: small sizes, "
                        "few repeats (< 2 min)")
    parser.add_argument("--only", nargs="+", metavar="KERNEL", help="run these kernels only")
    parser.add_argument("--suite", choices=("core", "real", "loops", "all"), default="core",
                        help="core: the 26-kernel suite (default); real: the real-kernel "
                        "classes of real_kernels.py; loops: the loop kernels of "
                        "loop_kernels.py; all: the three")
    parser.add_argument("--peers", nargs="+", choices=harness.PEERS, help="the peers to "
                        "run (default: all; numpy is always run)")
    parser.add_argument("--out", help="directory for results.json, benchmarks.md and "
                        "benchmarks.png (default: docs/ + tests/benchmarks/results.json for "
                        "a full run, a temporary directory for --quick)")
    parser.add_argument("--no-coldstart", action="store_true")
    parser.add_argument("--no-dispatch", action="store_true")
    parser.add_argument("--no-sweep", action="store_true")
    parser.add_argument("--hlo", metavar="KERNEL", help="write the StableHLO and optimised "
                        "HLO of npxla and jax.jit for KERNEL to the output directory, and "
                        "stop")
    ns = parser.parse_args(argv)
    mode = "quick" if ns.quick else "full"
    cfg = harness.config(mode)
    if ns.peers:
        cfg.peers = tuple(p for p in harness.PEERS if p in set(ns.peers) | {"numpy"})
    if ns.only:
        unknown = set(ns.only) - set(harness.BY_NAME)
        if unknown:
            parser.error(f"unknown kernels: {sorted(unknown)}; known: "
                         f"{sorted(harness.BY_NAME)}")

    default_doc = (not ns.out and not ns.quick and not ns.only
                   and ns.suite not in ("real", "loops"))
    out = Path(ns.out) if ns.out else (ROOT / "docs" if default_doc else
                                       Path(tempfile.gettempdir()) / "npxla-bench-quick")
    out.mkdir(parents=True, exist_ok=True)

    if ns.hlo:
        for key, text in harness.hlo_texts(harness.BY_NAME[ns.hlo], mode).items():
            (out / f"{ns.hlo}.{key}.txt").write_text(text)
            print(f"wrote {out / f'{ns.hlo}.{key}.txt'} ({len(text.splitlines())} lines)")
        return 0

    t0 = time.perf_counter()
    command = "python -m tests.benchmarks.run" + (" " + " ".join(argv if argv is not None
                                                                 else sys.argv[1:])
                                                  if (argv or sys.argv[1:]) else "")
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "mode": mode,
            "command": command.strip(), **machine()}
    load_before = load()
    print(f"npxla benchmarks ({mode}) on {meta['cpu']}, {meta['cores']}; "
          f"{meta['versions']}", flush=True)
    results = harness.run_all(cfg, names=ns.only, log=lambda *a: print(*a, flush=True),
                              dispatch=not ns.no_dispatch and not ns.only
                              and ns.suite not in ("real", "loops"),
                              sweep=not ns.no_sweep and not ns.only, suite=ns.suite)
    if not ns.no_coldstart and not ns.only and ns.suite not in ("real", "loops"):
        results["coldstart"] = coldstart.measure(kernels.COLDSTART[mode], mode,
                                                 pairs=1 if ns.quick else 3,
                                                 log=lambda *a: print(*a, flush=True))
    meta["wall_s"] = time.perf_counter() - t0
    meta["load"] = (f"load average (1/5/15 min) {load_before} at start, {load()} at end "
                    "— a shared machine: peers are timed in interleaved rounds")
    results["meta"] = meta

    json_path = (ROOT / "tests" / "benchmarks" / "results.json") if default_doc else \
        out / "results.json"
    json_path.write_text(json.dumps(results, indent=1, default=str))
    doc, png = out / "benchmarks.md", out / "benchmarks.png"
    report.write_doc(doc, report.markdown(results, png.name))
    try:
        report.plot(results, png)
    except ImportError:
        print("matplotlib is not installed: no plot (pip install -e .[bench])")
    print(f"\nwrote {json_path}, {doc}, {png} in {meta['wall_s'] / 60:.1f} min")
    for target, measured, met in report.targets(results, report.kernel_rows(results)):
        print(f"  [{'met' if met else 'MISSED'}] {target}: {measured}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
