"""The `npxla` logger: where the time of a first call goes, and why a function compiles
again; plus a one-line notice on stderr for a slow compile.

`logging.getLogger("npxla")` is silent by default (a `NullHandler`, level unset). Turn it
on with, e.g., `logging.basicConfig(level=logging.INFO)` or
`logging.getLogger("npxla").setLevel(logging.DEBUG)` plus a handler. Records:

* DEBUG, per step: `converted f in 0.012 s`, `staged f(f64[100], int) in 0.210 s`,
  `XLA compiled f(f64[100], int) for cpu:0 in 0.350 s`, `loaded f(...) from the disk
  cache in 0.020 s`;
* INFO, before a function builds another signature: `recompiling f(f64[200], int) for
  cpu:0: new signature: x: f64[100] -> f64[200]` (see `reasons`);
* INFO, once per compiled signature: `compiled f(f64[100], int) for cpu:0: conversion
  0.012 s, staging 0.210 s, XLA compile 0.350 s` (or `loaded ... from the disk cache`);
* INFO, when a signature's calls go to the function's own Python because NumPy answers
  them sooner (`numpy_tier`): `f(f64[100]) runs as NumPy: 4.9 us a call against 31.0
  us compiled`.

Each INFO record also carries the values as attributes, for handlers and filters:
`npxla_function`, `npxla_signature`, `npxla_device`, `npxla_reason` (None for a
function's first build) and, on the `compiled`/`loaded` records, `npxla_times` (a dict
of seconds: "conversion", "staging", "compile" or "disk_load").

A compile (conversion + staging + XLA) that takes longer than `compile_notice()`
seconds (default 5; `NPXLA_COMPILE_NOTICE=seconds`, `0` or `off` for none) also writes
one line to stderr, whatever the logger's settings: a user who waits needs to know the
wait was compiling, and how to keep it (the disk cache) or silence the line.
"""
from __future__ import annotations

import logging
import os
import sys
import time
from typing import Optional

from npxla.runtime.driver.lowered import describe
from npxla.runtime.xla import devices

LOGGER = logging.getLogger("npxla")
LOGGER.addHandler(logging.NullHandler())

DEFAULT_NOTICE_SECONDS = 5.0
_UNSET = object()
_notice: object = _UNSET        # set by `compile_notice(seconds)`; else the environment


def compile_notice(seconds: object = _UNSET) -> Optional[float]:
    """The threshold (seconds) above which a compile writes a line to stderr, None for
    never. With an argument, set it for the process (a number; 0, None or "off" for
    never), overriding NPXLA_COMPILE_NOTICE; returns the threshold in force."""
    global _notice
    if seconds is not _UNSET:
        _notice = _parse(seconds)
    if _notice is not _UNSET:
        return _notice        # type: ignore[return-value]
    text = os.environ.get("NPXLA_COMPILE_NOTICE")
    return DEFAULT_NOTICE_SECONDS if text is None else _parse(text, DEFAULT_NOTICE_SECONDS)


def _parse(value, default=None) -> Optional[float]:
    """Seconds from a setting: None/0/"off"/"none"/"" turn the notice off; a value that
    is not a number is the default (from the environment: a typo must not raise)."""
    if value is None or (isinstance(value, str) and
                         value.strip().lower() in ("", "0", "off", "none", "false", "no")):
        return None
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        if default is not None:
            return default
        raise ValueError(f"compile_notice: seconds (a number, or 0/None/'off' for none), "
                         f"got {value!r}") from None
    return seconds if seconds > 0 else None


def _name(jitted) -> str:
    return str(getattr(jitted, "__qualname__", None) or
               getattr(jitted, "__name__", "function"))


def converted(jitted, seconds: float) -> None:
    if LOGGER.isEnabledFor(logging.DEBUG):
        LOGGER.debug("converted %s in %.3f s", _name(jitted), seconds)


def runs_as_numpy(jitted, signature: str, numpy_s: float, compiled_s: float) -> None:
    """INFO: a signature whose calls now run as the function's Python
    (`numpy_tier`), with the best call of each."""
    if LOGGER.isEnabledFor(logging.INFO):
        sig = f"{_name(jitted)}({signature})"
        LOGGER.info("%s runs as NumPy: %.1f us a call against %.1f us compiled", sig,
                    numpy_s * 1e6, compiled_s * 1e6,
                    extra={"npxla_function": _name(jitted), "npxla_signature": sig,
                           "npxla_times": {"numpy": numpy_s, "compiled": compiled_s}})


class Clock:
    """The times of one signature's build: `staged()` after staging, `compiled()` after
    the XLA compile (which logs the INFO record), or `loaded()` after a disk-cache hit.
    Conversion, which happens inside the first staging, is taken out of the staging
    time and reported on its own. `reason` (see `reasons`): why the signature is
    built, None for the function's first build; logged at once, before the wait."""

    def __init__(self, jitted, leaves, device, reason: Optional[str] = None):
        self.jitted, self.leaves, self.device = jitted, leaves, device
        self.reason = reason
        self.converted_before = getattr(jitted, "_convert_seconds", None)
        self.times: dict = {}
        if reason is not None and LOGGER.isEnabledFor(logging.INFO):
            sig, name = self._signature(), _device_name(device)
            LOGGER.info("recompiling %s for %s: %s", sig, name, reason,
                        extra=self._extra(sig, name, times=False))
        self.start = time.perf_counter()

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
        self._record()
        total = sum(self.times.values())
        threshold = compile_notice()
        info = LOGGER.isEnabledFor(logging.INFO)
        if not info and (threshold is None or total <= threshold):
            return
        device = _device_name(self.device)
        sig = self._signature()
        detail = (f"conversion {self.times['conversion']:.3f} s, staging "
                  f"{self.times['staging']:.3f} s, XLA compile {self.times['compile']:.3f} s")
        if info:
            LOGGER.debug("XLA compiled %s for %s in %.3f s", sig, device,
                         self.times["compile"])
            LOGGER.info("compiled %s for %s: %s", sig, device, detail,
                        extra=self._extra(sig, device))
        if threshold is not None and total > threshold:
            sys.stderr.write(f"npxla: compiling {sig} for {device} took {total:.1f} s "
                             f"({detail}); NPXLA_COMPILE_NOTICE=off silences this\n")

    def loaded(self) -> None:
        self.times["disk_load"] = time.perf_counter() - self.start
        self._record()
        if not LOGGER.isEnabledFor(logging.INFO):
            return
        device = _device_name(self.device)
        sig = self._signature()
        LOGGER.info("loaded %s for %s from the disk cache in %.3f s", sig, device,
                    self.times["disk_load"], extra=self._extra(sig, device))

    def _record(self) -> None:
        """Add this build to the function's `cache_info()`."""
        stats = getattr(self.jitted, "_stats", None)
        if stats is not None:
            stats.record(describe(self.leaves), _device_name(self.device), self.times,
                         self.reason)

    def _extra(self, sig, device, times=True):
        extra = {"npxla_function": _name(self.jitted), "npxla_signature": sig,
                 "npxla_device": device, "npxla_reason": self.reason}
        if times:
            extra["npxla_times"] = dict(self.times)
        return extra


def _device_name(device) -> str:
    try:
        return devices.name_of(device)
    except Exception:     # noqa: BLE001 - a name for a log line only
        return str(device)
