"""Device selection: `None` picks the best available platform (gpu, tpu, then cpu)."""
from __future__ import annotations

from functools import lru_cache

_PREFERENCE = ("gpu", "tpu", "cpu")
_ALIASES = {"cuda": "gpu", "rocm": "gpu", "gpu": "gpu", "tpu": "tpu", "cpu": "cpu"}


@lru_cache(maxsize=None)
def backend(platform: str):
    try:   # what jax.extend.backend re-exports, without importing jax.extend (Pallas)
        from jax._src.xla_bridge import get_backend
    except ImportError:  # pragma: no cover - depends on the JAX version
        from jax.extend.backend import get_backend
    return get_backend(platform)


def available_platforms():
    out = []
    for p in _PREFERENCE:
        try:
            if backend(p).local_devices():
                out.append(p)
        except Exception:  # platform not built into this jaxlib or no hardware
            continue
    return out


def _first_platform():
    for p in _PREFERENCE:
        try:
            if backend(p).local_devices():
                return p
        except Exception:
            continue
    raise RuntimeError("no XLA device available")


@lru_cache(maxsize=None)
def resolve(spec=None):
    """'cpu', 'gpu', 'cuda:1', a jax Device, or None -> a jax Device."""
    if spec is not None and not isinstance(spec, str):
        return spec
    if spec is None:
        platform, index = _first_platform(), 0
    else:
        name, _, idx = spec.partition(":")
        if name.lower() not in _ALIASES:
            raise ValueError(f"unknown device {spec!r}; expected cpu, gpu, cuda:N or tpu")
        platform, index = _ALIASES[name.lower()], int(idx or 0)
    try:
        devices = backend(platform).local_devices()
    except Exception as e:
        raise RuntimeError(f"no {platform} device available: {e}") from None
    if index >= len(devices):
        raise ValueError(f"device {spec!r} does not exist ({len(devices)} {platform} device(s))")
    return devices[index]


def describe():
    """One line per device: used by `npxla devices`."""
    lines = []
    for p in available_platforms():
        for d in backend(p).local_devices():
            lines.append(f"{p}:{d.id}\t{d.device_kind}")
    return lines
