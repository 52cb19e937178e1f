"""np.interp, np.convolve, np.correlate and np.polyval.

`interp` is NumPy's compiled loop written over whole arrays: the interval of each
point is found with `np.searchsorted(xp, x, 'right')`, then the same formula, the same
NaN fallbacks and the same endpoint rules (`x == xp[j]` gives `fp[j]` exactly) are
applied with selects. `convolve`/`correlate` are one `stablehlo.convolution`; integer
inputs accumulate in 64 bits and wrap to the result dtype, float16 accumulates in
float32 and bools are `or` of `and`s, as NumPy's dot loops do. `polyval` is Horner's
rule unrolled over the (static) number of coefficients. Products are rounded before
the following addition (`arithmetic.exact`), as NumPy does, so interp and polyval
results are bit-identical to NumPy's (XLA would fuse them into FMAs).
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.conv import correlate_1d
from npxla.runtime.numpy.ufuncs.arithmetic import exact
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.reductions.histograms import take
from npxla.runtime.numpy.reductions.reductions import numpy_error, static
from npxla.runtime.numpy.core.registry import dispatch, implements

_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)


# --- interp -----------------------------------------------------------------------------

def _safe_cast(x, dtype):
    if not np.can_cast(x.dtype, dtype, "safe"):
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to {np.dtype(dtype)!r} "
                        "according to the rule 'safe'")
    return cast_to(x, dtype)


def _one_d(x):
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1
                         else "object of too small depth for desired array")
    return x


def _elem(x, i):
    """x[i] of a 1-d array (static i) as a 0-d value."""
    return S.reshape(S.static_slice(x, start=(i,), limit=(i + 1,), strides=(1,)), shape=())


def _where(cond, a, b):
    return dispatch(np.where, (cond, a, b), {})


def _interp_real(x, x0, x1, y0, y1, slope):
    """NumPy's formula (the product rounded on its own, no FMA: bit-exact); if it gives
    NaN, from the right end; then the flat-segment rule."""
    res = exact(slope * (x - x0)) + y0
    res = _where(res != res, exact(slope * (x - x1)) + y1, res)
    return _where((res != res) & (y0 == y1), y0, res)


def _scalar_value(v, dtype, what):
    v = as_array(v)
    if v.ndim != 0:
        raise TypeError(f"np.interp: {what} must be a scalar, not an array of shape "
                        f"{v.shape}")
    if dtype == _F64 and v.dtype.kind == "c":
        raise TypeError("must be real number, not complex")
    return cast_to(v, dtype)


def _periodic(x, xp, fp, period):
    period = static(period, "np.interp period")
    if period == 0:
        raise ValueError("period must be a non-zero value")
    period = abs(period)
    x = x % period
    xp = xp % period
    order = dispatch(np.argsort, (xp,), {})
    xp, fp = take(xp, order), take(fp, order)
    n = xp.shape[0]
    if n == 0:
        raise ValueError("array of sample points is empty")
    xp = S.concatenate(S.reshape(_elem(xp, n - 1) - period, shape=(1,)), xp,
                       S.reshape(_elem(xp, 0) + period, shape=(1,)), axis=0)
    fp = S.concatenate(S.static_slice(fp, start=(n - 1,), limit=(n,), strides=(1,)), fp,
                       S.static_slice(fp, start=(0,), limit=(1,), strides=(1,)), axis=0)
    return x, xp, fp


@implements(np.interp, family="elementwise",
            notes="xp must be increasing (not checked, as in NumPy); period= must be static")
def interp(x, xp, fp, left=None, right=None, period=None):
    """np.interp: binary search of each x in xp and linear interpolation, left/right values
    outside, complex fp interpolated per part, and period= wrapping the coordinates
    first as NumPy does."""
    fp = as_array(fp)
    dtype = _C128 if fp.dtype.kind == "c" else _F64
    x = _safe_cast(as_array(x), _F64)
    xp = _safe_cast(as_array(xp), _F64)
    fp = _safe_cast(fp, dtype)
    if period is not None:
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp.shape[0] != fp.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        x, xp, fp = _periodic(x, xp, fp, period)
        left = right = None
    _one_d(xp)
    _one_d(fp)
    n = xp.shape[0]
    if n == 0:
        raise ValueError("array of sample points is empty")
    if fp.shape[0] != n:
        raise ValueError("fp and xp are not of the same length.")
    first, last = _elem(fp, 0), _elem(fp, n - 1)
    lval = first if left is None else _scalar_value(left, dtype, "left")
    rval = last if right is None else _scalar_value(right, dtype, "right")
    xp0, xpn = _elem(xp, 0), _elem(xp, n - 1)
    if n == 1:
        return _where(x < xp0, lval, _where(x > xpn, rval, first))
    j = dispatch(np.searchsorted, (xp, x), {"side": "right"}) - 1
    jc = dispatch(np.clip, (j, 0, n - 2), {})
    x0, x1 = take(xp, jc), take(xp, jc + 1)
    y0, y1 = take(fp, jc), take(fp, jc + 1)
    if dtype == _F64:
        res = _interp_real(x, x0, x1, y0, y1, (y1 - y0) / (x1 - x0))
    else:
        inv_dx = 1.0 / (x1 - x0)
        re0, re1, im0, im1 = y0.real, y1.real, y0.imag, y1.imag
        res = X.complex_(_interp_real(x, x0, x1, re0, re1, (re1 - re0) * inv_dx),
                         _interp_real(x, x0, x1, im0, im1, (im1 - im0) * inv_dx))
    res = _where(x == x0, y0, res)
    res = _where(j == n - 1, last, res)
    res = _where(x < xp0, lval, res)
    res = _where(x > xpn, rval, res)
    return cast_to(_where(x != x, x, res), dtype)


# --- convolve / correlate ------------------------------------------------------------

_MODES = {"valid": 0, "same": 1, "full": 2}


def _mode(mode, fn):
    mode = static(mode, "mode")
    if isinstance(mode, str) and mode in _MODES:
        return _MODES[mode]
    if isinstance(mode, (int, np.integer)) and not isinstance(mode, bool) and 0 <= mode <= 2:
        return int(mode)
    numpy_error(fn, np.ones(1), np.ones(1), mode=mode)    # NumPy's own error
    raise ValueError(f"invalid mode {mode!r}")


def _compute_dtype(dtype):
    """NumPy's dot loops: integers accumulate in 64 bits, float16 in float32."""
    if dtype.kind in "bi":
        return np.dtype(np.int64)
    if dtype.kind == "u":
        return np.dtype(np.uint64)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype


def _correlate(a, v, mode):
    """NumPy's multiarray.correlate (no conjugation) of 1-d a and v, any lengths."""
    n, m = a.shape[0], v.shape[0]
    dtype = a.dtype
    work = _compute_dtype(dtype)
    a, v = cast_to(a, work), cast_to(v, work)
    if mode == 2:
        start, length = 0, n + m - 1
    elif mode == 1:
        start, length = (m - 1 - m // 2 if n >= m else n // 2), max(n, m)
    else:
        start, length = min(n, m) - 1, abs(n - m) + 1
    lo = m - 1 - start
    hi = length - n - lo + m - 1
    out = correlate_1d(a, v, padding=(lo, hi))
    return cast_to(out, dtype)


def _operands(a, v, empty_messages, ndmin1):
    """convolve makes 0-d operands 1-d (np.array(ndmin=1)); correlate refuses them."""
    a, v = as_array(a), as_array(v)
    if ndmin1:
        a = S.reshape(a, shape=(1,)) if a.ndim == 0 else a
        v = S.reshape(v, shape=(1,)) if v.ndim == 0 else v
    _one_d(a)
    _one_d(v)
    if a.shape[0] == 0:
        raise ValueError(empty_messages[0])
    if v.shape[0] == 0:
        raise ValueError(empty_messages[1])
    dtype = np.result_type(a.dtype, v.dtype)
    return cast_to(a, dtype), cast_to(v, dtype)


@implements(np.convolve, family="products")
def convolve(a, v, mode="full"):
    a, v = _operands(a, v, ("a cannot be empty", "v cannot be empty"), True)
    mode = _mode(mode, np.convolve)
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    return _correlate(a, S.reverse(v, axes=(0,)), mode)


@implements(np.correlate, family="products")
def correlate(a, v, mode="valid"):
    a, v = _operands(a, v, ("first array argument cannot be empty",
                            "second array argument cannot be empty"), False)
    mode = _mode(mode, np.correlate)
    if v.dtype.kind == "c":
        v = dispatch(np.conjugate, (v,), {})
    return _correlate(a, v, mode)


# --- polyval ----------------------------------------------------------------------------

@implements(np.polyval, family="elementwise",
            notes="np.poly1d arguments are refused (pass the coefficient array)")
def polyval(p, x):
    if isinstance(p, np.poly1d) or isinstance(x, np.poly1d):
        raise UnsupportedFunctionError("np.polyval with np.poly1d is not supported in "
                                       "compiled code", hint="pass the coefficient array")
    p = as_array(p)
    x = as_array(x)
    if p.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    y = dispatch(np.zeros_like, (x,), {})
    for i in range(p.shape[0]):
        prod = y * x
        y = (exact(prod) if prod.dtype.kind == "f" else prod) + p[i]   # no FMA: as NumPy
    return y
