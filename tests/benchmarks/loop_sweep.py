"""Scaling sweep of the loop factorisations and solves (issue 37, item 1): each kernel
over matrix sides from 100 to 2000 under NumPy, npxla and Numba, in one process, on
the same inputs, to see whether npxla scales with the flop count and stays ahead of
NumPy at every size.

    python -m tests.benchmarks.loop_sweep [--sizes 100,400,1000,2000] [--only NAME ...]

Prints one markdown table (median time per call; NumPy runs once at the large sizes,
where one call takes seconds). Kernels that write into their argument get a fresh copy
per call, made outside the timed region. Results are checked against NumPy's first.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from .loop_kernels import (back_subst_dot, cholesky_inplace, forward_subst_scalar,
                           lu_inplace)


def gauss_seidel(A, b, x, sweeps):
    """Gauss-Seidel sweeps in place, each row from the ones already updated."""
    n = A.shape[0]
    for _ in range(sweeps):
        for i in range(n):
            x[i] = (b[i] - np.dot(A[i, :i], x[:i]) - np.dot(A[i, i + 1:], x[i + 1:])) \
                / A[i, i]
    return x


def gram_schmidt(A):
    """Classical Gram-Schmidt by columns: A = Q R."""
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for j in range(n):
        v = A[:, j].copy()
        for i in range(j):
            R[i, j] = np.dot(Q[:, i], A[:, j])
            v -= R[i, j] * Q[:, i]
        R[j, j] = np.linalg.norm(v)
        Q[:, j] = v / R[j, j]
    return Q, R


def _spd(n, rng):
    b = rng.standard_normal((n, n))
    return b @ b.T + n * np.eye(n)


KERNELS = {
    "cholesky_inplace": (cholesky_inplace, lambda n, r: (_spd(n, r),), True),
    "lu_inplace": (lu_inplace, lambda n, r: (_spd(n, r),), True),
    "forward_subst_scalar": (forward_subst_scalar,
                             lambda n, r: (np.tril(_spd(n, r)), r.standard_normal(n)), False),
    "back_subst_dot": (back_subst_dot,
                       lambda n, r: (np.triu(_spd(n, r)), r.standard_normal(n)), False),
    "gauss_seidel": (gauss_seidel,
                     lambda n, r: (_spd(n, r), r.standard_normal(n), np.zeros(n), 2), True),
    "gram_schmidt": (gram_schmidt, lambda n, r: (r.standard_normal((n, n)),), False),
}


def _fresh(args, writes):
    return tuple(a.copy() if writes and isinstance(a, np.ndarray) else a for a in args)


def _median(fn, args, writes, budget_s, most):
    times = []
    spent = time.perf_counter()
    while len(times) < most and (not times or time.perf_counter() - spent < budget_s):
        call = _fresh(args, writes)
        t = time.perf_counter()
        fn(*call)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def _close(a, b):
    if isinstance(a, tuple):
        return all(_close(x, y) for x, y in zip(a, b))
    return np.allclose(a, b, rtol=1e-8, atol=1e-10)


def sweep(names, sizes, log=print):
    import numba
    import npxla
    from npxla.runtime.xla import superset
    rows = []
    for name in names:
        fn, make, writes = KERNELS[name]
        peers = {"numpy": fn, "npxla": npxla.jit(fn), "numba": numba.njit(fn)}
        for n in sizes:
            args = make(n, np.random.default_rng(0))
            expected = fn(*_fresh(args, True))
            row = {"name": name, "n": n}
            for peer, f in peers.items():
                t = time.perf_counter()
                got = f(*_fresh(args, True))
                first = time.perf_counter() - t
                if not _close(got, expected):
                    raise AssertionError(f"{peer} differs from NumPy on {name} n={n}")
                quick = peer != "numpy" or first < 0.5
                if peer == "npxla":    # variants for the offsets of fresh copies, built
                    for _ in range(3):
                        f(*_fresh(args, True))
                    superset.wait_for_variants()
                row[peer] = _median(f, args, writes, 2.0 if quick else 0.0,
                                    9 if quick else 1)
            rows.append(row)
            log(f"{name:22s} n={n:5d}  " + "  ".join(
                f"{p}={row[p] * 1e3:10.3f} ms" for p in peers))
    return rows


def table(rows) -> str:
    out = ["| kernel | n | NumPy | npxla | Numba | npxla vs NumPy | npxla / Numba |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| `{r['name']}` | {r['n']} | {_ms(r['numpy'])} | {_ms(r['npxla'])} | "
                   f"{_ms(r['numba'])} | {r['numpy'] / r['npxla']:.3g}x | "
                   f"{r['npxla'] / r['numba']:.3g} |")
    return "\n".join(out)


def _ms(s):
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,200,400,1000,2000")
    parser.add_argument("--only", nargs="+", choices=sorted(KERNELS), default=list(KERNELS))
    ns = parser.parse_args(argv)
    rows = sweep(ns.only, [int(s) for s in ns.sizes.split(",")])
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
