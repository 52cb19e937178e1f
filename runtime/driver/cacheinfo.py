"""`f.cache_info()`: what a jitted function's caches hold and what they have saved.

A slow first call, or a loop that keeps compiling, is the first thing a user of a
compiler needs to see; `functools.lru_cache` users know where to look
(`cache_info()`), so the numbers are there, as a named tuple, with the reason each
signature was compiled (see `reasons`).
"""
from __future__ import annotations

import collections
from typing import NamedTuple, Optional

from npxla.runtime.cache import persist

_MAX_RECORDED = 512          # signature records kept per function (the oldest go)


class SignatureInfo(NamedTuple):
    """One build of one signature in this process."""
    signature: str           # the arguments, in `npxla emit --sig` syntax: "f64[3], int"
    device: str              # "cpu:0", "cuda:0", ...
    source: str              # "compiled" (staged and compiled here) or "disk" (loaded)
    seconds: float           # conversion + staging + XLA compile, or the disk load
    reason: str              # why it was built: "first call", "x: f64[3] -> f64[4]", ...


class CacheInfo(NamedTuple):
    """`f.cache_info()`: `hits` and `misses` count calls (a miss builds a program: it
    stages and compiles it, or loads it from the disk cache); `in_memory` counts the
    executables held now; `on_disk` the executables of this function in the disk cache
    (any version of its source; None when the disk cache is off for it);
    `disk_loads` the misses the disk cache served; `compile_seconds` the time spent
    converting, staging and compiling; `signatures` one record per build (newest last)."""
    hits: int
    misses: int
    in_memory: int
    on_disk: Optional[int]
    disk_loads: int
    compile_seconds: float
    signatures: tuple[SignatureInfo, ...]


class Stats:
    """The builds of one jitted function, recorded by `log.Clock`."""
    __slots__ = ("builds", "disk_loads", "compile_seconds", "keys")

    def __init__(self) -> None:
        self.builds: collections.deque = collections.deque(maxlen=_MAX_RECORDED)
        # hashes of the signature keys built so far (see `reasons.why`): hashes, so that
        # static arguments in the keys are not kept alive after their programs
        self.keys: set = set()
        self.disk_loads = 0
        self.compile_seconds = 0.0

    def record(self, signature: str, device: str, times: dict,
               reason: Optional[str]) -> None:
        loaded = "disk_load" in times
        seconds = float(sum(times.values()))
        if loaded:
            self.disk_loads += 1
        else:
            self.compile_seconds += seconds
        self.builds.append(SignatureInfo(signature, device, "disk" if loaded else "compiled",
                                         seconds, reason or "first call"))

    def built_before(self, key) -> bool:
        """Whether signature `key` was built before (as far as a hash tells: this only
        words a log line); from now on it has been."""
        digest = hash(key)
        if digest in self.keys:
            return True
        if len(self.keys) >= 8 * _MAX_RECORDED:
            self.keys.clear()
        self.keys.add(digest)
        return False


def in_memory(cache: dict) -> int:
    """Executables held by a jitted function's in-memory cache ({key: variants})."""
    count = 0
    for variants in cache.values():
        for variant in variants:
            table = getattr(variant.entry, "table", None)     # a Specialised entry
            count += len(table) if table is not None else 1
    return count


def info(jitted) -> CacheInfo:
    stats = jitted._stats
    return CacheInfo(hits=jitted._hits, misses=jitted._misses,
                     in_memory=in_memory(jitted._cache),
                     on_disk=persist.count_entries(jitted._fn, jitted._disk),
                     disk_loads=stats.disk_loads,
                     compile_seconds=round(stats.compile_seconds, 6),
                     signatures=tuple(stats.builds))
