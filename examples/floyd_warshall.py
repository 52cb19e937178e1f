"""Floyd-Warshall all-pairs shortest paths: the k loop, relaxing every pair at once
with np.minimum over the outer sum of column k and row k.

Run: python examples/floyd_warshall.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def floyd_warshall(dist):
    n = dist.shape[0]
    for k in range(n):
        dist = np.minimum(dist, dist[:, k, np.newaxis] + dist[np.newaxis, k, :])
    return dist


def make_inputs(n, rng):
    weights = rng.uniform(1.0, 10.0, (n, n))
    dist = np.where(rng.random((n, n)) < 0.1, weights, np.inf)   # a sparse random graph
    np.fill_diagonal(dist, 0.0)
    return dist,


EXAMPLE = Example(floyd_warshall, make_inputs, sizes={"small": 12, "medium": 300, "large": 1000},
                  exact=True, description="all-pairs shortest paths, n vertices")

if __name__ == "__main__":
    EXAMPLE.main()
