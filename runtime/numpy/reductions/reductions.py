"""Reductions with NumPy's semantics: sum prod mean std var max min argmax argmin any all.

Result dtypes are NumPy's own (asked of NumPy on a one-element array of the input dtype
and cached), so `sum(int8) -> int64`, `mean(int) -> float64`, `std(complex) -> float`.
Also registered: the ndarray methods, `np.add.reduce`-style ufunc methods and the
builtins `sum`, `max`, `min` on abstract arrays.
"""
from __future__ import annotations

import builtins
import warnings
from functools import lru_cache

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from npxla.transpiler.base.errors import ConcretizationError, UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.transpiler.base.dtypes import weak_standin
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.argreduce import blocked_applies, blocked_arg
from npxla.runtime.lowering.reduce import arg_reduce, identity, reduce
from npxla.runtime.lowering import split_reductions
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.numpy.ufuncs.arithmetic import exact
from npxla.runtime.numpy.reductions.pairwise import (pairwise_applies, pairwise_sum,
                                                     row_by_row_applies)
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.speculate import assume
from npxla.runtime.staging.pytypes import python_type
from npxla.runtime.numpy.core.registry import (_leaves, dispatch, implements,
                                               register_ufunc_method)
from npxla.runtime.numpy.ufuncs.ufunc_core import store_out

from jaxlib.mlir.dialects import stablehlo as hlo
from npxla.runtime.numpy.core.registry import _to_const, wrap_result

_NO_VALUE = np._NoValue
_real = Primitive("real", typing=lambda a: (a[0], np.dtype(a[1].type(0).real.dtype)),
                  lowering=lambda t, x: hlo.RealOp(x).result)
_imag = Primitive("imag", typing=lambda a: (a[0], np.dtype(a[1].type(0).real.dtype)),
                  lowering=lambda t, x: hlo.ImagOp(x).result)
_complex = Primitive("complex", typing=lambda a, b: (a[0], np.result_type(a[1], np.complex64)),
                     lowering=lambda t, x, y: hlo.ComplexOp(x, y).result)


def result_type(*operands):
    """(dtype, weak) of combining (dtype, weak) pairs. Not `dtypes.result_type`: its
    lru_cache conflates the weak stand-ins 0, 0.0 and False (equal keys)."""
    keys = [weak_standin(d) if w else np.dtype(d) for d, w in operands]
    return np.result_type(*keys), all(w for _, w in operands)


# --- argument helpers -----------------------------------------------------------------

def static(value, what):
    """A Python value for an argument that decides shapes or dtypes."""
    if is_abstract(value):
        if value.const is None:
            raise ConcretizationError(f"{what} must be known when compiling, not traced",
                                      deps=value.deps)
        c = value.const
        return c.item() if c.ndim == 0 else tuple(c.tolist())
    return value


def asarray(x) -> AbstractArray:
    if is_abstract(x):
        return x
    if isinstance(x, (list, tuple)) and _leaves(x, []):
        return dispatch(np.asarray, (x,), {})
    return as_abstract(x)


def axes_of(axis, ndim):
    axis = static(axis, "axis")
    if axis is None:
        return tuple(range(ndim))
    try:
        return normalize_axis_tuple(axis, ndim)
    except np.exceptions.AxisError:
        raise
    except ValueError:
        raise ValueError("duplicate value in 'axis'") from None


def _dummy(x):
    x = asarray(x)
    return np.broadcast_to(np.zeros((), x.dtype), x.shape)


def numpy_error(fn, *args, **kwargs):
    """Re-raise the exception NumPy raises for these shapes/dtypes (zero-stride dummies
    stand in for the arrays); used only on paths known to fail."""
    args = [_dummy(a) if is_abstract(a) else a for a in args]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            fn(*args, **kwargs)
        except Exception as e:
            # raised from here, not from inside NumPy: it is the program's behaviour on
            # this path (`conditionals.raises_at_run_time`), which a data-dependent
            # branch that is not taken must not raise
            raise e.with_traceback(None) from None


@lru_cache(maxsize=None)
def _np_dtype(fn, dtype, kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(fn(np.ones((2,), dtype), **dict(kwargs))).dtype


def np_dtype(fn, in_dtype, **kwargs):
    """The result dtype NumPy gives `fn(array of in_dtype, **kwargs)`."""
    kw = tuple(sorted((k, np.dtype(v) if k == "dtype" and v is not None else v)
                      for k, v in kwargs.items()))
    return _np_dtype(fn, np.dtype(in_dtype), kw)


def _finish(result, axes, shape, keepdims, out_dtype, out=None, name="reduce"):
    if static(keepdims, "keepdims"):
        kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
        result = S.reshape(result, shape=kept)
    result = cast_to(result, out_dtype)
    if out is not None:
        return store_out(name, out, result, casting="unsafe")
    return result


def _where_mask(where, shape):
    w = cast_to(asarray(where), np.bool_)
    return broadcast_to_shape(w, shape)


def full(value, dtype, shape):
    """A traced broadcast of a scalar constant (no splat constant: complex splats are not
    supported by trace.constant)."""
    c = AbstractArray.from_const(np.asarray(value, dtype), weak=False)
    return S.broadcast_in_dim(c, shape=tuple(shape), dims=()) if shape else c


def _select(mask, a, fill):
    return S.select(mask, a, full(fill, a.dtype, a.shape))


def _acc_dtype(dtype):
    """Accumulation dtype: float16 sums accumulate in float32 as NumPy's pairwise sum does."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def _fold(x, kind, axes):
    """reduce(x) over axes; bool add/mul become or/and; complex max/min lexicographic."""
    if x.dtype == np.bool_:
        kind = {"add": "or", "mul": "and", "max": "or", "min": "and"}.get(kind, kind)
    if x.dtype.kind == "c" and kind in ("max", "min"):
        return _complex_extreme(x, kind, axes)
    if not axes:
        return x
    if _unrolled(x, kind, axes):
        r = _sequential(x, kind, axes[0])
    elif pairwise_applies(x, kind, axes):
        r = pairwise_sum(x, axes)
    else:
        r = reduce(x, kind=kind, axes=axes)
    if kind == "add" and r.dtype.kind == "f":
        # NumPy's sums start from +0.0, so a sum of only -0.0 is +0.0; XLA drops that
        # start (`0 + x` is `x` to it). A zero it cannot see through restores it.
        r = E.add(r, exact(full(0, r.dtype, r.shape), r))
    return r


# A sum or product over one axis of at most this many elements is staged as that many
# elementwise operations on slices, in NumPy's order (sequential from an identity, for
# NumPy's pairwise sum below 8 elements and for every non-contiguous axis). XLA fuses
# them into the producers and consumers, where a `reduce` over a short axis becomes a
# kernel of its own: 2x2 average pooling of 32x1024x1024 doubles, 113 ms -> 41 ms.
_UNROLL_EXTENT = 7


def _unrolled(x, kind, axes):
    return kind in ("add", "mul") and len(axes) == 1 and \
        2 <= x.shape[axes[0]] <= _UNROLL_EXTENT and x.dtype.kind in "iufc" or \
        row_by_row_applies(x, kind, axes)


def _sequential(x, kind, axis):
    combine = E.add if kind == "add" else E.multiply
    out = full(identity(kind, x.dtype), x.dtype, x.shape[:axis] + x.shape[axis + 1:])
    for k in range(x.shape[axis]):
        start = [0] * x.ndim
        limit = list(x.shape)
        start[axis], limit[axis] = k, k + 1
        piece = S.static_slice(x, start=tuple(start), limit=tuple(limit),
                               strides=(1,) * x.ndim)
        out = combine(out, S.reshape(piece, shape=out.shape))
    return out


def _move_to_last(x, axes):
    """Transpose `axes` to the end and merge them into one axis."""
    keep = [i for i in range(x.ndim) if i not in axes]
    perm = keep + list(axes)
    if perm != list(range(x.ndim)):
        x = S.transpose(x, perm=tuple(perm))
    size = int(np.prod([x.shape[len(keep) + i] for i in range(len(axes))], dtype=np.int64))
    return S.reshape(x, shape=tuple(x.shape[:len(keep)]) + (size,))


def _arg(keys, kind):
    """(keys..., index) variadic reduce over the last axis."""
    k0 = keys[0]
    index = S.iota(shape=k0.shape, dtype=np.int64, dim=k0.ndim - 1)
    return arg_reduce(keys, index, axis=k0.ndim - 1, kind=kind)


def _complex_extreme(x, kind, axes):
    flat = _move_to_last(x, axes)
    re, im, _ = _arg([_real(flat), _imag(flat)], kind)
    return _complex(re, im)


# --- sum / prod ---------------------------------------------------------------------------

# the ufunc that folds an `initial=` value in, by reduction kind
_FOLDS = {"add": np.add, "mul": np.multiply, "and": np.bitwise_and, "or": np.bitwise_or,
          "xor": np.bitwise_xor}


def _sum_like(fn, kind, a, axis=None, dtype=None, out=None, keepdims=False,
              initial=_NO_VALUE, where=True):
    x = asarray(a)
    axes = axes_of(axis, x.ndim)
    dtype = static(dtype, "dtype")
    out_dtype = np_dtype(fn, x.dtype, dtype=dtype)
    acc = _acc_dtype(out_dtype)
    if kind == "add" and initial is _NO_VALUE and _counts_in_float(x, axes, out_dtype):
        acc = np.dtype(np.float64)
    x = cast_to(x, acc)
    if where is not True:
        x = _select(_where_mask(where, x.shape), x, identity(kind, acc))
    r = _fold(x, kind, axes)
    if initial is not _NO_VALUE:
        init = cast_to(asarray(initial), acc)
        r = dispatch(_FOLDS[kind], (r, init), {})
        r = cast_to(r, acc)
    return _finish(r, axes, x.shape, keepdims, out_dtype, out, fn.__name__)


def _counts_in_float(x, axes, out_dtype):
    """Whether a sum of booleans into an integer is summed as float64: exact (each
    partial sum is an integer below 2**53) and one fused, vectorised pass over the mask's
    inputs, where XLA:CPU sums int64 as a chain of windowed reductions over an int64
    copy of the mask (`mask.sum()` of a 1024 x 1024 mask: 16 MB more memory traffic).
    A count that `lowering/split_reductions` splits on CPU (its reduced axes the
    innermost, `MIN_ELEMENTS` or more per result) fuses the mask into the int64 sum and
    beats the float one at every size: `np.count_nonzero((lo <= x) & (x < hi))`, NumPy
    tier off, medians of 400 interleaved calls in one process, float against int,
    3 * 10^4 0.066 -> 0.028 ms, 10^5 0.113 -> 0.079, 10^6 0.471 -> 0.276, 3 * 10^6
    2.59 -> 1.25 (8,000: the same)."""
    if x.dtype != np.bool_ or out_dtype.kind not in "iu" or out_dtype.itemsize < 4:
        return False
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64)) if axes else 1
    return n < 2 ** 53 and not split_on_cpu(x, axes, n)


def split_on_cpu(x, axes, n) -> bool:
    """Whether an integer sum of `x` over `axes` (`n` elements per result) is one that
    `split_reductions` will split."""
    trace = current_trace()
    axes = sorted(axes) if axes else list(range(x.ndim))
    return trace is not None and trace.platform == "cpu" and \
        n >= split_reductions.MIN_ELEMENTS and axes == list(range(x.ndim - len(axes), x.ndim))


@implements(np.sum, method="sum", family="reductions")
def sum_(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    return _sum_like(np.sum, "add", a, axis, dtype, out, keepdims, initial, where)


@implements(np.prod, method="prod", family="reductions")
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    return _sum_like(np.prod, "mul", a, axis, dtype, out, keepdims, initial, where)


# --- max / min ------------------------------------------------------------------------

def _extreme(fn, kind, a, axis=None, out=None, keepdims=False, initial=_NO_VALUE,
             where=True):
    x = asarray(a)
    axes = axes_of(axis, x.ndim)
    size = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    if initial is _NO_VALUE and (size == 0 or where is not True):
        numpy_error(fn, x, axis=axis, keepdims=keepdims, where=where if where is True
                    else _dummy(where))
    if where is not True:
        x = _select(_where_mask(where, x.shape), x, identity(kind, x.dtype)
                    if x.dtype.kind != "c" else np.nan)
    r = _fold(x, kind, axes)
    if initial is not _NO_VALUE:
        init = cast_to(asarray(initial), x.dtype)
        r = cast_to(dispatch({"max": np.maximum, "min": np.minimum}[kind], (r, init), {}),
                    x.dtype)
    return _finish(r, axes, x.shape, keepdims, x.dtype, out, fn.__name__)


@implements(np.max, np.amax, method="max", family="reductions")
def max_(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    return _extreme(np.max, "max", a, axis, out, keepdims, initial, where)


@implements(np.min, np.amin, method="min", family="reductions")
def min_(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    return _extreme(np.min, "min", a, axis, out, keepdims, initial, where)


# --- argmax / argmin ------------------------------------------------------------------

def _argext(fn, kind, a, axis=None, out=None, *, keepdims=False):
    x = asarray(a)
    axis = static(axis, "axis")
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = (normalize_axis_index(axis, x.ndim),)
    flat = _move_to_last(x, axes)
    if flat.shape[-1] == 0:
        numpy_error(fn, x, axis=axis)
    keys = [_real(flat), _imag(flat)] if x.dtype.kind == "c" else [flat]
    idx = blocked_arg(flat, kind=kind) if blocked_applies(flat) else _arg(keys, kind)[-1]
    if static(keepdims, "keepdims"):
        idx = S.reshape(idx, shape=tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    idx = cast_to(idx, np.intp)
    if out is not None:
        return store_out(fn.__name__, out, idx, casting="unsafe")
    return idx


@implements(np.argmax, method="argmax", family="reductions")
def argmax(a, axis=None, out=None, *, keepdims=False):
    return _argext(np.argmax, "max", a, axis, out, keepdims=keepdims)


@implements(np.argmin, method="argmin", family="reductions")
def argmin(a, axis=None, out=None, *, keepdims=False):
    return _argext(np.argmin, "min", a, axis, out, keepdims=keepdims)


# --- any / all --------------------------------------------------------------------------

def _logical(fn, kind, a, axis=None, out=None, keepdims=False, *, where=True):
    x = cast_to(asarray(a), np.bool_)
    axes = axes_of(axis, x.ndim)
    if where is not True:
        x = _select(_where_mask(where, x.shape), x, kind == "and")
    return _finish(_fold(x, kind, axes), axes, x.shape, keepdims, np.bool_, out, fn.__name__)


@implements(np.any, method="any", family="reductions")
def any_(a, axis=None, out=None, keepdims=False, *, where=True):
    return _logical(np.any, "or", a, axis, out, keepdims, where=where)


@implements(np.all, method="all", family="reductions")
def all_(a, axis=None, out=None, keepdims=False, *, where=True):
    return _logical(np.all, "and", a, axis, out, keepdims, where=where)


# --- mean / var / std -------------------------------------------------------------------

def _count(shape, axes):
    return int(np.prod([shape[i] for i in axes], dtype=np.int64))


def _comp_dtype(x_dtype, dtype):
    """The dtype NumPy's _mean/_var sum in (float16 widened to float32)."""
    if dtype is not None:
        return _acc_dtype(np.dtype(dtype))
    if x_dtype.kind in "biu":
        return np.dtype(np.float64)
    return _acc_dtype(x_dtype)


def _divide(total, n):
    """total / n in a floating dtype (integer totals divide in float64)."""
    if total.dtype.kind in "biu":
        total = cast_to(total, np.float64)
    count = full(n, total.dtype, total.shape)
    if total.dtype.kind == "f" and n & (n - 1):
        # XLA would multiply by 1/n, an ulp off NumPy unless n is a power of two
        count = exact(count, total)
    return E.divide(total, count)


def _no_where(where, name):
    if where is not True:
        raise UnsupportedFunctionError(f"np.{name}(..., where=...) is not supported",
                                       hint="use np.sum(np.where(mask, x, 0)) / count")


@implements(np.mean, method="mean", family="reductions")
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    _no_where(where, "mean")
    x = asarray(a)
    axes = axes_of(axis, x.ndim)
    dtype = static(dtype, "dtype")
    out_dtype = np_dtype(np.mean, x.dtype, dtype=dtype)
    comp = _comp_dtype(x.dtype, dtype)
    total = _fold(cast_to(x, comp), "add", axes)
    return _finish(_divide(total, _count(x.shape, axes)), axes, x.shape, keepdims,
                   out_dtype, out, "mean")


def _var(fn, a, axis, dtype, out, ddof, keepdims, where, mean, correction, root):
    _no_where(where, fn.__name__)
    if mean is not _NO_VALUE:
        raise UnsupportedFunctionError(f"np.{fn.__name__}(..., mean=...) is not supported")
    if correction is not _NO_VALUE:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    ddof = static(ddof, "ddof")
    x = asarray(a)
    axes = axes_of(axis, x.ndim)
    dtype = static(dtype, "dtype")
    out_dtype = np_dtype(fn, x.dtype, dtype=dtype, ddof=0)
    n = _count(x.shape, axes)
    if x.dtype == np.float16 and dtype is None:
        v = _var_half(x, axes, n, ddof)
        if root:
            v = dispatch(np.sqrt, (v,), {})
        return _finish(v, axes, x.shape, keepdims, out_dtype, out, fn.__name__)
    comp = _comp_dtype(x.dtype, dtype)
    xc = cast_to(x, comp)
    m = _divide(_fold(xc, "add", axes), n)
    m = S.broadcast_in_dim(m, shape=xc.shape,
                           dims=tuple(i for i in range(xc.ndim) if i not in axes))
    d = E.subtract(xc, cast_to(m, comp))
    if d.dtype.kind == "c":
        re, im = _real(d), _imag(d)
        sq = E.add(E.multiply(re, re), E.multiply(im, im))
    else:
        sq = E.multiply(d, d)
    v = _divide(_fold(sq, "add", axes), builtins.max(n - ddof, 0))
    if root:
        v = E.sqrt(v)
    return _finish(v, axes, x.shape, keepdims, out_dtype, out, fn.__name__)


def _var_half(x, axes, n, ddof):
    """float16 var as NumPy's `_methods._var` computes it: unlike its mean, it keeps
    float16: the sum (`np.sum`'s), divided by the count (an intp: in float64, rounded
    back), the deviations and their squares rounded to float16 (a square beyond 65504 is
    inf, as in NumPy), their sum divided likewise."""
    def divided(total, count):
        return cast_to(dispatch(np.true_divide, (total, np.intp(count)), {}), np.float16)
    mean = divided(dispatch(np.sum, (x,), {"axis": axes, "keepdims": True}), n)
    squares = dispatch(np.square, (dispatch(np.subtract, (x, mean), {}),), {})
    total = dispatch(np.sum, (squares,), {"axis": axes})
    return divided(total, builtins.max(n - ddof, 0))


@implements(np.var, method="var", family="reductions")
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NO_VALUE, correction=_NO_VALUE):
    return _var(np.var, a, axis, dtype, out, ddof, keepdims, where, mean, correction, False)


@implements(np.std, method="std", family="reductions")
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NO_VALUE, correction=_NO_VALUE):
    return _var(np.std, a, axis, dtype, out, ddof, keepdims, where, mean, correction, True)


# --- ufunc.reduce -------------------------------------------------------------------------

def _ufunc_reduce(ufunc, impl):
    def reduce_method(array, axis=0, dtype=None, out=None, keepdims=False,
                      initial=_NO_VALUE, where=True):
        leaves = _leaves((array, axis, dtype, initial, where), [])
        if all(leaf.const is not None for leaf in leaves):
            kw = {} if initial is _NO_VALUE else {"initial": _to_const(initial)}
            return wrap_result(ufunc.reduce(_to_const(array), axis=_to_const(axis),
                                            dtype=dtype, keepdims=keepdims,
                                            where=_to_const(where), **kw))
        return impl(array, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                    initial=initial, where=where)
    return reduce_method


def _add_reduce(array, axis, dtype, out, keepdims, initial, where):
    return _sum_like(np.add.reduce, "add", array, axis, dtype, out, keepdims, initial, where)


def _mul_reduce(array, axis, dtype, out, keepdims, initial, where):
    return _sum_like(np.multiply.reduce, "mul", array, axis, dtype, out, keepdims, initial,
                     where)


def _ext_reduce(fn, kind):
    def impl(array, axis, dtype, out, keepdims, initial, where):
        x = asarray(array)
        if dtype is not None:
            x = cast_to(x, static(dtype, "dtype"))
        return _extreme(fn, kind, x, axis, out, keepdims, initial, where)
    return impl


def _logical_reduce(kind, fn):
    def impl(array, axis, dtype, out, keepdims, initial, where):
        if initial is not _NO_VALUE:
            raise UnsupportedFunctionError(f"np.{fn.__name__}.reduce(..., initial=...) "
                                           "is not supported")
        x = asarray(array)
        if dtype is not None and np.dtype(static(dtype, "dtype")) != np.bool_:
            raise UnsupportedFunctionError(f"np.{fn.__name__}.reduce with dtype={dtype} "
                                           "is not supported")
        return _logical(fn, kind, x, axis, out, keepdims, where=where)
    return impl


register_ufunc_method(np.add, "reduce", _ufunc_reduce(np.add, _add_reduce))
register_ufunc_method(np.multiply, "reduce", _ufunc_reduce(np.multiply, _mul_reduce))
register_ufunc_method(np.maximum, "reduce",
                      _ufunc_reduce(np.maximum, _ext_reduce(np.maximum.reduce, "max")))
register_ufunc_method(np.minimum, "reduce",
                      _ufunc_reduce(np.minimum, _ext_reduce(np.minimum.reduce, "min")))
register_ufunc_method(np.logical_and, "reduce",
                      _ufunc_reduce(np.logical_and, _logical_reduce("and", np.logical_and)))
register_ufunc_method(np.logical_or, "reduce",
                      _ufunc_reduce(np.logical_or, _logical_reduce("or", np.logical_or)))


def _bitwise_reduce(fn, kind):
    """`np.bitwise_and.reduce` and its siblings: `_sum_like`'s rules (NumPy's result
    dtype, `dtype=`, `initial=`, `where=` with the op's identity: every bit set for
    `and`), no widening; NumPy's TypeError for float input."""
    def impl(array, axis, dtype, out, keepdims, initial, where):
        return _sum_like(fn.reduce, kind, array, axis, dtype, out, keepdims, initial, where)
    return impl


for _kind, _fn in (("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
    register_ufunc_method(_fn, "reduce", _ufunc_reduce(_fn, _bitwise_reduce(_fn, _kind)))


# --- builtins: sum, max, min --------------------------------------------------------------

@implements(builtins.sum, family="reductions",
            notes="sum(x) adds the rows of x to `start` (Python's iteration of axis 0)")
def builtin_sum(iterable, /, start=0):
    if not is_abstract(iterable):
        return builtins.sum(iterable, start)
    x = iterable
    if x.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    if x.shape[0] == 0:
        return start
    s = as_abstract(start)
    acc, _ = result_type((s.dtype, s.weak), (x.dtype, False))
    rows = reduce(cast_to(x, _acc_dtype(acc)), kind="add", axes=(0,))
    return dispatch(np.add, (start, cast_to(rows, acc)), {})


def _python_extreme(name, args, key, default):
    """Python's builtin min/max on traced values: the same comparisons Python makes (the
    first of equal items wins, NaN handling follows the pairwise `>`/`<`), including
    `default=` for an empty static iterable."""
    if key is not None:
        raise UnsupportedFunctionError(f"{name}(..., key=...) is not supported on traced "
                                       "arrays")
    better = "GT" if name == "max" else "LT"
    if len(args) == 1:
        (it,) = args
        if not is_abstract(it):
            items = list(it)
            if not items:
                if default is not _NO_VALUE:
                    return default
                raise ValueError(f"{name}() iterable argument is empty")
            return _python_extreme(name, items, None, _NO_VALUE) if len(items) > 1 \
                else items[0]
        if it.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        if it.shape[0] == 0:
            if default is not _NO_VALUE:
                return default
            raise ValueError(f"{name}() iterable argument is empty")
        if it.ndim > 1 and it.shape[0] > 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        if it.ndim > 1:
            return it[0]
        return _python_fold_1d(it, name)
    if default is not _NO_VALUE:
        raise TypeError(f"Cannot specify a default for {name}() with multiple positional "
                        "arguments")
    cur = args[0]
    for nxt in args[1:]:
        a, b = as_abstract(cur), as_abstract(nxt)
        for v in (a, b):
            if v.size != 1:
                raise ValueError("The truth value of an array with more than one element "
                                 "is ambiguous. Use a.any() or a.all()")
        dt, weak = result_type((a.dtype, a.weak), (b.dtype, b.weak))
        a2, b2 = cast_to(a, dt, weak), cast_to(b, dt, weak)
        shape = np.broadcast_shapes(a.shape, b.shape)
        a2, b2 = broadcast_to_shape(a2, shape), broadcast_to_shape(b2, shape)
        take_b = E.compare(b2, a2, better)
        # Python returns one of the objects as it is: where they differ in type (`max(0,
        # s)`: the int 0 or the np.float64 s), the comparison is assumed and checked,
        # so the result has the type of the one the data picks; where nothing can be
        # assumed (a staged loop) the two are promoted to one type
        taken = assume(take_b) if _value_kind(a) != _value_kind(b) and \
            take_b.const is None else None
        if taken is not None:
            cur = nxt if taken else cur
            continue
        cur = S.select(take_b, b2, a2)
        cur.weak = weak
    return cur


def _value_kind(v):
    """What distinguishes the Python objects two values stand for, besides the value."""
    return python_type(v), v.dtype, v.shape


def _python_fold_1d(x, name):
    """Python's max/min over a 1-D array: x[i] replaces the current value iff it compares
    greater (less): a leading NaN sticks, later NaNs are skipped."""
    kind = "max" if name == "max" else "min"
    if x.dtype.kind == "c":
        raise TypeError("'>' not supported between instances of 'complex' and 'complex'")
    if x.dtype.kind != "f":
        return S.reshape(_fold(x, kind, (0,)), shape=())
    nan = E.compare(x, x, "NE")
    clean = _select(E.compare(x, x, "EQ"), x, identity(kind, x.dtype))
    r = reduce(clean, kind=kind, axes=(0,))
    first = S.reshape(S.static_slice(x, start=(0,), limit=(1,), strides=(1,)), shape=())
    first_nan = S.reshape(S.static_slice(nan, start=(0,), limit=(1,), strides=(1,)), shape=())
    return S.select(first_nan, first, r)


@implements(builtins.max, family="reductions",
            notes="Python semantics: max(a, b) is a unless b > a; max(x) folds x's rows")
def builtin_max(*args, key=None, default=_NO_VALUE):
    return _python_extreme("max", args, key, default)


@implements(builtins.min, family="reductions",
            notes="Python semantics: min(a, b) is a unless b < a; min(x) folds x's rows")
def builtin_min(*args, key=None, default=_NO_VALUE):
    return _python_extreme("min", args, key, default)
