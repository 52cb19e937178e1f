"""Host <-> device transfers on the per-call path.

`jax.device_put` costs ~35 µs per array here; jaxlib's `batched_device_put` with a
precomputed aval and sharding costs ~5 µs. It is a JAX-internal entry point, so it is
isolated here and falls back to `jax.device_put` if its signature changes. A jax Array
argument is never read back to the host: on the program's device it is the parameter
itself, elsewhere it is moved device to device (`Uploader.on_device`).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.lowering.host_pool import HOST_POOL, HOST_THREADS
from npxla.runtime.xla.addresses import data_address
from npxla.runtime.xla.pool import POOL
from npxla.runtime.xla.resident import place


class Uploader:
    """Per-signature uploader: avals and the sharding are built once."""

    def __init__(self, avals, device):
        import jax
        from jax.sharding import SingleDeviceSharding
        self.device = device
        self.sharding = SingleDeviceSharding(device)
        try:
            from jax._src import core
            from jax._src.lib import xla_client as xc
            self._put = xc.batched_device_put
            self._avals = [core.ShapedArray(tuple(s), np.dtype(d)) for s, d in avals]
            self._dtypes = [np.dtype(d) for _, d in avals]
            self._fast = True
        except Exception:  # pragma: no cover - depends on jaxlib internals
            self._fast = False
        self._jax = jax

    def __call__(self, values):
        if self._fast:
            try:
                put, sh, dev = self._put, self.sharding, [self.device]
                return [put(a, sh, [_host(v, d)], dev, True, False, enable_x64=True)
                        if type(v) is np.ndarray or not _on_device(v) else
                        self.on_device(v, d)
                        for a, v, d in zip(self._avals, values, self._dtypes)]
            except Exception:  # pragma: no cover
                self._fast = False
        values = [self.on_device(v, np.dtype(v.dtype)) if _on_device(v) else v
                  for v in values]
        with self._jax.enable_x64(True):
            return self._jax.device_put(values, self.device)

    def on_device(self, value, dtype):
        """A jax Array argument as the program's parameter: itself when it lives whole
        on the program's device with the parameter's dtype (no transfer at all), else
        moved there by one explicit device-to-device `device_put` (never through
        host memory)."""
        if value.sharding == self.sharding and value.dtype == dtype:
            return value
        moved = place(value, self.sharding)
        with self._jax.enable_x64(True):
            return moved if moved.dtype == dtype else moved.astype(dtype)


# XLA's CPU client uses a NumPy array's memory in place only when its data pointer is
# 64-byte aligned (and the layout row-major); otherwise PJRT copies it. NumPy's own
# allocations are 16-byte aligned. PJRT's copy runs on the thread that then runs the
# program, so up to a few MB it leaves the data hot in that core's cache, and it beats
# ours (a `sum` of an unaligned argument, medians here: 1 MB 277-362 µs against 396-436
# copied by us first, 8 MB 1.1-1.6 ms against 1.3-2.0; `power_iteration` at 300 x 300,
# 720 KB read 39 times: 0.67-0.79 ms against 0.85-0.96). Somewhere past 16 MB it falls
# off a cliff (32 MB 6.7-10.4 ms against 4.7; 64 MB 51-55 ms against 9.2; 160 MB ~5x
# memcpy's time). So from `_ALIGN_MIN_BYTES` on, large arrays are copied once by us,
# on every core, into a reused aligned buffer that XLA then uses in place (or, where
# the program reads them in place, passed as their aligned superset: see `superset`).
# Those timings were taken under JAX's asynchronous client; under npxla's own
# synchronous one (`devices`) PJRT's copy loses from about 1 MB on. Unaligned float64
# arguments, medians per call, PJRT's copy against ours: `x.mean()` of 150,000 377 ->
# 198 µs, of 400,000 844 -> 290-340 µs; five statistics of the same array 594 -> 373-424
# and 1231 -> 654 µs. Below 1 MB it was a wash or a loss (70,000: 385 -> 511 µs).
_ALIGN = 64
_ALIGN_MIN_BYTES = 1 << 20


def may_realign(value):
    """Whether `aligned` may copy an array of `value`'s size (the fast path only passes
    such arguments through it)."""
    return type(value) is np.ndarray and value.nbytes >= _ALIGN_MIN_BYTES


def aligned(value):
    """`value`, or for a large array XLA would copy slowly, an aligned row-major copy."""
    if type(value) is not np.ndarray or value.nbytes < _ALIGN_MIN_BYTES:
        return value
    if value.flags.c_contiguous and data_address(value) % _ALIGN == 0:
        return value
    out = staging_buffer(value.shape, value.dtype)
    copy_into(out, value)
    return out


# Large copies run in pieces of about 4 MB, spread over up to `_COPIERS` threads (the
# caller's among them; NumPy releases the GIL while it copies). Why: one thread does
# not reach the machine's memory bandwidth, and one whole `np.copyto` is at the mercy
# of glibc's strategy for its size: on one machine a copy between buffers whose
# addresses differ modulo 64 fell to 40% of memcpy's speed above ~170 MB (268 MB: 136
# ms against 53), on another 4 MB pieces on one thread ran at 60% of a whole copy
# (160 MB: 23.9 against 14.7 ms: pieces below glibc's non-temporal threshold). Two
# threads of 4 MB pieces, measured on the second: 40 MB 2.0 ms (one whole copy 3.8),
# 160 MB 12.9 (14.7), 268 MB 22.5 (26.1), float64 -> float32 160 MB 11.5 (20.6). Below
# `_PARALLEL_MIN_BYTES` waking a thread costs more than it saves (8 MB: 0.84 against
# 0.72 ms).
_CHUNK_BYTES = 1 << 22
_PARALLEL_MIN_BYTES = 1 << 24
_COPIERS = HOST_THREADS
_COPY_POOL = HOST_POOL


def copy_into(dst, src, casting="same_kind"):
    """`np.copyto(dst, src, casting=casting)`; for same-shape arrays of at least
    `_PARALLEL_MIN_BYTES`, in pieces along the first axis (of the flat arrays when both
    are contiguous) shared out among the copying threads."""
    if dst.nbytes < _PARALLEL_MIN_BYTES or _COPIERS == 1 or dst.ndim == 0 or \
            dst.shape != src.shape:
        np.copyto(dst, src, casting=casting)
        return
    if dst.flags.c_contiguous and src.flags.c_contiguous:
        dst, src = dst.reshape(-1), src.reshape(-1)
    step = max(1, _CHUNK_BYTES * len(dst) // dst.nbytes)
    starts = range(0, len(dst), step)

    def work(mine):
        for i in mine:
            np.copyto(dst[i:i + step], src[i:i + step], casting=casting)

    _COPY_POOL.run(work, [starts[k::_COPIERS] for k in range(_COPIERS)])


def aligned_empty(shape, dtype):
    """An uninitialised row-major array whose data XLA's CPU client can use in place."""
    nbytes = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(nbytes + _ALIGN, np.uint8)
    start = -raw.ctypes.data % _ALIGN
    return raw[start:start + nbytes].view(dtype).reshape(shape)


STAGING_MIN_BYTES = 1 << 24


def staging_buffer(shape, dtype, pool=POOL):
    """An aligned host buffer for an argument copy, reused from call to call through
    the process's buffer pool (`pool`). A fresh buffer is fresh pages, which the copy
    faults in: an 8 MB copy runs at 1.0 ms into fresh pages and 0.49 ms into a buffer
    used before, 160 MB at 36 against 24 ms (a `sum` of such an argument, 41 -> 32 ms
    per call). Below `STAGING_MIN_BYTES` glibc hands out memory it has already faulted
    in, and a pool of a few rotating buffers gained nothing (1M elements: 1.67 against
    1.82 ms per `sum`). A buffer is lent again when nothing but the pool refers to it:
    the client's buffer made from it holds a reference until the program that reads
    it has finished, so a call running on another thread, or one whose result is
    still being computed, never shares it."""
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if not STAGING_MIN_BYTES <= nbytes <= pool.cap:
        return aligned_empty(shape, dtype)
    raw = pool.lend(("host", nbytes), nbytes + _ALIGN,
                    lambda: np.empty(nbytes + _ALIGN, np.uint8))
    start = -raw.ctypes.data % _ALIGN
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def _host(value, dtype):
    if type(value) is np.ndarray and value.dtype == dtype:
        return aligned(value)
    return np.asarray(value, dtype=dtype)


def _on_device(value):
    """Whether `value` is a jax Array (device data: never read back to the host)."""
    return hasattr(value, "addressable_data")


# Below this many bytes a copy is cheaper than building a view (~3 µs).
_VIEW_MIN_BYTES = 1 << 15


class _Owner:
    """Keeps a result's device buffer alive under a writable NumPy view of it."""
    __slots__ = ("__array_interface__", "_buffer")


def to_numpy(buffer):
    """A writable NumPy array holding the result.

    NumPy's view of a device buffer is read-only because JAX shares its arrays; ours
    are not: each result buffer is fresh (XLA copies parameters and constants that
    reach the output, and keeps outputs distinct) and only this array ever sees it.
    So large results are handed out as a writable view instead of a copy, which
    costs ~1 ms per 8 MB on this machine."""
    return writable(np.asarray(buffer), buffer)


def writable(view, buffer):
    """`view` (NumPy's read-only view of `buffer`) as a writable array of its own."""
    if view.nbytes < _VIEW_MIN_BYTES or view.ndim == 0:
        return view.copy()
    owner = _Owner()
    interface = dict(view.__array_interface__)
    interface["data"] = (interface["data"][0], False)
    owner.__array_interface__ = interface
    owner._buffer = buffer
    return np.asarray(owner)
