"""Vectorised bisection: Kepler's equation E - e sin E = M solved for many mean
anomalies at once, halving every bracket until the widest is below a tolerance.

Run: python examples/bisection.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def bisection(M, e, tol=1e-12):
    lo = M - e
    hi = M + e                         # E - e sin E - M changes sign on [M - e, M + e]
    while np.max(hi - lo) > tol:
        mid = 0.5 * (lo + hi)
        f_mid = mid - e * np.sin(mid) - M
        lo = np.where(f_mid < 0, mid, lo)
        hi = np.where(f_mid < 0, hi, mid)
    return 0.5 * (lo + hi)


def make_inputs(n, rng):
    return rng.uniform(0, 2 * np.pi, n), 0.7


EXAMPLE = Example(bisection, make_inputs,
                  sizes={"small": 100, "medium": 1_000_000, "large": 5_000_000},
                  rtol=0.0, atol=2e-12, description="Kepler's equation for n mean anomalies")

if __name__ == "__main__":
    EXAMPLE.main()
