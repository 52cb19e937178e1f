"""Sharded programs on simulated CPU devices, run in a process of their own.

XLA fixes the number of host devices when JAX starts, so the tests run this file in a
subprocess:

    python tests/runtime/sharding_cases.py cases [DEVICES]    JSON: one record per case
    python tests/runtime/sharding_cases.py scaling            the 1 -> 8 device table

Each case runs a function with NumPy, with `jit` on one device and with `jit(...,
shard=...)` over the mesh, and records the largest differences, the collectives XLA
inserted, and the warnings raised.
"""
import json
import os
import sys

if __name__ == "__main__":         # before JAX starts: it reads the flag once
    _n = sys.argv[2] if len(sys.argv) > 2 else "8"
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={_n}"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("NPXLA_CACHE_DIR", "off")

import time
import warnings

import numpy as np


# --- the kernels ------------------------------------------------------------------------
def reduction(x):
    return np.sum(x), np.max(np.abs(x)), x.mean(axis=0)


def matmul(a, b):
    return a @ b


def stencil(u, steps):
    for _ in range(steps):
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
    return u


def stencil_concat(u, steps):
    for _ in range(steps):
        u = np.concatenate((u[:1], 0.5 * (u[:-2] + u[2:]), u[-1:]))
    return u


def stencil_where(u, steps):
    edge = np.arange(u.shape[0]) % (u.shape[0] - 1) == 0
    for _ in range(steps):
        u = np.where(edge, u, np.pad(0.5 * (u[:-2] + u[2:]), 1))
    return u


def newton_sqrt(a):
    x = a.copy()
    while np.max(np.abs(x * x - a)) > 1e-12:      # data-dependent: a stablehlo.while
        x = 0.5 * (x + a / x)
    return x


def pick(x, i):
    return x[i] * 2.0


def _rng():
    return np.random.default_rng(15)


def _cases():
    rng = _rng()
    a, b = rng.normal(size=(64, 24)), rng.normal(size=(24, 16))
    u = rng.normal(size=256)
    return {
        "reduction": (reduction, (rng.normal(size=(64, 5)),), dict(shard={"x": 0})),
        "matmul_rows": (matmul, (a, b), dict(shard={"a": 0})),
        "matmul_inner": (matmul, (a, b), dict(shard={"a": (None, "k"), "b": ("k", None)},
                                              mesh={"k": 8})),
        "matmul_mesh_2d": (matmul, (a, b), dict(shard={"a": ("rows", None),
                                                       "b": (None, "cols")},
                                                mesh={"rows": 4, "cols": 2})),
        "stencil": (stencil, (u, 4), dict(shard={"u": 0}, static_argnums=1)),
        "stencil_concat": (stencil_concat, (u, 4), dict(shard={"u": 0}, static_argnums=1)),
        "stencil_where": (stencil_where, (u, 4), dict(shard={"u": 0}, static_argnums=1)),
        "while": (newton_sqrt, (rng.uniform(1, 9, size=128),), dict(shard={"a": 0})),
        "uneven": (reduction, (rng.normal(size=(10, 3)),), dict(shard={"x": 0})),
    }


def _diff(x, y):
    if isinstance(x, tuple):
        return max(_diff(p, q) for p, q in zip(x, y))
    assert np.shape(x) == np.shape(y) and np.asarray(x).dtype == np.asarray(y).dtype
    return float(np.max(np.abs(np.asarray(x) - np.asarray(y)), initial=0.0))


def _copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def run_cases():
    from npxla import jit
    out = {}
    for name, (fn, args, options) in _cases().items():
        expected_args, single_args, sharded_args = _copy(args), _copy(args), _copy(args)
        expected = fn(*expected_args)
        static = {k: v for k, v in options.items() if k == "static_argnums"}
        single = jit(fn, **static)(*single_args)
        sharded = jit(fn, **options)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = sharded(*sharded_args)
        out[name] = {
            "vs_numpy": _diff(result, expected),
            "vs_single_device": _diff(result, single),
            "arguments_vs_numpy": max(_diff(p, q) for p, q in zip(sharded_args, expected_args)
                                      if isinstance(p, np.ndarray)),
            "collectives": sharded.lower(*_copy(args)).collectives(),
            "devices": int(sharded.mesh.devices.size),
            "warnings": [str(w.message) for w in caught],
        }
    out["device_output"] = _device_output()
    out["run_time_check"] = _run_time_check()
    return out


def _device_output():
    """output="device": a jax.Array laid out over the mesh, fed back in."""
    from npxla import jit
    x = _rng().normal(size=(32, 4))
    f = jit(matmul, shard={"a": 0}, output="device")
    y = f(x, np.eye(4))
    z = f(y, 2 * np.eye(4))
    return {"type": type(y).__module__.split(".")[0], "devices": len(y.sharding.device_set),
            "vs_numpy": _diff(np.asarray(z), 2 * x)}


def _run_time_check():
    """A check inside the program (a traced index out of bounds) raises as NumPy does."""
    from npxla import jit
    f = jit(pick, shard={"x": 0})
    x = np.arange(16.0)
    ok = float(f(x, 3))
    try:
        f(x, 40)
    except IndexError as e:
        return {"ok": ok, "raised": type(e).__name__, "message": str(e)}
    return {"ok": ok, "raised": None}


# --- scaling (simulated: every host "device" is a thread on the same CPU cores) ---------
def heat(u, steps):
    for _ in range(steps):          # `steps` is traced: one stablehlo.while
        u[1:-1] = u[1:-1] + 0.25 * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return u


def heat_concat(u, steps):
    for _ in range(steps):
        u = np.concatenate((u[:1], u[1:-1] + 0.25 * (u[:-2] - 2.0 * u[1:-1] + u[2:]),
                            u[-1:]))
    return u


def heat_where(u, steps):
    edge = np.arange(u.shape[0]) % (u.shape[0] - 1) == 0
    for _ in range(steps):
        inner = u[1:-1] + 0.25 * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u = np.where(edge, u, np.pad(inner, 1))
    return u


def row_norms(a, x):
    return np.sqrt(np.sum((a @ x) ** 2, axis=1))


def scaling(repeats=5):
    from npxla import jit
    rng = _rng()
    kernels = {
        "heat (u[1:-1] = ...), n=2^20, 100 steps":
            (heat, lambda: (rng.normal(size=1 << 20), 100), "u"),
        "heat (np.concatenate), n=2^20, 100 steps":
            (heat_concat, lambda: (rng.normal(size=1 << 20), 100), "u"),
        "heat (np.where + np.pad), n=2^20, 100 steps":
            (heat_where, lambda: (rng.normal(size=1 << 20), 100), "u"),
        "row norms of a @ x, 4096x1024 @ 1024x64":
            (row_norms, lambda: (rng.normal(size=(4096, 1024)), rng.normal(size=(1024, 64))),
             "a"),
    }
    rows = []
    for label, (fn, make, arg) in kernels.items():
        args = make()
        plain = jit(fn)
        reference = plain(*_copy(args))
        rows.append({"kernel": label, "devices": "jit", "ms": _best(plain, args, repeats),
                     "vs_one_device": 0.0, "collectives": {}})
        for n in (1, 2, 4, 8):
            f = jit(fn, shard={arg: ("d",)}, mesh={"d": n})
            rows.append({"kernel": label, "devices": n, "ms": _best(f, args, repeats),
                         "vs_one_device": _diff(f(*_copy(args)), reference),
                         "collectives": f.lower(*_copy(args)).collectives()})
    return rows


def _best(f, args, repeats):
    """Milliseconds of the fastest of `repeats` calls (after a first, compiling one)."""
    f(*_copy(args))
    best = float("inf")
    for _ in range(repeats):
        call_args = _copy(args)
        start = time.perf_counter()
        f(*call_args)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "cases"
    result = run_cases() if command == "cases" else scaling()
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
