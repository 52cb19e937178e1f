"""Cholesky factorisation A = L L^T of a symmetric positive definite matrix, written as
a legacy textbook loop: the diagonal entry from a dot product over the row so far, then
the rest of column j from a matrix-vector product over the columns to its left.

Every slice here has a length that depends on the loop index `j` (`L[j, :j]` grows,
`L[j + 1:, j]` shrinks), and `np.sqrt` of a difference that is only positive because A
is SPD: npxla has to keep the loop one XLA loop of run-time-length slices rather than
unroll it, and its compile time should not grow with n.

Run: python examples/cholesky.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def cholesky(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        d = A[j, j] - np.dot(L[j, :j], L[j, :j])
        L[j, j] = np.sqrt(d)
        L[j + 1:, j] = (A[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L


def make_inputs(n, rng):
    B = rng.normal(size=(n, n))
    return B @ B.T / n + np.eye(n),             # SPD, condition number stays moderate


EXAMPLE = Example(cholesky, make_inputs,
                  sizes={"small": 8, "medium": 100, "large": 400},
                  rtol=1e-9, atol=1e-12,
                  description="n x n symmetric positive definite, column by column")

if __name__ == "__main__":
    EXAMPLE.main()
