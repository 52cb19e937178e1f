"""`scipy.stats.norm` and `scipy.stats.multivariate_normal` on traced arrays, and
`scipy.special.logsumexp`: SciPy code written in Python on NumPy, followed step for
step (SciPy's compiled ufuncs are in `special`).

Registered by name, like `special` (nothing here imports SciPy): the methods of
SciPy's module-level distribution objects (`norm.pdf`, `multivariate_normal.logpdf`)
and the objects themselves, whose call makes a frozen distribution (`norm(loc, scale)
.pdf(x)`); the frozen objects made in compiled code are this module's, with the methods
below. A frozen distribution made outside the compiled function is SciPy's own object
and is refused where it meets traced arrays (the registry finds methods of the module
objects, not of every instance).

Each method follows SciPy's code step for step: `rv_continuous.pdf/logpdf/cdf/sf` (x
standardised in the dtype NumPy gives `(x - loc) / scale`, then float64; NaN for
`scale <= 0` or NaN x, the density at infinities, `cdf` 0 and 1 there) with norm's
`_pdf = exp(-x**2/2) / sqrt(2 pi)`, `_logpdf` and `_cdf = special.ndtr`; and
`multivariate_normal_gen` with its `_PSD` (eigh of the covariance; eigenvalues up to
1e6 eps max|s| count as zero: a negative one beyond that is SciPy's ValueError, a zero
one its LinAlgError unless allow_singular, both raised after the run as checks; non-
finite covariances raise ValueError as `eigh(check_finite=True)` does). Singular
covariances restrict the support as SciPy does (-inf / 0 off the subspace).
`multivariate_normal.cdf` follows SciPy's `_qauto`: d = 1 is the normal cdf, d = 2 Genz's
bivariate algorithm (BVNU, SciPy's `_bvnu`, vectorised over the points); d >= 3, which
SciPy integrates with randomised quasi-Monte Carlo drawing from NumPy's global random
state, is refused.
"""
from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError

from npxla.transpiler.base.errors import UnsupportedFunctionError
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.numpy.core import errorflags, registry
from npxla.runtime.numpy.core.registry import dispatch, implements_lazy
from npxla.runtime.numpy.scipy.special import _as_array, _opaque, ndtr_kernel

W = np.where
_NORM_PDF_C = np.sqrt(2 * np.pi)
_NORM_PDF_LOGC = np.log(_NORM_PDF_C)
_LOG_2PI = np.log(2 * np.pi)


def _strong(out):
    if type(out) is AbstractArray:
        out.weak = False
    return out


def _creating(name):
    """The registry entry for calling SciPy object `name` (a frozen distribution): run
    ours whenever staging, even on constant arguments (SciPy's frozen object could not
    take traced arrays later). `implements_lazy` has no `creates`/`fold` options yet."""
    entry = registry._LAZY[name]
    entry.creates, entry.fold = True, False


# --- norm ---------------------------------------------------------------------------------

def _parse_args(self, loc=0, scale=1):     # SciPy's, so bad arguments read the same
    return loc, scale


def _standardized(x, args, kwds):
    """rv_continuous's opening: (x - loc) / scale in x's promoted dtype, `scale > 0`."""
    loc, scale = _parse_args(None, *args, **kwds)
    x, loc, scale = (_as_array(v) for v in (x, loc, scale))
    dtyp = np.promote_types(x.dtype, np.float64)
    if dtyp != np.float64 or "c" in (loc.dtype.kind, scale.dtype.kind):
        raise UnsupportedFunctionError(
            f"scipy.stats.norm of {dtyp} values is not supported on traced arrays yet")
    z = _as_array((x - loc) / scale, dtyp)
    return z, scale, scale > 0


def _norm_method(name, body):
    def method(x, *args, **kwds):
        z, scale, cond0 = _standardized(x, args, kwds)
        return _strong(body(z, scale, cond0, ~cond0 | np.isnan(z)))
    method.__name__ = name
    method.__qualname__ = f"rv_continuous.{name}"
    return implements_lazy(f"scipy.stats.norm.{name}", family="scipy")(method)


def _pdf(z, scale, cond0, bad):
    dens = _opaque(np.exp(-(z * z) / 2.0) / _NORM_PDF_C) / scale
    return W(cond0 & ~np.isnan(z), dens, W(bad, np.nan, 0.0))


def _logpdf(z, scale, cond0, bad):
    dens = _opaque(-(z * z) / 2.0 - _NORM_PDF_LOGC) - np.log(scale)
    return W(cond0 & ~np.isnan(z), dens, W(bad, np.nan, -np.inf))


def _cdf(z, scale, cond0, bad):
    inside = cond0 & (z > -np.inf) & (z < np.inf)
    edge = W(bad, np.nan, W(cond0 & (z >= np.inf), 1.0, 0.0))
    return W(inside, ndtr_kernel(W(inside, z, 0.0)), edge)


def _sf(z, scale, cond0, bad):
    return _cdf(-z, scale, cond0, bad)


_NORM = {name: _norm_method(name, body) for name, body in
         (("pdf", _pdf), ("logpdf", _logpdf), ("cdf", _cdf), ("sf", _sf))}


class FrozenNorm:
    """`scipy.stats.norm(loc, scale)` made in compiled code."""

    def __init__(self, *args, **kwds):
        _parse_args(None, *args, **kwds)
        self.args, self.kwds = args, kwds

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnsupportedFunctionError(
            f"scipy.stats.norm(...).{name} is not supported on traced arrays yet "
            f"(pdf, logpdf, cdf and sf are)")


for _name, _impl in _NORM.items():
    setattr(FrozenNorm, _name, lambda self, x, _impl=_impl: _impl(x, *self.args,
                                                                   **self.kwds))


@implements_lazy("scipy.stats.norm", family="scipy",
                 notes="a frozen norm(loc, scale) made in the compiled function, with pdf, "
                 "logpdf, cdf, sf; SciPy's frozen objects made outside it are refused")
def norm(*args, **kwds):
    return FrozenNorm(*args, **kwds)


_creating("scipy.stats.norm")


# --- multivariate_normal --------------------------------------------------------------

def _process_parameters(mean, cov):
    """multivariate_normal_gen._process_parameters_psd: (dim, mean, cov) as float64."""
    if mean is None:
        cov_ = None if cov is None else _as_array(cov, np.float64)
        dim = 1 if cov_ is None or cov_.ndim < 2 else cov_.shape[0]
    else:
        mean = _as_array(mean, np.float64)
        dim = mean.size
    mean = _as_array(np.zeros(dim) if mean is None else mean, np.float64)
    cov = _as_array(1.0 if cov is None else cov, np.float64)
    if dim == 1:
        mean, cov = mean.reshape(1), cov.reshape(1, 1)
    if mean.ndim != 1 or mean.shape[0] != dim:
        raise ValueError(f"Array 'mean' must be a vector of length {dim}.")
    if cov.ndim == 0:
        cov = cov * np.eye(dim)
    elif cov.ndim == 1:
        cov = dispatch(np.diag, (cov,), {})
    elif cov.ndim == 2 and cov.shape != (dim, dim):
        rows, cols = cov.shape
        if rows != cols:
            raise ValueError("Array 'cov' must be square if it is two dimensional,"
                             f" but cov.shape = {str(cov.shape)}.")
        raise ValueError(f"Dimension mismatch: array 'cov' is of shape {cov.shape}, "
                         f"but 'mean' is a vector of length {len(mean)}.")
    elif cov.ndim > 2:
        raise ValueError(f"Array 'cov' must be at most two-dimensional, "
                         f"but cov.ndim = {cov.ndim}")
    return dim, mean, cov


class _PSD:
    """scipy.stats._multivariate._PSD: the covariance's eigendecomposition, pseudo-
    inverse square root, rank and log pseudo-determinant, with SciPy's checks."""

    def __init__(self, cov, allow_singular):
        finite = np.all(np.isfinite(cov))
        _check(~finite, "array must not contain infs or NaNs", ValueError)
        s, u = dispatch(np.linalg.eigh, (W(finite, cov, 0.0),), {"UPLO": "L"})
        eps = 1e6 * np.finfo(np.float64).eps * np.max(np.abs(s))
        negative = finite & (np.min(s) < -eps)
        _check(negative, "The input matrix must be symmetric positive semidefinite.",
               ValueError)
        positive = s > eps
        if not allow_singular:
            _check(finite & ~negative & ~np.all(positive), "When `allow_singular is "
                   "False`, the input matrix must be symmetric positive definite.",
                   LinAlgError)
        s_pinv = W(np.abs(s) <= eps, 0.0, 1.0 / W(s == 0, 1.0, s))
        self.U = u * np.sqrt(s_pinv)
        self.u, self.null = u, ~positive
        self.rank = np.sum(positive)
        self.log_pdet = np.sum(W(positive, np.log(W(positive, s, 1.0)), 0.0))
        self.eps = 1e3 * eps


def _check(flag, message, error):
    if type(flag) is AbstractArray:
        errorflags.check(flag, message, error=error)
    elif flag:
        raise error(message)


def _process_quantiles(x, dim):
    x = _as_array(x, np.float64)
    if x.ndim == 0:
        return x[np.newaxis]
    if x.ndim == 1:
        return x[:, np.newaxis] if dim == 1 else x[np.newaxis, :]
    return x


def _mvn_logpdf(x, dim, mean, psd):
    x = _process_quantiles(x, dim)
    dev = x - mean
    maha = np.sum(np.square(dev @ psd.U), axis=-1)
    out = -0.5 * (psd.rank * _LOG_2PI + psd.log_pdet + maha)
    return out, dev


def _support(out, dev, dim, psd, value):
    """Where the covariance is singular, `value` off its support (as SciPy's
    `out[~cov_object._support_mask(x - mean)] = value`)."""
    off = np.sqrt(np.sum(W(psd.null, np.square(dev @ psd.u), 0.0), axis=-1)) >= psd.eps
    return W((psd.rank < dim) & off, value, out)


def _squeeze(out):
    return _strong(np.squeeze(out))


def _mvn(x, dim, mean, psd, log):
    out, dev = _mvn_logpdf(x, dim, mean, psd)
    if log:
        return _squeeze(_support(out, dev, dim, psd, -np.inf))
    return _squeeze(_support(np.exp(out), dev, dim, psd, 0.0))


def _mvn_method(name, log):
    def method(x, mean=None, cov=1, allow_singular=False):
        dim, mean, cov = _process_parameters(mean, cov)
        return _mvn(x, dim, mean, _PSD(cov, allow_singular), log)
    method.__name__ = name
    method.__qualname__ = f"multivariate_normal_gen.{name}"
    return implements_lazy(f"scipy.stats.multivariate_normal.{name}", family="scipy")(
        method)


_mvn_method("pdf", False)
_mvn_method("logpdf", True)


# --- multivariate_normal.cdf (scipy/stats/_qmvnt.py `_qauto`, d <= 2) ---------------------

# Gauss-Legendre half-sets (weights, nodes) of Genz's BVNU for |r| < 0.3, < 0.75, else
_GL = (
    ((0.1713244923791705, 0.3607615730481384, 0.4679139345726904),
     (0.9324695142031522, 0.6612093864662647, 0.2386191860831970)),
    ((.04717533638651177, 0.1069393259953183, 0.1600783285433464, 0.2031674267230659,
      0.2334925365383547, 0.2491470458134029),
     (0.9815606342467191, 0.9041172563704750, 0.7699026741943050, 0.5873179542866171,
      0.3678314989981802, 0.1252334085114692)),
    ((.01761400713915212, .04060142980038694, .06267204833410906, .08327674157670475,
      0.1019301198172404, 0.1181945319615184, 0.1316886384491766, 0.1420961093183821,
      0.1491729864726037, 0.1527533871307259),
     (0.9931285991850949, 0.9639719272779138, 0.9122344282513259, 0.8391169718222188,
      0.7463319064601508, 0.6360536807265150, 0.5108670019508271, 0.3737060887154196,
      0.2277858511416451, 0.07652652113349733)),
)
_TWO_PI = 2 * np.pi


def _phid(z):
    return ndtr_kernel(z)


def _rule(ar):
    """Per point, the (weights, nodes) of the Gauss-Legendre set Genz's BVNU takes for
    |r| = `ar` (N,), each (N, 20): the shorter sets padded with zero weights at node 1
    (a finite point of every term), so one evaluation serves all three sets and the
    program stays small (three evaluations made a 25,000-line module, 15-30 s to
    compile)."""
    width = 2 * len(_GL[-1][0])
    ws, xs = [], []
    for w, x in _GL:
        pad = width - 2 * len(w)
        ws.append(np.array(w + w + (0.0,) * pad))
        xs.append(np.concatenate([1 - np.array(x), 1 + np.array(x), np.ones(pad)]))
    col = ar[:, None]
    pick = [col < 0.3, col < 0.75]
    return (W(pick[0], ws[0], W(pick[1], ws[1], ws[2])),
            W(pick[0], xs[0], W(pick[1], xs[1], xs[2])))


def _bvnu_set(h, k, r, w, x):
    """Genz's BVNU body for the Gauss-Legendre set (w, x), (N, 20) each (`_rule`);
    h, k, r (N,) finite, r != 0."""
    hk = h * k
    h_, k_, r_, hk_ = (v[:, None] for v in (h, k, r, hk))
    # |r| < 0.925
    hs = (h_ * h_ + k_ * k_) / 2
    asr = np.arcsin(r_) / 2
    sn = np.sin(asr * x)
    small = np.sum(np.exp((sn * hk_ - hs) / (1 - sn * sn)) * w, axis=-1)
    small = small * (asr[:, 0] / _TWO_PI) + _phid(-h) * _phid(-k)
    # |r| >= 0.925
    neg = r < 0
    k2, hk2 = W(neg, -k, k), W(neg, -hk, hk)
    as_ = 1 - r * r
    a = np.sqrt(W(as_ > 0, as_, 1.0))
    bs = (h - k2) ** 2
    asr2 = -(bs / W(as_ > 0, as_, 1.0) + hk2) / 2
    c, d = (4 - hk2) / 8, (12 - hk2) / 80
    bvn = W(asr2 > -100, a * np.exp(asr2) * (1 - c * (bs - as_) * (1 - d * bs / 5) / 3
                                             + c * d * as_ * as_ / 5), 0.0)
    b = np.sqrt(bs)
    sp = np.sqrt(_TWO_PI) * _phid(-b / a)
    bvn = W(hk2 > -100, bvn - np.exp(-hk2 / 2) * sp * b * (1 - c * bs * (1 - d * bs / 5) / 3),
            bvn)
    a2 = (a / 2)[:, None]
    xs = (a2 * x) ** 2
    asr3 = -(bs[:, None] / xs + hk2[:, None]) / 2
    sp3 = 1 + c[:, None] * xs * (1 + d[:, None] * xs)
    rs = np.sqrt(1 - xs)
    ep = np.exp(-(hk2[:, None] / 2) * xs / (1 + rs) ** 2) / rs
    terms = W(asr3 > -100, np.exp(asr3) * (sp3 - ep) * w, 0.0)
    bvn = W(as_ > 0, (a2[:, 0] * np.sum(terms, axis=-1) - bvn) / _TWO_PI, 0.0)
    lo = W(h < 0, _phid(k2) - _phid(h), _phid(-h) - _phid(-k2))
    big = W(r > 0, bvn + _phid(-np.maximum(h, k2)), W(h >= k2, -bvn, lo - bvn))
    return W(np.abs(r) < 0.925, small, big)


def _bvnu(dh, dk, r):
    """P(X > dh, Y > dk) for the standard bivariate normal with correlation r: Genz's
    BVNU (Drezner-Wesolowsky with Gauss-Legendre rules), SciPy's `_bvnu`. (N,) arrays."""
    fin = np.isfinite(dh) & np.isfinite(dk)
    h, k = W(fin, dh, 0.0), W(fin, dk, 0.0)
    main = _bvnu_set(h, k, r, *_rule(np.abs(r)))
    main = W(r == 0, _phid(-h) * _phid(-k), main)
    p = np.maximum(0.0, np.minimum(1.0, main))
    hinf, kinf = dh == np.inf, dk == np.inf
    hninf, kninf = dh == -np.inf, dk == -np.inf
    edge = W(hinf | kinf, 0.0, W(hninf, W(kninf, 1.0, _phid(-dk)), _phid(-dh)))
    return W(hinf | kinf | hninf | kninf, edge, p)


def _mvn_cdf(x, dim, mean, cov, lower_limit):
    x = _process_quantiles(x, dim)
    if dim > 2:
        raise UnsupportedFunctionError(
            f"scipy.stats.multivariate_normal.cdf in {dim} dimensions is not supported on "
            "traced arrays: SciPy integrates d >= 3 with randomised quasi-Monte Carlo "
            "(Genz's lattice rule shifted by draws from NumPy's global random state), so "
            "its value is neither reproducible in XLA nor deterministic",
            hint="call multivariate_normal.cdf outside the jitted function (d = 1 and 2 "
                 "are compiled: SciPy computes them deterministically)")
    lower = np.full(dim, -np.inf) if lower_limit is None else _as_array(lower_limit,
                                                                         np.float64)
    shape = np.broadcast_shapes(x.shape, lower.shape)
    b = dispatch(np.broadcast_to, (x, shape), {}) - mean
    a = dispatch(np.broadcast_to, (lower, shape), {}) - mean
    swap = b < a
    sign = W(np.sum(swap, axis=-1) % 2 == 1, -1.0, 1.0)
    a, b = W(swap, b, a), W(swap, a, b)
    lead = shape[:-1]
    a, b = a.reshape(-1, dim), b.reshape(-1, dim)
    if dim == 1:
        sd = np.sqrt(cov[0, 0])
        prob = _phid(b[:, 0] / sd) - _phid(a[:, 0] / sd)
    else:
        s1, s2 = np.sqrt(cov[0, 0]), np.sqrt(cov[1, 1])
        r = cov[0, 1] / (s1 * s2)
        n = a.shape[0]
        r = r * np.ones(n)
        xl, xu, yl, yu = a[:, 0] / s1, b[:, 0] / s1, a[:, 1] / s2, b[:, 1] / s2
        # the four corners in one evaluation (one program, not four)
        corners = _bvnu(np.concatenate([xl, xu, xl, xu]), np.concatenate([yl, yl, yu, yu]),
                        np.concatenate([r, r, r, r])).reshape(4, n)
        prob = corners[0] - corners[1] - corners[2] + corners[3]
        prob = np.maximum(0.0, np.minimum(prob, 1.0))
    return _squeeze(prob.reshape(lead) * sign)


@implements_lazy("scipy.stats.multivariate_normal.cdf", family="scipy",
                 notes="d = 1 (the normal cdf) and d = 2 (Genz's bivariate algorithm, "
                 "SciPy's own d = 2 path); d >= 3 refused (SciPy's randomised QMC)")
def _multivariate_normal_cdf(x, mean=None, cov=1, allow_singular=False, maxpts=None,
                             abseps=1e-5, releps=1e-5, *, lower_limit=None, rng=None):
    dim, mean, cov = _process_parameters(mean, cov)
    if dim <= 2:
        _PSD(cov, allow_singular)       # SciPy's covariance checks
    return _mvn_cdf(x, dim, mean, cov, lower_limit)


class FrozenMultivariateNormal:
    """`scipy.stats.multivariate_normal(mean, cov)` made in compiled code."""

    def __init__(self, mean=None, cov=1, allow_singular=False, seed=None, **kwds):
        self.dim, self.mean, self.cov = _process_parameters(mean, cov)
        self.allow_singular = allow_singular
        self._psd = _PSD(self.cov, allow_singular)

    def logpdf(self, x):
        return _mvn(x, self.dim, self.mean, self._psd, True)

    def pdf(self, x):
        return _mvn(x, self.dim, self.mean, self._psd, False)

    def cdf(self, x, *, lower_limit=None):
        return _mvn_cdf(x, self.dim, self.mean, self.cov, lower_limit)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnsupportedFunctionError(
            f"scipy.stats.multivariate_normal(...).{name} is not supported on traced "
            "arrays yet (pdf, logpdf and cdf are)")


@implements_lazy("scipy.stats.multivariate_normal", family="scipy",
                 notes="a frozen distribution with pdf, logpdf and cdf (d <= 2; SciPy's "
                 "randomised quasi-Monte Carlo for d >= 3 is refused)")
def multivariate_normal(mean=None, cov=1, allow_singular=False, seed=None, **kwds):
    return FrozenMultivariateNormal(mean, cov, allow_singular, seed, **kwds)


_creating("scipy.stats.multivariate_normal")


# --- scipy.special.logsumexp (scipy/special/_logsumexp.py, step for step) -----------------

def _dtype_arg(v):
    """What NumPy's promotion sees for `v`: Python scalars (traced or not) stay weak."""
    if type(v) is AbstractArray:
        return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[v.dtype.kind] if v.weak \
            else v.dtype
    return v if isinstance(v, (bool, int, float, complex)) else np.asarray(v).dtype


@implements_lazy("scipy.special.logsumexp", family="scipy")
def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    dtype = np.result_type(*[_dtype_arg(v) for v in (a, b) if v is not None])
    if dtype.kind in "biu":
        dtype = np.dtype(np.float64)
    if dtype.kind != "f" or dtype.itemsize > 8:
        raise UnsupportedFunctionError(
            f"scipy.special.logsumexp of {dtype} input is not supported on traced arrays yet")
    arrays = [_as_array(v, dtype) for v in (a, b) if v is not None]
    try:
        shape = np.broadcast_shapes(*[v.shape for v in arrays])
    except ValueError:
        raise ValueError("Array shapes are incompatible for broadcasting.") from None
    arrays = [v if v.shape == shape else dispatch(np.broadcast_to, (v, shape), {})
              for v in arrays]
    if not shape:
        arrays = [v.reshape(1) for v in arrays]
    a, b = arrays[0], (arrays[1] if len(arrays) > 1 else None)
    axis = tuple(range(a.ndim)) if axis is None else axis
    axes = np.lib.array_utils.normalize_axis_tuple(axis, a.ndim)
    kept = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    if a.size == 0:
        out = dispatch(np.full, (kept, -np.inf), {"dtype": dtype})
        sgn = np.sign(out)
    else:
        out, sgn = _logsumexp(a, b, axis, return_sign)
    if not keepdims:
        out = np.squeeze(out, axis=axes)
        sgn = np.squeeze(sgn, axis=axes) if return_sign else sgn
    for v in (out, sgn):
        if type(v) is AbstractArray:
            v.weak = False
    return (out, sgn) if return_sign else out


def _logsumexp(a, b, axis, return_sign):
    b_exp_a = np.exp(a) if b is None else b * np.exp(a)
    sum_ = np.sum(b_exp_a, axis=axis, keepdims=True)
    sgn_inf = np.sign(sum_) if return_sign else None
    out_inf = np.log(np.abs(sum_) if return_sign else sum_)
    if b is not None:
        a = W(b == 0, -np.inf, a)
    a_max = np.max(a, axis=axis, keepdims=True)
    i_max = a == a_max
    a = W(i_max, -np.inf, a)
    i_max_dt = i_max.astype(a.dtype)
    m = np.sum(i_max_dt if b is None else b * i_max_dt, axis=axis, keepdims=True,
               dtype=a.dtype)
    e = np.exp(a - a_max) if b is None else b * np.exp(a - a_max)
    s = np.sum(e, axis=axis, keepdims=True, dtype=e.dtype)
    s = W(s == 0, s, s / m)
    sgn = np.sign(s + 1) * np.sign(m)
    s = W(s < -1, -s - 2, s)
    out = np.log1p(s) + np.log(np.abs(m)) + a_max
    if not return_sign:
        out = W(sgn < 0, np.nan, out)
    finite = np.isfinite(out)
    return W(finite, out, out_inf), (W(finite, sgn, sgn_inf) if return_sign else None)
