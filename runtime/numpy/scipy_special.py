"""`scipy.special` functions on traced arrays, with SciPy's values and dtypes.

SciPy is optional: the functions are registered by name (`registry.implements_lazy`)
and found once the user's code imports `scipy.special`; nothing here imports SciPy.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.numpy.registry import dispatch, implements_lazy


def _float(x):
    """SciPy's ufunc loops: integers and bools compute in float64, float16 in float32."""
    x = dispatch(np.asarray, (x,), {})
    if x.dtype.kind in "biu":
        return dispatch(np.asarray, (x,), {"dtype": np.float64})
    if x.dtype == np.float16:
        return dispatch(np.asarray, (x,), {"dtype": np.float32})
    return x


@implements_lazy("scipy.special.expit")
def expit(x):
    x = _float(x)
    one = np.array(1, x.dtype)
    return dispatch(np.divide, (one, dispatch(np.add, (one, dispatch(np.exp, (
        dispatch(np.negative, (x,), {}),), {})), {})), {})
