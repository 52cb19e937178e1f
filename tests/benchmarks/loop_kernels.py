"""Loop kernels (issue 37): legacy NumPy code written as explicit Python loops over
scalars and slices, the kind of code Numba is usually brought in for. npxla and Numba
compile the same source; the JAX hand ports (`lax.fori_loop` / `lax.scan` /
`lax.while_loop`) are in `loop_ports.py` under the same names, where JAX can express the
kernel.

Families (the `family` of each kernel):
  loop-factor  Cholesky and LU without pivoting, both in place
  loop-solve   forward substitution with a scalar inner loop, back substitution with
               `np.dot` of a slice
  loop-sweep   in-place SOR sweeps over a 2-D grid (each point sees its updated
               neighbours)
  loop-bits    checksums and bit manipulation on integer arrays: Adler-32, table-driven
               CRC-32, xorshift + popcount
  loop-sparse  CSR mat-vec with a scalar inner loop over `indptr[i]:indptr[i + 1]`
  loop-filter  recursive filters: first-order IIR over rows, a Deriche forward/backward
               pass
  loop-dp      dynamic programming over an int64 table: edit distance, Needleman-Wunsch
  loop-levinson Levinson-Durbin recursion (reversed slices of run-time length)
  loop-reduce  counted loops that fold integers in an order-free way: a count of floats
               in a band, integer sums of squares and an xor fold

`n` (the size parameter) is the natural dimension of each kernel (matrix side, signal
length, byte count), given per kernel in `LOOP_KERNELS`. Like `kernels.py`, this module
imports neither npxla nor JAX.
"""
from __future__ import annotations

import numpy as np

from .kernels import Kernel

FAMILIES = ("loop-factor", "loop-solve", "loop-sweep", "loop-bits", "loop-sparse",
            "loop-filter", "loop-dp", "loop-levinson", "loop-reduce")


# --- triangular factorisations, in place -------------------------------------------------

def cholesky_inplace(A):
    """Cholesky-Banachiewicz in the lower triangle of A (A = L L^T); returns L."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] = np.sqrt(A[i, i] - np.dot(A[i, :i], A[i, :i]))
    for i in range(n):
        A[i, i + 1:] = 0.0
    return A


def lu_inplace(A):
    """Doolittle LU without pivoting, row by row (IKJ order): unit-lower L below the
    diagonal, U on and above it, overwriting A."""
    n = A.shape[0]
    for i in range(1, n):
        for k in range(i):
            A[i, k] /= A[k, k]
            A[i, k + 1:] -= A[i, k] * A[k, k + 1:]
    return A


# --- triangular solves -------------------------------------------------------------------

def forward_subst_scalar(L, b):
    """L x = b, lower triangular, with a scalar inner loop (Fortran style)."""
    n = b.shape[0]
    x = np.empty(n)
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]
    return x


def back_subst_dot(U, b):
    """U x = b, upper triangular, overwriting a copy of b from the last row up."""
    n = b.shape[0]
    x = b.copy()
    for i in range(n - 1, -1, -1):
        x[i] = (x[i] - np.dot(U[i, i + 1:], x[i + 1:])) / U[i, i]
    return x


# --- in-place stencil sweeps -------------------------------------------------------------

def sor_sweeps(u, f, omega, sweeps):
    """Successive over-relaxation for the 2-D Poisson equation -lap u = f (unit square,
    Dirichlet boundary in the edge rows/columns of u), lexicographic order, in place."""
    n, m = u.shape
    h2 = 1.0 / ((n - 1) * (n - 1))
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                gs = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                             + h2 * f[i, j])
                u[i, j] += omega * (gs - u[i, j])
    return u


# --- checksums and bit manipulation ------------------------------------------------------

def adler32(data):
    """Adler-32 of a uint8 array, one byte at a time (zlib.adler32's value)."""
    MOD = 65521
    a = 1
    b = 0
    for i in range(data.shape[0]):
        a = (a + int(data[i])) % MOD
        b = (b + a) % MOD
    return (b << 16) | a


def crc32(data):
    """Table-driven CRC-32 (the zlib polynomial) of a uint8 array; builds its table."""
    table = np.zeros(256, dtype=np.uint32)
    for k in range(256):
        c = np.uint32(k)
        for _ in range(8):
            if c & np.uint32(1):
                c = np.uint32(0xEDB88320) ^ (c >> np.uint32(1))
            else:
                c = c >> np.uint32(1)
        table[k] = c
    crc = np.uint32(0xFFFFFFFF)
    for i in range(data.shape[0]):
        crc = table[(crc ^ data[i]) & np.uint32(0xFF)] ^ (crc >> np.uint32(8))
    return crc ^ np.uint32(0xFFFFFFFF)


def xorshift_popcount(seeds, rounds):
    """Per seed, `rounds` steps of Marsaglia's xorshift64 and the total number of set
    bits of the states, counted with Kernighan's loop (v &= v - 1)."""
    n = seeds.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        x = seeds[i]
        c = 0
        for _ in range(rounds):
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            v = x
            while v:
                v &= v - np.uint64(1)
                c += 1
        out[i] = c
    return out


# --- order-free reductions ----------------------------------------------------------------

def count_in_band(x, lo, hi):
    """How many samples lie in [lo, hi), counted with a Python int."""
    count = 0
    for i in range(x.shape[0]):
        if lo <= x[i] < hi:
            count += 1
    return count


def int_moments(v):
    """The sum, the sum of squares and the xor of an int64 array, in one pass."""
    total = np.int64(0)
    squares = np.int64(0)
    mixed = np.int64(0)
    for i in range(v.shape[0]):
        total += v[i]
        squares += v[i] * v[i]
        mixed ^= v[i]
    return total, squares, mixed


# --- sparse ------------------------------------------------------------------------------

def csr_matvec_loop(indptr, indices, data, x):
    """y = A x for A in CSR form, a scalar loop over each row's nonzeros."""
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        y[i] = s
    return y


# --- recursive filters -------------------------------------------------------------------

def iir_rows(x, a, b):
    """First-order recursive filter along each row: y[i, t] = a y[i, t-1] + b x[i, t]."""
    rows, T = x.shape
    y = np.empty_like(x)
    for i in range(rows):
        y[i, 0] = b * x[i, 0]
        for t in range(1, T):
            y[i, t] = a * y[i, t - 1] + b * x[i, t]
    return y


def deriche_rows(img, alpha):
    """The horizontal pass of Deriche's recursive edge-preserving smoother: a causal
    pass left to right and an anti-causal pass right to left along every row."""
    k = ((1.0 - np.exp(-alpha)) * (1.0 - np.exp(-alpha))
         / (1.0 + 2.0 * alpha * np.exp(-alpha) - np.exp(2.0 * alpha)))
    a1 = k
    a2 = k * np.exp(-alpha) * (alpha - 1.0)
    a3 = k * np.exp(-alpha) * (alpha + 1.0)
    a4 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0 ** (-alpha)
    b2 = -np.exp(-2.0 * alpha)
    H, W = img.shape
    y1 = np.empty_like(img)
    y2 = np.empty_like(img)
    for i in range(H):
        ym1 = 0.0
        ym2 = 0.0
        xm1 = 0.0
        for j in range(W):
            y1[i, j] = a1 * img[i, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
            xm1 = img[i, j]
            ym2 = ym1
            ym1 = y1[i, j]
    for i in range(H):
        yp1 = 0.0
        yp2 = 0.0
        xp1 = 0.0
        xp2 = 0.0
        for j in range(W - 1, -1, -1):
            y2[i, j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
            xp2 = xp1
            xp1 = img[i, j]
            yp2 = yp1
            yp1 = y2[i, j]
    return y1 + y2


# --- dynamic programming -----------------------------------------------------------------

def edit_distance(s, t):
    """Levenshtein distance between two int sequences (full int64 table)."""
    n = s.shape[0]
    m = t.shape[0]
    D = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if s[i - 1] == t[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def needleman_wunsch(a, b, match, mismatch, gap):
    """Global alignment scores of two int sequences: the whole int64 score table."""
    n = a.shape[0]
    m = b.shape[0]
    S = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(1, n + 1):
        S[i, 0] = i * gap
    for j in range(1, m + 1):
        S[0, j] = j * gap
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                diag = S[i - 1, j - 1] + match
            else:
                diag = S[i - 1, j - 1] + mismatch
            S[i, j] = max(diag, S[i - 1, j] + gap, S[i, j - 1] + gap)
    return S


# --- Levinson-Durbin ---------------------------------------------------------------------

def levinson_durbin(r):
    """Prediction-error filter a (a[0] = 1), reflection coefficients k and final error
    of the Toeplitz system with autocorrelation r, order r.size - 1."""
    p = r.shape[0] - 1
    a = np.zeros(p + 1)
    a[0] = 1.0
    k = np.zeros(p)
    e = r[0]
    for i in range(1, p + 1):
        acc = r[i] + np.dot(a[1:i], r[i - 1:0:-1])
        ki = -acc / e
        k[i - 1] = ki
        a[1:i] = a[1:i] + ki * a[i - 1:0:-1]
        a[i] = ki
        e = e * (1.0 - ki * ki)
    return a, k, e


# --- inputs (n = the kernel's natural dimension) -----------------------------------------

def _spd(n, rng):
    B = rng.normal(size=(n, n))
    return B @ B.T / n + np.eye(n),


def _dominant(n, rng):
    A = rng.uniform(-1.0, 1.0, (n, n))
    return A + np.diag(np.abs(A).sum(axis=1) + 1.0),


def _lower(n, rng):
    L = np.tril(rng.uniform(-1.0, 1.0, (n, n))) / n
    L[np.diag_indices(n)] = rng.uniform(1.0, 2.0, n)
    return L, rng.normal(size=n)


def _upper(n, rng):
    L, b = _lower(n, rng)
    return np.ascontiguousarray(L.T), b


def _poisson(n, rng):                     # n x n grid, zero boundary, 10 sweeps
    u = np.zeros((n, n))
    f = rng.uniform(-1.0, 1.0, (n, n))
    return u, f, 1.5, 10


def _bytes(n, rng):
    return rng.integers(0, 256, n, dtype=np.uint8),


def _seeds(n, rng):                        # n seeds, 8 rounds each
    return rng.integers(1, 2**63, n, dtype=np.uint64) | np.uint64(1), 8


def _band(n, rng):                         # n samples, a band holding about 40%
    return rng.normal(size=n), -0.5, 0.5


def _int_samples(n, rng):
    return rng.integers(-30_000, 30_000, n),


def _csr(n, rng):                          # n rows, 4..28 nonzeros per row
    per_row = rng.integers(4, 29, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(per_row)
    nnz = int(indptr[-1])
    indices = rng.integers(0, n, nnz).astype(np.int64)
    return indptr, indices, rng.normal(size=nnz), rng.normal(size=n)


def _signals(n, rng):                      # n = total samples, 16 rows
    return rng.normal(size=(16, max(n // 16, 2))), 0.9, 0.1


def _image(n, rng):                        # n = side of a square image
    return rng.uniform(0.0, 1.0, (n, n)), 0.25


def _sequences(n, rng):                    # two sequences over a 4-letter alphabet
    return rng.integers(0, 4, n), rng.integers(0, 4, n + n // 4)


def _alignment(n, rng):
    a, b = _sequences(n, rng)
    return a, b, 2, -1, -2


def _autocorrelation(n, rng):              # order n of an AR(2) signal's autocorrelation
    N = 8 * (n + 1)
    x = rng.normal(size=N)
    for t in range(2, N):
        x[t] += 1.6 * x[t - 1] - 0.8 * x[t - 2]
    r = np.array([x[:N - k] @ x[k:] for k in range(n + 1)]) / N
    return r,


# --- the table ---------------------------------------------------------------------------

def _k(fn, family, make_inputs, smoke, quick, full, rtol=1e-9, atol=1e-12, jax_static=(),
       note=""):
    return Kernel(fn.__name__, family, fn, make_inputs,
                  {"smoke": smoke, "quick": quick, "full": full}, rtol=rtol, atol=atol,
                  jax_static=jax_static, note=note, ports="loop_ports")


LOOP_KERNELS = [
    _k(cholesky_inplace, "loop-factor", _spd, 8, 100, 400, rtol=1e-9, atol=1e-12,
       note="A[i, j] -= np.dot(A[i, :j], A[j, :j]); A[i, j] /= A[j, j]"),
    _k(lu_inplace, "loop-factor", _dominant, 8, 60, 200, rtol=1e-9, atol=1e-12,
       note="A[i, k+1:] -= A[i, k] * A[k, k+1:], rows i, columns k < i"),
    _k(forward_subst_scalar, "loop-solve", _lower, 8, 100, 400, rtol=1e-9, atol=1e-12,
       note="scalar inner loop s -= L[i, j] * x[j]"),
    _k(back_subst_dot, "loop-solve", _upper, 8, 300, 3000, rtol=1e-9, atol=1e-12,
       note="np.dot(U[i, i+1:], x[i+1:]), rows from the last"),
    _k(sor_sweeps, "loop-sweep", _poisson, 6, 32, 100, rtol=1e-9, atol=1e-12,
       jax_static=(3,), note="omega 1.5, 10 sweeps, scalar i, j loops"),
    _k(adler32, "loop-bits", _bytes, 64, 20_000, 500_000, rtol=0, atol=0,
       note="two modular sums per byte"),
    _k(crc32, "loop-bits", _bytes, 64, 20_000, 500_000, rtol=0, atol=0,
       note="table built in the kernel, one gather per byte"),
    _k(xorshift_popcount, "loop-bits", _seeds, 4, 200, 2000, rtol=0, atol=0,
       jax_static=(1,), note="8 rounds per seed; data-dependent while loop (v &= v - 1)"),
    _k(csr_matvec_loop, "loop-sparse", _csr, 16, 2_000, 50_000, rtol=1e-9, atol=1e-12,
       note="about 16 nonzeros per row; range(indptr[i], indptr[i+1])"),
    _k(iir_rows, "loop-filter", _signals, 64, 20_000, 500_000, rtol=1e-9, atol=1e-12,
       note="16 rows, scalar loop over t"),
    _k(deriche_rows, "loop-filter", _image, 8, 100, 400, rtol=1e-9, atol=1e-12,
       note="causal + anti-causal pass per row, scalar carries"),
    _k(edit_distance, "loop-dp", _sequences, 8, 100, 400, rtol=0, atol=0,
       note="int64 table, min of three neighbours"),
    _k(needleman_wunsch, "loop-dp", _alignment, 8, 100, 400, rtol=0, atol=0,
       note="int64 table returned, max of three neighbours, if/else on a match"),
    _k(count_in_band, "loop-reduce", _band, 64, 20_000, 1_000_000, rtol=0, atol=0,
       note="if lo <= x[i] < hi: count += 1 (a Python int)"),
    _k(int_moments, "loop-reduce", _int_samples, 64, 20_000, 1_000_000, rtol=0, atol=0,
       note="int64 sum, sum of squares and xor in one loop"),
    _k(levinson_durbin, "loop-levinson", _autocorrelation, 8, 300, 3000, rtol=1e-7,
       atol=1e-10, note="np.dot(a[1:i], r[i-1:0:-1]) and a[1:i] += ki * a[i-1:0:-1]"),
]

BY_NAME = {k.name: k for k in LOOP_KERNELS}

QUICK = tuple(k.name for k in LOOP_KERNELS)
