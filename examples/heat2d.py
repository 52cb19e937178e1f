"""Explicit 2-D heat equation: five-point stencil, in-place update of the interior.

Run: python examples/heat2d.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def heat2d(u, alpha, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] += alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                  - 4 * u[1:-1, 1:-1])
    return u


def make_inputs(n, rng):
    u = np.zeros((n, n))
    u[n // 4: 3 * n // 4, n // 4: 3 * n // 4] = 100.0     # a hot square
    u += rng.random((n, n))
    return u, 0.2, 100


EXAMPLE = Example(heat2d, make_inputs, sizes={"small": 16, "medium": 256, "large": 1024},
                  rtol=1e-12, atol=1e-12, description="100 explicit steps on an n x n grid")

if __name__ == "__main__":
    EXAMPLE.main()
