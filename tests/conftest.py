import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import worker_crashes  # noqa: E402  (tests/ is on the path now)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# The persistent compile cache is tested on its own (tests/runtime/test_disk_cache.py);
# elsewhere every test compiles afresh, whatever the user's cache holds.
os.environ.setdefault("NPXLA_CACHE_DIR", "off")
# The device every test compiles for: the CPU, even where a GPU is present (the default
# run is the same everywhere), unless NPXLA_TEST_DEVICE names another one, e.g.
# `NPXLA_TEST_DEVICE=gpu python -m pytest tests/runtime` runs the differential suite
# (and every other jit call) on the GPU. Set through NPXLA_DEVICE, which `jit` reads;
# subprocesses started by tests inherit it.


def _with_xla_flags(*flags):
    """XLA_FLAGS plus each of `flags` whose option the user's XLA_FLAGS does not name."""
    given = os.environ.get("XLA_FLAGS", "")
    extra = [f for f in flags if f.split("=")[0] not in given]
    return " ".join([given] + extra).strip()


if os.environ.get("PYTEST_XDIST_WORKER"):
    # one XLA:CPU thread per test worker: the workers already fill the cores
    # (every entry a `--` flag: XLA stops reading XLA_FLAGS at the first that is not)
    os.environ["XLA_FLAGS"] = _with_xla_flags("--xla_cpu_multi_thread_eigen=false")
# Compile speed: XLA:CPU's LLVM IR emitters compile a test's small programs about twice
# as fast as its MLIR fusion emitters (the default, which users get: their kernels run
# faster, up to 3x on some of the benchmark suite). Each test compiles its own programs,
# so this halves the default run. NPXLA_TEST_XLA=product keeps XLA's defaults; CI runs
# the whole suite that way as well (.ci/run).
if os.environ.get("NPXLA_TEST_XLA", "").strip() != "product":
    os.environ["XLA_FLAGS"] = _with_xla_flags("--xla_cpu_use_fusion_emitters=false")
TEST_DEVICE = os.environ.get("NPXLA_TEST_DEVICE", "").strip() or "cpu"
os.environ["NPXLA_DEVICE"] = TEST_DEVICE


def pytest_configure(config):
    worker_crashes.configure(config)
    # Superset variants compile on the calling thread here: tests count on one being in
    # place by a given call. tests/runtime/test_superset_background.py runs them on a
    # thread of their own, as users get them.
    from npxla.runtime.xla import superset
    superset.BACKGROUND = False
    # The tests check programs against NumPy: a signature may not settle on running the
    # function as NumPy (`numpy_tier`), which would compare NumPy with itself from the
    # third call on. tests/runtime/test_numpy_tier.py turns it on.
    from npxla.runtime.driver import numpy_tier
    numpy_tier.ENABLED = False
    if TEST_DEVICE != "cpu":
        # lazy: JAX starts only for a run that asked for another device
        from npxla.runtime.xla.devices import DeviceNotFoundError, resolve
        try:
            resolve(TEST_DEVICE)
        except DeviceNotFoundError as e:
            raise pytest.UsageError(f"NPXLA_TEST_DEVICE={TEST_DEVICE}: {e}") from None


def _gpu_present():
    from npxla.runtime.xla.devices import local_devices  # lazy: starts JAX's backends
    return bool(local_devices("gpu"))


def pytest_collection_modifyitems(config, items):
    """Tests marked `gpu` are skipped, with the reason, where JAX has no GPU platform."""
    marked = [item for item in items if item.get_closest_marker("gpu")]
    if marked and not _gpu_present():
        skip = pytest.mark.skip(reason="no GPU platform (pip install 'npxla[cuda12]' on a "
                                       "machine with an NVIDIA GPU)")
        for item in marked:
            item.add_marker(skip)


# --- a worker killed by a signal: its test runs once more (tests/worker_crashes.py) ----


def pytest_sessionstart(session):
    worker_crashes.session_start()


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem, report, sched):
    return worker_crashes.handle_crash(crashitem, report, sched)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    worker_crashes.end_broken_worker(call)


def pytest_report_teststatus(report, config):
    return worker_crashes.report_status(report)


def pytest_terminal_summary(terminalreporter):
    worker_crashes.summary(terminalreporter)
