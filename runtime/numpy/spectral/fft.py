"""np.fft on abstract arrays: `stablehlo.fft` (FFT, IFFT, RFFT, IRFFT) with NumPy 2's rules.

Dtypes (NumPy 2): complex results are complex64 for float16/float32/complex64 input and
complex128 otherwise (integers and bool included); irfft/hfft return the matching real
dtype (float16 input stays float16, computed in single precision). Lengths `n` / `s`
crop or zero-pad the input along each axis before the transform, as NumPy does. XLA
transforms the trailing 1 to 3 axes at once, so the transformed axes are moved last,
transformed together (chunks of three), and moved back; the separable multi-axis
transform equals NumPy's axis-by-axis one up to rounding. `norm` scaling: XLA's inverse
transforms divide by the product of the lengths ("backward"); "ortho" and "forward"
rescale that.
"""
from __future__ import annotations

import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.linalg_ops import fft as _fft
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.reductions.reductions import asarray, full, numpy_error, static
from npxla.runtime.numpy.core.registry import dispatch, implements
from npxla.runtime.numpy.ufuncs.ufunc_core import store_out

_FAMILY = "fft"
_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _complex_dtype(dtype):
    return np.result_type(dtype, 1j)


def _real_dtype(dtype):
    """NumPy's real output dtype for a transform of `dtype` (float16 stays float16)."""
    return np.result_type(np.dtype(dtype).type(0).real.dtype, 1.0)


def _norm(norm, fn, a):
    norm = static(norm, "norm")
    if norm not in _SWAP:
        numpy_error(fn, a, norm=norm)
    return norm


def _resize(x, axis, n):
    """Crop or zero-pad `x` along `axis` to length n."""
    size = x.shape[axis]
    if size == n:
        return x
    if size > n:
        limit = x.shape[:axis] + (n,) + x.shape[axis + 1:]
        return S.static_slice(x, start=(0,) * x.ndim, limit=limit, strides=(1,) * x.ndim)
    high = [0] * x.ndim
    high[axis] = n - size
    zero = as_abstract(np.zeros((), x.dtype))
    return S.pad(x, zero, low=(0,) * x.ndim, high=tuple(high), interior=(0,) * x.ndim)


def _on_last(x, axes, fn):
    """Apply `fn` to x with `axes` moved (in order) to the end, then move them back."""
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = tuple(rest + list(axes))
    identity = perm == tuple(range(x.ndim))
    y = fn(x if identity else S.transpose(x, perm=perm))
    if identity:
        return y
    return S.transpose(y, perm=tuple(int(i) for i in np.argsort(perm)))


def _xla(x, kind, axes, lengths):
    """One XLA transform over (at most three, distinct) axes, lengths already applied."""
    if x.size == 0 or (kind == "IRFFT" and 0 in x.shape):
        out_dt = _complex_dtype(x.dtype) if kind == "RFFT" else (
            np.dtype(x.dtype.type(0).real.dtype) if kind == "IRFFT" else x.dtype)
        shape = list(x.shape)
        if kind == "RFFT":
            shape[axes[-1]] = lengths[-1] // 2 + 1
        elif kind == "IRFFT":
            shape[axes[-1]] = lengths[-1]
        return full(0, out_dt, tuple(shape))
    return _on_last(x, axes, lambda y: _fft(y, fft_type=kind, fft_length=tuple(lengths)))


def _c2c(x, axes, lengths, inverse):
    """Complex transform over distinct axes (lengths applied), in chunks of three."""
    kind = "IFFT" if inverse else "FFT"
    for i in range(len(axes), 0, -3):
        lo = max(0, i - 3)
        x = _xla(x, kind, axes[lo:i], lengths[lo:i])
    return x


def _scale(x, norm, n, inverse):
    """NumPy's `norm` factor; XLA's inverse transforms already divide by n."""
    if inverse:
        factor = {None: 1, "backward": 1, "ortho": np.sqrt(n), "forward": n}[norm]
    else:
        factor = {None: 1, "backward": 1, "ortho": 1 / np.sqrt(n), "forward": 1 / n}[norm]
    if factor == 1:
        return x
    return dispatch(np.multiply, (x, as_abstract(np.asarray(factor, x.dtype))), {})


def _finish(name, result, out):
    if out is not None:
        return store_out(name, out, result)
    return result


def _axes_lengths(a, s, axes, invreal=False):
    """NumPy's `_cook_nd_args`: (lengths, normalized axes)."""
    s, axes = static(s, "s"), static(axes, "axes")
    shapeless = s is None
    if s is None:
        s = list(a.shape) if axes is None else [a.shape[i] for i in axes]
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in "
                          "NumPy 2.0)", DeprecationWarning, stacklevel=4)
        axes = list(range(-len(s), 0))
    axes = list(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    axes = [normalize_axis_index(ax, a.ndim) for ax in axes]
    if invreal and shapeless:
        s[-1] = (a.shape[axes[-1]] - 1) * 2
    if None in s:
        warnings.warn("Passing an array containing `None` values to `s` is deprecated in "
                      "NumPy 2.0", DeprecationWarning, stacklevel=4)
    s = [a.shape[ax] if n is None or n == -1 else int(n) for n, ax in zip(s, axes)]
    for n in s:
        if n < 1:
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return s, axes


# --- complex transforms --------------------------------------------------------------------

def _cfftn(a, s, axes, norm, inverse):
    """fftn / ifftn (and the 1-d and 2-d forms)."""
    x = cast_to(a, _complex_dtype(a.dtype))
    if len(set(axes)) != len(axes):          # an axis twice: NumPy's order, one at a time
        for n, ax in reversed(list(zip(s, axes))):
            x = _cfftn(x, [n], [ax], norm, inverse)
        return x
    for n, ax in zip(s, axes):
        x = _resize(x, ax, n)
    x = _c2c(x, axes, s, inverse)
    return _scale(x, norm, int(np.prod(s)), inverse)


def _one_axis(a, n, axis, default_n):
    a = asarray(a)
    axis = normalize_axis_index(static(axis, "axis"), a.ndim)
    n = static(n, "n")
    n = default_n(a.shape[axis]) if n is None else int(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return a, n, axis


def _register(fn, body, default_n=lambda m: m):
    """`fn(a, n=None, axis=-1, norm=None, out=None)` computed by `body(a, n, axis, norm)`."""
    name = fn.__name__

    def impl(a, n=None, axis=-1, norm=None, out=None):
        a, n, axis = _one_axis(a, n, axis, default_n)
        result = body(a, n, axis, _norm(norm, fn, a))
        return _finish(name, result, out)
    impl.__name__ = name
    implements(fn, family=_FAMILY)(impl)


def _register_nd(fn, body, default_axes=None, invreal=False, keep_out=True):
    """`fn(a, s=None, axes=default_axes, norm=None, out=None)` computed by
    `body(a, s, axes, norm)` (NumPy's irfft2 ignores `out`: keep_out=False)."""
    name = fn.__name__

    def impl(a, s=None, axes=default_axes, norm=None, out=None):
        a = asarray(a)
        s, axes = _axes_lengths(a, s, axes, invreal)
        result = body(a, s, axes, _norm(norm, fn, a))
        return _finish(name, result, out if keep_out else None)
    impl.__name__ = name
    implements(fn, family=_FAMILY)(impl)


for _fn, _inverse in [(np.fft.fft, False), (np.fft.ifft, True)]:
    _register(_fn, lambda a, n, axis, norm, inv=_inverse: _cfftn(a, [n], [axis], norm, inv))
for _fn, _inverse, _axes in [(np.fft.fftn, False, None), (np.fft.ifftn, True, None),
                             (np.fft.fft2, False, (-2, -1)), (np.fft.ifft2, True, (-2, -1))]:
    _register_nd(_fn, lambda a, s, axes, norm, inv=_inverse: _cfftn(a, s, axes, norm, inv),
                 _axes)


# --- real transforms ------------------------------------------------------------------------

def _real_input(a, fn):
    if a.dtype.kind == "c":
        numpy_error(fn, a)
    return cast_to(a, _complex_dtype(a.dtype).type(0).real.dtype)


def _rfftn(a, s, axes, norm, fn):
    x = _real_input(a, fn)
    if len(set(axes)) != len(axes):
        x = _rfftn(x, s[-1:], axes[-1:], norm, fn)
        return _cfftn(x, s[:-1], axes[:-1], norm, False)
    for n, ax in zip(s, axes):
        x = _resize(x, ax, n)
    lo = max(0, len(axes) - 3)
    x = _xla(x, "RFFT", axes[lo:], s[lo:])
    x = _c2c(x, axes[:lo], s[:lo], False)
    return _scale(x, norm, int(np.prod(s)), False)


def _irfftn(a, s, axes, norm):
    # NumPy's irfftn runs ifft first on all axes but the last: float16 input becomes
    # complex64 there, so only the 1-d form keeps float16
    out_dt = _real_dtype(a.dtype if len(axes) == 1 else _complex_dtype(a.dtype))
    x = cast_to(a, _complex_dtype(a.dtype))
    if len(set(axes)) != len(axes):          # NumPy's order: ifft axis by axis, irfft last
        for n, ax in zip(s[:-1], axes[:-1]):
            x = _cfftn(x, [n], [ax], norm, True)
        return _irfftn(x, s[-1:], axes[-1:], norm)
    for n, ax in zip(s[:-1], axes[:-1]):
        x = _resize(x, ax, n)
    x = _resize(x, axes[-1], s[-1] // 2 + 1)
    lo = max(0, len(axes) - 3)
    x = _c2c(x, axes[:lo], s[:lo], True)
    x = _xla(x, "IRFFT", axes[lo:], s[lo:])
    return cast_to(_scale(x, norm, int(np.prod(s)), True), out_dt)


def _hfft(a, n, axis, norm):
    conj = dispatch(np.conjugate, (a,), {})
    return _irfftn(conj, [n], [axis], _SWAP[norm])


def _ihfft(a, n, axis, norm):
    result = _rfftn(a, [n], [axis], _SWAP[norm], np.fft.ihfft)
    return dispatch(np.conjugate, (result,), {})


_register(np.fft.rfft, lambda a, n, axis, norm: _rfftn(a, [n], [axis], norm, np.fft.rfft))
_register(np.fft.irfft, lambda a, n, axis, norm: _irfftn(a, [n], [axis], norm),
          default_n=lambda m: (m - 1) * 2)
_register(np.fft.hfft, _hfft, default_n=lambda m: (m - 1) * 2)
_register(np.fft.ihfft, _ihfft)
for _fn, _axes in [(np.fft.rfftn, None), (np.fft.rfft2, (-2, -1))]:
    _register_nd(_fn, lambda a, s, axes, norm, f=_fn: _rfftn(a, s, axes, norm, f), _axes)
for _fn, _axes in [(np.fft.irfftn, None), (np.fft.irfft2, (-2, -1))]:
    _register_nd(_fn, _irfftn, _axes,
                 invreal=True, keep_out=_fn is not np.fft.irfft2)
del _fn, _axes, _inverse


# --- frequencies and shifts ------------------------------------------------------------------

@implements(np.fft.fftfreq, family=_FAMILY)
def fftfreq(n, d=1.0, device=None):
    n = int(static(n, "n"))
    val = dispatch(np.divide, (1.0, dispatch(np.multiply, (n, d), {})), {})
    results = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return dispatch(np.multiply, (as_abstract(results.astype(int)), val), {})


@implements(np.fft.rfftfreq, family=_FAMILY)
def rfftfreq(n, d=1.0, device=None):
    n = int(static(n, "n"))
    val = dispatch(np.divide, (1.0, dispatch(np.multiply, (n, d), {})), {})
    return dispatch(np.multiply, (as_abstract(np.arange(0, n // 2 + 1, dtype=int)), val), {})


def _shift(x, axes, sign):
    """NumPy's fftshift/ifftshift: a roll by half of each axis."""
    x = asarray(x)
    axes = static(axes, "axes")
    if axes is None:
        if x.ndim == 0:                       # NumPy's roll fails on this one
            numpy_error(np.fft.fftshift, x)
        axes = tuple(range(x.ndim))
    elif isinstance(axes, (int, np.integer)):
        shift = sign * (x.shape[axes] // 2)
        return dispatch(np.roll, (x, shift, axes), {})
    shift = [sign * (x.shape[ax] // 2) for ax in axes]
    return dispatch(np.roll, (x, shift, axes), {})


@implements(np.fft.fftshift, family=_FAMILY)
def fftshift(x, axes=None):
    return _shift(x, axes, 1)


@implements(np.fft.ifftshift, family=_FAMILY)
def ifftshift(x, axes=None):
    return _shift(x, axes, -1)
