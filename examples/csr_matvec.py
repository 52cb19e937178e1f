"""Sparse matrix-vector product y = A @ x with A in compressed sparse row (CSR) form
(`data`, `indices`, `indptr`), as hand-written before scipy.sparse was at hand: a Python
loop over rows, each row a slice of the stored values and a gather from x.

The row's bounds `indptr[i]:indptr[i + 1]` are read from data, so each row slice has a
run-time length and `x[cols]` gathers with an index array of that length. npxla keeps
the row loop one XLA loop with each slice in a buffer; the cost per row is bounded by the
number of stored values, not the row's length (see docs/semantics.md), so this shows
where that costs more than NumPy's per-row overhead saves.

Run: python examples/csr_matvec.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def csr_matvec(data, indices, indptr, x):
    n_rows = len(indptr) - 1
    y = np.zeros(n_rows)
    for i in range(n_rows):
        cols = indices[indptr[i]:indptr[i + 1]]
        y[i] = data[indptr[i]:indptr[i + 1]] @ x[cols]
    return y


def make_inputs(n, rng):
    # n x n, about 16 nonzeros per row with random lengths (some rows empty)
    lengths = rng.integers(0, 33, n)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    indices = np.concatenate([np.sort(rng.choice(n, k, replace=False)) for k in lengths]
                             ).astype(np.int64)
    data = rng.normal(size=indptr[-1])
    return data, indices, indptr, rng.normal(size=n)


EXAMPLE = Example(csr_matvec, make_inputs,
                  sizes={"small": 50, "medium": 10_000, "large": 100_000},
                  rtol=1e-9, atol=1e-12,
                  description="n x n CSR, ~16 nonzeros per row, row loop")

if __name__ == "__main__":
    EXAMPLE.main()
