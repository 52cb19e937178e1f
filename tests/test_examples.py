"""Every program in examples/ compiles and matches NumPy at its small size.

examples/ is a folder of scripts, not a package: it goes on sys.path and each example is
imported by name. Each example module exposes `EXAMPLE` (an examples/_harness.Example).
"""
import importlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))

import _harness  # noqa: E402

NAMES = _harness.example_names(EXAMPLES)     # every examples/*.py but demo, kernels, _*


def test_the_required_examples_exist():
    required = {"nbody", "mandelbrot", "heat2d", "jacobi", "gauss_seidel", "kmeans",
                "power_iteration", "game_of_life", "floyd_warshall", "black_scholes",
                "horner", "cholesky", "levinson_durbin", "radial_profile", "csr_matvec"}
    assert required <= set(NAMES)


@pytest.mark.filterwarnings(   # lu_decomposition unrolls its loop, and says so
    "ignore::runtime.operators.loops.NpxlaPerformanceWarning")
@pytest.mark.parametrize("name", NAMES)
def test_example_matches_numpy(name):
    example = importlib.import_module(name).EXAMPLE
    assert example.fn.__wrapped__ is not example.fn       # a @jit function
    example.check("small")


def test_main_prints_check_and_timings(capsys):
    report = importlib.import_module("horner").EXAMPLE.main(["--size", "small",
                                                             "--budget", "0"])
    out = capsys.readouterr().out
    assert report["comparison"].ok and report["npxla"].runs >= 3
    for word in ("matches NumPy", "NumPy : first call", "npxla : first call", "speed-up"):
        assert word in out


def test_main_with_peers_prints_numba_and_jax_rows(capsys):
    report = importlib.import_module("csr_matvec").EXAMPLE.main(
        ["--peers", "--budget", "0", "--size", "small"])
    out = capsys.readouterr().out
    assert report["comparison"].ok and set(report["peers"]) == {"numba", "jax.jit"}
    jax_row = next(line for line in out.splitlines() if line.startswith("  jax.jit:"))
    assert report["peers"]["jax.jit"].status in jax_row
    numba_row = next(line for line in out.splitlines() if line.startswith("  numba :"))
    try:
        import numba  # noqa: F401
    except ImportError:
        assert "not installed" in numba_row
        pytest.skip("numba is not installed")
    numba_result = report["peers"]["numba"]
    assert numba_result.status == "ok" and numba_result.timing.runs >= 3
    assert "first call" in numba_row and "speed-up" in numba_row


def test_peer_statuses(monkeypatch):
    import _peers

    def missing(fn):
        raise ImportError("no such package")

    def wrong(fn):
        return lambda x: x + 1

    def raising(fn):
        def call(x):
            raise ValueError("cannot")
        return call

    monkeypatch.setattr(_peers, "_COMPILERS", {"missing": missing, "wrong": wrong,
                                               "raising": raising})
    monkeypatch.setattr(_peers, "PEERS", ("missing", "wrong", "raising"))

    def fn(x):
        return x * 2

    fn.__wrapped__ = fn
    example = _harness.Example(fn, lambda n, rng: (np.arange(n, dtype=float),),
                               sizes=dict.fromkeys(_harness.SIZES, 3))
    peers = example.report("small", budget=0, peers=True)["peers"]
    assert peers["missing"].status == "not installed"
    assert peers["wrong"].status == "differs" and peers["wrong"].timing is None
    assert peers["raising"].status == "fails: ValueError"
    assert "not installed" in _harness.format_report(example.report("small", 0, True))


def test_example_runs_as_a_script():
    env = dict(os.environ, NPXLA_CACHE_DIR="off", TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run([sys.executable, str(EXAMPLES / "horner.py"), "--size", "small",
                           "--budget", "0"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "matches NumPy" in done.stdout


def test_demo_kernels_match_numpy():
    demo = importlib.import_module("demo")
    for name, jitted, args in demo._cases():
        expected, got = (_harness._call(f, args)[0] for f in (jitted.__wrapped__, jitted))
        assert _harness.compare(expected, got, rtol=1e-9, atol=1e-9).ok, name


# --- the harness's comparison ---------------------------------------------------------

def test_compare_tolerances_and_exactness():
    a = np.array([1.0, 2.0, np.inf])
    assert _harness.compare(a, a + [1e-12, 0, 0], rtol=1e-9, atol=0).ok
    assert not _harness.compare(a, a + [1e-6, 0, 0], rtol=1e-9, atol=0).ok
    assert not _harness.compare(a, a + [1e-12, 0, 0], rtol=1e-9, atol=0, exact=True).ok
    ints = np.arange(4)
    assert not _harness.compare(ints, ints + [0, 0, 0, 1], rtol=1.0, atol=1.0).ok  # exact
    assert _harness.compare((ints, 2.0), (ints.copy(), 2.0), rtol=0, atol=0).ok


def test_compare_reports_shape_and_arity():
    c = _harness.compare(np.zeros(3), np.zeros(4), rtol=1e-9, atol=0)
    assert not c.ok and "shape" in c.detail
    assert not _harness.compare((1.0, 2.0), (1.0,), rtol=1e-9, atol=0).ok


def test_check_raises_with_the_example_name():
    def wrong(x):
        return x + 1

    wrong.__wrapped__ = lambda x: x
    example = _harness.Example(wrong, lambda n, rng: (np.arange(n),),
                               sizes=dict.fromkeys(_harness.SIZES, 3))
    with pytest.raises(AssertionError, match="wrong"):
        example.check("small")
