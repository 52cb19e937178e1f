"""Element-by-element prefix loops: a running sum and a running maximum filled in one
pass, as written before np.cumsum / np.maximum.accumulate were at hand.

Run: python examples/prefix_scan.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def prefix_scan(x):
    running_sum = np.empty_like(x)
    running_max = np.empty_like(x)
    total = 0.0
    peak = -np.inf
    for i in range(len(x)):
        total += x[i]
        if x[i] > peak:
            peak = x[i]
        running_sum[i] = total
        running_max[i] = peak
    return running_sum, running_max


def make_inputs(n, rng):
    return rng.normal(size=n),


EXAMPLE = Example(prefix_scan, make_inputs,
                  sizes={"small": 50, "medium": 100_000, "large": 1_000_000},
                  exact=True, description="running sum and running max over n elements")

if __name__ == "__main__":
    EXAMPLE.main()
