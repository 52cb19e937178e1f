"""Levinson-Durbin recursion: the order-p linear-prediction coefficients from the
autocorrelations r[0..p] (the symmetric Toeplitz system behind autoregressive models and
speech codecs), with the reflection coefficients and the final prediction error.

Step k reads `a[:k]` and the reversed `r[1:k + 1][::-1]`, and updates `a[:k + 1]` in
place from its own reversal: slices whose length is the loop index, reversed, plus a
scalar recurrence (the error) carried across iterations. NumPy pays Python overhead per
step; npxla keeps the loop one XLA loop. (Written `r[k:0:-1]` / `a[k::-1]`, a negative
step with a run-time start, npxla unrolls the loop with NpxlaPerformanceWarning instead:
only `[::-1]` of a step-1 slice of run-time length is supported.)

Run: python examples/levinson_durbin.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def levinson_durbin(r, p):
    a = np.zeros(p + 1)              # a[0..k]: the order-k prediction-error filter
    a[0] = 1.0
    refl = np.zeros(p)
    err = r[0]
    for k in range(1, p + 1):
        acc = np.dot(a[:k], r[1:k + 1][::-1])       # sum_j a[j] r[k - j]
        kk = -acc / err
        refl[k - 1] = kk
        a[:k + 1] += kk * a[:k + 1][::-1]
        err *= 1.0 - kk * kk
    return a, refl, err


def make_inputs(p, rng):
    # autocorrelation of a long AR-ish signal: a positive definite Toeplitz matrix
    x = np.convolve(rng.normal(size=8 * p + 256), [1.0, 0.6, -0.3, 0.1], mode="same")
    n = x.size
    r = np.array([np.dot(x[:n - lag], x[lag:]) / n for lag in range(p + 1)])
    return r, p


EXAMPLE = Example(levinson_durbin, make_inputs,
                  sizes={"small": 8, "medium": 200, "large": 1000},
                  rtol=1e-7, atol=1e-9,
                  description="order-p prediction from p+1 autocorrelations")

if __name__ == "__main__":
    EXAMPLE.main()
