"""np.interp and np.convolve of arrays of run-time length (bounded arrays): the static
implementations on buffers whose padding cannot change the valid part of the answer.
"""
from __future__ import annotations


import numpy as np

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.ufuncs import bounded as ops
from npxla.runtime.numpy.ufuncs.bounded import one_d
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import dispatch


def _interp(fn, args, kwargs):
    """np.interp at points of run-time length (static xp, fp): element by element."""
    params = ops.bind(fn, args, kwargs)
    x = params.pop("x")
    if not is_bounded(x) or any(is_bounded(v) for v in params.values()):
        ops.first_bounded((args, kwargs)).refuse("np.interp with run-time-length xp or fp")
    return B.make(dispatch(np.interp, (x.buf,), params), x.ext, x.extent_deps)


def _convolve(fn, args, kwargs):
    """np.convolve of a 1-d array of run-time length with a static one (either order):
    the full convolution of the zero-padded window, whose first length + m - 1 values
    are NumPy's; 'same' and 'valid' are windows of it."""
    params = ops.bind(fn, args, kwargs)
    a, v = params.pop("a"), params.pop("v")
    mode = params.pop("mode", "full")
    if is_bounded(v) and not is_bounded(a):
        a, v = v, a
    if is_bounded(v) or mode not in ("full", "same", "valid"):
        ops.first_bounded((args, kwargs)).refuse("np.convolve of two run-time-length arrays")
    a = B.at_front(one_d(a, "convolve"))
    v = as_abstract(v)
    m, c = v.shape[0], a.ext[0].count
    if m == 0:
        raise ValueError("v cannot be empty")
    check(B.compare(c, 0, "EQ"), "a cannot be empty", error=ValueError)
    full = dispatch(np.convolve, (B.filled(a, 0), v), {"mode": "full"})
    short, long = B.minimum(c, m), B.maximum(c, m)
    if mode == "full":
        ext = B.Extent(0, B.add(c, m - 1))
    elif mode == "same":     # the longer length, centred in the full result
        start = B.traced(B.sub(short, 1))
        ext = B.Extent(E.divide(start, B.traced(2)), long)
    else:                    # where the shorter one lies wholly inside the longer
        ext = B.Extent(B.sub(short, 1), B.add(B.sub(long, short), 1))
    return B.make(full, (ext,), a.extent_deps)


HANDLERS = {"np.interp": _interp, "np.convolve": _convolve}
