"""Polynomial evaluation with Horner's rule, the loop running over a coefficient array
(highest degree first, as np.polyval takes them).

Run: python examples/horner.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def make_inputs(n, rng):
    return rng.normal(size=16) / np.arange(1, 17), rng.uniform(-1, 1, n)


EXAMPLE = Example(horner, make_inputs,
                  sizes={"small": 100, "medium": 1_000_000, "large": 10_000_000},
                  rtol=1e-12, atol=1e-14, description="degree-15 polynomial at n points")

if __name__ == "__main__":
    EXAMPLE.main()
