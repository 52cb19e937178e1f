"""Generic ufunc machinery: NumPy picks the loop dtypes, a lowering computes on them.

`register_ufunc(np.add, lower)` is all a ufunc needs: `lower` receives the operands
already cast to the loop's input dtypes and broadcast to one shape. `out=`, `dtype=`
and in-place operators (`a += b`, casting='same_kind') are handled here once, and so is
the method every binary ufunc gets from its call, `ufunc.outer` (`register_outer`).
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.errors import DTypeError, UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.transpiler.base.dtypes import ufunc_key, ufunc_loop
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to, promote_operands
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.registry import dispatch, implements, register_ufunc_method
from npxla.runtime.numpy.core.values import reshape_value
from npxla.runtime.numpy.core.layouts import laid_out_from


def resolve(ufunc, operands, dtype=None):
    keys = tuple(ufunc_key(o.dtype, o.weak) for o in operands)
    if dtype is not None:
        keys = tuple(np.dtype(dtype) for _ in keys)
    try:
        return ufunc_loop(ufunc, keys)
    except TypeError as e:
        raise DTypeError(f"np.{ufunc.__name__} has no loop for "
                         f"{[str(o.dtype) for o in operands]}: {e}") from None


def check_cast(ufunc_name, src, dst, casting="same_kind"):
    """NumPy's rule for writing a ufunc result into an existing array."""
    if not np.can_cast(src, dst, casting=casting):
        raise DTypeError(f"Cannot cast ufunc '{ufunc_name}' output from {src!r} "
                         f"to {dst!r} with casting rule '{casting}'")


def check_out(out):
    """Refuse an `out=` that the program cannot write (not one of its arrays)."""
    if type(out) is not AbstractArray:
        raise UnsupportedFunctionError(
            "out= must be an array created or passed into the compiled function",
            hint="write the result to a local array and return it")


def _one_out(out):
    """The one `out=` handle (given alone or as a 1-tuple), checked writable."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise UnsupportedFunctionError("multiple out= arrays are not supported")
        out = out[0]
    check_out(out)
    return out


def store_out(ufunc_name, out, result: AbstractArray, casting="same_kind"):
    """Write `result` into the `out=` handle as NumPy would (casting rule checked)."""
    out = _one_out(out)
    check_cast(ufunc_name, result.dtype, out.dtype, casting)
    out.assign(broadcast_to_shape(result, out.shape))
    return out


def apply_ufunc(ufunc, lower, args, out=None, dtype=None, casting="same_kind"):
    # a list operand is np.asarray'd (strong, and its traced items stacked)
    operands = [as_array(a) if isinstance(a, (list, tuple)) else as_abstract(a) for a in args]
    in_dts, out_dts = resolve(ufunc, operands, dtype)
    weak = all(o.weak for o in operands)
    cast, _ = promote_operands(operands, in_dts)
    result = lower(*cast)
    if ufunc.nout > 1:
        results = tuple(cast_to(r, d, weak=weak) for r, d in zip(result, out_dts))
        if out is not None:
            return tuple(store_out(ufunc.__name__, o, r, casting) for o, r in zip(out, results))
        return tuple(laid_out_from(r, operands) for r in results)
    result = cast_to(result, out_dts[0], weak=weak)
    if out is not None:
        return store_out(ufunc.__name__, out, result, casting)
    return laid_out_from(result, operands)      # order 'K': laid out like the operands


def _apply_where(ufunc, lower, args, out, dtype, where, casting):
    """`np.f(..., out=o, where=m)`: NumPy writes the result where `m` holds and leaves
    `o` as it was elsewhere (computed everywhere here, then selected). Without `out=`
    the other elements are uninitialised memory in NumPy: no answer to agree with."""
    name = ufunc.__name__
    if out is None or ufunc.nout > 1:
        raise UnsupportedFunctionError(
            f"np.{name}(..., where=...) is supported with one out= array only: without "
            "it NumPy leaves the elements where the condition is False uninitialised",
            hint=f"pass out= (an array holding the values to keep there), or use "
                 f"np.where(mask, np.{name}(...), fallback)")
    out = _one_out(out)
    result = apply_ufunc(ufunc, lower, args, dtype=dtype, casting=casting)
    check_cast(name, result.dtype, out.dtype, casting)
    mask = broadcast_to_shape(cast_to(as_array(where), np.dtype(bool)), out.shape)
    value = broadcast_to_shape(cast_to(result, out.dtype), out.shape)
    out.assign(dispatch(np.where, (mask, value, out), {}))
    return out


def register_ufunc(*ufuncs, lower, family="elementwise", notes=""):
    """Register `lower` for ufunc(s); also works for plain functions with ufunc typing."""
    for ufunc in ufuncs:
        def impl(*args, out=None, dtype=None, where=True, casting="same_kind",
                 _u=ufunc, **kwargs):
            if kwargs:
                raise UnsupportedFunctionError(
                    f"np.{_u.__name__} keyword(s) {sorted(kwargs)} not supported")
            if where is not True:
                return _apply_where(_u, lower, args, out, dtype, where, casting)
            return apply_ufunc(_u, lower, args, out=out, dtype=dtype, casting=casting)
        implements(ufunc, family=family, notes=notes)(impl)
        register_outer(ufunc)


def register_outer(ufunc):
    """`ufunc.outer(a, b)` for a binary ufunc, from its registered call: NumPy turns
    both operands into arrays first (Python scalars are strong there, unlike in the call
    itself) and broadcasts `a` against `b` with `b.ndim` new trailing axes, so the
    result has shape `a.shape + b.shape`; `out=`/`dtype=` mean what they mean for the
    call."""
    if not isinstance(ufunc, np.ufunc) or ufunc.nin != 2 or ufunc.signature is not None:
        return

    def outer(a, b, /, **kwargs):
        a, b = as_array(a), as_array(b)
        a = reshape_value(a, a.shape + (1,) * b.ndim)
        return dispatch(ufunc, (a, b), kwargs)
    register_ufunc_method(ufunc, "outer", outer)
