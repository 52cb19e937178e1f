"""Large sorts and partitions on the CPU through NumPy's own, called back from the program.

XLA:CPU sorts with a comparison routine it calls once per comparison, through a
function pointer (the comparator is a computation of its own): float64, medians here,
1,000 elements 0.27 ms against NumPy's 0.008, 200,000 71 ms against 1.8 (`jax.jit`
75), so every median, percentile, sort and argsort of a real array ran 30-40x slower
than NumPy. NumPy sorts with vectorised quicksort; its stable sort (timsort) is 14x
slower than that (200,000 float64: 25 ms).

npxla promises the stable order (`kind` is ignored, see `sorting`). A sort of values
is stable whatever the algorithm except where values compare equal yet differ: 0.0
and -0.0, and NaNs (sorted last, all tied, with their signs and payloads; NumPy's
vectorised sort even writes them back as one canonical NaN). So the host sorts with
NumPy's default kind and then puts the zeros and the NaNs of each line back in their
input order, which is exactly what a stable sort leaves. An argsort is
stable only when no key repeats: NumPy's default argsort is kept where the sorted keys
have no ties, and a stable argsort is run where they have.

Only large sorts go there (the callback costs tens of microseconds), on the CPU (a
trace with `host_library`), of real keys (complex keys and multi-key sorts keep XLA's
sort, whose comparator knows their order).

The NaN-ignoring order statistics (nanmedian, and nanquantile/nanpercentile at a
constant q) are NumPy's own calls there: a line's count of NaNs is only known at run
time, so the program could read its ranks only from a full sort, where NumPy drops the
NaNs and selects.
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.lowering.callbacks import emit_library_callback, library

# elements: XLA's sort of 1,000 float64 costs ~0.25 ms, a callback ~0.03
MIN_ELEMENTS = 1024
_KINDS = frozenset("biuf")


def _called_back(x: AbstractArray, recipe, dtype, shape=None, kinds=_KINDS):
    """The result (`shape`, else x's, of `dtype`) that the library callback of `recipe`
    writes on the host, or None where the sort stays in XLA."""
    trace = current_trace()
    if trace is None or not trace.host_library or x.const is not None or \
            x.size < MIN_ELEMENTS or x.dtype.kind not in kinds:
        return None
    (out,) = emit_library_callback(trace, recipe, [x],
                                   [(x.shape if shape is None else shape, dtype)])
    return out


def host_sort_values(x: AbstractArray, axis: int):
    """`x` sorted along `axis` (stable NumPy order) by NumPy on the host, or None."""
    return _called_back(x, ("sort", int(axis)), x.dtype)


def host_partition_values(x: AbstractArray, axis: int, kth):
    """`x` partitioned along `axis` at the positions `kth` (in range) by NumPy's own
    introselect on the host, or None. The elements at those positions are the sorted
    order's and the arrangement of the others is NumPy's, element for element, so a
    median read from it is NumPy's (which partitions the same way). Selection is linear
    where a sort is not: a median of 10,000 float64 takes NumPy 0.03 ms to select, 0.26
    ms to sort."""
    # (kth as NumPy's caller passes them: NumPy sorts them itself)
    return _called_back(x, ("partition", int(axis), tuple(int(k) for k in kth)), x.dtype)


@library("sort")
def _sort(axis):
    axis = operator.index(axis)

    def call(outs, a):
        out = outs[0]
        np.copyto(out, a)
        out.sort(axis=axis)
        if out.dtype.kind == "f":
            _restore_ties(np.moveaxis(out, axis, -1), np.moveaxis(a, axis, -1))
    return call


@library("partition")
def _partition(axis, kth):
    axis = operator.index(axis)
    if type(kth) is not tuple:
        raise TypeError("partition positions must be a tuple")
    kth = tuple(operator.index(k) for k in kth)

    def call(outs, a):
        out = outs[0]
        np.copyto(out, a)
        out.partition(kth, axis=axis)
    return call


def _restore_ties(out, a):
    """Put the zeros and the NaNs of every line of `out` (sorted) in their order in `a`.

    NumPy's vectorised sort writes every NaN back as one canonical NaN (signs and
    payloads lost), and its min/max networks may turn two tied zeros into two of one
    sign. In a sorted line the zeros are one run and the NaNs come last, so the lines
    holding two or more zeros, or any NaN, are found by binary search (a pass over the
    lines, not over the data), and only they are rewritten: boolean indexing walks
    `out` and `a` line by line in the same order, and each line of `out` holds as many
    zeros (NaNs) as the same line of `a`."""
    if out.ndim == 1:
        out, a = out[None], a[None]
    n = out.shape[-1]
    if n < 2:
        return
    negative, nonpositive, numbers = _runs(out)
    for lines, pick in ((nonpositive - negative >= 2, _is_zero), (numbers < n, np.isnan)):
        if lines.any():
            mine, theirs = out[lines], a[lines]
            mine[pick(mine)] = theirs[pick(theirs)]
            out[lines] = mine


def _is_zero(x):
    return x == 0


_FEW_LINES = 16


def _runs(lines):
    """Per line (last axis, sorted, NaNs last): where the negatives end, where the zeros
    end, where the NaNs start. A few lines are searched one by one, many together."""
    if lines[..., 0].size > _FEW_LINES:
        return (_first_false(lines, lambda v: v < 0), _first_false(lines, lambda v: v <= 0),
                _first_false(lines, lambda v: ~np.isnan(v)))
    zero, nan = lines.dtype.type(0), lines.dtype.type(np.nan)
    out = np.empty((3,) + lines.shape[:-1], np.intp)
    for index in np.ndindex(lines.shape[:-1]):
        line = lines[index]
        out[(slice(None),) + index] = (np.searchsorted(line, zero, "left"),
                                       np.searchsorted(line, zero, "right"),
                                       np.searchsorted(line, nan, "left"))
    return out[0], out[1], out[2]


def _first_false(lines, pred):
    """Per line (last axis) the first index where `pred(value)` fails: `pred` holds
    on a prefix of every sorted line (NaNs last)."""
    n = lines.shape[-1]
    lo = np.zeros(lines.shape[:-1], np.intp)
    hi = np.full(lines.shape[:-1], n, np.intp)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        value = np.take_along_axis(lines, np.minimum(mid, n - 1)[..., None], -1)[..., 0]
        holds = pred(value)
        lo = np.where(active & holds, mid + 1, lo)
        hi = np.where(active & ~holds, mid, hi)


def host_argsort(x: AbstractArray, axis: int):
    """The stable argsort of `x` along `axis` (intp) by NumPy on the host, or None."""
    return _called_back(x, ("argsort", int(axis)), np.dtype(np.intp))


@library("argsort")
def _argsort(axis):
    axis = operator.index(axis)

    def call(outs, a):
        order = np.argsort(a, axis=axis)
        if _has_ties(np.take_along_axis(a, order, axis=axis), axis):
            order = np.argsort(a, axis=axis, kind="stable")
        np.copyto(outs[0], order, casting="unsafe")
    return call


def _has_ties(s, axis):
    """Whether sorted lines `s` hold two keys that compare equal (NaNs all do)."""
    s = np.moveaxis(s, axis, -1)
    if (s[..., 1:] == s[..., :-1]).any():
        return True
    return s.dtype.kind == "f" and bool((np.isnan(s).sum(axis=-1) > 1).any())


def host_nanmedian(x: AbstractArray):
    """np.nanmedian of each line of the float array `x` (the reduced axes merged, last;
    shape x.shape[:-1]) by NumPy itself on the host, or None. NumPy drops each line's
    NaNs and selects the middle values in linear time; in XLA the line is sorted whole
    (44,850 float64 with a callback sort: 5.8 ms against NumPy's 0.1). NumPy's own call
    on the merged layout is the one NumPy makes for the user's axes (`_ureduce` merges
    them the same way), so the result is NumPy's to the bit, zeros' signs included."""
    if not x.shape or x.shape[-1] == 0:
        return None
    return _called_back(x, ("nanmedian",), x.dtype, x.shape[:-1], kinds="f")


@library("nanmedian")
def _nanmedian():
    def call(outs, a):
        out = outs[0]
        # a line of NaNs only gives NaN, as in NumPy, but without its RuntimeWarning (the
        # staged nanmedian gives none): such lines are left out of NumPy's call
        empty = np.isnan(a).all(axis=-1)
        if a.ndim == 1:
            out[...] = np.nan if empty else np.nanmedian(a)
        elif empty.any():
            out[empty] = np.nan
            if not empty.all():
                out[~empty] = np.nanmedian(a[~empty], axis=-1)
        else:
            out[...] = np.nanmedian(a, axis=-1)
    return call



def host_nanquantile(x: AbstractArray, q, weak, percent, method):
    """np.nanquantile (np.nanpercentile with `percent`) of each line of the float array
    `x` at the constant `q` (a NumPy array, as the caller passed it; `weak`: a Python
    number) by NumPy itself on the host, shape q.shape + x.shape[:-1], or None. NumPy
    drops each line's NaNs and selects its ranks, the same per line whatever the layout
    (`_nanquantile_1d`); the program sorts every line whole."""
    if not x.shape or x.shape[-1] == 0 or q.ndim > 1:
        return None
    spec = (tuple(q.ravel().tolist()), q.shape, None if weak else q.dtype.str,
            bool(percent), str(method))
    try:
        dtype = np.asarray(_quantile_call(*spec)(np.ones((1, 2), x.dtype))).dtype
    except (TypeError, ValueError):     # a method NumPy refuses: the staged path says so
        return None
    return _called_back(x, ("nanquantile",) + spec, dtype, q.shape + x.shape[:-1],
                        kinds="f")


def _quantile_call(values, shape, dtype, percent, method):
    """`a -> np.nan{quantile,percentile}(a, q, axis=-1, method=method)`, q rebuilt as the
    caller passed it: a Python float (`dtype` None) or an array of `dtype`."""
    q = values[0] if dtype is None else np.array(values, np.dtype(dtype)).reshape(shape)
    fn = np.nanpercentile if percent else np.nanquantile
    return lambda a: fn(a, q, axis=-1, method=method)


@library("nanquantile")
def _nanquantile(values, shape, dtype, percent, method):
    if type(values) is not tuple or type(shape) is not tuple:
        raise TypeError("quantiles must be tuples")
    call_numpy = _quantile_call(values, shape, dtype, percent, method)

    def call(outs, a):
        lines = a.reshape(-1, a.shape[-1])
        out = outs[0].reshape(-1, lines.shape[0])      # (quantiles, lines)
        empty = np.isnan(lines).all(axis=-1)           # NaN, without NumPy's warning
        out[:, empty] = np.nan
        if not empty.all():
            out[:, ~empty] = np.reshape(call_numpy(lines[~empty]), (out.shape[0], -1))
    return call
