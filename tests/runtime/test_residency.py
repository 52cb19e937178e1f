"""Data that stays on the device (issue 15, item 3): DeviceArrays (`npxla.asarray`) and
jax Arrays as arguments, in-place updates of device-resident arguments, and the
refusal to update an immutable jax Array, each checked against NumPy on the fast
(C++ dispatch) and the Python call paths."""

import contextlib
import os
import subprocess
import sys
import textwrap
import time

import jax
import numpy as np
import pytest

import npxla
from npxla import TranspileError, jit
from npxla.runtime.xla import resident, transfer

PATHS = ("python", "fast")


# --- functions under test (module level: jit reads their source) ---------------------------
def heat(u):
    u[1:-1] += 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])


def heat_total(u):
    u[1:-1] += 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u.sum()


def scale_all(u, k):
    u *= k
    return u[0]


def poke(u, i):
    u[2] = -1
    u[i] = 7
    return u


def mixed(a, b):
    a[3:5] = b[:2]
    b += a[0]
    return a.dtype.type(2) * a


def axpy(a, b):
    return 2 * a + b


def bump_read(a, b):
    a += 1
    return b.sum()


def take(u, i):
    u[0] = 1
    return u[i]


# --- helpers ------------------------------------------------------------------------------
def _call(f, args, path, fast=True):
    """f(*args) on the requested call path: "fast" after a warm-up call on copies has
    installed the C++ dispatch entry (and with the Python path made to fail), "python"
    with the fast entries cleared. `fast=False`: a call the fast path must not take."""
    if path == "python" or not fast:
        f._fast.clear()
        out = f(*args)
        assert fast or not f._fast
        return out
    if path != "fast_warm":        # "fast_warm": the caller has warmed it up
        f(*[a.copy() if isinstance(a, (np.ndarray, resident.DeviceArray)) else a
            for a in args])
    assert f._fast, "the fast path took no entry"
    saved = f._call
    f._call = _not_python
    try:
        return f(*args)
    finally:
        f._call = saved


def _not_python(*args, **kwargs):
    raise AssertionError("the call left the fast path")


def _same(got, want):
    """npxla's value equals NumPy's: values, dtype, shape."""
    got = npxla.to_numpy(got) if isinstance(got, (resident.DeviceArray, jax.Array)) else got
    assert type(np.asarray(got)) is np.ndarray
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)


@contextlib.contextmanager
def no_host_trip():
    """Fails the test if a jax Array argument is read into host memory on its way in,
    or moved with device_put (it is on the program's device already)."""
    host, put = transfer._host, jax.device_put

    def guarded_host(value, dtype):
        assert not resident.is_jax_array(value), "device data went through the host"
        return host(value, dtype)

    def no_put(x, *args, **kwargs):
        assert not resident.is_jax_array(x), "device data was moved, but it was in place"
        return put(x, *args, **kwargs)
    upload = transfer.Uploader.__call__

    def same_buffers(self, values):          # the parameter is the caller's buffer
        out = upload(self, values)
        for v, b in zip(values, out):
            assert not resident.is_jax_array(v) or b is v, "device data was copied"
        return out
    before = resident.host_reads()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(transfer, "_host", guarded_host)
        m.setattr(jax, "device_put", no_put)
        m.setattr(transfer.Uploader, "__call__", same_buffers)
        yield
    assert resident.host_reads() == before


# --- moving data explicitly -----------------------------------------------------------------
@pytest.mark.parametrize("value", [np.arange(6.0).reshape(2, 3), np.arange(5, dtype=np.int32),
                                   np.array([True, False]), np.array(2.5),
                                   np.array([1 + 2j]), np.ones(3, np.float32)])
def test_asarray_and_to_numpy_round_trip(value):
    d = npxla.asarray(value)
    assert isinstance(d, npxla.DeviceArray)
    assert (d.shape, d.dtype, d.ndim, d.size) == (value.shape, value.dtype, value.ndim,
                                                  value.size)
    assert d.device == jit(axpy).device
    back = npxla.to_numpy(d)
    assert type(back) is np.ndarray and back.flags.writeable
    _same(back, value)
    value_copy = value.copy()
    value[...] = 0                             # asarray copied: later changes stay out
    _same(np.asarray(d), value_copy)
    assert npxla.asarray(d) is d               # like np.asarray of an ndarray
    assert npxla.to_numpy(value) is value      # NumPy passes through


def test_asarray_of_a_jax_array_shares_it_until_an_update():
    base = np.arange(4, dtype=np.float32)      # jax's default dtype outside x64
    x = jax.device_put(base)
    d = npxla.asarray(x)
    assert d.value is x
    jit(scale_all)(d, 3.0)
    _same(d, base * 3)
    _same(x, base)                             # the user's immutable array is intact
    snapshot = d.value                         # handed out: not consumed by later calls
    jit(scale_all)(d, 2.0)
    _same(snapshot, base * 3)
    _same(d, base * 6)


def test_to_numpy_of_results_and_other_values():
    out = jit(axpy, output="device")(np.ones(3), np.ones(3))
    back = npxla.to_numpy(out)
    assert type(back) is np.ndarray and back.flags.writeable
    _same(back, np.full(3, 3.0))
    _same(npxla.to_numpy([1, 2]), np.array([1, 2]))


def test_import_npxla_does_not_import_jax():
    out = subprocess.run([sys.executable, "-c", "import sys, npxla; npxla.__all__; "
                          "print('jax' in sys.modules, callable(npxla.to_numpy))"],
                         capture_output=True, text=True, env=_env())
    assert out.stdout.split() == ["False", "True"], out.stderr


# --- device arrays in and out ---------------------------------------------------------------
@pytest.mark.parametrize("path", PATHS)
def test_device_arguments_go_in_without_a_host_trip(path):
    a, b = np.arange(5.0), np.linspace(0, 1, 5)
    da = npxla.asarray(a)
    x = jit(axpy, output="device")(a, b)                    # a jax Array result
    for f in (jit(axpy), jit(axpy, output="device")):
        if path == "fast":
            _call(f, (da.copy(), b), path)                   # warm-ups, outside the check
            _call(f, (x, da.copy()), path)
        with no_host_trip():
            got1 = _call(f, (da, b), "fast_warm" if path == "fast" else path)
            got2 = _call(f, (x, da), "fast_warm" if path == "fast" else path)
        _same(got1, axpy(a, b))                              # mixed NumPy and device
        _same(got2, axpy(axpy(a, b), a))                     # a result fed back
    with no_host_trip():
        out = jit(axpy, output="device")(da, x)
    assert isinstance(out, jax.Array) and out.devices() == x.devices()
    _same(da, a)


@pytest.mark.parametrize("path", PATHS)
def test_result_kinds_from_device_arguments(path):
    u = np.linspace(0, 1, 9)
    total = _call(jit(heat_total), (npxla.asarray(u), ), path)
    want = heat_total(u.copy())
    assert type(total) is type(want)
    _same(total, want)
    d = npxla.asarray(u)
    first = _call(jit(scale_all), (d, 2), path)
    assert type(first) is type(scale_all(u.copy(), 2))


# --- in-place updates of device-resident arguments ------------------------------------------
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("n", [12, 10000])     # 10000: the region write-back's size
def test_region_update_is_seen_by_the_caller(path, n):
    u = np.sin(np.linspace(0, 3, n))
    d = npxla.asarray(u)
    assert _call(jit(heat), (d,), path) is None
    want = u.copy()
    heat(want)
    _same(d, want)


@pytest.mark.parametrize("path", PATHS)
def test_whole_update_and_result(path):
    u = np.arange(1, 7, dtype=np.int64)
    d = npxla.asarray(u)
    got = _call(jit(scale_all), (d, 3), path)
    want_u = u.copy()
    want = scale_all(want_u, 3)
    _same(got, want)
    _same(d, want_u)
    assert d.dtype == np.int64


@pytest.mark.parametrize("path", PATHS)
def test_mixed_numpy_and_device_updates(path):
    a, b = np.arange(8.0), np.array([10.0, 20.0, 30.0])
    for a_dev, b_dev in ((True, False), (False, True), (True, True)):
        a1, b1 = a.copy(), b.copy()
        args = (npxla.asarray(a1) if a_dev else a1, npxla.asarray(b1) if b_dev else b1)
        got = _call(jit(mixed), args, path, fast=a_dev and b_dev)   # NumPy writes: Python
        a2, b2 = a.copy(), b.copy()
        _same(got, mixed(a2, b2))
        _same(args[0], a2)
        _same(args[1], b2)


def test_the_same_device_array_passed_twice_is_one_array():
    for path in PATHS:
        a = np.arange(4.0)
        d = npxla.asarray(a)
        f = jit(bump_read)
        if path == "fast":      # an entry for two arrays exists: this call must not use it
            f(npxla.asarray(a), npxla.asarray(a))
        got = f(d, d)
        want = bump_read(a, a)
        _same(got, want)
        _same(d, a)


def test_an_update_writes_into_the_buffer_it_consumes():
    d = npxla.asarray(np.linspace(0, 1, 64))
    f = jit(heat)
    f(d)            # (the CPU client copies a buffer that came from host memory once)
    pointer = d._value.unsafe_buffer_pointer()
    for _ in range(3):                         # Python path, then the fast path
        f(d)
        assert d._value.unsafe_buffer_pointer() == pointer
    f._fast.clear()
    f(d)
    assert d._value.unsafe_buffer_pointer() == pointer
    held = d.value                             # handed out: the next update copies
    f(d)
    assert d._value.unsafe_buffer_pointer() != pointer
    assert held.unsafe_buffer_pointer() == pointer and not held.is_deleted()


def test_a_failed_check_leaves_the_state_unchanged(path="python"):
    u = np.arange(6.0)
    d = npxla.asarray(u)
    f = jit(poke)
    _same(_call(f, (d, 4), path, fast=False), poke(u.copy(), 4))   # checks: Python
    before = npxla.to_numpy(d)
    with pytest.raises(IndexError):
        f(d, 40)
    with pytest.raises(IndexError):
        poke(u.copy(), 40)
    _same(d, before)
    f(d, 1)                                    # and it still works afterwards
    want = before.copy()
    poke(want, 1)
    _same(d, want)


def test_a_failed_check_of_a_read_leaves_a_numpy_argument_and_device_state_alone():
    d, a = npxla.asarray(np.arange(3.0)), np.arange(3.0)
    for x in (d, a):
        with pytest.raises(IndexError):
            jit(take)(x, 5)
    _same(d, np.arange(3.0))
    _same(a, np.arange(3.0))


# --- the refusal ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", PATHS)
def test_updating_a_jax_array_is_refused_with_the_fix(path):
    x = jit(axpy, output="device")(np.ones(5), np.zeros(5))
    f = jit(heat)
    if path == "fast":
        f(npxla.asarray(np.ones(5)))
    with pytest.raises(TranspileError) as info:
        f(x)
    e = info.value
    assert "npxla.asarray(u)" in str(e) and "scalar" not in str(e)
    assert e.location is not None and e.location.file == __file__
    _same(x, np.full(5, 2.0))


# --- the time-stepping loop ---------------------------------------------------------------------
def test_ten_thousand_steps_never_move_the_state_to_the_host(monkeypatch):
    u0 = np.sin(np.linspace(0, np.pi, 32))
    state = npxla.asarray(u0)
    step = jit(heat)
    step(state)                                # compile
    host = transfer._host
    reads = resident.host_reads()

    def guarded_host(value, dtype):
        assert not resident.is_jax_array(value)
        return host(value, dtype)
    monkeypatch.setattr(transfer, "_host", guarded_host)
    pointer = state._value.unsafe_buffer_pointer()
    start = time.perf_counter()
    for _ in range(10_000):
        step(state)
    elapsed = time.perf_counter() - start
    assert resident.host_reads() == reads      # the state never went to the host
    assert state._value.unsafe_buffer_pointer() == pointer     # updated where it lives
    assert elapsed < 10, elapsed
    want = u0.copy()
    for _ in range(10_001):
        heat(want)
    np.testing.assert_allclose(npxla.to_numpy(state), want, rtol=1e-12)


# --- other devices, split programs (several simulated CPU devices: a subprocess) -------------
def _env():
    return dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", NPXLA_CACHE_DIR="off")


MULTI = textwrap.dedent('''
    import jax, numpy as np, npxla
    from npxla import jit
    from npxla.runtime.xla.devices import resolve
    from residency_cases import heat, axpy
    cpu0, cpu1 = resolve("cpu:0"), resolve("cpu:1")      # npxla's own CPU client
    assert (cpu0.id, cpu1.id) == (jax.devices()[0].id, jax.devices()[1].id)
    d1 = npxla.asarray(np.arange(6.0), device="cpu:1")
    assert d1.device == cpu1
    # an array on another device is moved there once per call, device to device
    out = jit(axpy, device="cpu:0", output="device")(d1, d1)
    assert out.devices() == {cpu0}
    assert np.allclose(npxla.to_numpy(out), 3 * np.arange(6.0))
    f = jit(heat, device="cpu:0")
    f(d1)
    want = np.arange(6.0); heat(want)
    assert np.allclose(npxla.to_numpy(d1), want) and d1.device == cpu0
    # a split program updates a DeviceArray: it takes the new array over the mesh
    g = jit(heat, shard={"u": 0})
    s = npxla.asarray(np.sin(np.arange(16.0)))
    g(s); g(s)
    want = np.sin(np.arange(16.0)); heat(want); heat(want)
    assert np.allclose(npxla.to_numpy(s), want)
    print("ok")
''')


def test_other_devices_and_split_programs(tmp_path):
    (tmp_path / "residency_cases.py").write_text(
        "import numpy as np\n\n\n" + _source(heat) + "\n\n" + _source(axpy))
    (tmp_path / "run.py").write_text(MULTI)
    env = _env()
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    env["NPXLA_DEVICE"] = "cpu"
    out = subprocess.run([sys.executable, str(tmp_path / "run.py")], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.stdout.strip().endswith("ok"), out.stderr[-3000:]


def _source(fn):
    import inspect
    return inspect.getsource(fn)
