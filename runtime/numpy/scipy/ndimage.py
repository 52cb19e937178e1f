"""`scipy.ndimage` filters on traced arrays, with SciPy's values, dtypes and errors:
`convolve`, `correlate`, `convolve1d`, `correlate1d`, `uniform_filter(1d)` and
`gaussian_filter(1d)`.

SciPy is optional: the functions are registered by name (`registry.implements_lazy`)
and found once the user's code imports `scipy.ndimage`; nothing here imports SciPy.

ndimage's C loops read each line as float64, extend it at both ends by the boundary
mode and write each result back with a C cast to the output dtype (integers truncate
toward zero; a multi-axis filter stores every pass). Here each axis is extended by
static slices (a gather for extensions many times longer than the line) and the sums
are SciPy's own, in SciPy's order and without fused multiply-adds:

- N-d `correlate`/`convolve`: `tmp = 0; tmp += w[k] * x[... + k]` over the weights in
  C order, skipping those with |w| <= DBL_EPSILON (so 0 * inf never makes a NaN);
- `correlate1d` (and `gaussian_filter`): SciPy's symmetric, antisymmetric and plain
  loops, `(x[i - j] + x[i + j]) * w[j]` for a symmetric kernel;
- `uniform_filter1d`: SciPy's running sum, `tmp += x[i + size] - x[i]`, as a cumulative
  sum, so an infinity that leaves the window leaves a NaN behind, as in SciPy.

Up to `UNROLL_TERMS` terms are unrolled into one fused loop; more run as a `while` over
the terms. Complex inputs and weights are filtered by real components, as SciPy does.
Known difference: SciPy's N-d correlate reads outside the array for 'reflect' when the
weights reach more than two periods (4 n) beyond an edge; here the reflection continues.
"""
from __future__ import annotations

import numbers

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, is_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions.reductions import static
from npxla.runtime.numpy.core.registry import entries, implements_lazy
from npxla.runtime.numpy.scipy.signal import (const, d, take_slice, zeros)
from npxla.runtime.numpy.scipy.ndimage_windows import _window, accumulate, extend

_EPS = float(np.finfo(np.float64).eps)
_F64 = np.dtype(np.float64)
_NOTE = ("sizes, sigmas, orders, origins and modes must be static; output= takes a dtype or "
         "an array of the compiled function")
_MODES = {"nearest": "nearest", "wrap": "wrap", "grid-wrap": "wrap", "reflect": "reflect",
          "grid-mirror": "reflect", "mirror": "mirror", "constant": "constant",
          "grid-constant": "constant"}


# --- arguments ----------------------------------------------------------------------------

def _mode(mode):
    mode = static(mode, "mode")
    if not isinstance(mode, str) or mode not in _MODES:
        raise RuntimeError("boundary mode not supported")
    return _MODES[mode]


def _sequence(value, rank):
    """SciPy's `_normalize_sequence`."""
    value = static(value, "argument")
    if not isinstance(value, str) and np.iterable(value):
        value = list(value)
        if len(value) != rank:
            raise RuntimeError("sequence argument must have length equal to input rank")
        return value
    return [value] * rank


def _axes(axes, ndim):
    """SciPy's `_check_axes`."""
    axes = static(axes, "axes")
    if axes is None:
        return tuple(range(ndim))
    if np.isscalar(axes):
        axes = (int(axes),)
    for ax in axes:
        if ax < -ndim or ax > ndim - 1:
            raise ValueError(f"specified axis: {ax} is out of range")
    axes = tuple(int(ax) % ndim for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("axes must be unique")
    return axes


def _supported(dtype, message):
    """SciPy's C loops read and write bool, integers, float32 and float64."""
    if dtype.kind not in "biufc" or dtype == np.float16 or dtype.itemsize > 8 and \
            dtype.kind != "c" or dtype == np.clongdouble:
        raise RuntimeError(message.format(dtype))
    return dtype


def _input(x, message):
    x = as_array(x)
    _supported(x.dtype, message)
    return x


def _is_array(output):
    return is_abstract(output) and (output.const is None or output.ndim > 0)


def _output(output, x, complex_output=False):
    """SciPy's `_get_output`: the output dtype (output: None, a dtype or an array)."""
    if _is_array(output) or isinstance(output, np.ndarray):
        if output.shape != x.shape:
            raise RuntimeError("output shape not correct")
        if complex_output and output.dtype.kind != "c":
            raise RuntimeError("output must have complex dtype")
        if not is_abstract(output):
            raise UnsupportedFunctionError("scipy.ndimage output= must be an array of the "
                                           "compiled function")
        return output.dtype
    output = static(output, "output")
    if output is None:
        return np.promote_types(x.dtype, np.complex64) if complex_output else x.dtype
    dtype = np.dtype(output)
    if complex_output and dtype.kind != "c":
        if isinstance(output, str):
            raise RuntimeError("output must have complex dtype")
        dtype = np.promote_types(dtype, np.complex64)
    return dtype


def _into(output, result):
    """The result, written into `output` when that is an array (as SciPy returns it)."""
    if _is_array(output):
        output.assign(cast_to(result, output.dtype))
        return output
    return result


def _parts(cval):
    """(real, imag) parts of cval as float64 0-d arrays (cval may be traced)."""
    c = as_array(cval)
    if c.dtype.kind != "c":
        return cast_to(c, _F64), const(0.0)
    return cast_to(d(np.real, c), _F64), cast_to(d(np.imag, c), _F64)


def _real_cval(cval):
    c = as_array(cval)
    if c.dtype.kind == "c":
        raise TypeError("must be real number, not complex")
    if c.ndim:
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
    return cast_to(c, _F64)


def _store(v, dtype):
    """The C cast of a float64 result to the output dtype: integers truncate, bool is
    the truncated value's low byte != 0."""
    if dtype == np.bool_:
        return cast_to(cast_to(v, np.uint8), np.bool_)
    return cast_to(v, dtype)


# --- correlate / convolve -----------------------------------------------------------------

def _origin_ok(origin, k):
    return -(k // 2) <= origin <= (k - 1) // 2


def _correlate_real(x, weights, shape_w, mode, cval, origins):
    """float64 N-d correlation of real x (cast from any real dtype) with real weights
    (a NumPy array or a traced float64 array of shape `shape_w`)."""
    p = cast_to(x, _F64)
    for ax, (k, o) in enumerate(zip(shape_w, origins)):
        before = k // 2 + o
        p = extend(p, ax, before, k - 1 - before, mode, cval)
    points = list(np.ndindex(*shape_w))
    if isinstance(weights, np.ndarray):
        flat = weights.ravel()
        keep = [i for i, w in enumerate(flat) if abs(w) > _EPS]
        if not keep:
            return zeros(x.shape, _F64)
        return accumulate(p, x.shape, [(points[i],) for i in keep], flat[keep])
    flat = S.reshape(weights, shape=(len(points),))
    return accumulate(p, x.shape, [(pt,) for pt in points], flat, masked=True)


def _weights(w):
    """Static weights as a NumPy float64 array, traced ones as float64 AbstractArrays."""
    return np.array(w.const, np.float64) if w.const is not None else cast_to(w, _F64)


def _flip(w):
    if isinstance(w, np.ndarray):
        return np.array(w[(slice(None, None, -1),) * w.ndim])
    return S.reverse(w, axes=tuple(range(w.ndim)))


def _correlate_or_convolve(x, weights, output, mode, cval, origin, convolution, axes):
    x = _input(x, "array type not supported")
    w = as_array(weights)
    if x.dtype.kind == "c" or w.dtype.kind == "c":
        return _complex(x, w, output, cval, lambda xp, wp, out, cv: _correlate_or_convolve(
            xp, wp, out, mode, cv, origin, convolution, axes), not convolution)
    axes = _axes(axes, x.ndim)
    if len(axes) < x.ndim:
        if w.ndim != len(axes):
            raise RuntimeError(f"weights.ndim ({w.ndim}) must match len(axes) ({len(axes)})")
        shape = [1] * x.ndim
        for ax, k in zip(axes, w.shape):
            shape[ax] = k
        w = S.reshape(w, shape=tuple(shape)) if w.const is None else \
            AbstractArray.from_const(w.const.reshape(shape))
    origins = _sequence(origin, len(axes))
    if len(axes) < x.ndim:
        full = [0] * x.ndim
        for o, ax in zip(origins, axes):
            full[ax] = o
        origins = full
    wshape = [k for k in w.shape if k > 0]
    if len(wshape) != x.ndim:
        raise RuntimeError(f"weights.ndim ({len(wshape)}) must match len(axes) ({len(axes)})")
    w = _weights(w)
    origins = [int(static(o, "origin")) for o in origins]
    if convolution:
        w = _flip(w)
        origins = [-o - (0 if k & 1 else 1) for o, k in zip(origins, w.shape)]
    if not all(_origin_ok(o, k) for o, k in zip(origins, wshape)):
        raise ValueError("Invalid origin; origin must satisfy -(weights.shape[k] // 2) <= "
                         "origin[k] <= (weights.shape[k]-1) // 2")
    out = _output(output, x)
    mode = static(mode, "mode")
    if not isinstance(mode, str) and np.iterable(mode):
        raise RuntimeError("A sequence of modes is not supported")
    mode = _mode(mode)
    _supported(out, "array type not supported")
    if x.size == 0:
        return zeros(x.shape, out)
    return _store(_correlate_real(x, w, tuple(w.shape), mode, _real_cval(cval), origins), out)


def _complex(x, w, output, cval, func, conj_weights):
    """SciPy's `_complex_via_real_components` (weights conjugated for correlation)."""
    if w.dtype.kind == "c" and conj_weights:
        w = d(np.conjugate, w)
    out = _output(output, x, complex_output=True)
    real = np.dtype(out.type(0).real.dtype)
    cr, ci = _parts(cval)
    if x.dtype.kind == "c" and w.dtype.kind == "c":
        xr, xi, wr, wi = d(np.real, x), d(np.imag, x), d(np.real, w), d(np.imag, w)
        re = d(np.subtract, func(xr, wr, real, cr), func(xi, wi, None, ci))
        im = d(np.add, func(xr, wi, real, cr), func(xi, wr, None, ci))
    elif x.dtype.kind == "c":
        re = func(d(np.real, x), w, real, cr)
        im = func(d(np.imag, x), w, real, ci)
    else:
        if as_array(cval).dtype.kind == "c":
            raise ValueError("Cannot provide a complex-valued cval when the input is real.")
        re = func(x, d(np.real, w), real, cval)
        im = func(x, d(np.imag, w), real, cval)
    re, im = cast_to(re, real), cast_to(im, real)
    return cast_to(X.complex_(re, im), out)


@implements_lazy("scipy.ndimage.correlate", notes=_NOTE)
def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    return _into(output, _correlate_or_convolve(input, weights, output, mode, cval, origin,
                                                False, axes))


@implements_lazy("scipy.ndimage.convolve", notes=_NOTE)
def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *, axes=None):
    return _into(output, _correlate_or_convolve(input, weights, output, mode, cval, origin,
                                                True, axes))


# --- 1-d filters --------------------------------------------------------------------------

def _line_input(x):
    return _input(x, "array type {!r} not supported")


def _symmetry(w):
    """SciPy's test: 1 symmetric, -1 antisymmetric, 0 neither (odd lengths only)."""
    c = len(w) // 2
    for sign in (1, -1):
        if len(w) & 1 and not any(abs(w[c + i] - sign * w[c - i]) > _EPS
                                  for i in range(1, c + 1)):
            return sign
    return 0


def _correlate1d_real(x, w, axis, mode, cval, origin):
    """NI_Correlate1D on real x: float64 result, SciPy's order of operations."""
    k = len(w) if isinstance(w, np.ndarray) else w.shape[0]
    size1 = k // 2
    size2 = k - size1 - 1
    p = extend(cast_to(x, _F64), axis, size1 + origin, size2 - origin, mode, cval)

    def at(j):
        off = [0] * x.ndim
        off[axis] = j
        return tuple(off)

    sym = _symmetry(w) if isinstance(w, np.ndarray) else 0
    if sym:
        acc = E.multiply(broadcast_to_shape(const(w[size1]), x.shape),
                         _window(p, at(size1), x.shape))
        pairs = [(at(size1 - j), at(size1 + j)) for j in range(size1, 0, -1)]
        return accumulate(p, x.shape, pairs, w[size1 - np.arange(size1, 0, -1)],
                          "sum" if sym > 0 else "diff", acc=acc)
    order = [k - 1] + list(range(k - 1))           # the last weight first
    if isinstance(w, np.ndarray):
        w = w[order]
    elif k > 1:
        w = S.concatenate(take_slice(w, 0, k - 1, k), take_slice(w, 0, 0, k - 1), axis=0)
    return accumulate(p, x.shape, [(at(j),) for j in order], w)


def _correlate1d(x, w, axis, output, mode, cval, origin):
    x = _line_input(x)
    w = as_array(w)
    if x.dtype.kind == "c" or w.dtype.kind == "c":
        if w.dtype.kind == "c":
            w = cast_to(d(np.conjugate, w), np.complex128)
        return _complex(x, w, output, cval, lambda xp, wp, out, cv: _correlate1d(
            xp, wp, axis, out, mode, cv, origin), False)
    out = _output(output, x)
    _supported(out, "array type {!r} not supported")
    w = _weights(w)
    if w.ndim != 1 or w.shape[0] < 1:
        raise RuntimeError("no filter weights given")
    axis = normalize_axis_index(static(axis, "axis"), x.ndim)
    origin = int(static(origin, "origin"))
    if not _origin_ok(origin, w.shape[0]):
        raise ValueError("Invalid origin; origin must satisfy -(len(weights) // 2) <= origin "
                         "<= (len(weights)-1) // 2")
    mode = _mode(mode)
    if x.size == 0:
        return zeros(x.shape, out)
    return _store(_correlate1d_real(x, w, axis, mode, _real_cval(cval), origin), out)


@implements_lazy("scipy.ndimage.correlate1d", notes=_NOTE)
def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    return _into(output, _correlate1d(input, weights, axis, output, mode, cval, origin))


@implements_lazy("scipy.ndimage.convolve1d", notes=_NOTE)
def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    w = as_array(weights)
    if w.ndim == 0:
        raise IndexError("too many indices for array: array is 0-dimensional, but 1 were "
                         "indexed")
    w = S.reverse(w, axes=(0,)) if w.const is None else \
        AbstractArray.from_const(w.const[::-1].copy())
    origin = -int(static(origin, "origin"))
    if not w.shape[0] & 1:
        origin -= 1
    if w.dtype.kind == "c":
        w = d(np.conjugate, w)
    return _into(output, _correlate1d(input, w, axis, output, mode, cval, origin))


# --- uniform filter -----------------------------------------------------------------------

def _uniform1d_real(x, size, axis, mode, cval, origin):
    """NI_UniformFilter1D: the first window summed in order, then the running sum
    `tmp += x[i + size] - x[i]` (a cumulative sum), each divided by size."""
    n = x.shape[axis]
    before = size // 2 + origin
    p = extend(cast_to(x, _F64), axis, before, size - 1 - before, mode, cval)
    first_shape = list(x.shape)
    first_shape[axis] = 1
    at = [tuple(j if a == axis else 0 for a in range(x.ndim)) for j in range(size)]
    first = accumulate(p, tuple(first_shape), [(o,) for o in at])
    if n > 1:
        steps = d(np.subtract, take_slice(p, axis, size, size + n - 1),
                  take_slice(p, axis, 0, n - 1))
        first = d(np.cumsum, S.concatenate(first, steps, axis=axis), axis=axis)
    return d(np.true_divide, first, float(size))


def _uniform1d(x, size, axis, out, mode, cval, origin):
    if x.dtype.kind == "c":
        cr, ci = _parts(cval)
        real = np.dtype(out.type(0).real.dtype)
        re = _store(_uniform1d_real(d(np.real, x), size, axis, mode, cr, origin), real)
        im = _store(_uniform1d_real(d(np.imag, x), size, axis, mode, ci, origin), real)
        return cast_to(X.complex_(re, im), out)
    return _store(_uniform1d_real(x, size, axis, mode, _real_cval(cval), origin), out)


def _uniform_checks(size, origin):
    if size < 1:
        raise RuntimeError("incorrect filter size")
    if size // 2 + origin < 0 or size // 2 + origin >= size:
        raise ValueError("invalid origin")


@implements_lazy("scipy.ndimage.uniform_filter1d", notes=_NOTE)
def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    x = _line_input(input)
    axis = normalize_axis_index(static(axis, "axis"), x.ndim)
    size, origin = int(static(size, "size")), int(static(origin, "origin"))
    _uniform_checks(size, origin)
    out = _output(output, x, complex_output=x.dtype.kind == "c")
    _supported(out, "array type {!r} not supported")
    mode = _mode(mode)
    return _into(output, zeros(x.shape, out) if x.size == 0 else
                 _uniform1d(x, size, axis, out, mode, cval, origin))


@implements_lazy("scipy.ndimage.uniform_filter", notes=_NOTE)
def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *,
                   axes=None):
    x = _line_input(input)
    out = _output(output, x, complex_output=x.dtype.kind == "c")
    axes = _axes(axes, x.ndim)
    sizes = _sequence(size, len(axes))
    origins = _sequence(origin, len(axes))
    modes = _sequence(mode, len(axes))
    work = [(ax, s, int(o), m) for ax, s, o, m in zip(axes, sizes, origins, modes) if s > 1]
    for ax, s, o, m in work:
        _uniform_checks(int(s), o)
    _supported(out, "array type {!r} not supported")
    modes = [_mode(m) for _, _, _, m in work]
    if x.size == 0 or not work:
        return _into(output, d(np.array, x, dtype=out) if not work else zeros(x.shape, out))
    for (ax, s, o, _), m in zip(work, modes):
        x = _uniform1d(x, int(s), ax, out, m, cval, o)
    return _into(output, x)


# --- gaussian filter ----------------------------------------------------------------------

def gaussian_kernel1d(sigma, order, radius):
    """SciPy's `_gaussian_kernel1d`, step for step (so the same float64 weights)."""
    if order < 0:
        raise ValueError("order must be non-negative")
    exponent_range = np.arange(order + 1)
    sigma2 = sigma * sigma
    x = np.arange(-radius, radius + 1)
    phi_x = np.exp(-0.5 / sigma2 * x ** 2)
    phi_x = phi_x / phi_x.sum()
    if order == 0:
        return phi_x
    q = np.zeros(order + 1)
    q[0] = 1
    D = np.diag(exponent_range[1:], 1)
    P = np.diag(np.ones(order) / -sigma2, -1)
    Q_deriv = D + P
    for _ in range(order):
        q = Q_deriv.dot(q)
    q = (x[:, None] ** exponent_range).dot(q)
    return q * phi_x


def _gaussian_weights(sigma, order, truncate, radius):
    sd = float(sigma)
    lw = int(truncate * sd + 0.5)
    if radius is not None:
        lw = radius
    if not isinstance(lw, numbers.Integral) or lw < 0:
        raise ValueError("Radius must be a nonnegative integer.")
    with np.errstate(all="ignore"):
        return gaussian_kernel1d(sigma, order, lw)[::-1].copy()


@implements_lazy("scipy.ndimage.gaussian_filter1d", notes=_NOTE)
def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None):
    sigma, order = static(sigma, "sigma"), static(order, "order")
    truncate, radius = static(truncate, "truncate"), static(radius, "radius")
    w = _gaussian_weights(sigma, order, truncate, radius)
    return _into(output, _correlate1d(input, w, axis, output, mode, cval, 0))


@implements_lazy("scipy.ndimage.gaussian_filter", notes=_NOTE)
def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0,
                    truncate=4.0, *, radius=None, axes=None):
    x = _line_input(input)
    out = _output(output, x)
    axes = _axes(axes, x.ndim)
    orders = _sequence(order, len(axes))
    sigmas = _sequence(sigma, len(axes))
    modes = _sequence(mode, len(axes))
    radii = _sequence(radius, len(axes))
    truncate = static(truncate, "truncate")
    work = [(ax, s, o, m, r) for ax, s, o, m, r in zip(axes, sigmas, orders, modes, radii)
            if s > 1e-15]
    if not work:
        return _into(output, d(np.array, x, dtype=out))
    for ax, s, o, m, r in work:
        x = _correlate1d(x, _gaussian_weights(s, o, truncate, r), ax, out, m, cval, 0)
    return _into(output, x)


# SciPy returns a new array (0-d ones included, not NumPy scalars): the filters are
# creation functions for the registry's 0-d result rule
for _name, _entry in entries()[0].items():
    if _name.startswith("scipy.ndimage."):
        _entry.creates = True
