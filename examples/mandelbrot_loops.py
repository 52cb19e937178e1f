"""Mandelbrot escape counts, one pixel at a time: two `for` loops and a `while` whose
condition depends on the pixel's orbit (jax.jit cannot stage this `while`).

Run: python examples/mandelbrot_loops.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def mandelbrot_loops(re, im, max_iter):
    counts = np.zeros((im.shape[0], re.shape[0]), dtype=np.int64)
    for row in range(im.shape[0]):
        for col in range(re.shape[0]):
            c = complex(re[col], im[row])
            z = 0j
            n = 0
            while abs(z) <= 2.0 and n < max_iter:
                z = z * z + c
                n += 1
            counts[row, col] = n
    return counts


def make_inputs(n, rng):
    return np.linspace(-2.0, 0.6, n), np.linspace(-1.2, 1.2, n), 50


EXAMPLE = Example(mandelbrot_loops, make_inputs,
                  sizes={"small": 12, "medium": 100, "large": 300}, exact=True,
                  description="per-pixel while loop on an n x n grid, max 50 iterations")

if __name__ == "__main__":
    EXAMPLE.main()
