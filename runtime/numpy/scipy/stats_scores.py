"""scipy.stats.zscore on abstract arrays, in SciPy's steps.

SciPy promotes integers to float64 (single precision stays single), takes the mean as
a sum over the count, the variance as the mean of squared deviations (times
n / (n - ddof)), divides the deviations by its square root, and marks as NaN the slices
whose standard deviation is within one epsilon of the mean's magnitude (constant data:
0/0 would be noise). `axis=None` scores the flattened data, in the input's shape. Only `nan_policy="propagate"`
compiles: "omit" drops elements (a run-time length per slice) and "raise" needs the
data while compiling.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import dispatch, implements_lazy
from npxla.runtime.numpy.reductions.reductions import static


def _np(fn, *args, **kwargs):
    return dispatch(fn, args, kwargs)


@implements_lazy("scipy.stats.zscore", notes="nan_policy='propagate' only")
def zscore(a, axis=0, ddof=0, nan_policy="propagate"):
    if static(nan_policy, "nan_policy") != "propagate":
        raise UnsupportedFunctionError(
            f"scipy.stats.zscore(..., nan_policy={nan_policy!r}) is not supported",
            hint="use nan_policy='propagate' (the default), or compute it on the "
                 "selected values with np.where")
    a = as_array(a)
    if a.dtype.kind not in "fc":
        a = cast_to(a, np.dtype(np.float64))
    axis = static(axis, "axis")
    shape = a.shape
    if axis is None:
        a = _np(np.ravel, a)
        axis = 0
    axis = normalize_axis_index(axis, a.ndim)
    n = a.shape[axis]
    mean = _np(np.divide, _np(np.sum, a, axis=axis, keepdims=True), n)
    dev = _np(np.subtract, a, mean)
    square = _np(np.multiply, dev, _np(np.conj, dev)) if a.dtype.kind == "c" else \
        _np(np.multiply, dev, dev)
    var = _np(np.divide, _np(np.sum, square, axis=axis, keepdims=True), n)
    ddof = static(ddof, "ddof")
    if ddof != 0:
        var = _np(np.multiply, var, n / (n - ddof))
    std = _np(np.power, var, 0.5)
    z = _np(np.divide, dev, std)
    eps = np.finfo(z.dtype).eps
    zero = _np(np.less_equal, std, _np(np.abs, _np(np.multiply, eps, mean)))
    nan = as_abstract(np.array(np.nan, z.dtype))
    z = _np(np.where, _np(np.broadcast_to, zero, z.shape), nan, z)
    return _np(np.reshape, z, shape)
