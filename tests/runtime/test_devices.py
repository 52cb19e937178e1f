"""Choosing a device: every spelling, NPXLA_DEVICE, the errors, `npxla devices`, and the
differential suite on a GPU where there is one (marker `gpu`)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from differential import check

from npxla import jit
from npxla.runtime.driver.cli import main
from npxla.runtime.xla import devices
from npxla.runtime.xla.devices import DeviceNotFoundError, resolve

CPU0 = devices.local_devices("cpu")[0]
HAS_GPU = bool(devices.local_devices("gpu"))


def double(x):
    return x * 2


@pytest.mark.parametrize("spec", ["cpu", "CPU", "cpu:0", " cpu:0 ", CPU0])
def test_spellings_of_the_cpu(spec):
    assert resolve(spec) == CPU0


def test_npxla_device_is_the_default(monkeypatch):
    monkeypatch.setenv("NPXLA_DEVICE", "cpu:0")
    assert resolve(None) == CPU0
    monkeypatch.setenv("NPXLA_DEVICE", "")           # empty: the best platform
    assert resolve(None) == devices.local_devices(devices.available_platforms()[0])[0]
    monkeypatch.delenv("NPXLA_DEVICE")
    assert resolve(None).platform == devices.available_platforms()[0]


@pytest.mark.parametrize("spec,match", [
    ("cpu:5", r"device 'cpu:5' does not exist: cpu:0 to cpu:0 exist; available: .*cpu:0"),
    ("tpu9", r"unknown device 'tpu9': expected cpu, gpu, cuda, rocm or tpu, optionally "
             r"with :INDEX \(cuda:1\); available: .*cpu:0"),
    ("cuda:x", r"unknown device 'cuda:x'"),
    ("cuda:", r"unknown device 'cuda:'"),
])
def test_a_missing_device_names_the_devices_that_exist(spec, match):
    with pytest.raises(DeviceNotFoundError, match=match) as info:
        resolve(spec)
    assert isinstance(info.value, ValueError)


@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU")
@pytest.mark.parametrize("spec", ["gpu", "cuda:1", "rocm"])
def test_no_gpu_says_how_to_install_one(spec):
    with pytest.raises(DeviceNotFoundError, match=r"there is no gpu device; available: "
                       r"cpu:0 \(for NVIDIA GPUs: pip install 'npxla\[cuda12\]'\)"):
        resolve(spec)


def test_a_bad_npxla_device_is_named_in_the_error(monkeypatch):
    monkeypatch.setenv("NPXLA_DEVICE", "cpu:3")
    with pytest.raises(DeviceNotFoundError, match=r"'cpu:3' \(from the NPXLA_DEVICE "
                                                  r"environment variable\) does not exist"):
        resolve(None)
    with pytest.raises(DeviceNotFoundError, match="NPXLA_DEVICE"):
        jit(lambda x: x + 1)(np.ones(2))


def test_jit_with_a_missing_device_fails_at_the_first_call():
    f = jit(double, device="cpu:7")
    with pytest.raises(DeviceNotFoundError, match="available: .*cpu:0"):
        f(np.ones(2))


def test_npxla_devices_lists_name_kind_and_default(capsys, monkeypatch):
    monkeypatch.setenv("NPXLA_DEVICE", "cpu")
    assert main(["devices"]) == 0
    assert "cpu:0\tcpu\t(default)\n" in capsys.readouterr().out
    assert main(["devices", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    cpu = next(r for r in rows if r["name"] == "cpu:0")
    assert cpu == {"name": "cpu:0", "platform": "cpu", "index": 0, "id": CPU0.id,
                   "kind": CPU0.device_kind, "default": True}
    monkeypatch.setenv("NPXLA_DEVICE", "cpu:9")
    assert main(["devices"]) == 2
    out = capsys.readouterr()
    assert "cpu:0\tcpu\n" in out.out and "'cpu:9' (from the NPXLA_DEVICE" in out.err


SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    from npxla import jit
    from npxla.runtime.xla.devices import describe, resolve

    def double(x):
        return x * 2

    record = {"default": resolve(None).id, "explicit": resolve("cpu:1").id,
              "listing": describe()}
    try:
        y = jit(double, output="device")(np.ones(3))
        record["ran_on"] = list(y.devices())[0].id
    except Exception as e:
        record["ran_on"] = str(e).splitlines()[0]
    print(json.dumps(record))
""")


@pytest.fixture(scope="module")
def three_devices(tmp_path_factory):
    """A process with 3 CPU devices and NPXLA_DEVICE=cpu:2."""
    path = tmp_path_factory.mktemp("devices") / "several.py"
    path.write_text(SCRIPT)
    env = dict(os.environ, NPXLA_DEVICE="cpu:2", TF_CPP_MIN_LOG_LEVEL="3",
               XLA_FLAGS="--xla_force_host_platform_device_count=3")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_npxla_device_picks_one_of_several_devices(three_devices):
    assert three_devices["default"] == 2 and three_devices["explicit"] == 1
    cpu = [row for row in three_devices["listing"] if row.startswith("cpu:")]
    assert cpu == ["cpu:0\tcpu", "cpu:1\tcpu", "cpu:2\tcpu\t(default)"]


def test_a_program_runs_on_the_device_npxla_device_names(three_devices):
    assert three_devices["ran_on"] == 2


# --- on a GPU (skipped without one; NPXLA_TEST_DEVICE=gpu runs the whole suite there) ---
def power_iteration(a):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    change = 1.0
    while change > 1e-10:                   # data-dependent: a stablehlo.while
        w = a @ v
        w = w / np.linalg.norm(w)
        change = np.max(np.abs(w - v))
        v = w
    return v


def mixed(x, y):
    return np.sum(x @ y), np.exp(x).mean(axis=0), (x > 0).sum(), x.astype(np.float32) * 3


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_differential_on_the_gpu(dtype):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(64, 32)).astype(dtype), rng.normal(size=(32, 8)).astype(dtype)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-4)
    check(mixed, x, y, jit_kwargs={"device": "gpu"}, **tol)
    m = rng.normal(size=(16, 16))
    check(power_iteration, m @ m.T + 16 * np.eye(16), jit_kwargs={"device": "gpu"},
          rtol=1e-8, atol=1e-9)
    y = jit(double, device="gpu", output="device")(x)
    assert list(y.devices())[0].platform == "gpu"
