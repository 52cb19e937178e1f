"""Least squares on rows of run-time length: np.linalg.lstsq and np.polyfit where the
rows (the data points) are a bounded array (`x[x > 0]`, `y[:k]`).

Rows of zeros change no least-squares problem: AᵀA, Aᵀb, the singular values other than
the extra zeros and the minimum-norm solution are those of the valid rows. So the
buffers are brought to one layout (valid rows first), the padding rows are zeroed (of
the Vandermonde matrix too, whose padding rows would otherwise hold x**0 = 1), and the
static functions solve the problem on the bound. What depends on the number of rows M
uses the run-time count, as NumPy uses `len(x)`: polyfit's default `rcond` is
`M * eps`, lstsq's `eps * max(M, N)`; the singular values are the first `min(M, N)`
(an array of run-time length), and the residuals have K entries exactly when
`M > N` and the rank is N, as in NumPy. An operand of static length fixes M: the
others are checked to have that length at run time and the static function runs.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import as_abstract
from npxla.runtime.staging.bounded import Extent, is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.convert import broadcast_to_shape
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.reductions.reductions import static
from npxla.runtime.numpy.ufuncs.bounded import bind, first_bounded

_I64 = np.dtype(np.int64)


def _np(fn, *args, **kwargs):
    return dispatch(fn, args, kwargs)


class Rows:
    """Operands brought to one number of rows: `arrays` (static abstract arrays whose
    first axis has `length` elements), `count` (the rows NumPy has: a Python int when
    some operand's length is static, else traced) and `mask` (the valid rows, a bool
    vector, None when `count` is static; padding rows are zero)."""

    def __init__(self, arrays, count, mask, deps):
        self.arrays, self.count, self.mask, self.deps = arrays, count, mask, deps


def rows(values, message, error=TypeError):
    """`values` (arrays or None) with their first axes brought to one run-time length:
    bounded operands may be dynamic along that axis only. Unequal lengths raise
    `error(message)` (at run time when a length is traced), as NumPy does."""
    ops = [None if v is None else B.as_operand(v) for v in values]
    bounded = [v for v in ops if is_bounded(v)]
    for v in bounded:
        if v.dynamic_axes() != [0]:
            v.refuse("least squares over an array whose columns have a run-time length")
    fixed = [v.shape[0] for v in ops if v is not None and not is_bounded(v) and v.ndim]
    if fixed and any(n != fixed[0] for n in fixed):
        raise error(message)
    ref = bounded[0].ext[0].count
    length = fixed[0] if fixed else max(v.bound[0] for v in bounded)
    for v in bounded:
        _check_equal(v.ext[0].count, fixed[0] if fixed else ref, message, error)
    mask = None if fixed else B.compare(S.iota(shape=(length,), dtype=_I64, dim=0),
                                        broadcast_to_shape(B.traced(ref), (length,)), "LT")
    arrays = [_front(v, length, mask) if is_bounded(v) else v for v in ops]
    return Rows(arrays, fixed[0] if fixed else ref, mask, B.extent_deps(*bounded))


def _check_equal(a, b, message, error):
    if B.same(a, b):
        return
    ka, kb = B.known(a), B.known(b)
    if ka is not None and kb is not None:
        if ka != kb:
            raise error(message)
        return
    check(B.compare(a, b, "NE"), message, error=error)


def _front(v, length, mask):
    """The valid rows of bounded `v` at the front of a buffer of `length` rows, the
    others zero (when `mask` is given)."""
    buf = B.relocate(v.buf, 0, v.ext[0].offset, 0, length)
    return buf if mask is None else zero_rows(buf, mask)


def zero_rows(buf, mask):
    """`buf` with the rows where `mask` is False set to zero."""
    m = S.broadcast_in_dim(mask, shape=buf.shape, dims=(0,))
    zero = broadcast_to_shape(as_abstract(np.zeros((), buf.dtype)), buf.shape)
    return S.select(m, buf, zero)


# --- np.linalg.lstsq ------------------------------------------------------------------
def lstsq(fn, args, kwargs):
    params = bind(fn, args, kwargs)
    a, b = params["a"], params["b"]
    rcond = params.get("rcond")
    r = rows([a, b], "Incompatible dimensions", error=np.linalg.LinAlgError)
    a, b = r.arrays
    if a.ndim != 2 or b.ndim not in (1, 2):
        raise np.linalg.LinAlgError(f"{(a if a.ndim != 2 else b).ndim}-dimensional array "
                                    "given. Array must be two-dimensional")
    if r.mask is None or a.shape[0] == 0:      # a static M (a bound of 0: M is 0)
        return _np(np.linalg.lstsq, a, b, rcond)
    n = a.shape[1]
    if rcond is None:
        t = np.result_type(a.dtype, b.dtype, np.float64 if a.dtype.kind in "iub" else a.dtype)
        rcond = np.finfo(t).eps * B.maximum(r.count, n)
    return solve(a, b, rcond, r)


def solve(a, b, rcond, r):
    """lstsq of row-padded `a`, `b` (`r`: their `Rows`): the solution, residuals (K
    entries when M > N and the rank is N, else none), rank and the min(M, N) singular
    values, those of run-time length as bounded arrays."""
    x, resid, rank, s = _np(np.linalg.lstsq, a, b, rcond)
    m, n = r.count, a.shape[1]
    if resid.shape[0]:       # a bound with more rows than unknowns: maybe residuals
        full_rank = E.compare(rank, as_abstract(np.int32(n)), "EQ")
        tall = B.compare(m, n, "GT")
        k = resid.shape[0]
        count = S.select(E.bitwise_and(full_rank, tall), B.traced(k), B.traced(0))
        resid = B.make(resid, (Extent(0, count),), r.deps)
    s = B.make(s, (Extent(0, B.minimum(m, n)),), r.deps) if s.shape[0] else s
    return x, resid, rank, s


# --- np.polyfit -------------------------------------------------------------------------
def polyfit(fn, args, kwargs):
    """np.polyfit on data points of run-time length (see the module's notes)."""
    params = bind(fn, args, kwargs)
    x, y, w = params["x"], params["y"], params.get("w")
    deg = static(params["deg"], "deg")
    full = static(params.get("full", False), "full")
    if static(params.get("cov", False), "cov") is not False:
        first_bounded((x, y, w)).refuse("np.polyfit(..., cov=...)")
    r = rows([x, y, w], "expected x and y to have same length")
    x, y, w = r.arrays
    if r.mask is None:
        return _np(np.polyfit, x, y, deg, params.get("rcond"), full, w)
    order = int(deg) + 1
    x, y = _np(np.add, x, 0.0), _np(np.add, y, 0.0)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] == 0:
        raise TypeError("expected non-empty vector for x")
    check(B.compare(r.count, 0, "EQ"), "expected non-empty vector for x", error=TypeError)
    rcond = params.get("rcond")
    if rcond is None:
        rcond = _np(np.multiply, B.weak_count(r.count, r.deps, x.shape[0]),
                    np.finfo(x.dtype).eps)      # NumPy's len(x) * eps, in x's dtype
    lhs, rhs = zero_rows(_np(np.vander, x, order), r.mask), y
    if w is not None:
        w = _np(np.add, w, 0.0)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        lhs = _np(np.multiply, lhs, w[:, None])
        rhs = _np(np.multiply, rhs, w[:, None] if rhs.ndim == 2 else w)
    scale = _np(np.sqrt, _np(np.sum, _np(np.multiply, lhs, lhs), axis=0))
    lhs = zero_rows(_np(np.true_divide, lhs, scale), r.mask)
    c, resids, rank, s = solve(lhs, rhs, rcond, r)
    c = _np(np.transpose, _np(np.true_divide, _np(np.transpose, c), scale))
    if full:
        return c, resids, rank, s, rcond
    return c


HANDLERS = {"np.polyfit": polyfit, "np.linalg.lstsq": lstsq}
