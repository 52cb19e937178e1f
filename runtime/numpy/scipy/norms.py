"""`scipy.linalg.norm`: NumPy's norm behind SciPy's finiteness check (legacy code
calls it for convergence tests, `peakutils.baseline`)."""
from __future__ import annotations

import numpy as np

from npxla.runtime.numpy.core.registry import dispatch, implements_lazy
from npxla.runtime.numpy.scipy.lapack import validated


@implements_lazy("scipy.linalg.norm", family="scipy",
                 notes="NumPy's norm; a vector 2-norm sums in another order than BLAS "
                       "nrm2 (last bits)")
def norm(a, ord=None, axis=None, keepdims=False, check_finite=True):
    a = validated(a, check_finite)
    return dispatch(np.linalg.norm, (a,), {"ord": ord, "axis": axis,
                                           "keepdims": keepdims})
