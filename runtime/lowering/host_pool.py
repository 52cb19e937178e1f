"""Threads for host work that runs while a program waits: large copies into XLA's
memory (`xla.transfer`) and NumPy loops called back from a program (`numpy.ufuncs.
host_ufuncs`). NumPy releases the GIL in its copies and loops, so pieces of one array
on several threads run at once; XLA's own threads are busy or parked meanwhile."""
from __future__ import annotations

import os
import threading

# the CPUs this process may run on (at most 8: more threads than that only contend)
HOST_THREADS = max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                          else (os.cpu_count() or 1), 8))


class HostPool:
    """Worker threads started on first use. A forked child starts its own (the
    parent's threads do not exist there)."""

    def __init__(self, workers):
        self.workers = workers
        self._lock = threading.Lock()
        self._pool = None
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self):
        self._lock = threading.Lock()
        self._pool = None

    def run(self, work, parts):
        """`work(part)` for every part, the first on the calling thread."""
        with self._lock:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor
                self._pool = ThreadPoolExecutor(self.workers,
                                                thread_name_prefix="npxla-host")
            pool = self._pool
        futures = [pool.submit(work, p) for p in parts[1:]]
        work(parts[0])
        for f in futures:
            f.result()


# the shared pool: the calling thread is one of the HOST_THREADS
HOST_POOL = HostPool(HOST_THREADS - 1)
