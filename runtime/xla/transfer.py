"""Host <-> device transfers on the per-call path.

`jax.device_put` costs ~35 µs per array here; jaxlib's `batched_device_put` with a
precomputed aval and sharding costs ~5 µs. It is a JAX-internal entry point, so it is
isolated here and falls back to `jax.device_put` if its signature changes. A jax Array
argument is never read back to the host: on the program's device it is the parameter
itself, elsewhere it is moved device to device (`Uploader.on_device`).
"""
from __future__ import annotations

import numpy as np


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
        with self._jax.enable_x64(True):
            moved = self._jax.device_put(value, self.sharding)
            return moved if moved.dtype == dtype else moved.astype(dtype)


# XLA's CPU client uses a NumPy array's memory in place only when its data pointer is
# 64-byte aligned (and the layout row-major); otherwise PJRT copies it, at about a fifth
# of memcpy's speed here. NumPy's own allocations are 16-byte aligned, so large arrays
# are copied once by us, with memcpy, into an aligned buffer that XLA then uses in place
# (or, where the program reads them in place, passed as their aligned superset: see
# `superset`).
_ALIGN = 64
_ALIGN_MIN_BYTES = 1 << 18      # below this, PJRT's copy costs microseconds anyway


def aligned(value):
    """`value`, or for a large array XLA would copy slowly, an aligned row-major copy."""
    if type(value) is not np.ndarray or value.nbytes < _ALIGN_MIN_BYTES:
        return value
    if value.flags.c_contiguous and value.ctypes.data % _ALIGN == 0:
        return value
    out = aligned_empty(value.shape, value.dtype)
    copy_into(out, value)
    return out


# One `np.copyto` between buffers whose addresses differ modulo 64 runs at 40% of
# memcpy's speed here once it exceeds ~170 MB (268 MB: 136 ms against `np.copy`'s 53 ms;
# measured for 1 to 800 MB), while the same copy cut into 4 MB pieces runs at memcpy's
# speed at every size (268 MB: 50 ms). Arguments and written-back results cross exactly
# that boundary: NumPy's arrays sit 16 bytes past a line, XLA's buffers on one.
_CHUNK_BYTES = 1 << 22


def copy_into(dst, src, casting="same_kind"):
    """`np.copyto(dst, src, casting=casting)` for same-shape arrays, in pieces of about
    4 MB along the first axis (or of the flat arrays when both are contiguous)."""
    if dst.nbytes <= _CHUNK_BYTES or dst.ndim == 0 or dst.shape != src.shape:
        np.copyto(dst, src, casting=casting)
        return
    if dst.flags.c_contiguous and src.flags.c_contiguous:
        dst, src = dst.reshape(-1), src.reshape(-1)
    step = max(1, _CHUNK_BYTES * len(dst) // dst.nbytes)
    for i in range(0, len(dst), step):
        np.copyto(dst[i:i + step], src[i:i + step], casting=casting)


def aligned_empty(shape, dtype):
    """An uninitialised row-major array whose data XLA's CPU client can use in place."""
    nbytes = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(nbytes + _ALIGN, np.uint8)
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
