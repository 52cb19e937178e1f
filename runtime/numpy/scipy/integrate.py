"""`scipy.integrate.simpson` and `trapezoid` over sampled data (peak centroids,
areas under spectra: `peakutils.centroid2`).

Both are formulas over neighbouring samples, written here with the registry's NumPy
functions in SciPy's order of operations (its `where=`-guarded divisions become a
select), so they compile for every shape and dtype NumPy's versions take, with a static
length along `axis`. SciPy 1.11+'s rule for an even number of samples (Simpson on the
first N-1, Cartwright's correction for the last interval) is the one followed.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.numpy.core.registry import dispatch, implements_lazy


def _d(f, *args, **kwargs):
    return dispatch(f, args, kwargs)


def _along(nd, axis, index):
    """The index tuple selecting `index` along `axis` of an `nd`-dimensional array."""
    full = [slice(None)] * nd
    full[axis] = index
    return tuple(full)


def _guarded_divide(a, b):
    """`np.true_divide(a, b, out=np.zeros_like(b), where=b != 0)`."""
    nonzero = _d(np.not_equal, b, 0)
    quotient = _d(np.true_divide, a, _d(np.where, nonzero, b, 1.0))
    return _d(np.where, nonzero, quotient, _d(np.zeros_like, quotient))


def _basic(y, stop, x, dx, axis):
    """Composite Simpson's rule over the samples 0 .. stop + 1 (`stop` even)."""
    nd = y.ndim
    s0 = _along(nd, axis, slice(0, stop, 2))
    s1 = _along(nd, axis, slice(1, stop + 1, 2))
    s2 = _along(nd, axis, slice(2, stop + 2, 2))
    if x is None:
        total = _d(np.sum, y[s0] + 4.0 * y[s1] + y[s2], axis=axis)
        return total * (dx / 3.0)
    h = _d(np.diff, x, axis=axis)
    h0 = _d(np.asarray, h[s0], dtype=float)
    h1 = _d(np.asarray, h[s1], dtype=float)
    hsum, hprod = h0 + h1, h0 * h1
    ratio = _guarded_divide(h0, h1)
    tmp = hsum / 6.0 * (y[s0] * (2.0 - _guarded_divide(1.0, ratio))
                        + y[s1] * (hsum * _guarded_divide(hsum, hprod))
                        + y[s2] * (2.0 - ratio))
    return _d(np.sum, tmp, axis=axis)


def _last_interval(y, x, dx, axis):
    """Cartwright's correction: the last interval of an even number of samples."""
    nd = y.ndim
    if x is None:
        h0 = h1 = _d(np.asarray, dx, dtype=np.float64)
    else:
        diffs = _d(np.asarray, _d(np.diff, x, axis=axis), dtype=np.float64)
        h0 = _d(np.squeeze, diffs[_along(nd, axis, slice(-2, -1))], axis=axis)
        h1 = _d(np.squeeze, diffs[_along(nd, axis, slice(-1, None))], axis=axis)
    alpha = _guarded_divide(2 * h1 ** 2 + 3 * h0 * h1, 6 * (h1 + h0))
    beta = _guarded_divide(h1 ** 2 + 3.0 * h0 * h1, 6 * h0)
    eta = _guarded_divide(1 * h1 ** 3, 6 * h0 * (h0 + h1))
    return alpha * y[_along(nd, axis, -1)] + beta * y[_along(nd, axis, -2)] \
        - eta * y[_along(nd, axis, -3)]


def _checked_x(x, y, axis):
    x = _d(np.asarray, x)
    if x.ndim == 1:
        if x.shape[0] != y.shape[axis]:
            raise ValueError("If given, length of x along axis must be the same as y.")
        shape = [1] * y.ndim
        shape[axis] = x.shape[0]
        return _d(np.reshape, x, tuple(shape))
    if x.ndim != y.ndim:
        raise ValueError("If given, shape of x must be 1-D or the same as y.")
    if x.shape[axis] != y.shape[axis]:
        raise ValueError("If given, length of x along axis must be the same as y.")
    return x


@implements_lazy("scipy.integrate.simpson", family="scipy",
                 notes="SciPy >= 1.11's rule for an even number of samples")
def simpson(y, x=None, *, dx=1.0, axis=-1):
    y = _d(np.asarray, y)
    n = y.shape[axis]
    if x is not None:
        x = _checked_x(x, y, axis)
    if n % 2:
        return _basic(y, n - 2, x, dx, axis)
    if n == 2:
        last = _along(y.ndim, axis, -1)
        before = _along(y.ndim, axis, -2)
        width = dx if x is None else x[last] - x[before]
        return 0.0 + 0.5 * width * (y[last] + y[before])
    return _basic(y, n - 3, x, dx, axis) + _last_interval(y, x, dx, axis) + 0.0


@implements_lazy("scipy.integrate.trapezoid", family="scipy")
def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = _d(np.asarray, y)
    nd = y.ndim
    upper, lower = _along(nd, axis, slice(1, None)), _along(nd, axis, slice(None, -1))
    if x is None:
        d = dx
    else:
        x = _d(np.asarray, x)
        if x.ndim == 1:            # broadcast along `axis`
            shape = [1] * nd
            shape[axis] = -1
            d = _d(np.reshape, x[1:] - x[:-1], tuple(shape))
        else:
            x = _d(np.broadcast_to, x, y.shape)
            d = x[upper] - x[lower]
    dtype = np.float64 if y.dtype.kind in "biu" else None      # floating, as SciPy
    return _d(np.sum, d * (y[upper] + y[lower]) / 2.0, axis=axis, dtype=dtype)
