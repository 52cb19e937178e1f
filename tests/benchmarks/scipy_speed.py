"""npxla's SciPy subset against SciPy itself, side by side in one process.

Run: python -m tests.benchmarks.scipy_speed [--quick] [--only NAME,...] [--out FILE.md]
(the published table: `--out docs/scipy-speed.md`).

Every SciPy function npxla compiles (`transpiler/base/supported.py`'s SCIPY_SUPPORTED,
implemented in `runtime/numpy/scipy/`) gets a small legacy-style wrapper below: a
module-level `def` (so `npxla.jit` can read its source) that calls SciPy the way user code
does. Each wrapper runs at two sizes on the same inputs with SciPy (the plain function)
and with `npxla.jit(wrapper)`:

  * warm: the jitted wrapper is called once first (conversion + XLA compile, reported
    as "first call"), then both are sampled in >= 11 interleaved rounds (SciPy, npxla,
    SciPy, ...) so that a noisy, shared machine slows both alike; a sample averages
    enough calls to last `sample_s`; the medians are reported;
  * agreement: the results are compared with `np.allclose` at a tolerance suited to the
    function (decompositions with a sign/phase freedom are compared after fixing it).

npxla returns NumPy arrays (NumPy in, NumPy out), so its times include the transfer back.

BLAS/LAPACK threads: one (OPENBLAS_NUM_THREADS etc. default to 1 here; set them in the
environment to override). On a small shared machine OpenBLAS's spinning worker threads
thrash and make every LAPACK call 10-100x slower at random, for SciPy and for npxla alike
(jaxlib's CPU LAPACK kernels are SciPy's own, through scipy.linalg.cython_lapack).
npxla's persistent compilation cache is off (NPXLA_CACHE_DIR=off unless set), so the
"first call" column is a real conversion + compile.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")    # before NumPy/SciPy load their BLAS
os.environ.setdefault("NPXLA_CACHE_DIR", "off")   # first calls compile (no disk cache)

import argparse
import math
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field

import npxla
import numpy as np
import scipy
import scipy.linalg as sl
from scipy import ndimage, signal, special, stats
from scipy.linalg import lapack
from scipy.spatial.distance import cdist
from scipy.special import erf, expit, gammaln, logsumexp
from scipy.stats import multivariate_normal, norm

# --- the wrappers: legacy-style user code ---------------------------------------------------
# scipy.linalg


def linalg_inv(a):
    return sl.inv(a)


def linalg_pinv(a):
    return sl.pinv(a)


def linalg_solve(a, b):
    return sl.solve(a, b)


def linalg_solve_triangular(t, b):
    return sl.solve_triangular(t, b, lower=True)


def linalg_cho_solve(s, b):
    c, low = sl.cho_factor(s)
    return sl.cho_solve((c, low), b)


def linalg_cholesky(s):
    return sl.cholesky(s, lower=True)


def linalg_lu(a):
    p, l, u = sl.lu(a)
    return p, l, u


def linalg_lu_solve(a, b):
    lu, piv = sl.lu_factor(a)
    return sl.lu_solve((lu, piv), b)


def linalg_qr(a):
    q, r = sl.qr(a)
    return q, r


def linalg_svd(a):
    u, s, vt = sl.svd(a, full_matrices=False)
    return u, s, vt


def linalg_eigh(s):
    w, v = sl.eigh(s)
    return w, v


def linalg_expm(a):
    return sl.expm(a)


def linalg_block_diag(a, b, c):
    return sl.block_diag(a, b, c)


def linalg_solve_banded(ab, b):
    return sl.solve_banded((1, 1), ab, b)


def lapack_dgtsv(dl, d, du, b):
    _dl, _d, _du, x, info = lapack.dgtsv(dl, d, du, b)
    if info != 0:
        raise ValueError("dgtsv: singular matrix")
    return x


# scipy.special

def special_erf(x):
    return erf(x)


def special_erfc(x):
    return special.erfc(x)


def special_erfinv(p):
    return special.erfinv(p)


def special_gammaln(x):
    return gammaln(x)


def special_gamma(x):
    return special.gamma(x)


def special_digamma(x):
    return special.digamma(x)


def special_expit(x):
    return expit(x)


def special_logit(p):
    return special.logit(p)


def special_logsumexp(a):
    return logsumexp(a, axis=1)


def special_xlogy(x, y):
    return special.xlogy(x, y)


def special_betaln(a, b):
    return special.betaln(a, b)


# scipy.stats

def stats_norm_pdf(x):
    return norm.pdf(x, 0.5, 2.0)


def stats_norm_logpdf(x):
    return norm.logpdf(x, loc=0.5, scale=2.0)


def stats_norm_cdf(x):
    return stats.norm.cdf(x, 0.5, 2.0)


def stats_mvn_pdf(x, mean, cov):
    return multivariate_normal.pdf(x, mean=mean, cov=cov)


def stats_mvn_logpdf(x, mean, cov):
    return multivariate_normal(mean, cov).logpdf(x)


def stats_mvn_cdf(x, mean, cov):
    return multivariate_normal.cdf(x, mean=mean, cov=cov)


# scipy.signal, scipy.ndimage, scipy.spatial

def signal_lfilter(b, a, x):
    return signal.lfilter(b, a, x)


def signal_convolve(x, h):
    return signal.convolve(x, h, mode="same")


def signal_fftconvolve(x, h):
    return signal.fftconvolve(x, h, mode="same")


def ndimage_convolve(img, k):
    return ndimage.convolve(img, k, mode="reflect")


def ndimage_uniform_filter(img):
    return ndimage.uniform_filter(img, size=5)


def ndimage_gaussian_filter(img):
    return ndimage.gaussian_filter(img, sigma=2.0)


def spatial_cdist(xa, xb):
    return cdist(xa, xb, "euclidean")


# --- inputs ---------------------------------------------------------------------------------

def _g(r, *shape):
    return r.standard_normal(shape)


def square(n, r):
    """Well-conditioned general matrix."""
    return _g(r, n, n) + math.sqrt(n) * 2 * np.eye(n)


def spd(n, r):
    x = _g(r, n, n)
    return x @ x.T / n + np.eye(n)


def lower_tri(n, r):
    return np.tril(_g(r, n, n)) / math.sqrt(n) + 2 * np.eye(n)


def tridiag(n, r):
    dl = r.uniform(-1, 0, n - 1)
    du = r.uniform(-1, 0, n - 1)
    d = 3 + r.uniform(0, 1, n)
    return dl, d, du


def banded(n, r):
    dl, d, du = tridiag(n, r)
    ab = np.zeros((3, n))
    ab[0, 1:] = du
    ab[1] = d
    ab[2, :-1] = dl
    return ab


BUTTER_B, BUTTER_A = signal.butter(4, 0.1)    # the filter coefficients a user would have


def gauss_kernel(k):
    t = np.arange(k) - (k - 1) / 2
    w = np.exp(-0.5 * (t / (k / 5)) ** 2)
    return w / w.sum()


# --- comparison helpers ----------------------------------------------------------------------

def canon_cols(v):
    """Columns scaled so that each one's largest-magnitude entry is positive."""
    idx = np.argmax(np.abs(v), axis=0)
    sign = np.sign(v[idx, np.arange(v.shape[1])])
    sign[sign == 0] = 1
    return v * sign, sign


def canon_qr(out):
    q, r = out
    sign = np.sign(np.diag(r))
    sign[sign == 0] = 1
    return q * sign, r * sign[:, None]


def canon_svd(out):
    u, s, vt = out
    u2, sign = canon_cols(u)
    return u2, s, vt * sign[:, None]


def canon_eigh(out):
    w, v = out
    return w, canon_cols(v)[0]


# --- cases ----------------------------------------------------------------------------------

@dataclass
class Case:
    family: str
    name: str                     # what the table shows
    fn: object
    make: object                  # make(size_param) -> args tuple
    sizes: dict                   # mode -> [(label, size_param), ...]
    rtol: float = 1e-9
    atol: float = 1e-12
    canon: object = None          # applied to both results before comparing
    notes: str = ""


LIN = {"full": [("n=100", 100), ("n=1000", 1000)],
       "quick": [("n=100", 100), ("n=500", 500)]}
LIN_CHEAP = {"full": [("n=100", 100), ("n=1000", 1000)],
             "quick": [("n=100", 100), ("n=1000", 1000)]}
ELEM = {"full": [("1e4", 10_000), ("1e6", 1_000_000)],
        "quick": [("1e4", 10_000), ("1e6", 1_000_000)]}
IMG = {"full": [("100x100", 100), ("1000x1000", 1000)],
       "quick": [("100x100", 100), ("1000x1000", 1000)]}
MVN_CDF = {"full": [("1e2 pts", 100), ("1e4 pts", 10_000)],
           "quick": [("1e2 pts", 100), ("1e3 pts", 1_000)]}
TRIDIAG = {"full": [("n=1e4", 10_000), ("n=1e6", 1_000_000)],
           "quick": [("n=1e4", 10_000), ("n=1e6", 1_000_000)]}
CDIST = {"full": [("100x100, d=8", 100), ("1000x1000, d=8", 1000)],
         "quick": [("100x100, d=8", 100), ("1000x1000, d=8", 1000)]}


def _u(lo, hi):
    return lambda n: (np.random.default_rng(n).uniform(lo, hi, n),)


def _mvn_args(n):
    r = np.random.default_rng(n)
    mean = np.array([0.3, -0.2])
    cov = np.array([[1.0, 0.4], [0.4, 2.0]])
    return r.standard_normal((n, 2)) * 1.5, mean, cov


def _r(n):
    return np.random.default_rng(n)


CASES = [
    # linalg
    Case("linalg", "linalg.inv", linalg_inv, lambda n: (square(n, _r(n)),), LIN, 1e-8, 1e-10),
    Case("linalg", "linalg.pinv", linalg_pinv, lambda n: (square(n, _r(n)),), LIN, 1e-7, 1e-10),
    Case("linalg", "linalg.solve", linalg_solve,
         lambda n: (square(n, _r(n)), _g(_r(n + 1), n)), LIN, 1e-8, 1e-10),
    Case("linalg", "linalg.solve_triangular", linalg_solve_triangular,
         lambda n: (lower_tri(n, _r(n)), _g(_r(n + 1), n, 8)), LIN_CHEAP, 1e-8, 1e-10,
         notes="b is n x 8"),
    Case("linalg", "linalg.cho_factor+cho_solve", linalg_cho_solve,
         lambda n: (spd(n, _r(n)), _g(_r(n + 1), n)), LIN, 1e-8, 1e-10),
    Case("linalg", "linalg.cholesky", linalg_cholesky, lambda n: (spd(n, _r(n)),), LIN,
         1e-9, 1e-11),
    Case("linalg", "linalg.lu", linalg_lu, lambda n: (square(n, _r(n)),), LIN, 1e-8, 1e-10),
    Case("linalg", "linalg.lu_factor+lu_solve", linalg_lu_solve,
         lambda n: (square(n, _r(n)), _g(_r(n + 1), n)), LIN, 1e-8, 1e-10),
    Case("linalg", "linalg.qr", linalg_qr, lambda n: (_g(_r(n), n, n),), LIN, 1e-7, 1e-9,
         canon=canon_qr, notes="signs fixed by diag(R) >= 0"),
    Case("linalg", "linalg.svd", linalg_svd, lambda n: (_g(_r(n), n, n),), LIN, 1e-6, 1e-8,
         canon=canon_svd, notes="full_matrices=False; singular-vector signs fixed"),
    Case("linalg", "linalg.eigh", linalg_eigh, lambda n: (spd(n, _r(n)),), LIN, 1e-6, 1e-8,
         canon=canon_eigh, notes="eigenvector signs fixed"),
    Case("linalg", "linalg.expm", linalg_expm,
         lambda n: (_g(_r(n), n, n) / math.sqrt(n),), LIN, 1e-8, 1e-10),
    Case("linalg", "linalg.block_diag", linalg_block_diag,
         lambda n: tuple(_g(_r(n + i), n // 3, n // 3) for i in range(3)), LIN_CHEAP, 0, 0,
         notes="three n/3 blocks"),
    Case("linalg", "linalg.solve_banded", linalg_solve_banded,
         lambda n: (banded(n, _r(n)), _g(_r(n + 1), n)), TRIDIAG, 1e-9, 1e-12,
         notes="(l, u) = (1, 1)"),
    Case("linalg", "linalg.lapack.dgtsv", lapack_dgtsv,
         lambda n: (*tridiag(n, _r(n)), _g(_r(n + 1), n)), TRIDIAG, 1e-9, 1e-12),
    # special
    Case("special", "special.erf", special_erf, _u(-4, 4), ELEM, 1e-13, 1e-15),
    Case("special", "special.erfc", special_erfc, _u(-4, 8), ELEM, 1e-12, 1e-300),
    Case("special", "special.erfinv", special_erfinv, _u(-0.999, 0.999), ELEM, 1e-12, 1e-15),
    Case("special", "special.gammaln", special_gammaln, _u(0.1, 50), ELEM, 1e-12, 1e-13),
    Case("special", "special.gamma", special_gamma, _u(0.1, 20), ELEM, 1e-12, 1e-15),
    Case("special", "special.digamma", special_digamma, _u(0.1, 50), ELEM, 1e-12, 1e-13),
    Case("special", "special.expit", special_expit, _u(-30, 30), ELEM, 1e-13, 1e-300),
    Case("special", "special.logit", special_logit, _u(1e-6, 1 - 1e-6), ELEM, 1e-12, 1e-14),
    Case("special", "special.logsumexp", special_logsumexp,
         lambda n: (_g(_r(n), n // 100, 100) * 10,), ELEM, 1e-12, 1e-12,
         notes="axis=1 of (n/100, 100)"),
    Case("special", "special.xlogy", special_xlogy,
         lambda n: (_r(n).uniform(0, 5, n), _r(n + 1).uniform(1e-3, 10, n)), ELEM,
         1e-12, 1e-14),
    Case("special", "special.betaln", special_betaln,
         lambda n: (_r(n).uniform(0.5, 20, n), _r(n + 1).uniform(0.5, 20, n)), ELEM,
         1e-11, 1e-12),
    # stats
    Case("stats", "stats.norm.pdf", stats_norm_pdf, _u(-8, 8), ELEM, 1e-12, 1e-300),
    Case("stats", "stats.norm.logpdf", stats_norm_logpdf, _u(-8, 8), ELEM, 1e-12, 1e-14),
    Case("stats", "stats.norm.cdf", stats_norm_cdf, _u(-8, 8), ELEM, 1e-12, 1e-300),
    Case("stats", "stats.multivariate_normal.pdf (d=2)", stats_mvn_pdf, _mvn_args,
         {m: [(f"{lab} pts", n) for lab, n in v] for m, v in ELEM.items()}, 1e-11, 1e-300),
    Case("stats", "stats.multivariate_normal.logpdf (d=2)", stats_mvn_logpdf, _mvn_args,
         {m: [(f"{lab} pts", n) for lab, n in v] for m, v in ELEM.items()}, 1e-11, 1e-12),
    Case("stats", "stats.multivariate_normal.cdf (d=2)", stats_mvn_cdf, _mvn_args, MVN_CDF,
         0, 1e-5, notes="SciPy's default abseps = 1e-5"),
    # signal / ndimage / spatial
    Case("signal/ndimage", "signal.lfilter (IIR, order 4)", signal_lfilter,
         lambda n: (BUTTER_B, BUTTER_A, _g(_r(n), n)), ELEM, 1e-9, 1e-12,
         notes="butter(4, 0.1) coefficients"),
    Case("signal/ndimage", "signal.convolve (h: 64 taps)", signal_convolve,
         lambda n: (_g(_r(n), n), gauss_kernel(64)), ELEM, 1e-9, 1e-12,
         notes="mode='same', method='auto'"),
    Case("signal/ndimage", "signal.fftconvolve (h: 1001 taps)", signal_fftconvolve,
         lambda n: (_g(_r(n), n), gauss_kernel(1001)), ELEM, 1e-9, 1e-12,
         notes="mode='same'"),
    Case("signal/ndimage", "ndimage.convolve (5x5)", ndimage_convolve,
         lambda n: (_g(_r(n), n, n), gauss_kernel(5)[:, None] * gauss_kernel(5)), IMG,
         1e-12, 1e-14),
    Case("signal/ndimage", "ndimage.uniform_filter (size 5)", ndimage_uniform_filter,
         lambda n: (_g(_r(n), n, n),), IMG, 1e-12, 1e-14),
    Case("signal/ndimage", "ndimage.gaussian_filter (sigma 2)", ndimage_gaussian_filter,
         lambda n: (_g(_r(n), n, n),), IMG, 1e-12, 1e-14),
    Case("signal/ndimage", "spatial.distance.cdist (euclidean)", spatial_cdist,
         lambda n: (_g(_r(n), n, 8), _g(_r(n + 1), n, 8)), CDIST, 1e-12, 1e-14),
]

# --- timing ----------------------------------------------------------------------------------


@dataclass
class Row:
    family: str
    name: str
    size: str
    scipy_s: float = float("nan")
    npxla_s: float = float("nan")
    first_s: float = float("nan")
    agree: str = ""
    error: str = ""
    rounds: int = 0
    notes: str = ""

    @property
    def ratio(self):
        return self.npxla_s / self.scipy_s


def _leaves(x):
    if isinstance(x, (tuple, list)):
        for v in x:
            yield from _leaves(v)
    else:
        yield np.asarray(x)


def compare(case, want, got):
    if case.canon is not None:
        want, got = case.canon(want), case.canon(got)
    w, g = list(_leaves(want)), list(_leaves(got))
    if len(w) != len(g):
        return f"NO ({len(g)} outputs, SciPy {len(w)})"
    worst = 0.0
    for a, b in zip(w, g):
        if a.shape != b.shape:
            return f"NO (shape {b.shape}, SciPy {a.shape})"
        if not np.allclose(b, a, rtol=case.rtol, atol=case.atol, equal_nan=True):
            err = np.max(np.abs(b - a) / (case.atol + case.rtol * np.abs(a) + 1e-300))
            worst = max(worst, float(err))
    return "yes" if worst == 0 else f"NO ({worst:.1e}x tol)"


def sample(fn, args, calls):
    t = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter() - t) / calls


def measure(case, label, n, cfg):
    row = Row(case.family, case.name, label, notes=case.notes)
    args = case.make(n)
    try:
        want = case.fn(*args)
    except Exception as e:  # noqa: BLE001 - a bad case, not npxla
        row.error = f"SciPy raised {type(e).__name__}: {e}"
        return row
    jitted = npxla.jit(case.fn)
    try:
        t = time.perf_counter()
        got = jitted(*args)
        row.first_s = time.perf_counter() - t
    except Exception as e:  # noqa: BLE001 - reported in the table, the run goes on
        row.error = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
        return row
    row.agree = compare(case, want, got)
    # calls per sample: enough to last sample_s (one warm call of each first)
    t_s = sample(case.fn, args, 1)
    t_x = sample(jitted, args, 1)
    k_s = max(1, int(cfg.sample_s / max(t_s, 1e-7)))
    k_x = max(1, int(cfg.sample_s / max(t_x, 1e-7)))
    ts, tx = [], []
    start = time.perf_counter()
    while True:
        ts.append(sample(case.fn, args, k_s))
        tx.append(sample(jitted, args, k_x))
        if len(ts) >= cfg.rounds and (len(ts) >= cfg.max_rounds or
                                      time.perf_counter() - start > cfg.budget_s):
            break
    row.scipy_s, row.npxla_s, row.rounds = statistics.median(ts), statistics.median(tx), len(ts)
    return row


@dataclass
class Cfg:
    quick: bool = False
    rounds: int = 11
    max_rounds: int = 31
    sample_s: float = 0.02
    budget_s: float = 1.0
    only: list = field(default_factory=list)


# --- report ----------------------------------------------------------------------------------

def fmt_t(s):
    if not math.isfinite(s):
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def geomean(xs):
    xs = [x for x in xs if math.isfinite(x) and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


FAMILIES = ("linalg", "special", "stats", "signal/ndimage")


def report(rows, cfg, wall_s):
    import jax
    import jaxlib
    mode = "quick" if cfg.quick else "full"
    out = ["# npxla vs SciPy: speed of the SciPy subset", "",
           ("Generated by `python -m tests.benchmarks.scipy_speed"
            + (" --quick" if cfg.quick else "") + " --out docs/scipy-speed.md` "
            f"({mode} sizes, {wall_s:.0f} s wall)."), "",
           ("How it was measured: each SciPy function npxla compiles is called from a small "
            "legacy-style wrapper (a module-level `def` in `tests/benchmarks/scipy_speed.py`, "
            "calling SciPy as user code does). SciPy runs the wrapper as is; npxla runs "
            "`npxla.jit(wrapper)`, in the same process, on the same inputs. Timings are warm: "
            "the jitted wrapper is called once first (conversion + XLA compile, the "
            "'first call' column), then SciPy and npxla are sampled alternately for "
            f">= {cfg.rounds} rounds (each sample averages enough calls to last "
            f"~{cfg.sample_s * 1e3:.0f} ms) and the medians are reported. npxla's time "
            "includes returning NumPy arrays. 'agree' is `np.allclose` of the two results "
            "at a per-function tolerance (QR/SVD/eigh after fixing the sign freedom)."), "",
           ("BLAS/LAPACK threads: "
            f"{os.environ.get('OPENBLAS_NUM_THREADS')} (OPENBLAS_NUM_THREADS; the script "
            "defaults it to 1 because OpenBLAS's spinning threads on a small shared machine "
            "made LAPACK calls 10-100x slower at random; jaxlib's CPU LAPACK kernels are "
            "SciPy's own, so large factorizations tie by construction). npxla's disk cache: "
            f"{os.environ.get('NPXLA_CACHE_DIR')} (NPXLA_CACHE_DIR), so 'first call' is a real "
            "conversion + XLA compile."), "",
           (f"Machine: {os.cpu_count()} cores shared with other jobs (noisy: small-size ratios "
            "move by 2x between runs; treat ratios within ~1.5x as ties), "
            f"{platform.processor() or platform.machine()}, Python "
            f"{platform.python_version()}, NumPy {np.__version__}, SciPy {scipy.__version__}, "
            f"JAX {jax.__version__} / jaxlib {jaxlib.__version__}, float64, CPU backend."), "",
           "Ratio = npxla median / SciPy median: below 1 npxla is faster.", "",
           "## Geometric mean of the ratio per family", "",
           "| family | functions x sizes | geomean npxla/SciPy |", "|---|---|---|"]
    for fam in FAMILIES + ("all",):
        rs = [r.ratio for r in rows if not r.error and (fam == "all" or r.family == fam)]
        label = "signal/ndimage (+ spatial.cdist)" if fam == "signal/ndimage" else fam
        out.append(f"| {label} | {len(rs)} | {geomean(rs):.2f} |" if rs else f"| {label} | 0 | - |")
    out += ["", "## All measurements", "",
            ("| function | size | SciPy median | npxla median | npxla/SciPy | agree "
             "| npxla first call | notes |"),
            "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.error:
            out.append(f"| {r.name} | {r.size} | - | - | - | error: {r.error} | - | "
                       f"{r.notes} |")
            continue
        mark = " **" if r.ratio > 2 else ""
        ratio = f"{mark.strip()}{r.ratio:.2f}{mark.strip()}"
        out.append(f"| {r.name} | {r.size} | {fmt_t(r.scipy_s)} | {fmt_t(r.npxla_s)} | "
                   f"{ratio} | {r.agree} | {fmt_t(r.first_s)} | {r.notes} |")
    out += ["", "Ratios above 2 are in bold."]
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true",
                   help="smaller large-size linalg / mvn.cdf cases and a shorter budget")
    p.add_argument("--only", default="", help="comma-separated substrings of case names")
    p.add_argument("--out", default="", help="write the markdown table here")
    ns = p.parse_args(argv)
    cfg = Cfg(quick=ns.quick, only=[s for s in ns.only.split(",") if s])
    if ns.quick:
        cfg.sample_s, cfg.budget_s, cfg.max_rounds = 0.01, 0.3, 15
    mode = "quick" if ns.quick else "full"
    rows = []
    t0 = time.perf_counter()
    for case in CASES:
        if cfg.only and not any(s in case.name for s in cfg.only):
            continue
        for label, n in case.sizes[mode]:
            t = time.perf_counter()
            row = measure(case, label, n, cfg)
            rows.append(row)
            status = row.error or (f"scipy {fmt_t(row.scipy_s)}  npxla {fmt_t(row.npxla_s)}  "
                                   f"ratio {row.ratio:.2f}  agree {row.agree}  first "
                                   f"{fmt_t(row.first_s)}")
            print(f"{case.name:42s} {label:16s} {status}  [{time.perf_counter() - t:.1f}s]",
                  flush=True)
    wall = time.perf_counter() - t0
    text = report(rows, cfg, wall)
    if ns.out:
        with open(ns.out, "w") as f:
            f.write(text)
        print(f"wrote {ns.out}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
