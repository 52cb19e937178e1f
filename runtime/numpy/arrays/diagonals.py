"""Triangles and diagonals: tril/triu, diagonal/diag/diagflat and trace.

Why a module of its own: these are the arrange-family functions built on the (row,
column) grid of the last two axes rather than on slices along one axis. `diagonal` (and
`diag` of a 2-d array) return read-only views, as in NumPy; `diagonal_value` is the
copying form that einsum (contractions.py) uses for repeated labels.

`tril`/`triu` take a traced `k` (it only selects values); diagonal offsets and `k` of
`diag` must be static (they decide the shape).
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.arrays.arrange import static_int
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.reductions.reductions import numpy_error, static
from npxla.runtime.numpy.core.registry import dispatch, implements
from npxla.runtime.numpy.arrays.shape import make_view, refuse_write
from npxla.runtime.numpy.core.values import fold_or_lower, reshape_value

_I64 = np.dtype(np.int64)


# --- tril / triu ---------------------------------------------------------------------------

def _tri_mask(n, m, k, direction):
    """`col - row <direction> k` over an (n, m) grid (k static or traced)."""
    row = S.iota(shape=(n, m), dtype=_I64, dim=0)
    col = S.iota(shape=(n, m), dtype=_I64, dim=1)
    k = cast_to(as_abstract(k), _I64)
    if k.ndim:
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    return E.compare(E.subtract(col, row), S.broadcast_in_dim(k, shape=(n, m), dims=()),
                     direction)


def _triangle(fn, m, k, direction):
    m = as_array(m)
    if m.ndim == 0:
        numpy_error(fn, m)
    if is_abstract(k) and k.dtype.kind not in "iub":
        raise TypeError(f"k must be an integer, not {k.dtype}")
    if not is_abstract(k):
        k = operator.index(k)
    n, cols = m.shape[-2:] if m.ndim > 1 else (m.shape[0], m.shape[0])
    shape = m.shape if m.ndim > 1 else (n, cols)
    mask = S.broadcast_in_dim(_tri_mask(n, cols, k, direction), shape=shape,
                              dims=(len(shape) - 2, len(shape) - 1))
    x = broadcast_to_shape(m, shape) if m.ndim < 2 else m
    zero = S.broadcast_in_dim(as_abstract(np.zeros((), m.dtype)), shape=shape, dims=())
    return S.select(mask, x, zero)


@implements(np.tril, family="creation", notes="k may be traced")
def tril(m, k=0):
    return _triangle(np.tril, m, k, "LE")


@implements(np.triu, family="creation", notes="k may be traced")
def triu(m, k=0):
    return _triangle(np.triu, m, k, "GE")


# --- diagonal / diag / trace -----------------------------------------------------------------

def diagonal_value(x, offset, a1, a2):
    """The diagonal (as a new value) over axes a1, a2 (normalised, distinct), moved last."""
    perm = [i for i in range(x.ndim) if i not in (a1, a2)] + [a1, a2]
    n, m = x.shape[a1], x.shape[a2]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    r0, c0 = min(r0, n), min(c0, m)
    size = max(0, min(n - r0, m - c0))

    def traced(v):
        y = S.transpose(v, perm=tuple(perm)) if perm != list(range(v.ndim)) else v
        batch = y.shape[:-2]
        y = S.static_slice(y, start=(0,) * len(batch) + (r0, c0),
                           limit=batch + (r0 + size, c0 + size), strides=(1,) * y.ndim)
        y = S.reshape(y, shape=batch + (size * size,))
        if size > 1:
            y = S.static_slice(y, start=(0,) * y.ndim, limit=y.shape,
                               strides=(1,) * len(batch) + (size + 1,))
        return y
    return fold_or_lower(x, lambda c: np.diagonal(c, offset, a1, a2).copy(), traced)


def _diagonal_axes(x, axis1, axis2):
    if x.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1 = normalize_axis_index(static_int(axis1, "axis1"), x.ndim, "axis1")
    a2 = normalize_axis_index(static_int(axis2, "axis2"), x.ndim, "axis2")
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return a1, a2


def diagonal_view(x, offset, a1, a2):
    return make_view(x, lambda b: diagonal_value(b, offset, a1, a2), refuse_write,
                     lambda lay: np.diagonal(lay, offset, a1, a2))


@implements(np.diagonal, method="diagonal", family="shape", fold=False,
            notes="returns a read-only view, as in NumPy")
def diagonal(a, offset=0, axis1=0, axis2=1):
    x = as_array(a)
    a1, a2 = _diagonal_axes(x, axis1, axis2)
    return diagonal_view(x, static_int(offset, "offset"), a1, a2)


@implements(np.trace, method="trace", family="reductions")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    x = as_array(a)
    a1, a2 = _diagonal_axes(x, axis1, axis2)
    d = diagonal_value(x, static_int(offset, "offset"), a1, a2)
    return dispatch(np.sum, (d,), {"axis": -1, "dtype": static(dtype, "dtype"), "out": out})


@implements(np.diag, family="creation", fold=False,
            notes="a 2-d input gives a read-only view of its diagonal, as in NumPy")
def diag(v, k=0):
    x = as_array(v)
    k = static_int(k, "k")
    if x.ndim == 2:
        return diagonal_view(x, k, 0, 1)
    if x.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = x.shape[0] + abs(k)
    vec = S.pad(x, as_abstract(np.zeros((), x.dtype)), low=(0,), high=(abs(k),),
                interior=(0,))
    # row i holds v[i] (k >= 0) / column j holds v[j] (k < 0)
    dims = (0,) if k >= 0 else (1,)
    values = S.broadcast_in_dim(vec, shape=(n, n), dims=dims)
    zero = S.broadcast_in_dim(as_abstract(np.zeros((), x.dtype)), shape=(n, n), dims=())
    return S.select(_tri_mask(n, n, k, "EQ"), values, zero)


@implements(np.diagflat, family="creation")
def diagflat(v, k=0):
    x = as_array(v)
    return diag(reshape_value(x, (x.size,)), k)
