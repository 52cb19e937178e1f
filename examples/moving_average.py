"""Moving averages of many time series with the cumulative-sum trick, then the
largest swing of the smoothed series (np.cumsum, np.diff, slicing by a window length).

Run: python examples/moving_average.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def moving_average(series, window):
    c = np.cumsum(series, axis=1)
    c[:, window:] = c[:, window:] - c[:, :-window]
    smooth = c[:, window - 1:] / window
    swing = np.abs(np.diff(smooth, axis=1)).max(axis=1)
    return smooth, swing


def make_inputs(n, rng):
    return np.cumsum(rng.normal(size=(n, 1000)), axis=1), 25


EXAMPLE = Example(moving_average, make_inputs,
                  sizes={"small": 4, "medium": 1000, "large": 10_000},
                  rtol=1e-9, atol=1e-9, description="n series of 1000 points, window 25")

if __name__ == "__main__":
    EXAMPLE.main()
