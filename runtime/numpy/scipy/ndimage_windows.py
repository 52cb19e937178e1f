"""The two building blocks of the `scipy.ndimage` filters (`ndimage`): extending an axis
at both ends by a boundary mode (static slices, or one gather when the extension needs
many pieces) and summing shifted windows of the extended array in SciPy's order, without
fused multiply-adds (unrolled up to `UNROLL_TERMS` terms, a `while` over them beyond).
"""
from __future__ import annotations


import numpy as np


from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.convert import broadcast_to_shape
from npxla.runtime.numpy.scipy.signal import (const, d, fori_loop, take_slice, zeros)

_EPS = float(np.finfo(np.float64).eps)
_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)


UNROLL_TERMS = 64          # more terms than this run as a loop over the terms
MAX_PIECES = 16            # an extension of more slices than this is one gather


# --- boundary extension -------------------------------------------------------------------

def source_index(n, before, after, mode):
    """For each position of the extended line (`before` + n + `after`), the input index
    it copies (-1: the constant)."""
    p = np.arange(-before, n + after, dtype=np.int64)
    if mode == "nearest":
        return np.clip(p, 0, n - 1)
    if mode == "wrap":
        return p % n
    if mode == "reflect":
        q = p % (2 * n)
        return np.where(q < n, q, 2 * n - 1 - q)
    if mode == "mirror":
        if n == 1:
            return np.zeros_like(p)
        q = p % (2 * n - 2)
        return np.where(q < n, q, 2 * n - 2 - q)
    return np.where((p >= 0) & (p < n), p, -1)


def _runs(idx):
    """(first index, length, step) runs of -1s, ascending and descending indices."""
    runs, i = [], 0
    while i < len(idx):
        j = i + 1
        if idx[i] < 0:
            while j < len(idx) and idx[j] < 0:
                j += 1
            runs.append((-1, j - i, 0))
        else:
            step = idx[j] - idx[i] if j < len(idx) and idx[j] >= 0 and \
                abs(idx[j] - idx[i]) == 1 else 1
            while j < len(idx) and idx[j] >= 0 and idx[j] - idx[j - 1] == step:
                j += 1
            runs.append((int(idx[i]), j - i, int(step)))
        i = j
    return runs


def extend(x, axis, before, after, mode, cval):
    """x extended along `axis` by SciPy's boundary `mode` (cval: a float64 0-d array)."""
    if not before and not after:
        return x
    n = x.shape[axis]
    idx = source_index(n, before, after, mode)
    runs = _runs(idx)
    if len(runs) > MAX_PIECES:
        out = d(np.take, x, const(np.maximum(idx, 0)), axis=axis)
        if mode != "constant":
            return out
        shape = [1] * x.ndim
        shape[axis] = len(idx)
        return d(np.where, const((idx >= 0).reshape(shape)), out, cval)
    pieces = []
    for start, length, step in runs:
        if start < 0:
            shape = list(x.shape)
            shape[axis] = length
            pieces.append(broadcast_to_shape(cval, tuple(shape)))
        elif step == 1:
            pieces.append(take_slice(x, axis, start, start + length))
        else:
            pieces.append(S.reverse(take_slice(x, axis, start - length + 1, start + 1),
                                    axes=(axis,)))
    return pieces[0] if len(pieces) == 1 else S.concatenate(*pieces, axis=axis)


# --- sums of shifted windows --------------------------------------------------------------

def _window(p, offset, shape):
    return S.static_slice(p, start=tuple(offset), limit=tuple(o + s for o, s in
                                                             zip(offset, shape)),
                          strides=(1,) * p.ndim)


def _weight(weights, i, shape):
    """Weight i broadcast to `shape` (weights: a NumPy vector or a traced one)."""
    if isinstance(weights, np.ndarray):
        w = const(weights[i], _F64)
    else:
        w = S.reshape(S.dynamic_slice(weights, i, sizes=(1,)), shape=()) \
            if isinstance(i, AbstractArray) else S.reshape(take_slice(weights, 0, i, i + 1),
                                                           shape=())
    return broadcast_to_shape(w, shape)


def _term(window, weights, i, shape, form, masked):
    """Term i: window(0) (plus or minus window(1)), times weight i (skipped where
    |w| <= DBL_EPSILON when `masked`)."""
    v = window(0)
    if form != "single":
        v = (E.add if form == "sum" else E.subtract)(v, window(1))
    if weights is None:
        return v
    w = _weight(weights, i, shape)
    t = E.multiply(w, v)
    if masked:
        keep = E.compare(d(np.abs, w), broadcast_to_shape(const(_EPS), shape), "GT")
        t = S.select(keep, t, zeros(shape, _F64))
    return t


def accumulate(p, shape, offsets, weights=None, form="single", masked=False, acc=None):
    """`acc + sum_t w[t] * term_t` in the order of the terms, each rounded: term t is
    p's window at offsets[t][0] (`single`), or that window plus / minus the one at
    offsets[t][1] (`sum` / `diff`). weights None: no products."""
    if len(offsets) <= UNROLL_TERMS:
        for t, offs in enumerate(offsets):
            term = _term(lambda j, o=offs: _window(p, o[j], shape), weights, t, shape, form,
                         masked)
            acc = term if acc is None else E.add(acc, term)
        return acc
    table = const(np.asarray(offsets, np.int64))        # (terms, 1 or 2, ndim)
    weights = const(weights, _F64) if isinstance(weights, np.ndarray) else weights
    zero = const(0, _I64)

    def body(i, acc):
        def window(j):
            row = S.reshape(S.dynamic_slice(table, i, const(j, _I64), zero,
                                            sizes=(1, 1, p.ndim)), shape=(p.ndim,))
            idx = [S.reshape(take_slice(row, 0, a, a + 1), shape=()) for a in range(p.ndim)]
            return S.dynamic_slice(p, *idx, sizes=tuple(shape))
        return (E.add(acc, _term(window, weights, i, shape, form, masked)),)

    deps = p.deps | (weights.deps if weights is not None else frozenset())
    init = zeros(shape, _F64) if acc is None else acc
    return fori_loop(len(offsets), body, [init], deps)[0]
