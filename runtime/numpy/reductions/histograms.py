"""np.bincount and np.histogram with static output lengths.

Counting is one `stablehlo.scatter` (add) into the bins. The number of bins must be
known when compiling: `np.histogram(x, bins=int or edges)` always has a static count
(uniform edges may still come from traced data: `range=None` uses `x.min()`/`x.max()`),
while `np.bincount(x)` returns `max(x) + 1` bins, so a traced `x` needs `minlength=`,
and a value `>= minlength` raises `IndexError` after the call instead of growing the
output. The uniform-bin index computation is NumPy's own (including its one-ulp edge
corrections), so values on bin edges land in the same bins.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from npxla.transpiler.base.errors import DataDependentShapeError, UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.gather import gather, scatter
from npxla.runtime.numpy.ufuncs.arithmetic import exact
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.reductions.reductions import full, result_type, static
from npxla.runtime.numpy.core.registry import dispatch, implements

_INTP = np.dtype(np.intp)


# --- helpers shared with signal.py ----------------------------------------------------

def take(table: AbstractArray, idx: AbstractArray) -> AbstractArray:
    """`table[idx]` for a 1-d table and an in-range integer index array of any shape."""
    return gather(table, S.reshape(cast_to(idx, _INTP), shape=idx.shape + (1,)))


def bin_sums(idx: AbstractArray, nbins: int, weights=None, dtype=_INTP) -> AbstractArray:
    """Per-bin counts (or sums of `weights`) of the 1-d integer `idx` over bins
    0..nbins-1, in `dtype`; indices outside [0, nbins) are dropped."""
    dtype = np.dtype(dtype)
    if idx.shape[0] == 0:
        return full(0, dtype, (nbins,))
    idx = cast_to(idx, _INTP)
    outside = (idx < 0) | (idx >= nbins)
    idx = S.select(outside, full(nbins, _INTP, idx.shape), idx)
    updates = full(1, dtype, idx.shape) if weights is None else cast_to(weights, dtype)
    total = scatter(full(0, dtype, (nbins + 1,)), S.reshape(idx, shape=idx.shape + (1,)),
                    updates, kind="or" if dtype == np.bool_ else "add")
    return S.static_slice(total, start=(0,), limit=(nbins,), strides=(1,))


def _flat(x):
    return S.reshape(x, shape=(x.size,)) if x.ndim != 1 else x


# --- bincount ---------------------------------------------------------------------------

def _safe_cast_error(src, dst):
    return TypeError(f"Cannot cast array data from {np.dtype(src)!r} to {np.dtype(dst)!r} "
                     "according to the rule 'safe'")


@implements(np.bincount, family="statistics",
            notes="a traced x needs a static minlength, which is the output length: a value "
                  ">= minlength (or a negative value) raises IndexError after the call "
                  "(NumPy grows the output / raises ValueError)")
def bincount(x, weights=None, minlength=0):
    """np.bincount: the output length must be static. For a constant x it is NumPy's
    max(x) + 1; for traced x it is minlength, and values outside [0, minlength) raise
    at run time instead of growing the result (refused without minlength)."""
    x = as_array(x)
    minlength = static(minlength, "np.bincount minlength")
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1
                         else "object of too small depth for desired array")
    if x.dtype.kind not in "biu":              # uint64 is accepted (and wraps)
        raise _safe_cast_error(x.dtype, _INTP)
    w = None
    if weights is not None:
        w = as_array(weights)
        if w.ndim != 1:
            raise ValueError("object too deep for desired array" if w.ndim > 1
                             else "object of too small depth for desired array")
        if not np.can_cast(w.dtype, np.float64, "safe"):
            raise _safe_cast_error(w.dtype, np.float64)
        if w.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
    if x.size == 0:
        return full(0, _INTP, (minlength,))       # NumPy: intp zeros, even with weights
    if x.const is not None:
        if (x.const < 0).any():
            raise ValueError("'list' argument must have no negative elements")
        length = max(int(x.const.max()) + 1, minlength)
    else:
        if minlength == 0:
            raise DataDependentShapeError(
                "np.bincount(x) returns max(x) + 1 counts, a length that depends on the data",
                hint="pass minlength=... and make sure max(x) < minlength")
        length = minlength
        check(x < 0, "np.bincount: 'list' argument must have no negative elements")
        check(x >= minlength, f"np.bincount: a value of x is >= minlength={minlength}, the "
                              "static output length (NumPy would return max(x) + 1 bins)")
    return bin_sums(x, length, w, _INTP if w is None else np.float64)


# --- histogram --------------------------------------------------------------------------

_SIGNED_TO_UNSIGNED = {np.dtype(f"i{n}"): np.dtype(f"u{n}") for n in (1, 2, 4, 8)}


def _unsigned_subtract(a, b):
    """NumPy's helper: `a - b` in the common dtype, signed integers subtracted in the
    unsigned type of the same width (no overflow for a >= b). Always strong."""
    a, b = as_abstract(a), as_abstract(b)
    dt, _ = result_type((a.dtype, a.weak), (b.dtype, b.weak))
    unsigned = _SIGNED_TO_UNSIGNED.get(dt)
    if unsigned is None:
        out = dispatch(np.subtract, (cast_to(a, dt), cast_to(b, dt)), {})
        return cast_to(out, dt, weak=False)
    return dispatch(np.subtract, (cast_to(cast_to(a, dt), unsigned),
                                  cast_to(cast_to(b, dt), unsigned)), {})


def _select_weak(cond, a, b):
    """where(cond, a, b) for 0-d values, weak if both are (Python-scalar edges stay
    Python scalars for the bin dtype, as in NumPy)."""
    dt, weak = result_type((a.dtype, a.weak), (b.dtype, b.weak))
    out = S.select(cast_to(cond, np.bool_), cast_to(a, dt), cast_to(b, dt))
    out.weak = weak
    return out


def _outer_edges(a, range):
    """(first_edge, last_edge) as abstract 0-d values (constant when known)."""
    if range is not None:
        first, last = range
        if not (is_abstract(first) and first.const is None) and not (
                is_abstract(last) and last.const is None):
            first, last = static(first, "range"), static(last, "range")
            if first > last:
                raise ValueError('max must be larger than min in range parameter.')
            if not (np.isfinite(first) and np.isfinite(last)):
                raise ValueError(f"supplied range of [{first}, {last}] is not finite")
            if first == last:
                first, last = first - 0.5, last + 0.5
            return as_abstract(first), as_abstract(last)
        first, last = as_abstract(first), as_abstract(last)
    elif a.size == 0:
        return as_abstract(0), as_abstract(1)
    else:
        first = dispatch(np.min, (a,), {})
        last = dispatch(np.max, (a,), {})
        check(~(dispatch(np.isfinite, (first,), {}) & dispatch(np.isfinite, (last,), {})),
              "np.histogram: autodetected range is not finite (the data contain nan or "
              "inf); pass range=")
    same = first == last
    return _select_weak(same, first - 0.5, first), _select_weak(same, last + 0.5, last)


def _python_value(x):
    c = x.const
    return c.item() if x.weak else c[()]


def _uniform_edges(first, last, nbins, dtype):
    """np.linspace(first, last, nbins + 1, dtype=dtype) with NumPy's rounding: computed
    in the inexact type of (first, last), `i * step + first` rounded twice (no FMA: it
    moves an edge like -50 + 5 * 9.4 off -3.0), the last edge exact."""
    if first.const is not None and last.const is not None:
        return as_abstract(np.linspace(_python_value(first), _python_value(last), nbins + 1,
                                       endpoint=True, dtype=dtype))
    dt, _ = result_type((first.dtype, first.weak), (last.dtype, last.weak),
                        (np.dtype(np.float64), True))
    first, last = cast_to(first, dt), cast_to(last, dt)
    shape = (nbins + 1,)
    delta = E.subtract(last, first)
    step = E.divide(delta, exact(full(nbins, dt, ()), delta))

    def bcast(v):
        return S.broadcast_in_dim(v, shape=shape, dims=())
    y = cast_to(S.iota(shape=shape, dtype=np.int64, dim=0), dt)
    by_step = exact(E.multiply(y, bcast(step)))
    tiny_step = exact(E.multiply(E.divide(y, exact(full(nbins, dt, shape), y)),
                                 bcast(delta)))
    zero_step = bcast(E.compare(step, full(0, dt, ()), "EQ"))
    y = E.add(S.select(zero_step, tiny_step, by_step), bcast(first))
    head = S.static_slice(y, start=(0,), limit=(nbins,), strides=(1,))
    return cast_to(S.concatenate(head, S.reshape(last, shape=(1,)), axis=0), dtype)


def _uniform_indices(a, edges, first, last, nbins):
    """NumPy's bin index of each value for equal-width bins; -1 for values outside."""
    keep = (a >= first) & (a <= last)
    tmp = cast_to(a, edges.dtype)
    norm = _unsigned_subtract(last, first)
    f_indices = (_unsigned_subtract(tmp, first) / norm) * nbins
    idx = cast_to(f_indices, _INTP)
    idx = dispatch(np.where, (idx == nbins, idx - 1, idx), {})
    # (dropped values may have any index: clamp before reading edges)
    lo = dispatch(np.clip, (idx, 0, nbins - 1), {})
    idx = dispatch(np.where, (tmp < take(edges, lo), idx - 1, idx), {})
    lo = dispatch(np.clip, (idx, 0, nbins - 1), {})
    increment = (tmp >= take(edges, lo + 1)) & (idx != nbins - 1)
    idx = dispatch(np.where, (increment, idx + 1, idx), {})
    return dispatch(np.where, (keep, idx, -1), {})


def _edge_indices(a, edges):
    """Bin index per value for explicit edges: [e_i, e_i+1), the last bin closed."""
    nbins = edges.shape[0] - 1
    last = S.reshape(S.static_slice(edges, start=(nbins,), limit=(nbins + 1,),
                                    strides=(1,)), shape=())
    first = S.reshape(S.static_slice(edges, start=(0,), limit=(1,), strides=(1,)), shape=())
    idx = dispatch(np.searchsorted, (edges, a), {"side": "right"}) - 1
    idx = dispatch(np.where, (a == last, nbins - 1, idx), {})
    keep = (a >= first) & (a <= last)
    return dispatch(np.where, (keep, idx, -1), {})


def _bins_argument(bins):
    """('count', n) or ('edges', array)."""
    if isinstance(bins, str):
        raise DataDependentShapeError(
            f"np.histogram(bins={bins!r}) chooses the number of bins from the data",
            hint="pass an integer number of bins (with range=...) or an array of edges")
    if is_abstract(bins) and bins.ndim == 0:
        bins = static(bins, "np.histogram bins")
    if np.ndim(bins) == 0 and not is_abstract(bins):
        try:
            n = operator.index(bins)
        except TypeError as e:
            raise TypeError('`bins` must be an integer, a string, or an array') from e
        if n < 1:
            raise ValueError('`bins` must be positive, when an integer')
        return "count", n
    edges = as_array(bins)
    if edges.ndim != 1:
        raise ValueError('`bins` must be 1d, when an array')
    c = edges.const
    if c is not None and np.any(c[:-1] > c[1:]):
        raise ValueError('`bins` must increase monotonically, when an array')
    return "edges", edges


@implements(np.histogram, family="statistics",
            notes="bins must be a static int or an edges array (a string estimator picks a "
                  "data-dependent count); with traced data, non-finite autodetected ranges "
                  "raise IndexError after the call, and a non-monotonic traced edges array "
                  "or too many bins for a traced range are not detected")
def histogram(a, bins=10, range=None, density=None, weights=None):
    """np.histogram: the number of bins is static (it fixes the output shape), the range
    may come from the data. Uniform bins use NumPy's edges and its index computation
    (so values on an edge land where NumPy puts them, the last bin closed); explicit
    edges are searched."""
    a = as_array(a)
    w = None
    if weights is not None:
        w = as_array(weights)
        if w.shape != a.shape:
            raise ValueError('weights should have the same shape as a.')
        w = _flat(w)
    a = _flat(a)
    if a.dtype == np.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {np.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=2)
        a = cast_to(a, np.uint8)
    if a.dtype.kind == "c":
        raise UnsupportedFunctionError("np.histogram of complex data is not supported",
                                       hint="histogram the real part (x.real)")
    kind, spec = _bins_argument(bins)
    ntype = _INTP if w is None else w.dtype
    if kind == "count":
        nbins = spec
        first, last = _outer_edges(a, range)
        bin_type, _ = result_type((first.dtype, first.weak), (last.dtype, last.weak),
                                  (a.dtype, a.weak))
        if bin_type.kind in "iu":
            bin_type = np.result_type(bin_type, float)
        edges = _uniform_edges(first, last, nbins, bin_type)
        idx = _uniform_indices(a, edges, first, last, nbins)
        if w is None:
            n = bin_sums(idx, nbins)
        else:
            acc = np.complex128 if ntype.kind == "c" else np.float64
            n = cast_to(bin_sums(idx, nbins, w, acc), ntype)
    else:
        edges = spec
        nbins = edges.shape[0] - 1
        if w is not None and ntype == np.bool_:
            raise TypeError("Cannot cast ufunc 'add' output from dtype('int64') to "
                            "dtype('bool') with casting rule 'same_kind'")
        n = bin_sums(_edge_indices(a, edges), nbins, w, ntype)
    if density:
        lo = S.static_slice(edges, start=(0,), limit=(nbins,), strides=(1,))
        hi = S.static_slice(edges, start=(1,), limit=(nbins + 1,), strides=(1,))
        db = cast_to(hi - lo, np.float64)
        return n / db / dispatch(np.sum, (n,), {}), edges
    return n, edges
