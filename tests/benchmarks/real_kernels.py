"""Real kernel classes (issue 13): legacy NumPy code as it is found in scientific and
numerical programs, written for this suite. The JAX hand ports are in `real_ports.py`
under the same names.

Classes (the `family` of each kernel):
  blas2       mat-vec, rank-1 update, normal-equations product `A.T @ (A @ x)`
  blas3       a chain of matrix products
  covariance  covariance and correlation, vectorised and with a loop over columns
  linalg      triangular solve and Cholesky with explicit loops and shrinking slices
  conv        convolution and pooling layers with explicit loops over output pixels,
              and a vectorised pooling layer
  halo-stencil a diffusion stencil built on padding views
  histogram   binning with masks, one bin at a time
  sparse      CSR mat-vec, row by row, with `A_col[A_row[i]:A_row[i+1]]`
  order-stats medians and sorts: a robust scaling column by column, a trimmed mean
  array-shapes shapes that were slower than NumPy (`shape_kernels.py`)

Sizes are total elements of the largest argument (10^4 .. 10^8 across modes and the
scaling sweep). Like `kernels.py`, this module imports neither npxla nor JAX.
"""
from __future__ import annotations

import numpy as np

from .kernels import Kernel
from .shape_kernels import SHAPE_KERNELS

FAMILIES = ("blas2", "blas3", "covariance", "linalg", "conv", "halo-stencil", "histogram",
            "sparse", "order-stats", "array-shapes")


# --- BLAS-2 ------------------------------------------------------------------------------

def gemv(A, x, y, alpha, beta):
    """y <- alpha A x + beta y, returned as a new vector."""
    return alpha * (A @ x) + beta * y


def rank1_update(A, u, v, alpha):
    """A <- A + alpha u v^T, in place (the caller's matrix is updated)."""
    A += alpha * np.outer(u, v)
    return A


def normal_matvec(A, x):
    """The normal-equations operator applied to x: A^T (A x)."""
    return A.T @ (A @ x)


# --- BLAS-3 ------------------------------------------------------------------------------

def gemm_chain(A, B, C, alpha):
    """A three-matrix product with a symmetric correction."""
    T = alpha * (A @ B)
    D = T @ C
    return D + D.T


# --- covariance / correlation ------------------------------------------------------------

def covariance(data):
    n = data.shape[0]
    mean = data.mean(axis=0)
    X = data - mean
    return (X.T @ X) / (n - 1)


def correlation_loop(data):
    """Pearson correlation matrix, filled one column at a time (lower triangle, then
    mirrored), as in old Fortran-style code."""
    n, M = data.shape
    mean = np.mean(data, axis=0)
    std = np.sqrt(np.sum((data - mean) ** 2, axis=0) / n)
    std = np.where(std <= 0.1, 1.0, std)
    Z = (data - mean) / (np.sqrt(n) * std)
    corr = np.eye(M)
    for i in range(M - 1):
        corr[i + 1:M, i] = Z[:, i] @ Z[:, i + 1:M]
        corr[i, i + 1:M] = corr[i + 1:M, i]
    return corr


# --- triangular solve and factorisation --------------------------------------------------

def forward_substitution(L, b):
    """Solve L x = b for lower-triangular L, one row at a time."""
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def cholesky_loops(A):
    """Cholesky-Banachiewicz: L with L L^T = A, explicit loops over i and j."""
    n = A.shape[0]
    L = np.zeros_like(A)
    for i in range(n):
        for j in range(i):
            L[i, j] = (A[i, j] - L[i, :j] @ L[j, :j]) / L[j, j]
        L[i, i] = np.sqrt(A[i, i] - L[i, :i] @ L[i, :i])
    return L


# --- convolution and pooling -------------------------------------------------------------

def conv2d_loops(x, w, b):
    """A 'valid' convolution layer with ReLU: x (C, H, W), w (F, C, K, K), b (F,);
    one output pixel at a time."""
    F, C, K, _ = w.shape
    Ho = x.shape[1] - K + 1
    Wo = x.shape[2] - K + 1
    wmat = w.reshape(F, C * K * K)
    out = np.empty((F, Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            patch = x[:, i:i + K, j:j + K]
            out[:, i, j] = wmat @ patch.ravel() + b
    return np.maximum(out, 0.0)


def maxpool_loops(x):
    """2x2 max pooling, stride 2, one output pixel at a time: x (C, H, W)."""
    C, H, W = x.shape
    out = np.empty((C, H // 2, W // 2))
    for i in range(H // 2):
        for j in range(W // 2):
            win = x[:, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
            out[:, i, j] = np.maximum(np.maximum(win[:, 0, 0], win[:, 0, 1]),
                                      np.maximum(win[:, 1, 0], win[:, 1, 1]))
    return out


def avgpool_vectorised(x):
    """2x2 average pooling by reshaping (C, H, W) -> (C, H/2, 2, W/2, 2)."""
    C, H, W = x.shape
    return x.reshape(C, H // 2, 2, W // 2, 2).mean(axis=4).mean(axis=2)


# --- stencil with padding views ----------------------------------------------------------

def diffuse_padded(u, steps):
    """Explicit diffusion with zero-flux boundaries: each step pads the grid by copying
    the edge rows/columns into a halo, then takes views of the padded array."""
    n, m = u.shape
    p = np.empty((n + 2, m + 2))
    for _ in range(steps):
        p[1:-1, 1:-1] = u
        p[0, 1:-1] = u[0]
        p[-1, 1:-1] = u[-1]
        p[1:-1, 0] = u[:, 0]
        p[1:-1, -1] = u[:, -1]
        north, south = p[:-2, 1:-1], p[2:, 1:-1]
        west, east = p[1:-1, :-2], p[1:-1, 2:]
        u = u + 0.2 * (north + south + west + east - 4.0 * u)
    return u


# --- histogram / binning -----------------------------------------------------------------

def histogram_masks(x, w, edges):
    """Counts and weighted sums per bin, one boolean mask per bin."""
    nb = edges.shape[0] - 1
    counts = np.zeros(nb, dtype=np.int64)
    sums = np.zeros(nb)
    for k in range(nb):
        inside = (x >= edges[k]) & (x < edges[k + 1])
        counts[k] = np.count_nonzero(inside)
        sums[k] = np.sum(np.where(inside, w, 0.0))
    return counts, sums


# --- sparse ------------------------------------------------------------------------------

def csr_matvec(A_val, A_col, A_row, x):
    """y = A x for A in compressed sparse row form, one row at a time."""
    n = A_row.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        cols = A_col[A_row[i]:A_row[i + 1]]
        y[i] = A_val[A_row[i]:A_row[i + 1]] @ x[cols]
    return y


# --- order statistics --------------------------------------------------------------------

def robust_scale(X):
    """Every column centred on its median and divided by its scaled median absolute
    deviation, one column at a time."""
    out = np.empty_like(X)
    for j in range(X.shape[1]):
        col = X[:, j]
        med = np.median(col)
        mad = np.median(np.abs(col - med))
        out[:, j] = (col - med) / (1.4826 * mad)
    return out


def trimmed_mean(X, cut):
    """Per row, the mean of what is left once the `cut` smallest and the `cut` largest
    values are dropped."""
    s = np.sort(X, axis=1)
    return s[:, cut:X.shape[1] - cut].mean(axis=1)


# --- inputs (n = total elements of the largest array) ------------------------------------

def _side(n, ratio=1.0):
    """rows, cols with rows * cols ~ n and cols / rows ~ ratio."""
    rows = max(int(round((n / ratio) ** 0.5)), 2)
    return rows, max(int(round(rows * ratio)), 2)


def _gemv(n, rng):
    r, c = _side(n, 1.25)
    return rng.normal(size=(r, c)), rng.normal(size=c), rng.normal(size=r), 1.5, -0.5


def _rank1(n, rng):
    r, c = _side(n, 1.25)
    return rng.normal(size=(r, c)), rng.normal(size=r), rng.normal(size=c), 0.25


def _normal(n, rng):
    r, c = _side(n, 1.25)
    return rng.normal(size=(r, c)), rng.normal(size=c)


def _gemm(n, rng):
    s = _side(n)[0]
    return (rng.normal(size=(s, s)), rng.normal(size=(s, s)) / s ** 0.5,
            rng.normal(size=(s, s)) / s ** 0.5, 0.5)


def _tall(ratio):
    def make(n, rng):
        r, c = _side(n, ratio)
        return rng.normal(size=(r, c)) * rng.uniform(0.5, 2.0, c) + rng.normal(size=c),
    return make


def _lower(n, rng):
    s = _side(n)[0]
    L = np.tril(rng.uniform(-1.0, 1.0, (s, s))) / s
    L[np.diag_indices(s)] = rng.uniform(1.0, 2.0, s)
    return L, rng.normal(size=s)


def _spd(n, rng):
    s = _side(n)[0]
    B = rng.normal(size=(s, s))
    return B @ B.T / s + np.eye(s),


def _conv(n, rng):                        # n = H * W of a 16-channel image; 16 filters 3x3
    h = max(int(round(n ** 0.5)), 4)
    C, F, K = 16, 16, 3
    return (rng.normal(size=(C, h, h)), rng.normal(size=(F, C, K, K)) / (C * K * K) ** 0.5,
            rng.normal(size=F))


def _pool(n, rng):                        # n = total elements, 32 channels, even sides
    h = max(2 * int(round((n / 32) ** 0.5 / 2)), 2)
    return rng.normal(size=(32, h, h)),


def _grid(n, rng):
    r, c = _side(n)
    return rng.uniform(0.0, 1.0, (r, c)), 10


def _hist(n, rng):
    return rng.normal(size=n), rng.uniform(0.0, 1.0, n), np.linspace(-3.0, 3.0, 33)


def _csr(n, rng):                         # n = nonzeros, about 16 per row, square matrix
    rows = max(n // 16, 2)
    per_row = rng.integers(8, 25, rows)
    A_row = np.zeros(rows + 1, dtype=np.int64)
    A_row[1:] = np.cumsum(per_row)
    nnz = int(A_row[-1])
    A_col = rng.integers(0, rows, nnz).astype(np.int64)
    return rng.normal(size=nnz), A_col, A_row, rng.normal(size=rows)


def _heavy_tailed(n, rng):                # columns of 1000 rows or more, outliers
    r, c = _side(n, 0.01)
    return rng.standard_t(3, size=(r, c)) * rng.uniform(0.5, 2.0, c),


def _rows_to_trim(n, rng):
    r, c = _side(n, 4.0)
    return rng.standard_t(3, size=(r, c)), c // 10


# --- the table ---------------------------------------------------------------------------

def _k(fn, family, make_inputs, smoke, quick, full, rtol=1e-9, atol=1e-12, jax_static=(),
       note=""):
    return Kernel(fn.__name__, family, fn, make_inputs,
                  {"smoke": smoke, "quick": quick, "full": full}, rtol=rtol, atol=atol,
                  jax_static=jax_static, note=note, ports="real_ports")


REAL_KERNELS = [
    _k(gemv, "blas2", _gemv, 400, 1_000_000, 20_000_000, note="A 4000x5000 at full size"),
    _k(rank1_update, "blas2", _rank1, 400, 1_000_000, 20_000_000,
       note="writes into its argument"),
    _k(normal_matvec, "blas2", _normal, 400, 1_000_000, 20_000_000),
    _k(gemm_chain, "blas3", _gemm, 400, 250_000, 2_250_000, rtol=1e-8, atol=1e-9),
    _k(covariance, "covariance", _tall(0.025), 400, 1_000_000, 10_000_000, rtol=1e-8,
       atol=1e-10),
    _k(correlation_loop, "covariance", _tall(0.01), 400, 40_000, 1_000_000, rtol=1e-8,
       atol=1e-10, note="loop over columns with index-dependent slices"),
    _k(forward_substitution, "linalg", _lower, 100, 10_000, 1_000_000, rtol=1e-8,
       atol=1e-10, note="slices L[i, :i]: index-dependent extents"),
    _k(cholesky_loops, "linalg", _spd, 64, 1_600, 10_000, rtol=1e-8, atol=1e-10,
       note="loops over i, j with L[i, :j]: index-dependent extents"),
    _k(conv2d_loops, "conv", _conv, 64, 256, 1_156, rtol=1e-9, atol=1e-10,
       note="16->16 channels, 3x3, loop over output pixels"),
    _k(maxpool_loops, "conv", _pool, 512, 8_192, 131_072,
       note="32 channels, loop over output pixels"),
    _k(avgpool_vectorised, "conv", _pool, 512, 1_000_000, 33_554_432),
    _k(diffuse_padded, "halo-stencil", _grid, 400, 250_000, 4_000_000, rtol=1e-10,
       atol=1e-12, jax_static=(1,), note="10 steps"),
    _k(histogram_masks, "histogram", _hist, 400, 1_000_000, 10_000_000, rtol=1e-9,
       atol=1e-9, note="32 bins"),
    _k(csr_matvec, "sparse", _csr, 400, 40_000, 160_000, rtol=1e-9, atol=1e-12,
       note="about 16 nonzeros per row; slices with data-dependent extents"),
    _k(robust_scale, "order-stats", _heavy_tailed, 400, 100_000, 1_000_000,
       note="two medians per column, loop over columns"),
    _k(trimmed_mean, "order-stats", _rows_to_trim, 400, 1_000_000, 10_000_000,
       jax_static=(1,), note="sort along rows, 10% cut at each end"),
]

REAL_KERNELS += SHAPE_KERNELS

BY_NAME = {k.name: k for k in REAL_KERNELS}

QUICK = tuple(k.name for k in REAL_KERNELS)

# scaling sweep: 10^4 .. 10^8 elements where memory and time allow
SWEEP = {
    "gemv": (10_000, 100_000, 1_000_000, 10_000_000, 100_000_000),
    "avgpool_vectorised": (10_000, 100_000, 1_000_000, 10_000_000, 100_000_000),
    "histogram_masks": (10_000, 100_000, 1_000_000, 10_000_000),
    "covariance": (10_000, 100_000, 1_000_000, 10_000_000),
}
SWEEP_QUICK = {"gemv": (10_000, 1_000_000), "avgpool_vectorised": (10_000, 1_000_000)}
