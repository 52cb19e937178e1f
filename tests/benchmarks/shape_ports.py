"""Idiomatic JAX hand ports of the kernels in `shape_kernels.py` (same names, same
results to rounding): boolean-mask updates become `jnp.where`, in-place slice updates
`.at[].set`, the scalar diagonal loop a reduction. Run under float64."""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax


def batched_rows_matmul(A, C):
    return A @ C


def tanh_diagonal(a):
    return a + jnp.sum(jnp.tanh(jnp.diagonal(a)))


def matvec_pair(A, x, y):
    return A @ x + A.T @ y


def escape_time(c, maxiter):
    def step(_, state):
        z, counts = state
        alive = jnp.abs(z) <= 2.0
        return jnp.where(alive, z * z + c, z), counts + alive

    z0 = jnp.zeros_like(c)
    return lax.fori_loop(0, maxiter, step, (z0, jnp.zeros(c.shape, jnp.int64)))[1]


def clip_scale(x, lo, hi):
    return jnp.clip(x, lo, hi) * 2.0 - 1.0


def softmax_rows(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def centre_columns(data):
    d = data - data.mean(axis=0)
    return d.T @ d / (data.shape[0] - 1)


def fdtd_steps(ex, ey, hz, steps):
    def step(t, fields):
        ex, ey, hz = fields
        ey = ey.at[0, :].set(t.astype(ey.dtype))
        ey = ey.at[1:, :].set(ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :]))
        ex = ex.at[:, 1:].set(ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1]))
        hz = hz.at[:-1, :-1].set(hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] +
                                                       ey[1:, :-1] - ey[:-1, :-1]))
        return ex, ey, hz

    return lax.fori_loop(0, steps, step, (ex, ey, hz))[2]
