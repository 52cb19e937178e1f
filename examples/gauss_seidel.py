"""Gauss-Seidel for A x = b: a row loop updating x in place (each row sees the rows
already updated in this sweep), sweeps until the change is below a tolerance.

Run: python examples/gauss_seidel.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def gauss_seidel(A, b, tol=1e-10, maxit=1000):
    n = len(b)
    x = np.zeros_like(b)
    for sweep in range(maxit):
        x_old = x.copy()
        for i in range(n):
            sigma = A[i] @ x - A[i, i] * x[i]
            x[i] = (b[i] - sigma) / A[i, i]
        if np.max(np.abs(x - x_old)) < tol:
            break
    return x, sweep + 1


def make_inputs(n, rng):
    # a 1-d diffusion matrix plus weak random coupling: convergence takes tens of sweeps
    A = 2.5 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1) + rng.uniform(0, 0.2 / n, (n, n))
    return A, rng.normal(size=n)


EXAMPLE = Example(gauss_seidel, make_inputs, sizes={"small": 12, "medium": 200, "large": 800},
                  rtol=1e-9, atol=1e-12,
                  description="row loop with in-place updates, n x n diffusion matrix")

if __name__ == "__main__":
    EXAMPLE.main()
