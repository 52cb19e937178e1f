"""Legacy Monte Carlo and k-means drivers that draw their own random numbers.

Written as NumPy code usually is: the Monte Carlo estimate draws batches from the
global `np.random` state until its standard error is small enough (a data-dependent
number of draws); k-means restarts from `rng.choice` initialisations of a generator it
makes from a seed, and iterates until the centres stop moving. Under `@jit` every draw
is NumPy's own (an ordered call of the same generator when the program runs): the
points drawn, the initial centres and the labels are NumPy's exactly, and the global
random state after the call is the one NumPy leaves. Sums (the centres, the inertia)
agree to the last bits only: XLA sums in another order than NumPy's pairwise sum.

    python examples/random_drivers.py
"""
import sys

import numpy as np

from npxla import jit

from _harness import Example


@jit
def monte_carlo_pi(batch, tol, max_batches):
    """pi from points in the unit square, batch by batch, until the standard error of
    the estimate falls below `tol`."""
    hits = 0.0
    total = 0.0
    estimate = 0.0
    err = 1.0
    while err > tol and total < batch * max_batches:
        x = np.random.random(batch)
        y = np.random.random(batch)
        hits += np.count_nonzero(x * x + y * y <= 1.0)
        total += batch
        p = hits / total
        estimate = 4.0 * p
        err = 4.0 * np.sqrt(p * (1.0 - p) / total)
    return estimate, err, total


@jit
def kmeans_restarts(X, k, restarts, seed, max_iter=50):
    """Lloyd's algorithm from `restarts` random initialisations; the best inertia wins."""
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    best_inertia = np.inf
    best_centres = np.zeros((k, X.shape[1]))
    best_labels = np.zeros(n, dtype=np.int64)
    for r in range(restarts):
        centres = X[rng.choice(n, k, replace=False)]
        labels = np.zeros(n, dtype=np.int64)
        for it in range(max_iter):
            d = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
            labels = np.argmin(d, axis=1)
            moved = 0.0
            for j in range(k):
                members = labels == j
                count = members.sum()
                if count > 0:
                    new = (X * members[:, None]).sum(axis=0) / count
                else:
                    new = X[rng.integers(0, n)]      # an empty cluster restarts at a point
                moved = max(moved, np.abs(new - centres[j]).max())
                centres[j] = new
            if moved < 1e-10:
                break
        inertia = ((X - centres[labels]) ** 2).sum()
        if inertia < best_inertia:
            best_inertia = inertia
            best_centres = centres.copy()
            best_labels = labels
    return best_centres, best_labels, best_inertia


def blobs(n, k, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-8, 8, size=(k, 2))
    return np.concatenate([c + rng.standard_normal((n // k, 2)) for c in centres])


def run(fn, args, seed):
    """fn(*args) from the global seed `seed`, and the global state's next draw."""
    np.random.seed(seed)
    out = fn(*args)
    return out, np.random.random()


def same(a, b):
    """Equal dtypes; integers exactly, floats to the last bits of a sum."""
    if isinstance(a, tuple):
        return all(same(u, v) for u, v in zip(a, b)) and len(a) == len(b)
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return np.allclose(a, b, rtol=1e-12, atol=0) if a.dtype.kind == "f" else \
        np.array_equal(a, b)


EXAMPLE = Example(kmeans_restarts, lambda n, rng: (blobs(n, 3), 3, 3, 7),
                  sizes={"small": 60, "medium": 300, "large": 3000},
                  description="k-means from random restarts of a seeded generator")


def main(argv=()):
    X = blobs(300, 3)
    cases = [("monte_carlo_pi", monte_carlo_pi, (2000, 0.01, 50)),
             ("kmeans_restarts", kmeans_restarts, (X, 3, 4, 7))]
    ok = True
    for name, fn, args in cases:
        expected, next_np = run(fn.__wrapped__, args, 2024)
        got, next_jit = run(fn, args, 2024)
        exact = same(expected, got) and next_np == next_jit
        ok &= exact
        verdict = "same as NumPy, and the same global random state after the call" \
            if exact else "DIFFERS from NumPy"
        print(f"{name}: {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
