"""k-means (Lloyd's algorithm) until the centroids stop moving.

The centroid update is written with masks (a fixed shape) rather than
`X[labels == j]`, whose length depends on the data and which XLA cannot compile.

Run: python examples/kmeans.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def kmeans(X, centroids, tol=1e-8, max_iter=300):
    k = centroids.shape[0]
    labels = np.zeros(X.shape[0], dtype=np.int64)
    shift = np.inf
    it = 0
    while shift > tol and it < max_iter:
        d2 = ((X[:, np.newaxis, :] - centroids[np.newaxis, :, :]) ** 2).sum(axis=2)
        labels = np.argmin(d2, axis=1)
        new = centroids.copy()
        for j in range(k):
            mask = labels == j
            count = mask.sum()
            if count > 0:
                new[j] = (X * mask[:, np.newaxis]).sum(axis=0) / count
        shift = np.sqrt(((new - centroids) ** 2).sum(axis=1)).max()
        centroids = new
        it += 1
    return centroids, labels, it


def make_inputs(n, rng):
    k = 8
    centres = rng.uniform(-10, 10, (k, 2))
    X = centres[rng.integers(0, k, n)] + rng.normal(size=(n, 2))
    return X, X[rng.choice(n, k, replace=False)].copy()


EXAMPLE = Example(kmeans, make_inputs, sizes={"small": 64, "medium": 20_000, "large": 200_000},
                  rtol=1e-9, atol=1e-12, description="8 clusters, n points in 2-d")

if __name__ == "__main__":
    EXAMPLE.main()
