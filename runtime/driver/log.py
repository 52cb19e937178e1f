"""The `npxla` logger: where the time of a first call goes.

`logging.getLogger("npxla")` is silent by default (a `NullHandler`, level unset). Turn it
on with, e.g., `logging.basicConfig(level=logging.INFO)` or
`logging.getLogger("npxla").setLevel(logging.DEBUG)` plus a handler. Records:

* DEBUG, per step: `converted f in 0.012 s`, `staged f(f64[100], int) in 0.210 s`,
  `XLA compiled f(f64[100], int) for cpu:0 in 0.350 s`, `loaded f(...) from the disk
  cache in 0.020 s`;
* INFO, once per compiled signature: `compiled f(f64[100], int) for cpu:0: conversion
  0.012 s, staging 0.210 s, XLA compile 0.350 s` (or `loaded ... from the disk cache`).

Each INFO record also carries the values as attributes, for handlers and filters:
`npxla_function`, `npxla_signature`, `npxla_device` and `npxla_times` (a dict of
seconds: "conversion", "staging", "compile" or "disk_load").
"""
from __future__ import annotations

import logging
import time

from npxla.runtime.driver.lowered import describe
from npxla.runtime.xla import devices

LOGGER = logging.getLogger("npxla")
LOGGER.addHandler(logging.NullHandler())


def _name(jitted) -> str:
    return getattr(jitted, "__qualname__", None) or getattr(jitted, "__name__", "function")


def converted(jitted, seconds: float) -> None:
    if LOGGER.isEnabledFor(logging.DEBUG):
        LOGGER.debug("converted %s in %.3f s", _name(jitted), seconds)


class Clock:
    """The times of one signature's build: `staged()` after staging, `compiled()` after
    the XLA compile (which logs the INFO record), or `loaded()` after a disk-cache hit.
    Conversion, which happens inside the first staging, is taken out of the staging
    time and reported on its own."""

    def __init__(self, jitted, leaves, device):
        self.jitted, self.leaves, self.device = jitted, leaves, device
        self.converted_before = getattr(jitted, "_convert_seconds", None)
        self.start = time.perf_counter()
        self.times: dict = {}

    def _signature(self) -> str:
        return f"{_name(self.jitted)}({describe(self.leaves)})"

    def staged(self) -> None:
        now = time.perf_counter()
        conversion = 0.0
        if self.converted_before is None:
            conversion = getattr(self.jitted, "_convert_seconds", None) or 0.0
        self.times["conversion"] = conversion
        self.times["staging"] = max(0.0, now - self.start - conversion)
        self.start = now
        if LOGGER.isEnabledFor(logging.DEBUG):
            LOGGER.debug("staged %s in %.3f s", self._signature(), self.times["staging"])

    def compiled(self) -> None:
        now = time.perf_counter()
        self.times["compile"] = now - self.start
        if not LOGGER.isEnabledFor(logging.INFO):
            return
        device = _device_name(self.device)
        sig = self._signature()
        LOGGER.debug("XLA compiled %s for %s in %.3f s", sig, device, self.times["compile"])
        LOGGER.info("compiled %s for %s: conversion %.3f s, staging %.3f s, XLA compile "
                    "%.3f s", sig, device, self.times["conversion"], self.times["staging"],
                    self.times["compile"], extra=self._extra(sig, device))

    def loaded(self) -> None:
        self.times["disk_load"] = time.perf_counter() - self.start
        if not LOGGER.isEnabledFor(logging.INFO):
            return
        device = _device_name(self.device)
        sig = self._signature()
        LOGGER.info("loaded %s for %s from the disk cache in %.3f s", sig, device,
                    self.times["disk_load"], extra=self._extra(sig, device))

    def _extra(self, sig, device):
        return {"npxla_function": _name(self.jitted), "npxla_signature": sig,
                "npxla_device": device, "npxla_times": dict(self.times)}


def _device_name(device) -> str:
    try:
        return devices.name_of(device)
    except Exception:     # noqa: BLE001 - a name for a log line only
        return str(device)
