"""LU decomposition without pivoting (Doolittle), eliminating column by column with
in-place slice updates of the trailing block.

The slice bounds depend on `k`: npxla keeps the loop one XLA loop, each slice an array
of run-time length in a buffer of the full column/row (so each step costs as much as the
largest one), and the compile time does not grow with n.

Run: python examples/lu_decomposition.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def lu_decomposition(A):
    n = A.shape[0]
    L = np.eye(n)
    U = A.copy()
    for k in range(n - 1):
        L[k + 1:, k] = U[k + 1:, k] / U[k, k]
        U[k + 1:, k:] -= np.outer(L[k + 1:, k], U[k, k:])
        U[k + 1:, k] = 0.0
    return L, U


def make_inputs(n, rng):
    A = rng.uniform(-1, 1, (n, n))
    return A + np.diag(np.abs(A).sum(axis=1) + 1.0),     # no pivoting needed


EXAMPLE = Example(lu_decomposition, make_inputs,
                  sizes={"small": 8, "medium": 64, "large": 200},
                  rtol=1e-10, atol=1e-12, description="n x n, diagonally dominant")

if __name__ == "__main__":
    EXAMPLE.main()
