"""Sorting and searching: sort, argsort, lexsort, sort_complex, partition, argpartition,
searchsorted, and the ndarray methods sort / argsort / partition / argpartition /
searchsorted.

Every sort is one stable `stablehlo.sort` in NumPy's order (NaNs last, complex
lexicographic with NumPy's NaN classes; see primitives/sort.py), so `kind` is accepted
and ignored: results equal NumPy's `kind='stable'`. Large real sorts on the CPU are
NumPy's own, called back from the program, with the same stable result (`host_sort`:
XLA:CPU's sort is 30-40x slower than NumPy's). `partition` of a large real array on the
CPU is NumPy's own (the same arrangement); other partitions and `argpartition` sort fully
(a valid partition for every kth). `searchsorted` is NumPy's binary search, unrolled
(log2(len(a)) gathers), in the same order.
"""
from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.staging.abstract import AbstractArray, is_abstract
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.gather import gather
from npxla.runtime.lowering.sort import order_less, sort as sort_prim
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.reductions.host_sort import (host_argsort, host_partition_values,
                                                      host_sort_values)
from npxla.runtime.numpy.core.registry import implements, register_method
from npxla.runtime.numpy.reductions.reductions import full, static

_STABLE = "ignored: XLA's sort is stable, results equal NumPy's kind='stable'"


# --- helpers shared by the statistics module ---------------------------------------------

def _axis(x, axis):
    """(array, axis index): axis=None sorts the flattened array."""
    axis = static(axis, "axis")
    if axis is None:
        return S.reshape(x, shape=(x.size,)), 0
    return x, normalize_axis_index(operator.index(axis), x.ndim)


def _no_order(order, name, kind=None, stable=None):
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same "
                         "time. Use only one of them.")
    if order is not None:
        raise UnsupportedFunctionError(f"np.{name}(..., order=...) is not supported: "
                                       "compiled arrays have no structured dtypes")


def sort_values(x: AbstractArray, axis: int) -> AbstractArray:
    """`x` sorted along `axis` (NumPy order, stable)."""
    if x.size == 0:
        return x
    out = host_sort_values(x, axis)
    return sort_prim(x, dimension=axis)[0] if out is None else out


def partition_values(x: AbstractArray, axis: int, kth) -> AbstractArray:
    """`x` with the elements at the positions `kth` (in range) along `axis` in their
    sorted places: NumPy's own partition where the host runs it, else a full sort."""
    if x.size == 0:
        return x
    out = host_partition_values(x, axis, kth)
    return sort_values(x, axis) if out is None else out


def argsort_values(x: AbstractArray, axis: int, keys=None) -> AbstractArray:
    """Stable argsort of `x` along `axis` (or of the lexicographic `keys`, most
    significant first) as intp."""
    keys = [x] if keys is None else list(keys)
    index = S.iota(shape=x.shape, dtype=np.intp, dim=axis)
    if x.size == 0:
        return index
    out = host_argsort(x, axis) if len(keys) == 1 and keys[0] is x else None
    if out is not None:
        return out
    return sort_prim(*keys, index, dimension=axis, num_keys=len(keys))[-1]


def _kth_list(kth, n):
    kth = static(kth, "kth")
    kths = list(kth) if isinstance(kth, (list, tuple, np.ndarray)) else [kth]
    out = []
    for k in kths:
        k = operator.index(k)
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
        out.append(k % n)
    return out


# --- sort / argsort ---------------------------------------------------------------------

@implements(np.sort, family="sorting", notes="kind " + _STABLE)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    _no_order(order, "sort", kind, stable)
    x, ax = _axis(as_array(a), axis)
    return sort_values(x, ax)


def _sort_method(self, axis=-1, kind=None, order=None, *, stable=None):
    _no_order(order, "sort", kind, stable)
    axis = static(axis, "axis")
    self.assign(sort_values(self, normalize_axis_index(operator.index(axis), self.ndim)))


register_method("sort", _sort_method, fold=False)


@implements(np.argsort, method="argsort", family="sorting", notes="kind " + _STABLE)
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    _no_order(order, "argsort", kind, stable)
    x, ax = _axis(as_array(a), axis)
    return argsort_values(x, ax)


@implements(np.lexsort, family="sorting")
def lexsort(keys, axis=-1):
    if is_abstract(keys) or isinstance(keys, np.ndarray):
        keys = as_array(keys)
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(keys.shape[0])]
    keys = [as_array(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({k.shape for k in keys}) != 1:
        raise ValueError("all keys need to be the same shape")
    first = keys[0]
    if first.ndim == 0:
        keys = [S.reshape(k, shape=(1,)) for k in keys]
        first = keys[0]
    ax = normalize_axis_index(operator.index(static(axis, "axis")), first.ndim)
    return argsort_values(first, ax, keys=reversed(keys))


@implements(np.sort_complex, family="sorting")
def sort_complex(a):
    x = as_array(a)
    if x.ndim == 0:
        raise np.exceptions.AxisError("axis -1 is out of bounds for array of dimension 0")
    out = sort_values(x, x.ndim - 1)
    dtype = x.dtype if x.dtype.kind == "c" else np.sort_complex(np.zeros(1, x.dtype)).dtype
    return cast_to(out, dtype)


# --- partition / argpartition ------------------------------------------------------------

_FULL = "NumPy's own partition for 1,024 elements or more of a real dtype on the CPU; " \
        "otherwise sorts fully (a valid partition for every kth, NumPy's own order of " \
        "the other elements being unspecified)"


@implements(np.partition, family="sorting", notes=_FULL)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    _no_order(order, "partition")
    x, ax = _axis(as_array(a), axis)
    return partition_values(x, ax, _kth_list(kth, x.shape[ax]))


def _partition_method(self, kth, axis=-1, kind="introselect", order=None):
    _no_order(order, "partition")
    ax = normalize_axis_index(operator.index(static(axis, "axis")), self.ndim)
    self.assign(partition_values(self, ax, _kth_list(kth, self.shape[ax])))


register_method("partition", _partition_method, fold=False)


@implements(np.argpartition, method="argpartition", family="sorting", notes=_FULL)
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    _no_order(order, "argpartition")
    x, ax = _axis(as_array(a), axis)
    _kth_list(kth, x.shape[ax])
    return argsort_values(x, ax)


# --- searchsorted -------------------------------------------------------------------------

def _binary_search(a, v, side):
    """NumPy's binary search, unrolled: for each query in the 1-d `v`, the first index
    of the sorted 1-d `a` whose element is not before it (side='left') or after it
    (side='right'), in NumPy's order."""
    n, m = a.shape[0], v.shape[0]
    lo = full(0, np.int64, (m,))
    hi = full(n, np.int64, (m,))
    for _ in range(n.bit_length()):
        mid = (lo + hi) >> 1
        at = gather(a, S.reshape(np.minimum(mid, n - 1), shape=(m, 1)))
        if side == "left":
            up = order_less(at, v, dtype=a.dtype)
        else:
            up = ~order_less(v, at, dtype=a.dtype)
        active = lo < hi
        lo = np.where(active & up, mid + 1, lo)
        hi = np.where(active & ~up, mid, hi)
    return lo


@implements(np.searchsorted, method="searchsorted", family="sorting",
            notes="a binary search as NumPy's (a must be sorted, or sorted by `sorter`); "
                  "sorter indices out of range are clamped, not an error")
def searchsorted(a, v, side="left", sorter=None):
    a = as_array(a)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    side = static(side, "side")
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    q = as_array(v)
    dtype = np.result_type(a.dtype, q.dtype)
    a = cast_to(a, dtype)
    if sorter is not None:
        sorter = as_array(sorter)
        if sorter.shape != a.shape:
            raise ValueError("sorter.size must equal a.size")
        if sorter.dtype.kind not in "iu":
            raise TypeError("sorter must only contain integers")
        if a.size:
            idx = np.clip(cast_to(sorter, np.int64), 0, a.size - 1)
            a = gather(a, S.reshape(idx, shape=(a.size, 1)))
    flat = S.reshape(cast_to(q, dtype), shape=(q.size,))
    if q.size == 0 or a.size == 0:
        out = full(0, np.intp, (q.size,))
    else:
        out = _binary_search(a, flat, side)
    return S.reshape(cast_to(out, np.intp), shape=q.shape)
