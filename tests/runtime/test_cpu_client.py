"""npxla's own synchronous CPU client (`devices.backend`): programs run on it, jax
Arrays of JAX's CPU client are read through their host views (on the fast path too),
and `NPXLA_CPU_CLIENT=jax` goes back to JAX's client."""

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import npxla
from npxla import jit
from npxla.runtime.driver import runpath
from npxla.runtime.xla import devices, resident


def affine(x):
    return x * 2.0 + 1.0


def total(x, y):
    return (x * y).sum()


def blend(x, y):
    return x * y + 1.0


def bump(u):
    u += 1.0


def _jax_cpu_client():
    from jax._src import xla_bridge
    return xla_bridge.get_backend("cpu")


def test_programs_run_on_npxla_s_own_cpu_client():
    device = devices.resolve("cpu")
    assert device.client is not _jax_cpu_client()
    assert device.id == jax.devices("cpu")[0].id
    out = jit(affine, output="device")(np.arange(5000.0))
    assert out.devices() == {device}
    np.testing.assert_array_equal(npxla.to_numpy(out), affine(np.arange(5000.0)))


def test_the_environment_variable_selects_jax_s_client():
    code = ("import numpy as np, npxla\n"
            "from jax._src import xla_bridge\n"
            "from npxla.runtime.xla import devices\n"
            "d = devices.resolve('cpu')\n"
            "assert d.client is xla_bridge.get_backend('cpu')\n"
            "f = npxla.jit(lambda x: x * 2.0 + 1.0)\n"
            "assert (f(np.arange(5000.0)) == np.arange(5000.0) * 2 + 1).all()\n"
            "print('ok')\n")
    env = dict(os.environ, NPXLA_CPU_CLIENT="jax", NPXLA_CACHE_DIR="off",
               TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.stdout.strip() == "ok", out.stderr[-2000:]


@pytest.fixture
def general_runs(monkeypatch):
    """How many calls went down the general path (the fast path never calls `run`)."""
    count = [0]
    original = runpath.run

    def counting(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)
    monkeypatch.setattr(runpath, "run", counting)
    return count


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_jax_arrays_of_jax_s_client_take_the_fast_path(dtype, general_runs):
    with jax.enable_x64(True):
        x = jnp.asarray(np.arange(3000).astype(dtype))
        y = jnp.asarray(np.linspace(-1, 1, 3000).astype(dtype))
    assert next(iter(x.devices())).client is _jax_cpu_client()
    f = jit(total)
    want = total(np.asarray(x), np.asarray(y))
    for _ in range(4):
        got = f(x, y)
        assert got == want and np.asarray(got).dtype == want.dtype
    assert general_runs[0] <= 2          # the first calls build and install the runner
    np.testing.assert_array_equal(np.asarray(x), np.arange(3000).astype(dtype))


def test_a_mix_of_numpy_and_jax_arguments(general_runs):
    x = np.linspace(0.0, 1.0, 2000)
    with jax.enable_x64(True):
        y = jnp.asarray(np.cos(x))
    f = jit(blend)
    for _ in range(3):
        np.testing.assert_array_equal(f(x, y), blend(x, np.asarray(y)))
    assert general_runs[0] <= 2


def test_a_device_array_over_a_jax_array_is_updated_in_a_copy():
    with jax.enable_x64(True):
        x = jnp.arange(6.0)
    d = npxla.asarray(x)
    assert d.value is x                  # the same host memory: shared, not copied
    jit(bump)(d)
    jit(bump)(d)
    np.testing.assert_array_equal(npxla.to_numpy(d), np.arange(6.0) + 2)
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0))   # JAX's stays intact
    assert d.device == devices.resolve("cpu")


def test_host_memory_is_one_cpu_device():
    with jax.enable_x64(True):
        x = jnp.arange(3.0)
    assert resident.host_memory(x)
    assert devices.same_memory(next(iter(x.devices())), devices.resolve("cpu"))
    assert not resident.host_memory(np.arange(3.0))
