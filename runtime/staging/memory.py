"""Arrays too large for the machine are refused while staging, with their size.

Shapes are static, so the size of every array a program computes is known before it
runs. An array larger than any memory of this machine cannot be allocated: NumPy raises
`MemoryError` ("Unable to allocate 7.28 TiB for an array with shape ..."), while XLA
would fail at run time with a raw `RESOURCE_EXHAUSTED` error, or abort the process (the
CPU client). Staging raises NumPy's error instead, at the user's line.

The limit is the larger of the host's physical memory and the largest memory of a JAX
device, so no program that could run is refused; an array that fits the host but not
the GPU is still left to XLA's run-time error.
"""
from __future__ import annotations

import math
import os
import sys

_limit = None


def _host_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):   # pragma: no cover - non-POSIX
        return 0


def _device_bytes():
    """Largest `bytes_limit` of JAX's local devices, if JAX is already loaded (the
    call path has initialised a backend before anything is staged)."""
    jax = sys.modules.get("jax")
    if jax is None:
        return 0
    best = 0
    try:
        for device in jax.local_devices():
            stats = device.memory_stats() or {}
            best = max(best, int(stats.get("bytes_limit", 0)))
    except Exception:       # a backend without memory statistics
        return best
    return best


def limit_bytes() -> int:
    """The size above which no single array can be allocated on this machine (0: no
    limit known)."""
    global _limit
    if _limit is None:
        _limit = max(_host_bytes(), _device_bytes())
    return _limit


def format_bytes(n: int) -> str:
    """NumPy's spelling of a size (`7.28 TiB`)."""
    units = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    if n < 1024:
        return f"{n} bytes"
    k = min(int(math.log(n, 1024)), len(units) - 1)
    return f"{n / 1024 ** k:.3g} {units[k]}"


def check(shape, dtype) -> None:
    """Raise MemoryError if an array of `shape` and `dtype` cannot fit in memory."""
    n = dtype.itemsize
    for d in shape:
        n *= int(d)
    if n < (1 << 30):      # cheap exit: anything under 1 GiB
        return
    limit = limit_bytes()
    if limit and n > limit:
        raise MemoryError(
            f"Unable to allocate {format_bytes(n)} for an array with shape "
            f"{tuple(int(d) for d in shape)} and data type {dtype}: more than this "
            f"machine's memory ({format_bytes(limit)})")
