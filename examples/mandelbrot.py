"""Mandelbrot escape counts, vectorised: one pass over the whole grid per iteration,
with a mask of the points that have not escaped yet.

Run: python examples/mandelbrot.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def mandelbrot(xmin, xmax, ymin, ymax, width, height, max_iter):
    x = np.linspace(xmin, xmax, width)
    y = np.linspace(ymin, ymax, height)
    c = x[np.newaxis, :] + 1j * y[:, np.newaxis]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for i in range(max_iter):
        alive = np.abs(z) <= 2.0
        z = np.where(alive, z * z + c, z)
        counts[alive] += 1
    return counts


def make_inputs(n, rng):
    return -2.0, 0.6, -1.2, 1.2, n, n, 100


EXAMPLE = Example(mandelbrot, make_inputs, sizes={"small": 32, "medium": 400, "large": 1500},
                  exact=True, description="escape counts on an n x n grid, 100 iterations")

if __name__ == "__main__":
    EXAMPLE.main()
