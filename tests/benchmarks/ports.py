"""Idiomatic JAX hand ports of the kernels in `kernels.py` (same names, same results).

Written the way a JAX user would port the NumPy code: `jnp` for array code,
`lax.while_loop` for data-dependent `while` loops and for `for ... break`,
`lax.fori_loop` for counted loops, `lax.scan` for recurrences, `.at[].set()` for
in-place updates, masks where NumPy slices have data-dependent extents, and `vmap` for
per-element loops. The same algorithm as the original in each case (no library call
that would change the arithmetic), so results agree with NumPy to rounding.

Run under float64: the harness enables `jax_enable_x64` around the benchmarks.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax


# --- elementwise ------------------------------------------------------------------------

def ew_chain(x):
    y = jnp.exp(-0.5 * x * x) * jnp.sin(3.0 * x) + jnp.sqrt(jnp.abs(x)) - jnp.tanh(x)
    return jnp.where(y > 0, y, 0.1 * y)


def _erf(x):       # the same Abramowitz-Stegun polynomial as examples/black_scholes.py
    a1, a2, a3, a4, a5 = 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429
    p = 0.3275911
    sign = jnp.sign(x)
    x = jnp.abs(x)
    t = 1.0 / (1.0 + p * x)
    y = 1.0 - (((((a5 * t + a4) * t) + a3) * t + a2) * t + a1) * t * jnp.exp(-x * x)
    return sign * y


def _norm_cdf(x):
    return 0.5 * (1.0 + _erf(x / jnp.sqrt(2.0)))


def black_scholes(S, K, T, r, sigma):
    sqrt_t = jnp.sqrt(T)
    d1 = (jnp.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    discount = jnp.exp(-r * T)
    call = S * _norm_cdf(d1) - K * discount * _norm_cdf(d2)
    put = K * discount * _norm_cdf(-d2) - S * _norm_cdf(-d1)
    return call, put


def horner(coeffs, x):
    return jnp.polyval(coeffs, x)          # Horner's rule from zeros, as the original


def mandelbrot(xmin, xmax, ymin, ymax, width, height, max_iter):
    x = jnp.linspace(xmin, xmax, width)
    y = jnp.linspace(ymin, ymax, height)
    c = x[jnp.newaxis, :] + 1j * y[:, jnp.newaxis]

    def step(i, state):
        z, counts = state
        alive = jnp.abs(z) <= 2.0
        return jnp.where(alive, z * z + c, z), counts + alive

    z0 = jnp.zeros_like(c)
    _, counts = lax.fori_loop(0, max_iter, step, (z0, jnp.zeros(c.shape, jnp.int64)))
    return counts


# --- reductions -------------------------------------------------------------------------

def logsumexp_rows(x):
    m = jnp.max(x, axis=1)
    return m + jnp.log(jnp.sum(jnp.exp(x - m[:, None]), axis=1))


def summary_stats(x):
    return x.mean(), x.std(), x.min(), x.max(), jnp.argmax(x)


def standardize_cols(X):
    X = X - X.mean(axis=0)
    return X / X.std(axis=0)


def moving_average(series, window):
    c = jnp.cumsum(series, axis=1)
    c = c.at[:, window:].set(c[:, window:] - c[:, :-window])
    smooth = c[:, window - 1:] / window
    swing = jnp.abs(jnp.diff(smooth, axis=1)).max(axis=1)
    return smooth, swing


# --- stencils ---------------------------------------------------------------------------

def blur3x3(img):
    inner = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
             + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
             + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0
    return img.at[1:-1, 1:-1].set(inner)


def heat2d(u, alpha, steps):
    def step(_, u):
        return u.at[1:-1, 1:-1].add(alpha * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                             + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]))
    return lax.fori_loop(0, steps, step, u)


def game_of_life(board, generations):
    def step(_, board):
        r = jnp.roll
        neighbours = (r(board, 1, axis=0) + r(board, -1, axis=0)
                      + r(board, 1, axis=1) + r(board, -1, axis=1)
                      + r(r(board, 1, axis=0), 1, axis=1) + r(r(board, 1, axis=0), -1, axis=1)
                      + r(r(board, -1, axis=0), 1, axis=1)
                      + r(r(board, -1, axis=0), -1, axis=1))
        return ((neighbours == 3) | ((board == 1) & (neighbours == 2))).astype(jnp.int8)
    return lax.fori_loop(0, generations, step, board)


# --- iterative solvers ------------------------------------------------------------------

def newton_sqrt(a, tol=1e-12):
    return lax.while_loop(lambda x: jnp.max(jnp.abs(x * x - a)) > tol,
                          lambda x: 0.5 * (x + a / x), a)


def jacobi(A, b, tol=1e-10, maxit=10_000):
    D = jnp.diag(A)
    R = A - jnp.diag(D)

    def cond(state):
        _, err, it = state
        return (err > tol) & (it < maxit)

    def body(state):
        x, _, it = state
        x_new = (b - R @ x) / D
        return x_new, jnp.linalg.norm(x_new - x, jnp.inf), it + 1

    x, _, it = lax.while_loop(cond, body, (jnp.zeros_like(b), jnp.array(jnp.inf), 0))
    return x, it


def bisection(M, e, tol=1e-12):
    def body(state):
        lo, hi = state
        mid = 0.5 * (lo + hi)
        f_mid = mid - e * jnp.sin(mid) - M
        return jnp.where(f_mid < 0, mid, lo), jnp.where(f_mid < 0, hi, mid)

    lo, hi = lax.while_loop(lambda s: jnp.max(s[1] - s[0]) > tol, body, (M - e, M + e))
    return 0.5 * (lo + hi)


def power_iteration(A, tol=1e-12, maxit=10_000):
    n = A.shape[0]

    def cond(state):
        _, _, it, done = state
        return ~done & (it < maxit)

    def body(state):
        v, lam, it, _ = state
        w = A @ v
        lam_new = v @ w
        v = w / jnp.linalg.norm(w)
        return v, lam_new, it + 1, jnp.abs(lam_new - lam) < tol * jnp.abs(lam_new)

    v0 = jnp.ones(n) / jnp.sqrt(n)
    v, lam, it, _ = lax.while_loop(cond, body, (v0, jnp.array(0.0), 0, jnp.array(False)))
    return lam, v, it


def logistic_regression(X, y, lr=0.5, tol=1e-6, max_iter=2000):
    n, d = X.shape

    def cond(state):
        return ~state[3] & (state[2] < max_iter)

    def body(state):
        w, b, it, _ = state
        p = 1.0 / (1.0 + jnp.exp(-(X @ w + b)))
        grad_w = X.T @ (p - y) / n
        grad_b = jnp.mean(p - y)
        w = w - lr * grad_w
        b = b - lr * grad_b
        return w, b, it + 1, jnp.sqrt(grad_w @ grad_w + grad_b ** 2) < tol

    init = (jnp.zeros(d), jnp.array(0.0), 0, jnp.array(False))
    w, b, it, _ = lax.while_loop(cond, body, init)
    return w, b, it


def kmeans(X, centroids, tol=1e-8, max_iter=300):
    k = centroids.shape[0]

    def cond(state):
        _, _, shift, it = state
        return (shift > tol) & (it < max_iter)

    def body(state):
        centroids, _, _, it = state
        d2 = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
        labels = jnp.argmin(d2, axis=1)
        new = centroids
        for j in range(k):                    # k is static: unrolled, as in NumPy
            mask = labels == j
            count = mask.sum()
            mean = (X * mask[:, None]).sum(axis=0) / count
            new = new.at[j].set(jnp.where(count > 0, mean, centroids[j]))
        shift = jnp.sqrt(((new - centroids) ** 2).sum(axis=1)).max()
        return new, labels, shift, it + 1

    labels0 = jnp.zeros(X.shape[0], dtype=jnp.int64)
    c, labels, _, it = lax.while_loop(cond, body, (centroids, labels0, jnp.array(jnp.inf), 0))
    return c, labels, it


def mandelbrot_loops(re, im, max_iter):
    def pixel(cr, ci):
        c = lax.complex(cr, ci)

        def cond(state):
            z, n = state
            return (jnp.abs(z) <= 2.0) & (n < max_iter)

        def body(state):
            z, n = state
            return z * z + c, n + 1

        return lax.while_loop(cond, body, (jnp.complex128(0), jnp.int64(0)))[1]

    return jax.vmap(lambda ci: jax.vmap(lambda cr: pixel(cr, ci))(re))(im)


# --- recurrences ------------------------------------------------------------------------

def prefix_scan(x):
    def step(carry, xi):
        total, peak = carry
        total = total + xi
        peak = jnp.where(xi > peak, xi, peak)
        return (total, peak), (total, peak)

    init = (jnp.zeros((), x.dtype), jnp.full((), -jnp.inf, x.dtype))
    _, (running_sum, running_max) = lax.scan(step, init, x)
    return running_sum, running_max


def linear_recurrence(a, b):
    def step(y, ab):
        y = ab[0] * y + ab[1]
        return y, y

    _, ys = lax.scan(step, b[0], (a[1:], b[1:]))
    return jnp.concatenate([b[:1], ys])


def running_max_drawdown(prices):
    def step(carry, p):
        peak, worst = carry
        peak = jnp.where(p > peak, p, peak)
        drawdown = (peak - p) / peak
        return (peak, jnp.where(drawdown > worst, drawdown, worst)), None

    (_, worst), _ = lax.scan(step, (prices[0], jnp.array(0.0)), prices[1:])
    return worst


def gauss_seidel(A, b, tol=1e-10, maxit=1000):
    n = b.shape[0]

    def row(i, x):
        sigma = A[i] @ x - A[i, i] * x[i]
        return x.at[i].set((b[i] - sigma) / A[i, i])

    def cond(state):
        return ~state[2] & (state[1] < maxit)

    def body(state):
        x_old, sweep, _ = state
        x = lax.fori_loop(0, n, row, x_old)
        return x, sweep + 1, jnp.max(jnp.abs(x - x_old)) < tol

    x, sweeps, _ = lax.while_loop(cond, body, (jnp.zeros_like(b), 0, jnp.array(False)))
    return x, sweeps


# --- matrix work ------------------------------------------------------------------------

def mlp_chain(x, W1, W2, W3):
    h = jnp.tanh(x @ W1)
    h = jnp.tanh(h @ W2)
    return h @ W3


def floyd_warshall(dist):
    def step(k, dist):
        return jnp.minimum(dist, dist[:, k, None] + dist[None, k, :])
    return lax.fori_loop(0, dist.shape[0], step, dist)


def lu_decomposition(A):
    n = A.shape[0]
    rows = jnp.arange(n)

    def step(k, state):     # slice extents depend on k: masks instead of slices
        L, U = state
        below = rows > k
        col = jnp.where(below, U[:, k] / U[k, k], 0.0)
        L = L.at[:, k].set(jnp.where(below, col, L[:, k]))
        update = below[:, None] & (rows[None, :] >= k)
        U = U - jnp.where(update, jnp.outer(col, U[k, :]), 0.0)
        U = U.at[:, k].set(jnp.where(below, 0.0, U[:, k]))
        return L, U

    return lax.fori_loop(0, n - 1, step, (jnp.eye(n), A))


def _accelerations(pos, mass, eps):
    diff = pos[None, :, :] - pos[:, None, :]
    dist2 = (diff ** 2).sum(axis=-1) + eps ** 2
    inv_d3 = dist2 ** -1.5
    return (diff * (mass[None, :] * inv_d3)[:, :, None]).sum(axis=1)


def nbody(pos, vel, mass, dt, steps, eps=1e-2):
    def step(_, state):
        pos, vel, acc = state
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = _accelerations(pos, mass, eps)
        vel = vel + 0.5 * dt * acc
        return pos, vel, acc

    pos, vel, _ = lax.fori_loop(0, steps, step, (pos, vel, _accelerations(pos, mass, eps)))
    kinetic = 0.5 * jnp.sum(mass * jnp.sum(vel ** 2, axis=1))
    return pos, vel, kinetic


# --- dispatch probes --------------------------------------------------------------------

def add1(x):
    return x + 1


def axpy(a, x, y):
    return a * x + y


def sum_and_scale(x):
    return x.sum(), x * 2.0
