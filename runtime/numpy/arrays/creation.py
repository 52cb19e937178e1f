"""Array creation: zeros/ones/full/empty (and *_like), arange, linspace, eye, identity,
array/asarray, copy (`np.asarray`'s conversion itself lives in coercion.py).

Registered with `creates=True`: inside a compiled function they always return abstract
arrays (fresh, mutable handles). When every argument is known the dispatcher lets NumPy
compute them; these implementations only run when some argument is traced. A traced
value used as a *shape* (or an `arange` bound, a `linspace` count) raises
`ConcretizationError` through `AbstractArray.__index__`/`_concrete`: the call path then
specialises Python int arguments on their value.

`np.empty`/`np.empty_like` and the constructor `np.ndarray(shape, dtype)` return
zero-filled arrays in compiled code (NumPy leaves the contents undefined, so any value
is correct; zeros are deterministic). Without its registration `np.ndarray(...)` would
run as plain NumPy: an outside array, whose writes are refused or, with constant
values under a staged branch, done on every path.
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.coercion import array_impl, as_array, const_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.registry import implements, register_method
from npxla.runtime.numpy.arrays.shape import moveaxis, path_dependent_copy, shape_arg
from npxla.runtime.numpy.core.layouts import laid_out_like, path_layouts
from npxla.runtime.numpy.arrays.bounded import MAX_CREATED, run_time_shape
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.values import fresh
from npxla.transpiler.base.dtypes import result_type
from npxla.transpiler.base.errors import UnsupportedFunctionError


def _static(x, what="value"):
    """The Python value of an argument that decides a shape (raises on traced values)."""
    if type(x) is AbstractArray:
        c = x._concrete(what)
        return c.item() if x.weak and c.ndim == 0 else c
    return x


def _filled(shape, fill, dtype):
    fill = as_array(fill)
    dtype = fill.dtype if dtype is None else np.dtype(dtype)
    out = broadcast_to_shape(cast_to(fill, dtype, weak=False), shape)
    return fresh(out) if out is fill else out


# --- zeros / ones / full / empty ------------------------------------------------------

def _run_time_length(shape, make):
    """`make(bound)` as an array of run-time length when a length in `shape` is traced
    with a static bound (`np.zeros(len(x[m]))`: see `bounded.run_time_shape`), else
    None."""
    plan = run_time_shape(shape)
    if plan is None:
        return None
    bound, ext, deps = plan
    return B.make(make(bound), ext, deps)


_RUN_TIME_NOTE = "a traced length with a static bound (len(x[m])) gives an array of " \
    "run-time length"


@implements(np.zeros, family="creation", creates=True, notes=_RUN_TIME_NOTE)
def zeros(shape, dtype=float, order="C", *, device=None, like=None):
    out = _run_time_length(shape, lambda s: const_array(np.zeros(s, dtype)))
    return const_array(np.zeros(shape_arg(shape), dtype)) if out is None else out


@implements(np.empty, family="creation", creates=True, fold=False,
            notes="returns zeros in compiled code (NumPy's contents are undefined); "
                  + _RUN_TIME_NOTE)
def empty(shape, dtype=float, order="C", *, device=None, like=None):
    out = _run_time_length(shape, lambda s: const_array(np.zeros(s, dtype)))
    return const_array(np.zeros(shape_arg(_static(shape, "shape")), dtype)) \
        if out is None else out


@implements(np.ndarray, family="creation", creates=True, fold=False,
            notes="the constructor with shape, dtype and order only (no buffer=); "
                  "returns zeros in compiled code (NumPy's contents are undefined)")
def ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
    if buffer is not None or strides is not None or offset:
        raise UnsupportedFunctionError(
            "np.ndarray(..., buffer=/offset=/strides=) is not supported: the array "
            "would share memory the compiled program cannot see",
            hint="create the array with np.empty(shape, dtype) and fill it")
    return empty(shape, dtype)


@implements(np.ones, family="creation", creates=True, notes=_RUN_TIME_NOTE)
def ones(shape, dtype=None, order="C", *, device=None, like=None):
    out = _run_time_length(shape, lambda s: const_array(np.ones(s, dtype)))
    return const_array(np.ones(shape_arg(shape), dtype)) if out is None else out


@implements(np.full, family="creation", creates=True, notes=_RUN_TIME_NOTE)
def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    out = _run_time_length(shape, lambda s: _filled(s, fill_value, dtype))
    return _filled(shape_arg(shape), fill_value, dtype) if out is None else out


def _like(a, dtype, shape):
    a = as_array(a)
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    shape = a.shape if shape is None else shape_arg(shape)
    return shape, dtype


@implements(np.zeros_like, family="creation", creates=True)
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype = _like(a, dtype, shape)
    return _like_order(const_array(np.zeros(shape, dtype)), a, order)


@implements(np.empty_like, family="creation", creates=True, fold=False,
            notes="returns zeros in compiled code (NumPy's contents are undefined)")
def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype = _like(prototype, dtype, None if shape is None else _static(shape))
    return _like_order(const_array(np.zeros(shape, dtype)), prototype, order)


@implements(np.ones_like, family="creation", creates=True)
def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype = _like(a, dtype, shape)
    return _like_order(const_array(np.ones(shape, dtype)), a, order)


@implements(np.full_like, family="creation", creates=True)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    shape, dtype = _like(a, dtype, shape)
    return _like_order(_filled(shape, fill_value, dtype), a, order)


def _like_order(out, prototype, order):
    """A `*_like` result laid out as NumPy lays it out: like the prototype for order
    'K' (the default), so `np.zeros_like(a.T).ravel()` is a copy as in NumPy."""
    return laid_out_like(out, prototype) if order in ("K", "A") else out


def _bcast(x, shape):
    if x.shape == shape:
        return x
    dims = tuple(range(len(shape) - x.ndim, len(shape)))
    return S.broadcast_in_dim(x, shape=shape, dims=dims)


# --- ranges ----------------------------------------------------------------------------

@implements(np.arange, family="creation", creates=True,
            notes="bounds must be known at compile time (the length depends on them), "
                  "except integer bounds of known range with a step of 1 or -1 (an "
                  "array of run-time length)")
def arange(*args, **kwargs):
    if set(kwargs) <= {"dtype"} and 1 <= len(args) <= 3 and \
            any(type(a) is AbstractArray and a.const is None for a in args):
        out = _bounded_arange(args, kwargs.get("dtype"))
        if out is not None:
            return out
    args = [_static(a, "arange bound") for a in args]
    kwargs = {k: _static(v, "arange bound") for k, v in kwargs.items()}
    return const_array(np.arange(*args, **kwargs))


def _bounded_arange(args, dtype):
    """`np.arange` with traced integer bounds and a step of 1 or -1, whose ranges
    staging knows (`np.arange(len(x[i + 1:]) - 2)` in a loop over i): an array of run
    time length, `start + step * k` for k below the count, in a buffer as long as the
    longest it can be (`staging.bounded`). None when the bounds' ranges are unknown
    (the static path then asks for their values)."""
    start, stop, step = ((0,) + tuple(args) + (1,))[-3:] if len(args) < 3 else args
    step = B.known(step)
    if step not in (1, -1) or not all(_signed_int(v) for v in (start, stop)):
        return None
    lo, hi = B.value_range(start), B.value_range(stop)
    if lo is None or hi is None:
        return None
    bound = max(0, hi[1] - lo[0] if step == 1 else lo[1] - hi[0])
    if bound > MAX_CREATED:     # a loop over range(1, 2**40): no buffer that long
        return None
    count = B.maximum(B.sub(stop, start) if step == 1 else B.sub(start, stop), 0)
    base = S.broadcast_in_dim(B.traced(start), shape=(bound,), dims=())
    steps = S.iota(shape=(bound,), dtype=np.int64, dim=0)
    buf = E.add(base, steps) if step == 1 else E.subtract(base, steps)
    buf = cast_to(buf, np.dtype(np.int64 if dtype is None else dtype), weak=False)
    deps = B.deps_of(start, stop)
    return B.make(buf, [B.Extent(0, count)], deps)


def _signed_int(v):
    if type(v) is AbstractArray:
        return v.ndim == 0 and v.dtype.kind == "i"
    return isinstance(v, (int, np.signedinteger)) and not isinstance(v, bool)


@implements(np.eye, family="creation", creates=True)
def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    return const_array(np.eye(_static(N, "int"), None if M is None else _static(M, "int"),
                              _static(k, "int"), dtype))


@implements(np.identity, family="creation", creates=True)
def identity(n, dtype=None, *, like=None):
    return const_array(np.identity(_static(n, "int"), dtype))


@implements(np.linspace, family="creation", creates=True,
            notes="for array start/stop, NumPy's denormal-step path is chosen per "
                  "element rather than for the whole array (last-ulp differences)")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
             *, device=None):
    """NumPy's `linspace` formula, so that values match to the last ulp: `start + i *
    step` with `step = (stop - start) / div`, or `i / div * (stop - start)` where the
    step underflows to zero; with `endpoint` the last sample is `stop` itself; an
    integer dtype floors before the cast; `retstep` returns the step (NaN when there is
    no interval); the sample axis is inserted at `axis`. `num` must be static (it
    decides the shape); start and stop may be traced."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    start, stop = as_abstract(start), as_abstract(stop)
    dt, _ = result_type((start.dtype, start.weak), (stop.dtype, stop.weak),
                        (np.dtype(np.float64), True))
    integer_dtype = dtype is not None and np.issubdtype(dtype, np.integer)
    dtype = dt if dtype is None else np.dtype(dtype)
    bshape = np.broadcast_shapes(start.shape, stop.shape)
    start_b = _bcast(cast_to(start, dt), bshape)
    stop_b = _bcast(cast_to(stop, dt), bshape)
    delta = E.subtract(stop_b, start_b)
    shape = (num,) + bshape
    idx = S.iota(shape=shape, dtype=np.int64, dim=0)
    y = cast_to(idx, dt)

    def full_of(v):
        return S.broadcast_in_dim(v, shape=shape, dims=tuple(range(1, len(shape))))

    def scalar(v, shape=shape):
        # broadcast by a primitive: complex splat constants are not supported by
        # trace.constant
        return S.broadcast_in_dim(as_abstract(np.asarray(v, dt)), shape=shape, dims=())

    if div > 0:
        step = E.divide(delta, scalar(div, bshape))
        zero = scalar(0, bshape)
        step_zero = E.compare(step, zero, "EQ")
        y_small = E.multiply(E.divide(y, scalar(div)), full_of(delta))
        y_step = E.multiply(y, full_of(step))
        y = S.select(full_of(step_zero), y_small, y_step)
    else:
        step = float("nan")
        y = E.multiply(y, full_of(delta))
    y = E.add(y, full_of(start_b))
    if endpoint and num > 1:
        last = S.reshape(stop_b, shape=(1,) + bshape)
        head = S.static_slice(y, start=(0,) * len(shape), limit=(num - 1,) + bshape,
                              strides=(1,) * len(shape))
        y = S.concatenate(head, last, axis=0)
    if axis != 0:
        y = fresh(moveaxis(y, 0, axis))
    if integer_dtype:
        y = E.floor(y)
    y = cast_to(y, dtype)
    if retstep:
        return y, step
    return y


# --- array / asarray / copy ------------------------------------------------------------

@implements(np.array, family="creation", creates=True)
def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    return _in_order(object, array_impl(object, dtype, copy=copy, ndmin=ndmin), order)


@implements(np.asarray, np.asanyarray, family="creation", creates=True, fold=False,
            notes="returns its argument itself (an alias) when no conversion is needed")
def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return _in_order(a, array_impl(a, dtype, copy=copy), order)


@implements(np.ascontiguousarray, family="creation", creates=True, fold=False)
def ascontiguousarray(a, dtype=None, *, like=None):
    return _in_order(a, array_impl(a, dtype, copy=None, ndmin=1), "C")


def _in_order(source, out, order):
    """`out` (the argument itself when no conversion was needed) copied when NumPy would
    copy it to give the requested memory order: `np.ascontiguousarray(x.T)`,
    `np.asarray(a, order='C')` of a Fortran-ordered or strided argument (a view made
    here has its layout too, `numpy/shape.py`)."""
    if out is not source or order not in ("C", "F") or not isinstance(out, AbstractArray):
        return out
    kept = {bool(lay.flags.c_contiguous if order == "C" else lay.flags.f_contiguous)
            for lay in path_layouts(out)}
    if kept == {True}:
        return out
    if kept == {False}:
        return fresh(out)
    return path_dependent_copy(out, out.shape)      # the argument on one path only


@implements(np.copy, family="creation", creates=True)
def copy(a, order="K", subok=False):
    a = as_array(a)
    out = fresh(a)
    return laid_out_like(out, a) if order in ("K", "A") else out


def _copy_method(self, order="C"):
    return fresh(self)


register_method("copy", _copy_method)
