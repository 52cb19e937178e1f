"""Jacobi iteration for A x = b, run until the update is below a tolerance.

Run: python examples/jacobi.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def jacobi(A, b, tol=1e-10, maxit=10_000):
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    err = np.inf
    it = 0
    while err > tol and it < maxit:
        x_new = (b - R @ x) / D
        err = np.linalg.norm(x_new - x, np.inf)
        x = x_new
        it += 1
    return x, it


def make_inputs(n, rng):
    A = rng.uniform(0, 1, (n, n))
    np.fill_diagonal(A, 0.0)
    A += np.diag(1.02 * A.sum(axis=1))       # barely diagonally dominant: slow convergence
    return A, rng.normal(size=n)


EXAMPLE = Example(jacobi, make_inputs, sizes={"small": 16, "medium": 500, "large": 2000},
                  rtol=1e-9, atol=1e-12,
                  description="while err > tol and it < maxit, n x n, barely diagonally dominant")

if __name__ == "__main__":
    EXAMPLE.main()
