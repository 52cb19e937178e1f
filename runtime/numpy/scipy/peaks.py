"""scipy.signal.argrelextrema / argrelmax / argrelmin on abstract arrays.

SciPy's steps: each element is compared with its neighbours 1..order places away along
the axis (the neighbours' positions taken with `mode`, 'clip' or 'wrap', as
`ndarray.take` does), the comparisons and-ed, and the positions where all hold returned
by `np.nonzero`, whose lengths are data (index arrays of run-time length). The
neighbour positions depend only on the shape, so they are computed here with NumPy
(its own IndexError for mode='raise').
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.registry import dispatch, implements_lazy
from npxla.runtime.numpy.reductions.reductions import static


def _boolrelextrema(data, comparator, axis=0, order=1, mode="clip"):
    order = static(order, "order")
    if int(order) != order or order < 1:
        raise ValueError("Order must be an int >= 1")
    data = as_array(data)
    axis = normalize_axis_index(static(axis, "axis"), data.ndim)
    mode = static(mode, "mode")
    locs = np.arange(data.shape[axis])
    results = as_abstract(np.ones(data.shape, dtype=bool))
    for shift in range(1, int(order) + 1):
        for other in (locs + shift, locs - shift):
            where = as_abstract(np.take(locs, other, mode=mode))
            near = dispatch(np.take, (data, where), {"axis": axis})
            results = dispatch(np.bitwise_and, (results, comparator(data, near)), {})
    return results


@implements_lazy("scipy.signal.argrelextrema", notes="index arrays of run-time length")
def argrelextrema(data, comparator, axis=0, order=1, mode="clip"):
    return dispatch(np.nonzero, (_boolrelextrema(data, comparator, axis, order, mode),),
                    {})


@implements_lazy("scipy.signal.argrelmax", notes="index arrays of run-time length")
def argrelmax(data, axis=0, order=1, mode="clip"):
    return argrelextrema(data, np.greater, axis, order, mode)


@implements_lazy("scipy.signal.argrelmin", notes="index arrays of run-time length")
def argrelmin(data, axis=0, order=1, mode="clip"):
    return argrelextrema(data, np.less, axis, order, mode)
