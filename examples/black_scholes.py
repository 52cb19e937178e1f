"""Black-Scholes prices of European calls and puts, vectorised, with the normal CDF
from the Abramowitz-Stegun erf approximation (7.1.26, |error| < 1.5e-7).

Run: python examples/black_scholes.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


def erf(x):
    a1, a2, a3, a4, a5 = 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429
    p = 0.3275911
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + p * x)
    y = 1.0 - (((((a5 * t + a4) * t) + a3) * t + a2) * t + a1) * t * np.exp(-x * x)
    return sign * y


def norm_cdf(x):
    return 0.5 * (1.0 + erf(x / np.sqrt(2.0)))


@jit
def black_scholes(S, K, T, r, sigma):
    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    discount = np.exp(-r * T)
    call = S * norm_cdf(d1) - K * discount * norm_cdf(d2)
    put = K * discount * norm_cdf(-d2) - S * norm_cdf(-d1)
    return call, put


def make_inputs(n, rng):
    return (rng.uniform(50, 150, n), rng.uniform(50, 150, n), rng.uniform(0.1, 2.0, n),
            0.02, 0.3)


EXAMPLE = Example(black_scholes, make_inputs,
                  sizes={"small": 100, "medium": 1_000_000, "large": 10_000_000},
                  rtol=1e-10, atol=1e-10, description="n options, calls and puts")

if __name__ == "__main__":
    EXAMPLE.main()
