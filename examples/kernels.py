"""Plain NumPy functions as found in legacy code, decorated with npxla's @jit.

Each is unchanged NumPy: remove the decorator and it runs the same.
"""
import numpy as np

from npxla import jit


@jit
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)


@jit
def standardize_rows(X):
    X = X - X.mean(axis=0)
    return X / X.std(axis=0)


@jit
def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:          # a Python tuple: the loop stays Python and unrolls
        result = result * x + c
    return result


@jit
def heat_steps(u, alpha, steps):
    """Explicit 1-D heat equation: `steps` is used as a static loop count."""
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


@jit
def nbody_accelerations(pos, mass, eps):
    diff = pos[None, :, :] - pos[:, None, :]
    dist2 = np.sum(diff * diff, axis=-1) + eps * eps
    inv = mass[None, :] / (dist2 * np.sqrt(dist2))
    return np.sum(diff * inv[:, :, None], axis=1)


@jit
def black_scholes_call(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    cdf = lambda z: 0.5 * (1.0 + np.tanh(0.7978845608 * (z + 0.044715 * z ** 3)))  # noqa
    return S * cdf(d1) - K * np.exp(-r * T) * cdf(d2)


@jit
def newton_sqrt(a, tol=1e-12):
    """Data-dependent `while`: jax.jit raises TracerBoolConversionError here."""
    x = a
    while np.max(np.abs(x * x - a)) > tol:
        x = 0.5 * (x + a / x)
    return x


@jit
def running_max_drawdown(prices):
    """A prefix loop (`peak` from the previous step) with a data-dependent `if`."""
    peak = prices[0]
    worst = 0.0
    for i in range(1, prices.shape[0]):
        if prices[i] > peak:
            peak = prices[i]
        drawdown = (peak - prices[i]) / peak
        worst = drawdown if drawdown > worst else worst
    return worst
