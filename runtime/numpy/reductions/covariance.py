"""np.cov and np.corrcoef, following NumPy's own code step by step (same dtypes, the
same normalisation `fact`, `dot(X, X.T.conj()) * (1 / fact)`).

Weights are values, so they may be traced; only their shapes must be static. NumPy's
value checks on weights (integer `fweights`, no negative weights) run when the weights
are known while compiling, and are skipped for traced weights. The "degrees of freedom
<= 0" case gives NumPy's result (`fact = 0`: inf/nan) without its RuntimeWarning.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.reductions.reductions import static
from npxla.runtime.numpy.core.registry import dispatch, implements


def _call(fn, *args, **kwargs):
    return dispatch(fn, args, kwargs)


def _ndmin2(x):
    """np.array(x, ndmin=2): leading axes of length 1."""
    return S.reshape(x, shape=(1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x


def _weights(w, n, name, integer=False):
    w = cast_to(as_array(w), np.float64)
    c = w.const
    if integer and c is not None and not np.all(c == np.around(c)):
        raise TypeError("fweights must be integer")
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if c is not None and np.any(c < 0):
        raise ValueError(f"{name} cannot be negative")
    return w


def _positive_or_zero(fact):
    """NumPy's `if fact <= 0: fact = 0.0` (with a warning when it is known)."""
    fact = as_abstract(fact)
    if fact.const is not None:
        if fact.const <= 0:
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
            return 0.0
        return fact
    return _call(np.where, fact <= 0, 0.0, fact)


@implements(np.cov, family="statistics",
            notes="value checks on traced fweights/aweights (integer, non-negative) are "
                  "skipped; no RuntimeWarning for traced degrees of freedom <= 0")
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """np.cov with NumPy's semantics: fweights/aweights, bias/ddof and rowvar combined as
    NumPy combines them; the flags are static, since they decide the shapes and the
    normaliser's formula."""
    ddof = static(ddof, "np.cov ddof")
    rowvar, bias = static(rowvar, "np.cov rowvar"), static(bias, "np.cov bias")
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = as_array(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = as_array(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(m.dtype, np.float64) if y is None else \
            np.result_type(m.dtype, y.dtype, np.float64)
    X_ = _ndmin2(cast_to(m, dtype))
    if not rowvar and m.ndim != 1:
        X_ = _call(np.transpose, X_)
    if X_.shape[0] == 0:
        return as_abstract(np.array([]).reshape(0, 0))
    if y is not None:
        y = _ndmin2(cast_to(y, dtype))
        if not rowvar and y.shape[0] != 1:
            y = _call(np.transpose, y)
        X_ = _call(np.concatenate, (X_, y), axis=0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    ddof = operator.index(ddof) if not isinstance(ddof, float) else ddof
    n = X_.shape[1]
    w = aw = None
    if fweights is not None:
        w = _weights(fweights, n, "fweights", integer=True)
    if aweights is not None:
        aw = _weights(aweights, n, "aweights")
        w = aw if w is None else w * aw

    if w is None:
        avg = _call(np.mean, X_, axis=1)
        fact = n - ddof
    else:
        # np.average(X, axis=1, weights=w, returned=True)
        wdt = np.result_type(X_.dtype, w.dtype, "f8")
        w_sum = _call(np.sum, w, dtype=wdt)
        avg = _call(np.sum, _call(np.multiply, X_, w, dtype=wdt), axis=1) / w_sum
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * _call(np.sum, w * aw) / w_sum
    fact = _positive_or_zero(fact)

    X_ = X_ - avg[:, None]
    X_T = _call(np.transpose, X_ if w is None else X_ * w)
    c = _call(np.dot, X_, _call(np.conjugate, X_T))
    scale = _call(np.true_divide, 1, fact)
    c = cast_to(c * cast_to(scale, scale.dtype, weak=False), c.dtype)
    return _call(np.squeeze, c)


def _clip_unit(x):
    return _call(np.clip, x, -1, 1)


@implements(np.corrcoef, family="statistics")
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    c = cov(x, y, rowvar, dtype=dtype)
    if c.size == 0:                           # no variables: NumPy's empty result
        return c
    if c.ndim == 0:                           # scalar covariance: nan or 1
        return c / c
    k = c.shape[0]
    d = S.static_slice(S.reshape(c, shape=(k * k,)), start=(0,), limit=(k * k,),
                       strides=(k + 1,))
    stddev = _call(np.sqrt, _call(np.real, d))
    c = cast_to(c / stddev[:, None], c.dtype)
    c = cast_to(c / stddev[None, :], c.dtype)
    if c.dtype.kind == "c":
        return X.complex_(_clip_unit(_call(np.real, c)), _clip_unit(_call(np.imag, c)))
    return _clip_unit(c)
