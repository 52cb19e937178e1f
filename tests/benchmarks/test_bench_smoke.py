"""Smoke test of the benchmark harness (the benchmarks themselves are not tests: run
`python -m tests.benchmarks.run [--quick]`). One kernel goes through every peer at a
tiny size; the report renders."""
import json
import os

import numpy as np
import pytest

from tests.benchmarks import harness, kernels, report


def test_the_suite_covers_every_family_with_a_jax_port():
    from tests.benchmarks import ports
    assert len(kernels.KERNELS) >= 15
    assert {k.family for k in kernels.KERNELS} == set(kernels.FAMILIES)
    assert sum(k.example is not None for k in kernels.KERNELS) >= 3
    for k in kernels.KERNELS + kernels.DISPATCH:
        assert callable(getattr(ports, k.name)), k.name
    assert set(kernels.SWEEP) <= set(kernels.BY_NAME)
    assert set(kernels.QUICK) <= set(kernels.BY_NAME)


def test_one_kernel_through_every_peer(tmp_path):
    import jax
    x64_before = jax.config.jax_enable_x64
    cache_before = os.environ.get("NPXLA_CACHE_DIR")
    # torch.compile takes seconds where it is installed: covered by `run --quick`, as
    # in the real-kernel smoke test below
    cfg = harness.config("smoke", peers=tuple(p for p in harness.PEERS if p != "torch"))
    rec = harness.run_kernel(kernels.BY_NAME["ew_chain"], cfg, log=lambda *a: None)
    assert rec["status"]["npxla"] == "ok"
    assert rec["status"]["jax"] == "ok"
    assert rec["status"]["numba"] == "ok" or "not installed" in rec["status"]["numba"]
    for peer in [p for p, s in rec["status"].items() if s == "ok"]:
        assert rec["steady"][peer]["median_s"] > 0
        assert rec["first_call"][peer] > 0
    # the harness leaves JAX's x64 flag and the disk-cache setting as it found them
    assert jax.config.jax_enable_x64 == x64_before
    assert os.environ.get("NPXLA_CACHE_DIR") == cache_before

    results = {"kernels": [rec], "meta": {"mode": "smoke"}}
    results = json.loads(json.dumps(results))          # what run.py writes
    md = report.markdown(results)
    assert "| `ew_chain` |" in md and "Targets" in md
    doc = tmp_path / "bench.md"
    report.write_doc(doc, md)
    report.write_doc(doc, md)                          # idempotent: replaces its block
    assert doc.read_text().count(report.BEGIN) == 1


def test_a_wrong_result_is_reported_not_timed():
    kernel = kernels.Kernel("ew_chain", "elementwise", lambda x: x + 1.0,
                            lambda n, rng: (np.ones(n),), {"smoke": 4})
    rec = harness.run_kernel(kernel, harness.config("smoke", peers=("numpy", "jax")),
                             log=lambda *a: None, first=False)
    assert rec["status"]["jax"].startswith("mismatch")
    assert "jax" not in rec["steady"]


def test_compare():
    assert harness.compare((np.ones(3), 2), (np.ones(3), 2.0), 1e-9, 0) is None
    assert "differ" in harness.compare(np.arange(3), np.arange(3) + 1, 1e-9, 0)
    assert "shape" in harness.compare(np.ones(3), np.ones(4), 1e-9, 0)


@pytest.mark.slow
def test_quick_run_writes_everything(tmp_path):
    from tests.benchmarks import run
    assert run.main(["--quick", "--out", str(tmp_path), "--only", "newton_sqrt"]) == 0
    assert (tmp_path / "results.json").exists() and (tmp_path / "benchmarks.md").exists()


def test_real_kernels_are_registered_with_ports_and_sizes():
    import importlib
    from tests.benchmarks import real_kernels
    assert len(real_kernels.REAL_KERNELS) >= 12
    assert {k.family for k in real_kernels.REAL_KERNELS} == set(real_kernels.FAMILIES)
    for k in real_kernels.REAL_KERNELS:
        ports = importlib.import_module(f"tests.benchmarks.{k.ports}")
        assert callable(getattr(ports, k.name)), k.name
        assert set(k.sizes) == {"smoke", "quick", "full"}, k.name
        assert harness.BY_NAME[k.name] is k
    assert not set(real_kernels.BY_NAME) & set(kernels.BY_NAME)
    assert set(real_kernels.SWEEP) <= set(real_kernels.BY_NAME)


def test_real_kernels_jax_ports_agree_with_numpy():
    """Every hand port gives NumPy's result at the smoke size (JAX only: fast)."""
    from tests.benchmarks import real_kernels
    cfg = harness.config("smoke", peers=("numpy", "jax"), min_rounds=1, max_rounds=1)
    for k in real_kernels.REAL_KERNELS:
        rec = harness.run_kernel(k, cfg, log=lambda *a: None, first=False)
        assert rec["status"]["jax"] == "ok", (k.name, rec["status"]["jax"])


def test_a_real_kernel_through_npxla_and_optional_peers():
    from tests.benchmarks import real_kernels
    peers = ("numpy", "npxla", "jax", "numba", "torch")
    if harness.torch_available():          # torch.compile takes seconds: covered by
        peers = peers[:-1]                 # `run --suite real --quick`
    cfg = harness.config("smoke", peers=peers)
    rec = harness.run_kernel(real_kernels.BY_NAME["gemv"], cfg, log=lambda *a: None)
    assert rec["status"]["npxla"] == "ok"
    assert rec["status"]["numba"] == "ok" or "not installed" in rec["status"]["numba"]
    if "torch" in peers:
        assert "not installed" in rec["status"]["torch"]
    md = report.markdown(json.loads(json.dumps({"kernels": [rec], "meta": {}})))
    assert "| `gemv` |" in md and "real kernels:" in md


def test_loop_kernels_are_registered_with_ports_and_sizes():
    from tests.benchmarks import loop_kernels, loop_ports, real_kernels
    assert len(loop_kernels.LOOP_KERNELS) >= 10
    assert {k.family for k in loop_kernels.LOOP_KERNELS} == set(loop_kernels.FAMILIES)
    for k in loop_kernels.LOOP_KERNELS:
        assert callable(getattr(loop_ports, k.name)), k.name
        assert set(k.sizes) == {"smoke", "quick", "full"}, k.name
        assert harness.BY_NAME[k.name] is k
    assert not set(loop_kernels.BY_NAME) & (set(kernels.BY_NAME) | set(real_kernels.BY_NAME))
    assert set(loop_kernels.QUICK) <= set(loop_kernels.BY_NAME)


def test_loop_kernels_under_npxla_match_numpy():
    """Every loop kernel, unmodified, under `npxla.jit` at the smoke size gives NumPy's
    result (the checksums are also zlib's)."""
    import copy
    import zlib

    from npxla import jit

    from tests.benchmarks import loop_kernels
    failures = []
    for k in loop_kernels.LOOP_KERNELS:
        args = k.inputs("smoke")
        expected = k.fn(*copy.deepcopy(args))
        if k.name in ("adler32", "crc32"):
            assert expected == getattr(zlib, k.name)(args[0].tobytes()), k.name
        try:
            got = jit(k.fn)(*copy.deepcopy(args))
            diff = harness.compare(expected, got, k.rtol, k.atol)
        except Exception as e:  # noqa: BLE001 - every kernel is tried, all failures listed
            diff = harness.describe(e)
        if diff:
            failures.append(f"{k.name}: {diff}")
    assert not failures, failures


def test_loop_kernels_jax_ports_agree_with_numpy():
    from tests.benchmarks import loop_kernels
    cfg = harness.config("smoke", peers=("numpy", "jax"), min_rounds=1, max_rounds=1)
    for k in loop_kernels.LOOP_KERNELS:
        rec = harness.run_kernel(k, cfg, log=lambda *a: None, first=False)
        assert rec["status"]["jax"] == "ok", (k.name, rec["status"]["jax"])
