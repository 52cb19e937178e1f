"""Fuzzer regression (seed 29048, table_loops): crash: lowering failed: TypeError:
__eq__(). `read_ahead` compared the indices of a read and of the trip's write as
(base, offset) tuples; `T[a[j], j]` with `a` of one element has a constant base where
the write `T[i, j]` has a traced one, and an `ir.Value` refuses `== None`. NumPy raises
IndexError (row 1 of a 2-row table is fine, but `a[j]` for j >= 1 is out of bounds)."""
import numpy as np

__fuzz_exact__ = True


def f(a, b, T0):
    n, m = (a.shape[0], b.shape[0])
    T = T0
    for i in range(1, n + 1):
        for j in range(1, m):
            opts = [T[i, j], T[i, j], T[a[j], j]]
            k = 0
            T[i, j] = opts[k]


def ARGS():
    return [np.array([0], dtype=np.int64), np.array([2, 2, 1, 0, 2, 2, 3], dtype=np.int64),
            np.array([[-0.1476716124461983, -2.1250617742387066, 0.5021493362808462,
                       0.43602983610293905, 0.8108859516406092, -0.3057661200784043,
                       -0.18989370584704934, -0.6692861295890126],
                      [1.6653689494581103, -0.9586013810347287, 0.7041823146085063,
                       -0.4740284485793885, 0.24706535339183186, 0.21104337872404635,
                       -1.537966362567095, -0.48353588799140007]], dtype=np.float64)]


EXPECTED_BUG = 'crash:lowering failed: TypeError: __eq__(): incompatible function'
KNOWN = None
