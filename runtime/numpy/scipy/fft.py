"""scipy.fft's transforms and scipy.signal.hilbert on abstract arrays.

scipy.fft computes what np.fft computes, with NumPy 2's dtypes (single precision stays
single: float32 gives complex64), so each transform is np.fft's lowering under SciPy's
signature: `overwrite_x` and `workers` change nothing in the result, a `plan` is
refused. `hilbert` is SciPy's own steps: the FFT along the axis, the positive
frequencies doubled and the negative ones zeroed, the inverse FFT.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.registry import dispatch, implements_lazy
from npxla.runtime.numpy.reductions.reductions import static

_ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
_AXES = ("fftn", "ifftn", "fft2", "ifft2", "rfftn", "irfftn", "rfft2", "irfft2")
_TWO_D = {"fft2", "ifft2", "rfft2", "irfft2"}


def _no_plan(name, plan):
    if plan is not None:
        raise UnsupportedFunctionError(f"scipy.fft.{name}(..., plan=...) is not supported",
                                       hint="leave plan=None (the transform is compiled)")


def _one_axis(name):
    np_fn = getattr(np.fft, name)

    def impl(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *,
             plan=None):
        _no_plan(name, plan)
        return dispatch(np_fn, (x, n, axis, norm), {})
    impl.__name__ = name
    return impl


def _axes(name):
    np_fn = getattr(np.fft, name)
    default = (-2, -1) if name in _TWO_D else None

    def impl(x, s=None, axes=default, norm=None, overwrite_x=False, workers=None, *,
             plan=None):
        _no_plan(name, plan)
        return dispatch(np_fn, (x, s, axes, norm), {})
    impl.__name__ = name
    return impl


for _name in _ONE_AXIS:
    implements_lazy(f"scipy.fft.{_name}", notes="np.fft's transform (the same dtypes)")(
        _one_axis(_name))
for _name in _AXES:
    implements_lazy(f"scipy.fft.{_name}", notes="np.fft's transform (the same dtypes)")(
        _axes(_name))


@implements_lazy("scipy.signal.hilbert", notes="the analytic signal through the FFT")
def hilbert(x, N=None, axis=-1):
    x = as_array(x)
    if x.dtype.kind == "c":
        raise ValueError("x must be real.")
    axis = normalize_axis_index(static(axis, "axis"), x.ndim)
    N = x.shape[axis] if N is None else int(static(N, "N"))
    if N <= 0:
        raise ValueError("N must be positive.")
    xf = dispatch(np.fft.fft, (x, N), {"axis": axis})
    h = np.zeros(N)
    if N % 2 == 0:
        h[0] = h[N // 2] = 1.0
        h[1:N // 2] = 2.0
    else:
        h[0] = 1.0
        h[1:(N + 1) // 2] = 2.0
    shape = [1] * x.ndim
    shape[axis] = N
    weights = as_abstract(h.reshape(shape).astype(np.result_type(xf.dtype).type(0).real
                                                  .dtype))
    return dispatch(np.fft.ifft, (dispatch(np.multiply, (xf, weights), {}),),
                    {"axis": axis})
