"""JAX hand ports of the kernels in `loop_kernels.py` (same names, same results to
rounding; exact for the integer kernels).

The loops stay loops, as a JAX user writes them: `lax.fori_loop` over the sequential
index, `lax.scan` where a scalar carry runs along a row, `lax.while_loop` for a
data-dependent count. Independent rows (the IIR and Deriche filters) and independent
seeds (xorshift) are vectorised with array carries / `vmap`. Slices with index-dependent
extents (`A[i, :j]`, `U[i, i+1:]`, `a[i-1:0:-1]`) become full rows with masks or gathers,
since JAX shapes are static. Run under float64 (the harness enables `jax_enable_x64`).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

# --- triangular factorisations -----------------------------------------------------------

def cholesky_inplace(A):
    n = A.shape[0]
    idx = jnp.arange(n)

    def row(i, A):
        def col(j, A):
            s = jnp.sum(jnp.where(idx < j, A[i] * A[j], 0.0))
            return A.at[i, j].set((A[i, j] - s) / A[j, j])
        A = lax.fori_loop(0, i, col, A)
        d = jnp.sum(jnp.where(idx < i, A[i] * A[i], 0.0))
        return A.at[i, i].set(jnp.sqrt(A[i, i] - d))
    return jnp.tril(lax.fori_loop(0, n, row, A))


def lu_inplace(A):
    n = A.shape[0]
    idx = jnp.arange(n)

    def row(i, A):
        def elim(k, r):                      # r is row i
            lik = r[k] / A[k, k]
            r = jnp.where(idx > k, r - lik * A[k], r)
            return r.at[k].set(lik)
        return A.at[i].set(lax.fori_loop(0, i, elim, A[i]))
    return lax.fori_loop(1, n, row, A)


# --- triangular solves -------------------------------------------------------------------

def forward_subst_scalar(L, b):
    n = b.shape[0]

    def row(i, x):
        s = lax.fori_loop(0, i, lambda j, s: s - L[i, j] * x[j], b[i])
        return x.at[i].set(s / L[i, i])
    return lax.fori_loop(0, n, row, jnp.zeros_like(b))


def back_subst_dot(U, b):
    n = b.shape[0]
    idx = jnp.arange(n)

    def row(k, x):
        i = n - 1 - k
        s = jnp.dot(jnp.where(idx > i, U[i], 0.0), x)
        return x.at[i].set((x[i] - s) / U[i, i])
    return lax.fori_loop(0, n, row, b)


# --- SOR ---------------------------------------------------------------------------------

def sor_sweeps(u, f, omega, sweeps):
    n, m = u.shape
    h2 = 1.0 / ((n - 1) * (n - 1))

    def row(i, u):
        up, down, old, fi = u[i - 1], u[i + 1], u[i], f[i]

        def point(left, j):                  # left: the updated u[i, j-1]
            gs = 0.25 * (up[j] + down[j] + left + old[j + 1] + h2 * fi[j])
            new = old[j] + omega * (gs - old[j])
            return new, new
        _, inner = lax.scan(point, old[0], jnp.arange(1, m - 1))
        return u.at[i, 1:m - 1].set(inner)

    def sweep(_, u):
        return lax.fori_loop(1, n - 1, row, u)
    return lax.fori_loop(0, sweeps, sweep, u)


# --- checksums and bits ------------------------------------------------------------------

def adler32(data):
    def byte(ab, d):
        a, b = ab
        a = (a + d) % 65521
        b = (b + a) % 65521
        return (a, b), None
    (a, b), _ = lax.scan(byte, (jnp.int64(1), jnp.int64(0)), data.astype(jnp.int64))
    return (b << 16) | a


def crc32(data):
    def entry(k):
        def bit(_, c):
            return jnp.where(c & 1, jnp.uint32(0xEDB88320) ^ (c >> 1), c >> 1)
        return lax.fori_loop(0, 8, bit, k)
    table = jax.vmap(entry)(jnp.arange(256, dtype=jnp.uint32))

    def byte(crc, d):
        return table[(crc ^ d) & 0xFF] ^ (crc >> 8), None
    crc, _ = lax.scan(byte, jnp.uint32(0xFFFFFFFF), data.astype(jnp.uint32))
    return crc ^ jnp.uint32(0xFFFFFFFF)


def xorshift_popcount(seeds, rounds):
    one = jnp.uint64(1)

    def per_seed(x):
        def step(_, xc):
            x, c = xc
            x = x ^ (x << jnp.uint64(13))
            x = x ^ (x >> jnp.uint64(7))
            x = x ^ (x << jnp.uint64(17))
            _, c = lax.while_loop(lambda vc: vc[0] != 0,
                                  lambda vc: (vc[0] & (vc[0] - one), vc[1] + 1), (x, c))
            return x, c
        return lax.fori_loop(0, rounds, step, (x, jnp.int64(0)))[1]
    return jax.vmap(per_seed)(seeds)


# --- order-free reductions ----------------------------------------------------------------

def count_in_band(x, lo, hi):
    def step(i, c):
        return c + ((lo <= x[i]) & (x[i] < hi)).astype(jnp.int64)
    return lax.fori_loop(0, x.shape[0], step, jnp.int64(0))


def int_moments(v):
    def step(i, acc):
        total, squares, mixed = acc
        return total + v[i], squares + v[i] * v[i], mixed ^ v[i]
    zero = jnp.int64(0)
    return lax.fori_loop(0, v.shape[0], step, (zero, zero, zero))


# --- sparse ------------------------------------------------------------------------------

def csr_matvec_loop(indptr, indices, data, x):
    n = indptr.shape[0] - 1

    def row(i, y):
        s = lax.fori_loop(indptr[i], indptr[i + 1],
                          lambda k, s: s + data[k] * x[indices[k]], 0.0)
        return y.at[i].set(s)
    return lax.fori_loop(0, n, row, jnp.zeros(n))


# --- recursive filters -------------------------------------------------------------------

def iir_rows(x, a, b):
    def step(y, xt):                         # all rows at once along t
        y = a * y + b * xt
        return y, y
    _, ys = lax.scan(step, b * x[:, 0], x[:, 1:].T)
    return jnp.concatenate([b * x[:, :1], ys.T], axis=1)


def deriche_rows(img, alpha):
    e1, e2 = jnp.exp(-alpha), jnp.exp(-2.0 * alpha)
    k = (1.0 - e1) * (1.0 - e1) / (1.0 + 2.0 * alpha * e1 - jnp.exp(2.0 * alpha))
    a1, a2, a3, a4 = k, k * e1 * (alpha - 1.0), k * e1 * (alpha + 1.0), -k * e2
    b1, b2 = 2.0 ** (-alpha), -e2
    z = jnp.zeros(img.shape[0])
    cols = img.T

    def causal(c, xj):
        xm1, ym1, ym2 = c
        y = a1 * xj + a2 * xm1 + b1 * ym1 + b2 * ym2
        return (xj, y, ym1), y
    _, y1 = lax.scan(causal, (z, z, z), cols)

    def anti(c, xj):
        xp1, xp2, yp1, yp2 = c
        y = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
        return (xj, xp1, y, yp1), y
    _, y2 = lax.scan(anti, (z, z, z, z), cols, reverse=True)
    return (y1 + y2).T


# --- dynamic programming -----------------------------------------------------------------

def edit_distance(s, t):
    n, m = s.shape[0], t.shape[0]
    j = jnp.arange(m + 1)

    def row(i, prev):                        # prev: row i-1 of the table
        cost = jnp.where(s[i - 1] == t, 0, 1)
        cand = jnp.concatenate([i[None].astype(prev.dtype),
                                jnp.minimum(prev[1:] + 1, prev[:-1] + cost)])
        # D[i, j] = min(cand[j], D[i, j-1] + 1) = j + cummin(cand - j)
        return j + lax.cummin(cand - j)
    return lax.fori_loop(1, n + 1, row, j.astype(jnp.int64))[m]


def needleman_wunsch(a, b, match, mismatch, gap):
    n, m = a.shape[0], b.shape[0]
    j = jnp.arange(m + 1, dtype=jnp.int64)
    S = jnp.zeros((n + 1, m + 1), jnp.int64).at[0].set(j * gap)

    def row(i, S):
        prev = S[i - 1]
        diag = prev[:-1] + jnp.where(a[i - 1] == b, match, mismatch)
        cand = jnp.concatenate([(i * gap)[None].astype(jnp.int64),
                                jnp.maximum(diag, prev[1:] + gap)])
        # S[i, j] = max(cand[j], S[i, j-1] + gap) = j gap + cummax(cand - j gap)
        return S.at[i].set(j * gap + lax.cummax(cand - j * gap))
    return lax.fori_loop(1, n + 1, row, S)


# --- Levinson-Durbin ---------------------------------------------------------------------

def levinson_durbin(r):
    p = r.shape[0] - 1
    idx = jnp.arange(p + 1)

    def step(i, c):
        a, k, e = c
        inside = (idx >= 1) & (idx < i)
        rev = jnp.clip(i - idx, 0, p)        # a[i-j] and r[i-j] for j in 1..i-1
        acc = r[i] + jnp.sum(jnp.where(inside, a * r[rev], 0.0))
        ki = -acc / e
        a = jnp.where(inside, a + ki * a[rev], a).at[i].set(ki)
        return a, k.at[i - 1].set(ki), e * (1.0 - ki * ki)
    a0 = jnp.zeros(p + 1).at[0].set(1.0)
    return lax.fori_loop(1, p + 1, step, (a0, jnp.zeros(p), r[0]))
