"""`scipy.spatial.distance.cdist` for the metrics legacy clustering code uses
(`skfuzzy.cmeans`): each distance summed over the features in order, as SciPy's C loop
sums them."""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.numpy.core.registry import dispatch, implements_lazy

_METRICS = ("euclidean", "sqeuclidean", "cityblock")


def _d(f, *args, **kwargs):
    return dispatch(f, args, kwargs)


@implements_lazy("scipy.spatial.distance.cdist", family="scipy",
                 notes="metrics 'euclidean', 'sqeuclidean', 'cityblock'")
def cdist(XA, XB, metric="euclidean", *, out=None, **kwargs):
    if metric not in _METRICS or out is not None or kwargs:
        raise UnsupportedFunctionError(
            f"scipy.spatial.distance.cdist(metric={metric!r}) is not supported in compiled "
            f"code (supported: {', '.join(_METRICS)}, without out= or metric arguments)")
    XA = _d(np.asarray, XA, dtype=np.float64)
    XB = _d(np.asarray, XB, dtype=np.float64)
    if XA.ndim != 2 or XB.ndim != 2:
        raise ValueError("XA must be a 2-dimensional array." if XA.ndim != 2 else
                         "XB must be a 2-dimensional array.")
    if XA.shape[1] != XB.shape[1]:
        raise ValueError("XA and XB must have the same number of columns "
                         "(i.e. feature dimension.)")
    total = None
    for k in range(XA.shape[1]):        # SciPy's loop order over the features
        diff = _d(np.subtract, _d(np.reshape, XA[:, k], (-1, 1)),
                  _d(np.reshape, XB[:, k], (1, -1)))
        term = _d(np.abs, diff) if metric == "cityblock" else _d(np.multiply, diff, diff)
        total = term if total is None else _d(np.add, total, term)
    if total is None:
        total = _d(np.zeros, (XA.shape[0], XB.shape[0]))
    return _d(np.sqrt, total) if metric == "euclidean" else total
