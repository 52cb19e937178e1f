import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# The persistent compile cache is tested on its own (tests/runtime/test_disk_cache.py);
# elsewhere every test compiles afresh, whatever the user's cache holds.
os.environ.setdefault("NPXLA_CACHE_DIR", "off")
# The device every test compiles for: the CPU, even where a GPU is present (the default
# run is the same everywhere), unless NPXLA_TEST_DEVICE names another one, e.g.
# `NPXLA_TEST_DEVICE=gpu python -m pytest tests/runtime` runs the differential suite
# (and every other jit call) on the GPU. Set through NPXLA_DEVICE, which `jit` reads;
# subprocesses started by tests inherit it.
if os.environ.get("PYTEST_XDIST_WORKER"):
    # one XLA:CPU thread per test worker: the workers already fill the cores
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                       "intra_op_parallelism_threads=1")
TEST_DEVICE = os.environ.get("NPXLA_TEST_DEVICE", "").strip() or "cpu"
os.environ["NPXLA_DEVICE"] = TEST_DEVICE


def pytest_configure(config):
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
