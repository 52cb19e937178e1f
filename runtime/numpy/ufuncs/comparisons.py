"""np.isclose, np.allclose, np.array_equal and np.array_equiv.

Written as NumPy writes them (same dtype steps: `y` is made inexact first, tolerances
combine with NEP 50 weak Python floats). `allclose`, `array_equal` and `array_equiv`
return Python bools in NumPy: here a traced bool that comes back as a Python bool;
shape mismatches are known when compiling and give a constant `False`.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_shapes, cast_to
from npxla.runtime.numpy.core.registry import dispatch, implements

_PY_SCALARS = (bool, int, float, complex)


def _scalar_or_array(v):
    """NumPy keeps Python scalars (weak) and turns everything else into an array."""
    if isinstance(v, _PY_SCALARS) or (is_abstract(v) and v.weak):
        return as_abstract(v)
    return as_array(v)


def python_bool(x):
    """A 0-d bool returned as a Python bool (NumPy's `builtins.bool(...)`)."""
    x = cast_to(x, np.bool_)
    return AbstractArray(x.shape, x.dtype, ir=None if x.const is not None else x.ir,
                         const=x.const, weak=True, deps=x.deps)


def _call(fn, *args, **kwargs):
    return dispatch(fn, args, kwargs)


@implements(np.isclose, family="elementwise")
def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    x, y, atol, rtol = (_scalar_or_array(v) for v in (a, b, atol, rtol))
    if y.weak:
        if y.dtype.kind in "biu":
            y = cast_to(y, np.float64, weak=True)       # float(y)
    else:
        y = cast_to(y, np.result_type(y.dtype, 1.0))
    result = (_call(np.less_equal, abs(x - y), atol + rtol * abs(y))
              & _call(np.isfinite, y)) | (x == y)
    if equal_nan:
        result = result | (_call(np.isnan, x) & _call(np.isnan, y))
    if result.weak:                                      # result[()]: NumPy bool
        result = cast_to(result, np.bool_, weak=False)
    return result


@implements(np.allclose, family="elementwise")
def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    close = isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return python_bool(_call(np.all, close))


def _cannot_hold_nan(dtype):
    return dtype.kind not in "fc"


@implements(np.array_equal, family="elementwise")
def array_equal(a1, a2, equal_nan=False):
    a1, a2 = as_array(a1), as_array(a2)
    if a1.shape != a2.shape:
        return False
    if not equal_nan:
        return python_bool(_call(np.all, a1 == a2))
    if a1 is a2:
        return True
    if _cannot_hold_nan(a1.dtype) and _cannot_hold_nan(a2.dtype):
        return python_bool(_call(np.all, a1 == a2))
    nan1, nan2 = _call(np.isnan, a1), _call(np.isnan, a2)
    same_nans = _call(np.all, nan1 == nan2)
    rest_equal = _call(np.all, (a1 == a2) | nan1)
    return python_bool(same_nans & rest_equal)


@implements(np.array_equiv, family="elementwise")
def array_equiv(a1, a2):
    a1, a2 = as_array(a1), as_array(a2)
    try:
        broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return python_bool(_call(np.all, a1 == a2))
