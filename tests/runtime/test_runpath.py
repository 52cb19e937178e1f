"""One run path (issue 38, item 6): every way of calling a compiled program (plain NumPy
arguments, DeviceArrays, split over devices, `f.lower(...).compile()`, the fast C++
dispatch path) finishes its run the same way (`driver.finish`): a failed run-time check
raises NumPy's exception before anything is written back, mutated arguments reach the
caller, bounded results come back trimmed. Also the options sharded functions share
with `jit` (donation, `cache=`, the logger and `cache_info()`)."""
import logging

import jax
import numpy as np
import pytest

import npxla
from npxla import jit
from npxla.runtime.driver import finish, runpath


def update_check_select(a, i):
    a[1:] += 1.0              # written back
    picked = a[i]             # a run-time bounds check (IndexError)
    return picked, a[a > 2.0]     # a bounded result: its length depends on the data


def reference(a, i):
    a = a.copy()
    return update_check_select(a, i), a


def _as_numpy(x):
    return npxla.to_numpy(x) if isinstance(x, (npxla.DeviceArray, jax.Array)) else x


def _call(path, a, i):
    """update_check_select(a, i) through one call path; returns (result, the argument
    as the caller sees it afterwards)."""
    if path == "numpy":
        return jit(update_check_select)(a, i), a
    if path == "device":
        d = npxla.asarray(a)
        return jit(update_check_select)(d, i), d
    if path == "sharded":
        return jit(update_check_select, shard={"a": 0}, device="cpu")(a, i), a
    if path == "lowered":
        f = jit(update_check_select)
        return f.lower(a.copy(), i).compile()(a, i), a
    if path == "read-only":          # a read-only argument: NumPy raises at the write
        a.flags.writeable = False
        return jit(update_check_select)(a, i), a
    raise AssertionError(path)


@pytest.mark.parametrize("path", ["numpy", "device", "sharded", "lowered"])
def test_write_back_check_and_bounded_result_on_every_path(path):
    base = np.linspace(0.0, 4.0, 9)
    (want_picked, want_sel), want_a = reference(base, 3)
    (picked, sel), a = _call(path, base.copy(), 3)
    assert picked == want_picked and type(picked) is type(want_picked)
    np.testing.assert_array_equal(sel, want_sel)
    assert type(sel) is np.ndarray and sel.flags.writeable
    np.testing.assert_array_equal(_as_numpy(a), want_a)
    # a failed check: NumPy's exception, and the argument is left as it was
    before = base.copy()
    with pytest.raises(IndexError):
        _call(path, before, 40)
    np.testing.assert_array_equal(before, base)


def test_a_read_only_argument_written_back_raises_and_is_untouched():
    a = np.linspace(0.0, 4.0, 9)
    with pytest.raises(ValueError, match="read-only"):
        _call("read-only", a, 3)
    np.testing.assert_array_equal(a, np.linspace(0.0, 4.0, 9))


def bump_all(u, v):
    u += 1.0
    return v * 2.0


def test_the_fast_path_finishes_like_the_general_path():
    f = jit(bump_all)
    d, v = npxla.asarray(np.arange(4.0)), np.ones(4)
    f(d, v)                                # general path: installs the fast runner
    assert f._fast
    saved = f._call
    f._call = lambda *a, **k: pytest.fail("the call left the fast path")
    try:
        out = f(d, v)
    finally:
        f._call = saved
    np.testing.assert_array_equal(out, np.full(4, 2.0))
    assert type(out) is np.ndarray and out.flags.writeable
    np.testing.assert_array_equal(npxla.to_numpy(d), np.arange(4.0) + 2.0)


def test_every_path_builds_results_with_one_finisher():
    """The Finisher reads outputs through one interface on one device and over a mesh."""
    one = jit(update_check_select)
    one(np.zeros(5), 1)
    entry = next(v.entry for vs in one._cache.values() for v in vs)
    assert isinstance(entry.finisher, finish.Finisher)
    split = jit(update_check_select, shard={"a": 0}, device="cpu")
    split(np.zeros(5), 1)
    sentry = next(v.entry for vs in split._cache.values() for v in vs)
    assert isinstance(sentry.finisher, finish.Finisher)
    assert runpath.run is not None


# --- sharded functions take jit's options ----------------------------------------------------
def axpy(a, x, y):
    return a * x + y


def bump(x, step):
    x += step
    return x.sum()


def test_sharded_donation_deletes_the_donated_device_arrays():
    f = jit(axpy, shard={"x": 0}, device="cpu", donate_argnums=1)
    host = np.arange(6.0)
    x, y = npxla.asarray(host), npxla.asarray(np.ones(6))
    np.testing.assert_array_equal(f(2.0, x, y), axpy(2.0, host, np.ones(6)))
    assert x.is_deleted() and not y.is_deleted()
    with pytest.raises(RuntimeError, match="donated to a call of axpy"):
        np.asarray(x)
    with jax.enable_x64(True):
        value = jax.device_put(host)
    g = jit(axpy, shard={"x": 0}, device="cpu", donate_argnames="x")
    np.testing.assert_array_equal(g(2.0, value, np.ones(6)), axpy(2.0, host, 1.0))
    assert value.is_deleted()
    z = np.arange(6.0)                        # a NumPy array is unaffected
    np.testing.assert_array_equal(f(2.0, z, np.ones(6)), axpy(2.0, host, 1.0))
    assert z.tolist() == host.tolist()


def test_sharded_donation_of_an_array_updated_in_place_keeps_it():
    f = jit(bump, shard={"x": 0}, device="cpu", donate_argnums=0)
    x = npxla.asarray(np.arange(4.0))
    assert float(f(x, 1.0)) == 10.0
    assert not x.is_deleted() and npxla.to_numpy(x).tolist() == [1.0, 2.0, 3.0, 4.0]


def test_sharded_options_are_checked_as_jits():
    with pytest.raises(ValueError, match="donate_argnums"):
        jit(axpy, shard={"x": 0}, donate_argnums=5)
    with pytest.raises(ValueError, match="both static and donated"):
        jit(axpy, shard={"x": 0}, static_argnums=0, donate_argnums=0)
    with pytest.raises(TypeError, match="cache must be"):
        jit(axpy, shard={"x": 0}, cache="yes")
    with pytest.raises(ValueError, match="never stored in the disk cache"):
        jit(axpy, shard={"x": 0}, cache=True)
    f = jit(axpy, shard={"x": 0}, device="cpu", cache=False)
    np.testing.assert_array_equal(f(1.0, np.ones(4), np.ones(4)), np.full(4, 2.0))
    assert f.cache_info().on_disk is None


def scaled(x, k):
    return x * k


def test_sharded_functions_log_and_record_their_builds(caplog):
    f = jit(scaled, shard={"x": 0}, device="cpu")
    f.clear_cache()
    with caplog.at_level(logging.DEBUG, logger="npxla"):
        f(np.ones(4), 2.0)
        f(np.ones(8), 2.0)
    messages = [r.getMessage() for r in caplog.records if r.name == "npxla"]
    assert any(m.startswith("compiled scaled(f64[4], float)") for m in messages)
    assert any(m.startswith("recompiling scaled(f64[8], float)") and "f64[4] -> f64[8]"
               in m for m in messages), messages
    info = f.cache_info()
    assert info.misses == 2 and [s.reason for s in info.signatures][0] == "first call"
    assert info.signatures[1].source == "compiled" and info.compile_seconds > 0
