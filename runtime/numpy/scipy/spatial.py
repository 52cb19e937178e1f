"""`scipy.spatial.distance.cdist` for the metrics legacy clustering and curve-matching
code uses (`skfuzzy.cmeans`, `similaritymeasures.frechet_dist`): each distance summed
over the features in order, as SciPy's C loop sums them. `minkowski` is SciPy's
dispatch too: p = 1, 2 and inf are its city-block, Euclidean and Chebyshev loops (bit
for bit), any other p sums `|u - v| ** p` and takes the `1 / p` power (within a few
ulp: SciPy's C `pow` and NumPy's differ in the last bit)."""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.errors import ConcretizationError, UnsupportedFunctionError

from npxla.runtime.staging.abstract import is_abstract

from npxla.runtime.numpy.core.registry import dispatch, implements_lazy

_METRICS = ("euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski")
# the loop SciPy's minkowski runs for these p
_MINKOWSKI = {1.0: "cityblock", 2.0: "euclidean", np.inf: "chebyshev"}


def _d(f, *args, **kwargs):
    return dispatch(f, args, kwargs)


@implements_lazy("scipy.spatial.distance.cdist", family="scipy",
                 notes="metrics 'euclidean', 'sqeuclidean', 'cityblock', 'chebyshev', "
                       "'minkowski' (p known when compiling)")
def cdist(XA, XB, metric="euclidean", *, out=None, **kwargs):
    p = _p(metric, kwargs)
    if metric not in _METRICS or out is not None or kwargs:
        raise UnsupportedFunctionError(
            f"scipy.spatial.distance.cdist(metric={metric!r}) is not supported in compiled "
            f"code (supported: {', '.join(_METRICS)}, without out= or metric arguments "
            "other than minkowski's p)")
    if metric == "minkowski":
        metric = _MINKOWSKI.get(p, metric)
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
        term = _term(metric, diff, p)
        total = term if total is None else \
            _d(np.maximum if metric == "chebyshev" else np.add, total, term)
    if total is None:
        total = _d(np.zeros, (XA.shape[0], XB.shape[0]))
    if metric == "euclidean":
        return _d(np.sqrt, total)
    if metric == "minkowski":
        return _d(np.power, total, 1.0 / p)
    return total


def _p(metric, kwargs):
    """minkowski's p (SciPy's default 2), taken out of `kwargs`; it picks the loop, so
    it must be known when compiling."""
    if metric != "minkowski":
        return None
    p = kwargs.pop("p", 2.0)
    if is_abstract(p):
        if p.const is None:
            raise ConcretizationError("cdist(metric='minkowski', p=...) needs p known when "
                                      "compiling", deps=p.deps)
        p = p.const
    p = float(p)
    if not p > 0:
        raise ValueError("p must be greater than 0")
    return p


def _term(metric, diff, p):
    if metric == "cityblock" or metric == "chebyshev":
        return _d(np.abs, diff)
    if metric == "minkowski":
        return _d(np.power, _d(np.abs, diff), p)
    return _d(np.multiply, diff, diff)
