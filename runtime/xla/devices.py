"""Device selection.

A device is named `platform[:index]` (`cpu`, `gpu`, `cuda:1`, `tpu:0`), where the index
counts the platform's devices *in this process* (JAX's `local_devices()` order), so the
same name works on every host of a cluster. `None` means the `NPXLA_DEVICE` environment
variable when it is set, else the best platform present (gpu, then tpu, then cpu): users
move a whole program to another device without touching the code.
"""
from __future__ import annotations

import os
from functools import lru_cache

_PREFERENCE = ("gpu", "tpu", "cpu")
_ALIASES = {"cuda": "gpu", "rocm": "gpu", "gpu": "gpu", "tpu": "tpu", "cpu": "cpu"}
ENV = "NPXLA_DEVICE"


class DeviceNotFoundError(ValueError):
    """A device name that is malformed or names a device this machine does not have.
    A ValueError (the argument is wrong); the message lists the devices that exist."""


# On the CPU npxla runs its programs on a PJRT client of its own, a synchronous one.
# JAX's CPU client dispatches asynchronously: a program above PJRT's "cheap" bound (about
# a thousand flops) runs on a worker thread while the caller waits for its result, and
# waking that thread costs 5-80 µs on a loaded host. npxla needs every result at once
# (NumPy's contract), so that hop is pure cost: `x * 2.0 + 1.0` of 10,000 float64 took
# 70 µs per call with JAX's client and 16 µs with this one (NumPy 5 µs). `NPXLA_CPU_CLIENT=jax`
# selects JAX's client instead; so does a multi-process run (`jax.distributed`), whose
# collectives only JAX's client is set up for.
CPU_CLIENT_ENV = "NPXLA_CPU_CLIENT"


@lru_cache(maxsize=None)
def backend(platform: str):
    if platform == "cpu" and os.environ.get(CPU_CLIENT_ENV, "").strip().lower() != "jax":
        own = _synchronous_cpu_client()
        if own is not None:
            return own
    try:   # what jax.extend.backend re-exports, without importing jax.extend (Pallas)
        from jax._src.xla_bridge import get_backend
    except ImportError:  # pragma: no cover - depends on the JAX version
        from jax.extend.backend import get_backend
    return get_backend(platform)


def _synchronous_cpu_client():
    """A CPU client that runs each program on the calling thread, with JAX's device
    count (`jax_num_cpu_devices`, else `XLA_FLAGS`), or None where JAX's client must be
    used (JAX internals not as expected, a multi-process run)."""
    try:
        from jax._src import distributed, xla_bridge
        from jax._src.lib import xla_client
        if distributed.global_state.client is not None:
            return None
        count = xla_bridge.num_cpu_devices.value
        return xla_client.make_cpu_client(asynchronous=False,
                                          num_devices=count if count >= 0 else None)
    except Exception:  # noqa: BLE001 - pragma: no cover - depends on the JAX version
        return None


def same_memory(a, b) -> bool:
    """Whether devices `a` and `b` are one memory: the same device, or one CPU device as
    two clients in this process see it (JAX's and npxla's own, `backend`), whose
    buffers are host memory either reads in place."""
    return a == b or (a.platform == "cpu" and b.platform == "cpu" and a.id == b.id)


def local_devices(platform: str) -> list:
    """This process's devices of `platform`, [] when the platform is absent (not built
    into this jaxlib, no plugin installed, or no hardware)."""
    try:
        return list(backend(platform).local_devices())
    except Exception:  # noqa: BLE001 - any backend start-up failure means "absent"
        return []


def global_devices(platform: str) -> list:
    """Every process's devices of `platform` (more than `local_devices` only after
    `jax.distributed.initialize`)."""
    try:
        return list(backend(platform).devices())
    except Exception:  # noqa: BLE001
        return []


def available_platforms() -> list:
    return [p for p in _PREFERENCE if local_devices(p)]


def name_of(device) -> str:
    """`platform:index`, the name `resolve` accepts for `device`."""
    platform = device.platform
    for i, d in enumerate(local_devices(platform)):
        if d == device:
            return f"{platform}:{i}"
    return f"{platform}:id{device.id}"


def resolve(spec=None):
    """'cpu', 'gpu', 'cuda:1', a jax Device, or None (`NPXLA_DEVICE`, else the best
    platform) -> a jax Device. Raises DeviceNotFoundError naming the devices that exist."""
    if spec is not None and not isinstance(spec, str):
        return spec
    origin = ""
    if spec is None:
        spec = os.environ.get(ENV, "").strip() or None
        origin = f" (from the {ENV} environment variable)" if spec else ""
    return _resolve_name(spec, origin)


@lru_cache(maxsize=None)
def _resolve_name(spec, origin):
    if spec is None:
        for p in _PREFERENCE:
            found = local_devices(p)
            if found:
                return found[0]
        raise DeviceNotFoundError("no XLA device is available: JAX started no backend")
    platform, index = parse(spec, origin)
    found = local_devices(platform)
    if index < len(found):
        return found[index]
    what = f"there is no {platform} device" if not found else \
        f"{platform}:0 to {platform}:{len(found) - 1} exist"
    hint = " (for NVIDIA GPUs: pip install 'npxla[cuda12]')" if platform == "gpu" and \
        not found else ""
    raise DeviceNotFoundError(f"device {spec!r}{origin} does not exist: {what}; "
                              f"available: {available_names()}{hint}")


def parse(spec: str, origin: str = "") -> tuple:
    """'cuda:1' -> ('gpu', 1); DeviceNotFoundError for what is not a device name."""
    name, colon, idx = spec.strip().partition(":")
    platform = _ALIASES.get(name.lower())
    if platform is None or (colon and not idx.isdigit()):
        raise DeviceNotFoundError(
            f"unknown device {spec!r}{origin}: expected cpu, gpu, cuda, rocm or tpu, "
            f"optionally with :INDEX (cuda:1); available: {available_names()}")
    return platform, int(idx or 0)


def available_names() -> str:
    names = [name for name, _, _ in listing()]
    return ", ".join(names) if names else "none"


def default_device():
    """The device `jit` uses without `device=`, or None when even that is unusable (a
    bad `NPXLA_DEVICE` is reported by `resolve`, not here)."""
    try:
        return resolve(None)
    except DeviceNotFoundError:
        return None


def listing() -> list:
    """(name, device, kind) for every device of this process, best platform first."""
    return [(f"{p}:{i}", d, d.device_kind)
            for p in available_platforms() for i, d in enumerate(local_devices(p))]


def describe() -> list:
    """One line per device, the default marked: what `npxla devices` prints."""
    default = default_device()
    return [f"{name}\t{kind}" + ("\t(default)" if d == default else "")
            for name, d, kind in listing()]
