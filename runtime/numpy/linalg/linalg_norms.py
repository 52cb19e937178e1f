"""np.linalg's norms (norm, vector_norm, matrix_norm) and condition number (cond).

Why a module of its own: NumPy's `norm` dispatches on `ord` and `axis` to a dozen
formulas (the 2 / -2 / nuc matrix norms through the SVD, the others as reductions), and
`cond` is a norm of a matrix times the same norm of its inverse.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple
from numpy.linalg import LinAlgError

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.linalg.linalg import inverse
from npxla.runtime.numpy.linalg.linalg_common import (FAMILY, apply, assert_stacked_square,
                                                      common_type, conj, is_empty_2d, last_entry,
                                                      real_dtype, shape_only)
from npxla.runtime.numpy.linalg.linalg_svd import svd
from npxla.runtime.numpy.reductions.reductions import asarray, static
from npxla.runtime.numpy.core.registry import implements


@implements(np.linalg.cond, family=FAMILY)
def cond(x, p=None):
    x = asarray(x)
    p = static(p, "p")
    if is_empty_2d(x):
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p in {2, -2}:
        s = svd(x, compute_uv=False)
        hi, lo = last_entry(s, 0), last_entry(s, -1)
        r = apply(np.divide, lo, hi) if p == -2 else apply(np.divide, hi, lo)
    else:
        assert_stacked_square(x)
        t, rt = common_type(x)
        invx = inverse(cast_to(x, t), check=False)
        r = apply(np.multiply, norm(x, p, axis=(-2, -1)), norm(invx, p, axis=(-2, -1)))
        r = cast_to(r, real_dtype(rt))
    nan_x = apply(np.any, apply(np.isnan, x), axis=(-2, -1))
    nan_mask = apply(np.logical_and, apply(np.isnan, r), apply(np.logical_not, nan_x))
    return apply(np.where, nan_mask, cast_to(as_abstract(np.inf), r.dtype), r)


# --- norms -----------------------------------------------------------------------------------

@implements(np.linalg.norm, family=FAMILY)
def norm(x, ord=None, axis=None, keepdims=False):
    x = asarray(x)
    ord, axis = static(ord, "ord"), static(axis, "axis")
    keepdims = static(keepdims, "keepdims")
    if x.dtype.kind not in "fc":
        x = cast_to(x, np.float64)
    nd = x.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2)
                         or (ord == 2 and nd == 1)):
        flat = S.reshape(x, shape=(x.size,))
        if x.dtype.kind == "c":
            re, im = apply(np.real, flat), apply(np.imag, flat)
            sq = apply(np.add, apply(np.dot, re, re), apply(np.dot, im, im))
        else:
            sq = apply(np.dot, flat, flat)
        ret = apply(np.sqrt, sq)
        return S.reshape(ret, shape=(1,) * nd) if keepdims else ret
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (int(axis),)
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    if len(axis) == 1:
        return _vector_norm(x, ord, axis, keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, axis, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def _vector_norm(x, ord, axis, keepdims):
    absx = apply(np.abs, x)
    if ord == np.inf:
        return apply(np.max, absx, axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return apply(np.min, absx, axis=axis, keepdims=keepdims)
    if ord == 0:
        nz = cast_to(apply(np.not_equal, x, 0), real_dtype(x.dtype))
        return apply(np.sum, nz, axis=axis, keepdims=keepdims)
    if ord == 1:
        return apply(np.sum, absx, axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        sq = apply(np.real, apply(np.multiply, conj(x), x))
        return apply(np.sqrt, apply(np.sum, sq, axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    powered = cast_to(apply(np.power, absx, ord), absx.dtype)
    ret = apply(np.sum, powered, axis=axis, keepdims=keepdims)
    return cast_to(apply(np.power, ret, np.reciprocal(ord, dtype=ret.dtype)), ret.dtype)


def _matrix_norm(x, ord, axis, keepdims):
    """NumPy's matrix norms over the two `axis` entries: 2 / -2 / 'nuc' are the
    largest / smallest / sum of the singular values, 1 / -1 the max / min column sum,
    inf / -inf the max / min row sum, None / 'fro' the Frobenius norm; an empty input
    to the SVD-based ones gets NumPy's own result (or error)."""
    nd = x.ndim
    row, col = (normalize_axis_index(a, nd) for a in axis)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord in (2, -2, "nuc"):
        s = svd(apply(np.moveaxis, x, (row, col), (-2, -1)), compute_uv=False) \
            if x.size else None
        if ord == 2:
            ret = apply(np.amax, s, axis=-1, initial=0) if s is not None else None
        elif ord == -2:
            ret = apply(np.amin, s, axis=-1) if s is not None else None
        else:
            ret = apply(np.sum, s, axis=-1, initial=0) if s is not None else None
        if ret is None:
            return shape_only(np.linalg.norm, x, ord, axis, keepdims)
    elif ord in (1, -1):
        red = apply(np.sum, apply(np.abs, x), axis=row)
        c = col - 1 if col > row else col
        ret = apply(np.max, red, axis=c, initial=0) if ord == 1 else apply(np.min, red, axis=c)
    elif ord in (np.inf, -np.inf):
        red = apply(np.sum, apply(np.abs, x), axis=col)
        r = row - 1 if row > col else row
        ret = apply(np.max, red, axis=r, initial=0) if ord == np.inf else \
            apply(np.min, red, axis=r)
    elif ord in (None, "fro", "f"):
        sq = apply(np.real, apply(np.multiply, conj(x), x))
        ret = apply(np.sqrt, apply(np.sum, sq, axis=axis))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[axis[0]] = shape[axis[1]] = 1
        ret = S.reshape(ret, shape=tuple(shape))
    return ret


@implements(np.linalg.matrix_norm, family=FAMILY)
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(asarray(x), axis=(-2, -1), keepdims=keepdims, ord=ord)


@implements(np.linalg.vector_norm, family=FAMILY)
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    x = asarray(x)
    axis, keepdims = static(axis, "axis"), static(keepdims, "keepdims")
    shape = list(x.shape)
    if axis is None:
        y, ax = S.reshape(x, shape=(x.size,)), 0
    elif isinstance(axis, tuple):
        axes = normalize_axis_tuple(axis, x.ndim)
        rest = tuple(i for i in range(x.ndim) if i not in axes)
        y = S.transpose(x, perm=axes + rest)
        size = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
        y, ax = S.reshape(y, shape=(size,) + tuple(x.shape[i] for i in rest)), 0
    else:
        y, ax = x, axis
    res = norm(y, axis=ax, ord=ord)
    if keepdims:
        for i in normalize_axis_tuple(range(len(shape)) if axis is None else axis,
                                      len(shape)):
            shape[i] = 1
        res = S.reshape(res, shape=tuple(shape))
    return res
