"""Elementwise NumPy functions on bounded arrays (arrays whose length is known only
at run time), and the helpers every bounded-extent implementation shares (`bind`,
`first_bounded`, `one_d`).

Elementwise operations run on the buffers after `conform` has brought every operand to
one extent, so padding only ever meets padding. Integer ufuncs whose checks or results
padding could upset (`power`, `floor_divide`, ...) get harmless padding first. The
functions that act element by element without being ufuncs (`np.round`, `np.isclose`,
`np.zeros_like`, ...) take the same path (`HANDLERS`).
"""
from __future__ import annotations

import inspect

import numpy as np

from npxla.runtime.staging.abstract import is_abstract
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.ufuncs.comparisons import python_bool


def first_bounded(tree):
    stack = [tree]
    while stack:
        x = stack.pop()
        if is_bounded(x):
            return x
        if isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        elif isinstance(x, dict):
            stack.extend(x.values())
    return None


# --- elementwise ------------------------------------------------------------------------
# integer ufuncs whose run-time checks or results could be upset by padding values
_PAD_SENSITIVE = {"power", "floor_divide", "remainder", "fmod", "divmod", "left_shift",
                  "right_shift", "true_divide", "divide"}


def elementwise(fn, args, kwargs):
    """A ufunc (or np.where / np.clip) on operands of which some are bounded."""
    if kwargs.get("where", True) is not True:     # (with out=: ndarray.bounded.call)
        first_bounded(args).refuse(f"np.{fn.__name__} with where= and no out=")
    arrays = [k for k, a in enumerate(args) if is_bounded(a) or is_abstract(a) or
              isinstance(a, (np.ndarray, list, tuple))]
    ops = [B.as_operand(args[k]) for k in arrays]
    if getattr(fn, "__name__", "") in _PAD_SENSITIVE:
        ops = [_safe(x) for x in ops]
    bufs, bound, ext = B.conform(ops)
    new = list(args)
    for k, buf in zip(arrays, bufs):
        new[k] = buf
    result = dispatch(fn, tuple(new), kwargs)
    deps = B.extent_deps(*ops)
    if isinstance(result, tuple):
        return tuple(B.make(r, ext, deps) for r in result)
    out = B.make(result, ext, deps)
    if is_bounded(out) and getattr(fn, "__name__", "") not in _PAD_SENSITIVE:
        _keep_selection(out, fn, args, kwargs)
    return out


def _selected(b):
    """(rows, flat mask) of a mask selection whose buffer nothing wrote since, or None."""
    sel = b.selection if is_bounded(b) else None
    if sel is None or b.buf.ir != sel[2]:
        return None
    return sel[0], sel[1]


def _keep_selection(out, fn, args, kwargs):
    """Give `out` the selection of its operands when all of them select with one mask
    and every other array broadcasts along the selected axis (its elements then stay
    where the mask put them)."""
    mask, new = None, list(args)
    for k, a in enumerate(args):
        if is_bounded(a):
            sel = _selected(a)
            if sel is None or (mask is not None and not B.same(sel[1], mask)):
                return
            new[k], mask = sel
        elif is_abstract(a) or isinstance(a, np.ndarray):
            shape = np.shape(a)
            if len(shape) >= out.ndim and shape[len(shape) - out.ndim] != 1:
                return
    rows = dispatch(fn, tuple(new), kwargs)
    if is_abstract(rows) and rows.shape == out.bound:
        out.selection = (rows, mask, out.buf.ir)


def _safe(x):
    if is_bounded(x) and x.dtype.kind in "iu":
        return B.make(B.filled(x, 1), x.ext, x.extent_deps)
    return x


def bind(fn, args, kwargs):
    params = inspect.signature(fn).bind(*args, **kwargs).arguments
    return dict(params)


def one_d(b, name):
    if not is_bounded(b) or b.ndim != 1:
        first_bounded(b).refuse(f"np.{name} of a multi-dimensional array of run-time "
                                "length (1-d, or ravel a static one)")
    return b


def _allclose(fn, args, kwargs):
    close = dispatch(np.isclose, args, kwargs)
    return python_bool(dispatch(np.all, (close,), {}))


# functions applied element by element to the buffers (brought to one extent), so the
# result keeps the operands' extents
ELEMENTWISE = ("round", "around", "isclose", "nan_to_num", "real", "imag", "angle", "fix",
               "zeros_like", "ones_like", "empty_like", "full_like", "sinc", "asarray")

HANDLERS = {
    "np.allclose": _allclose,
    **{f"np.{name}": elementwise for name in ELEMENTWISE},
}
