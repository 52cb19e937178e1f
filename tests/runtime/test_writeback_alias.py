"""Mutated arguments come back as the regions that changed, through outputs XLA writes in
place (donated earlier outputs), and land in the caller's arrays with NumPy's semantics:
every view sees them, a failed check leaves the array untouched, repeated and concurrent
calls agree with NumPy. Also the PJRT facts the design rests on."""
import threading

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.xla import writeback
from npxla.runtime.xla.pool import POOL, BufferPool
from npxla.transpiler.base.errors import UnsupportedOperationError

N = 20_000          # 160 KB of float64: above the size where regions come back alone


@pytest.fixture
def small_spares(monkeypatch):
    """Spare (donated) outputs from 64 KiB on, so small arrays exercise them."""
    monkeypatch.setattr(writeback, "_SPARE_MIN_BYTES", 1 << 16)
    POOL.clear()
    yield
    POOL.clear()


def fresh(fn):
    """`jit(fn)` with no signature compiled yet (jit keeps one wrapper per function)."""
    f = jit(fn)
    f.clear_cache()
    return f


def entry(f):
    (variant,) = [v for vs in f._cache.values() for v in vs]
    return variant.entry


def stencil(a):
    a[1:-1] += 0.5 * (a[2:] - a[:-2])


def put_row(a, i, row):
    a[i] = row
    a[i, 0] = -1.0
    return a.sum()


def two_updates(a, b, i):
    a[1:-1] += 0.5 * (a[2:] - a[:-2])
    b *= 2.0
    a[i] = 7.0


def update_and_return(a):
    a[1:-1] += 1.0
    return a


def data(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).random(shape).astype(dtype)


# --- what PJRT's CPU client does (the reasons for the design) ------------------------
def _client_and_put():
    import jax
    import jax.extend
    from jax._src import core
    from jax._src.lib import xla_client as xc
    from jax.sharding import SingleDeviceSharding
    dev = jax.devices("cpu")[0]
    client = jax.extend.backend.get_backend("cpu")
    sh = SingleDeviceSharding(dev)

    def put(x):
        return xc.batched_device_put(core.ShapedArray(x.shape, x.dtype), sh, [x], [dev],
                                     True, False, enable_x64=True)

    def compile_(text):
        return client.compile_and_load(text, xc.DeviceList((dev,)), xc.CompileOptions())
    return compile_, put


_ALIASED = """
func.func public @main(%a: tensor<4096xf64> {tf.aliasing_output = 0 : i32})
    -> tensor<4096xf64> {
  %c = stablehlo.constant dense<3.0> : tensor<1xf64>
  %i = stablehlo.constant dense<5> : tensor<i64>
  %r = stablehlo.dynamic_update_slice %a, %c, %i
      : (tensor<4096xf64>, tensor<1xf64>, tensor<i64>) -> tensor<4096xf64>
  return %r : tensor<4096xf64>
}"""


def test_pjrt_cpu_never_writes_into_a_donated_numpy_array():
    from npxla.runtime.xla.transfer import aligned_empty
    compile_, put = _client_and_put()
    exe = compile_(_ALIASED)
    a = aligned_empty((4096,), np.dtype(np.float64))
    a[:] = 1.0
    buf = put(a)
    assert buf.unsafe_buffer_pointer() == a.ctypes.data      # zero-copy in
    out = exe.execute([buf])[0]
    assert buf.is_deleted()                                   # donated...
    assert out.unsafe_buffer_pointer() != a.ctypes.data       # ...but copied
    assert a[5] == 1.0 and np.asarray(out)[5] == 3.0


def test_pjrt_cpu_writes_a_donated_owned_buffer_in_place():
    compile_, put = _client_and_put()
    exe = compile_(_ALIASED)
    first = exe.execute([put(np.ones(4097)[1:])])[0]         # an output: owned
    pointer = first.unsafe_buffer_pointer()
    second = exe.execute([first])[0]
    assert second.unsafe_buffer_pointer() == pointer
    assert np.asarray(second)[5] == 3.0


# --- regions ------------------------------------------------------------------------
def test_only_the_changed_region_comes_back():
    f = fresh(stencil)
    a = data(N)
    expected = a.copy()
    f(a)
    stencil(expected)
    np.testing.assert_array_equal(a, expected)
    plan = entry(f)._plan
    assert plan.writeback == [] and plan.regions == [(0, 0, (1,))]
    assert f"f64[{N - 2}]" in f.lower(a).as_text("hlo").splitlines()[0]


def test_views_of_the_argument_see_the_update():
    base = data((4, N))
    row = base[1]                  # the argument is itself a view; more views of it
    every_other = row[::2]
    expected = base.copy()
    jit(stencil)(row)
    stencil(expected[1])
    np.testing.assert_array_equal(base, expected)
    np.testing.assert_array_equal(every_other, expected[1][::2])


@pytest.mark.parametrize("i", [3, -2, np.int32(5)])
def test_dynamic_regions_follow_numpy(i):
    f = fresh(put_row)
    a, row = data((40, 600)), data(600, 1)
    expected = a.copy()
    assert f(a, i, row) == pytest.approx(put_row(expected, i, row))
    np.testing.assert_array_equal(a, expected)
    assert [type(s) for _, _, s in entry(f)._plan.regions] == [int, int]


def test_a_failed_check_leaves_the_argument_untouched():
    f = fresh(put_row)
    a, row = data((40, 600)), data(600, 1)
    before = a.copy()
    with pytest.raises(IndexError):
        f(a, 40, row)
    np.testing.assert_array_equal(a, before)
    with pytest.raises(IndexError):
        put_row(before.copy(), 40, row)
    f(a, 39, row)                            # and the next call is right
    put_row(before, 39, row)
    np.testing.assert_array_equal(a, before)


def test_regions_and_whole_arrays_together_repeated(small_spares):
    f = fresh(two_updates)
    a, b = data(N), data(N, 1)
    ea, eb = a.copy(), b.copy()
    for i in (0, 5, -1, 5):
        f(a, b, i)
        two_updates(ea, eb, i)
        np.testing.assert_array_equal(a, ea)
        np.testing.assert_array_equal(b, eb)
    plan = entry(f)._plan
    assert len(plan.regions) == 2 and len(plan.writeback) == 1
    assert sorted(shape for _, shape, _ in plan.spares) == [(N - 2,), (N,)]  # not a[i]


def test_small_arrays_come_back_whole():
    f = fresh(stencil)
    a = data(100)
    expected = a.copy()
    f(a)
    stencil(expected)
    np.testing.assert_array_equal(a, expected)
    assert entry(f)._plan.regions == [] and entry(f)._plan.writeback == [(0, 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex128])
def test_dtypes(dtype):
    def bump(a):
        a[2:-3] += 1
        a[0] = a[-1]
    f = fresh(bump)
    a = (data(N) * 100).astype(dtype)
    expected = a.copy()
    f(a)
    bump(expected)
    np.testing.assert_array_equal(a, expected)
    assert a.dtype == dtype


# --- donated spare outputs ------------------------------------------------------------
def test_spares_are_reused_in_place(small_spares):
    f = fresh(stencil)
    a = data(N)
    expected = a.copy()
    f(a)
    stencil(expected)
    (k, shape, dtype), = entry(f)._plan.spares
    key = (("cpu", 0), shape, dtype)
    spare = POOL.take(key)
    pointer = spare.unsafe_buffer_pointer()
    POOL.give(key, spare, spare.nbytes)
    del spare
    f(a)
    stencil(expected)
    np.testing.assert_array_equal(a, expected)
    assert POOL.take(key).unsafe_buffer_pointer() == pointer


def update_and_copy(a):
    a[1:-1] += 1.0
    return a * 1.0


def test_results_never_share_memory_with_spares(small_spares):
    f = fresh(update_and_copy)
    a = data(N)
    expected = a.copy()
    first = f(a)
    kept = first.copy()
    second = f(a)
    np.testing.assert_array_equal(first, kept)          # the next call did not touch it
    assert not np.shares_memory(first, second)
    assert not np.shares_memory(first, a) and not np.shares_memory(second, a)
    update_and_copy(expected)
    np.testing.assert_array_equal(kept, expected)
    update_and_copy(expected)
    np.testing.assert_array_equal(second, expected)
    np.testing.assert_array_equal(a, expected)


def test_a_returned_argument_is_the_callers_array_after_the_write_back(small_spares):
    f = fresh(update_and_return)
    a = data(N)
    expected = a.copy()
    assert f(a) is a and f(a) is a                     # as NumPy returns it
    update_and_return(update_and_return(expected))
    np.testing.assert_array_equal(a, expected)


def test_the_pool_stays_under_its_cap():
    pool = BufferPool(cap=3 * 8 * 100)
    for j in range(5):
        pool.give(("d", (100,), "<f8"), j, 800)
    assert pool.held_bytes == 3 * 800
    assert [pool.take(("d", (100,), "<f8")) for _ in range(4)] == [4, 3, 2, None]


def test_one_pool_holds_spares_and_staging_buffers_under_one_cap():
    """Host staging buffers (lent, kept while lent) and device spares (taken, given
    back) share the pool's bytes; the least recently used key goes first."""
    pool = BufferPool(cap=3 * 800)
    lent = pool.lend(("host", 800), 800, lambda: np.empty(800, np.uint8))
    assert pool.lend(("host", 800), 800, lambda: np.empty(800, np.uint8)) is not lent
    pool.give(("d", (100,), "<f8"), "spare", 800)
    assert pool.held_bytes == 3 * 800
    address = lent.ctypes.data
    del lent
    again = pool.lend(("host", 800), 800, lambda: np.empty(800, np.uint8))
    assert again.ctypes.data == address             # free again: lent again
    pool.give(("d", (100,), "<f8"), "newer", 800)   # over the cap: the oldest goes
    assert pool.held_bytes <= 3 * 800
    assert pool.take(("d", (100,), "<f8")) == "newer"


def test_threads_calling_one_signature(small_spares):
    f = fresh(stencil)
    arrays = [data(N, s) for s in range(4)]
    expected = [x.copy() for x in arrays]
    errors = []

    def work(x):
        try:
            for _ in range(5):
                f(x)
        except Exception as e:          # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(x,)) for x in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for x, e in zip(arrays, expected):
        for _ in range(5):
            stencil(e)
        np.testing.assert_array_equal(x, e)


# --- arguments that share memory ---------------------------------------------------
def test_one_array_passed_twice(small_spares):
    def both(a, b):
        a[1:-1] += 1.0
        b[0] = a[1]
    a = data(N)
    expected = a.copy()
    jit(both)(a, a)
    both(expected, expected)
    np.testing.assert_array_equal(a, expected)


def test_overlapping_views_are_refused_before_writing():
    a = data(N)
    before = a.copy()
    with pytest.raises(UnsupportedOperationError):
        jit(two_updates)(a, a[1:], 0)
    np.testing.assert_array_equal(a, before)


def test_read_only_argument_raises_like_numpy():
    a = data(N)
    a.flags.writeable = False
    with pytest.raises(ValueError):
        stencil(a)
    with pytest.raises(ValueError):
        jit(stencil)(a)


def test_misaligned_argument_updated_in_place():
    raw = np.empty(N * 8 + 64, np.uint8)
    start = (16 - raw.ctypes.data) % 64
    a = raw[start:start + N * 8].view(np.float64)
    a[:] = data(N)
    expected = a.copy()
    jit(stencil)(a)
    stencil(expected)
    np.testing.assert_array_equal(a, expected)


# --- the disk cache keeps what the plan needs ------------------------------------------
def test_plan_survives_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NPXLA_CACHE_DIR", str(tmp_path / "cache"))
    a, row = data((40, 600)), data(600, 1)
    expected = a.copy()
    jit(put_row)(a, 3, row)
    put_row(expected, 3, row)
    g = fresh(put_row)                                  # a fresh function: loads from disk
    assert g(a, -5, row) == pytest.approx(put_row(expected, -5, row))
    np.testing.assert_array_equal(a, expected)
    assert entry(g)._plan.regions and entry(g)._exe is not None
