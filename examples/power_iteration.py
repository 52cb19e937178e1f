"""Power iteration: the dominant eigenvalue and eigenvector of a symmetric matrix,
normalising each step and stopping when the eigenvalue estimate settles.

Run: python examples/power_iteration.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def power_iteration(A, tol=1e-12, maxit=10_000):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    for it in range(maxit):
        w = A @ v
        lam_new = v @ w
        v = w / np.linalg.norm(w)
        if abs(lam_new - lam) < tol * abs(lam_new):
            lam = lam_new
            break
        lam = lam_new
    return lam, v, it + 1


def make_inputs(n, rng):
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    eigenvalues = np.linspace(1.0, 2.0, n)
    eigenvalues[-1] = 3.0                              # a clear spectral gap
    return (Q * eigenvalues) @ Q.T,


EXAMPLE = Example(power_iteration, make_inputs,
                  sizes={"small": 16, "medium": 500, "large": 2000},
                  rtol=1e-7, atol=1e-9,
                  description="dominant eigenpair of an n x n symmetric matrix")

if __name__ == "__main__":
    EXAMPLE.main()
