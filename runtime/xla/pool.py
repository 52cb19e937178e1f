"""One process-wide pool of reusable buffers, shared by the two per-call uses that keep
large buffers between calls:

* host staging buffers (`transfer.aligned`): aligned host memory that a large unaligned
  argument is copied into so XLA's CPU client can use it in place. The pool keeps each
  one and lends it again once nothing but the pool refers to it (`lend`);
* spare device buffers (`writeback.Plan`): outputs of an earlier run that the next run
  of the same program donates, so XLA writes a large write-back into warm memory it owns
  (`take` removes one, `give` returns it).

Buffers are keyed (the caller's key: ("host", nbytes), (device, shape, dtype)); at most
`cap` bytes are kept in all, least recently used key first. Why pooling pays at all:
a fresh buffer is fresh pages, which the first write faults in (see `transfer` and
`writeback` for the measurements).
"""
from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict


def memory_share(most, fraction):
    """`most` bytes, or `fraction` of the machine's memory where that is less: the cap
    of a pool that outlives calls."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        memory = 16 << 30
    return min(most, int(memory * fraction))


class BufferPool:
    """Reusable buffers by key, at most `cap` bytes in all (least recently used go
    first). Thread-safe: threads calling one program at once each get their own."""

    def __init__(self, cap):
        self.cap = cap
        self._lock = threading.Lock()
        self._free: OrderedDict = OrderedDict()     # key -> [(buffer, nbytes)]
        self._bytes = 0

    # --- buffers handed out and given back (device spares) ----------------------------
    def take(self, key):
        """A buffer given back under `key` (removed from the pool), or None."""
        with self._lock:
            bufs = self._free.get(key)
            if not bufs:
                return None
            buf, nbytes = bufs.pop()
            self._bytes -= nbytes
            if not bufs:
                del self._free[key]
            return buf

    def give(self, key, buf, nbytes):
        """Keep `buf` (of `nbytes`) for a later `take(key)`."""
        with self._lock:
            self._free.setdefault(key, []).append((buf, nbytes))
            self._free.move_to_end(key)
            self._bytes += nbytes
            self._evict()

    # --- buffers the pool keeps while they are lent (host staging) --------------------
    def lend(self, key, nbytes, make):
        """A buffer of `key` that nothing but the pool refers to (its last borrower let
        go of every view of it), else `make()`'s new one, which the pool keeps too."""
        with self._lock:
            bufs = self._free.setdefault(key, [])
            self._free.move_to_end(key)
            for k in range(len(bufs)):
                # free: referred to by the pool's tuple and getrefcount's argument only
                if sys.getrefcount(bufs[k][0]) <= 2:
                    return bufs[k][0]
            buf = make()
            bufs.append((buf, nbytes))
            self._bytes += nbytes
            self._evict()
            return buf

    def _evict(self):
        while self._bytes > self.cap and self._free:
            key, bufs = next(iter(self._free.items()))
            if bufs:
                self._bytes -= bufs.pop(0)[1]
            if not bufs:
                del self._free[key]

    def clear(self):
        with self._lock:
            self._free.clear()
            self._bytes = 0

    @property
    def held_bytes(self):
        return self._bytes


# At most 1 GiB and a sixteenth of the memory, staging buffers and spares together.
POOL = BufferPool(memory_share(1 << 30, 1 / 16))
