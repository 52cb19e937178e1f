"""One of several processes running the same sharded functions (jax.distributed).

    python tests/runtime/multiprocess_worker.py PROCESS_ID PROCESSES PORT

Every process starts JAX's distributed runtime on loopback (CPU collectives: gloo, the
default of the pinned JAX), holds only its own block of each split argument, and
prints one JSON record: its results compared with NumPy on the whole data.
"""
import json
import os
import sys

if __name__ == "__main__":     # before JAX starts
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("NPXLA_CACHE_DIR", "off")

import numpy as np

from sharding_cases import newton_sqrt, stencil    # this folder: the script's path


def stats(x, w):
    y = x @ w
    return np.sum(y), np.max(np.abs(y)), y.mean(axis=0)


def _diff(x, y):
    if isinstance(x, tuple):
        return max(_diff(p, q) for p, q in zip(x, y))
    return float(np.max(np.abs(np.asarray(x) - np.asarray(y)), initial=0.0))


def main(pid, count, port):
    import jax
    jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}",
                               num_processes=count, process_id=pid,
                               initialization_timeout=30)
    from npxla import jit

    rng = np.random.default_rng(5)             # every process makes the same data
    X, W = rng.normal(size=(16 * count, 3)), rng.normal(size=(3, 2))
    U = rng.normal(size=32 * count)
    A = rng.uniform(1, 9, size=8 * count)

    def mine(a):                               # this process's block of axis 0
        n = a.shape[0] // count
        return a[pid * n:(pid + 1) * n].copy()

    record = {"process": pid, "devices": jax.device_count(),
              "local_devices": jax.local_device_count()}
    f = jit(stats, shard={"x": 0})
    record["stats"] = _diff(f(mine(X), W), stats(X, W))
    u = mine(U)
    expected = stencil(U.copy(), 3)
    result = jit(stencil, shard={"u": 0}, static_argnums=1)(u, 3)
    record["stencil"] = _diff(result, expected)
    record["stencil_written_back"] = _diff(u, mine(expected))
    record["while"] = _diff(jit(newton_sqrt, shard={"a": 0})(mine(A)), np.sqrt(A))
    record["collectives"] = f.lower(mine(X), W).collectives()
    jax.distributed.shutdown()
    return record


if __name__ == "__main__":
    out = main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
    sys.stdout.write(json.dumps(out) + "\n")
