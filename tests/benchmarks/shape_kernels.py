"""Array shapes that were slower under npxla than under NumPy (issue 37, item 3), as
kernels of the real suite (`real_kernels.REAL_KERNELS`; JAX ports in `shape_ports.py`).

Family `array-shapes`:
  batched_rows_matmul  an (NR, NQ, NP) tensor times an (NP, NP) matrix through a
                       (NR, NQ, 1, NP) view (a stack of matrices times one matrix)
  tanh_diagonal        a scalar loop summing `np.tanh(a[i, i])`, then `a + s`
  matvec_pair          `A @ x + A.T @ y` (a product with a transposed operand)
  escape_time          escape-time iteration on complex points with boolean masks
  clip_scale           `np.clip`, then an affine map
  softmax_rows         the numerically stable softmax along rows
  centre_columns       covariance of column-centred data
  fdtd_steps           2-D FDTD (TE mode) updates of three fields in place

Sizes are total elements of the largest argument. Like `kernels.py`, this module imports
neither npxla nor JAX; the kernels are written for this suite.
"""
from __future__ import annotations

import numpy as np

from .kernels import Kernel


def batched_rows_matmul(A, C):
    NR, NQ, NP = A.shape
    out = np.empty_like(A)
    out[:] = (A.reshape(NR, NQ, 1, NP) @ C).reshape(NR, NQ, NP)
    return out


def tanh_diagonal(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += np.tanh(a[i, i])
    return a + s


def matvec_pair(A, x, y):
    return A @ x + A.T @ y


def escape_time(c, maxiter):
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for _ in range(maxiter):
        alive = np.abs(z) <= 2.0
        z[alive] = z[alive] * z[alive] + c[alive]
        counts[alive] += 1
    return counts


def clip_scale(x, lo, hi):
    return np.clip(x, lo, hi) * 2.0 - 1.0


def softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def centre_columns(data):
    d = data - data.mean(axis=0)
    return d.T @ d / (data.shape[0] - 1)


def fdtd_steps(ex, ey, hz, steps):
    for t in range(steps):
        ey[0, :] = float(t)
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] = hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] +
                                             ey[1:, :-1] - ey[:-1, :-1])
    return hz


def _side(n):
    return max(2, int(round(n ** 0.5)))


def _stack(n, rng):                         # n = NR * NQ * NP, NP = 160 (or less)
    p = min(160, max(2, int(round(n ** (1 / 3)))))
    q = max(1, int(n // (p * p)))
    return rng.standard_normal((p, q, p)), rng.standard_normal((p, p))


def _square(n, rng):
    s = _side(n)
    return (rng.standard_normal((s, s)),)


def _matvec(n, rng):
    s = _side(n)
    return rng.standard_normal((s, s)), rng.standard_normal(s), rng.standard_normal(s)


def _points(n, rng):
    s = _side(n)
    re, im = rng.uniform(-2, 1, (s, s)), rng.uniform(-1.5, 1.5, (s, s))
    return re + 1j * im, 30


def _clip(n, rng):
    return rng.standard_normal(n), -0.5, 0.5


def _rows(n, rng):                          # 1000 columns
    return (rng.standard_normal((max(1, n // 1000), 1000)),)


def _tall(n, rng):                          # 200 columns
    return (rng.standard_normal((max(2, n // 200), 200)),)


def _fields(n, rng):
    s = _side(n)
    return (rng.standard_normal((s, s)), rng.standard_normal((s, s)),
            rng.standard_normal((s, s)), 20)


def _k(fn, make_inputs, smoke, quick, full, rtol=1e-9, atol=1e-12, jax_static=(), note=""):
    return Kernel(fn.__name__, "array-shapes", fn, make_inputs,
                  {"smoke": smoke, "quick": quick, "full": full}, rtol=rtol, atol=atol,
                  jax_static=jax_static, note=note, ports="shape_ports")


SHAPE_KERNELS = [
    _k(batched_rows_matmul, _stack, 1_000, 300_000, 3_000_000, rtol=1e-10, atol=1e-10,
       note="(NR, NQ, 1, NP) @ (NP, NP)"),
    _k(tanh_diagonal, _square, 400, 250_000, 4_000_000, note="scalar loop over the diagonal"),
    _k(matvec_pair, _matvec, 400, 1_000_000, 9_000_000, rtol=1e-10, atol=1e-10),
    _k(escape_time, _points, 400, 40_000, 160_000, rtol=0, jax_static=(1,),
       note="30 iterations, boolean masks"),
    _k(clip_scale, _clip, 400, 1_000_000, 4_000_000),
    _k(softmax_rows, _rows, 2_000, 200_000, 2_000_000),
    _k(centre_columns, _tall, 2_000, 400_000, 4_000_000, rtol=1e-9, atol=1e-9),
    _k(fdtd_steps, _fields, 400, 90_000, 360_000, rtol=1e-9, atol=1e-9, jax_static=(3,),
       note="20 steps, writes into its arguments"),
]
