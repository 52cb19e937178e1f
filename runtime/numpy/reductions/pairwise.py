"""Float sums in NumPy's own order: its pairwise summation, staged as static slices.

NumPy sums a float axis that its inner loop runs along (a 1-d array, the last axis of a
C-ordered array, every axis of one flattened) with `pairwise_sum`: at most 128 elements
go into eight running sums, `r[j] += a[i + j]` for i in steps of 8, combined as
`((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`, then the elements past the last
multiple of 8 are added one by one; a longer run is split at half its length rounded
down to a multiple of 8 and the two halves' sums are added. XLA's `reduce` adds in
another order, so `np.sum` of 10 doubles could differ from NumPy's in the last bit.

The order is a function of the length alone, so it is staged as it is: one slice per
group of eight (each a vector of the batch's eight running sums), the adds in NumPy's
order, which XLA fuses into one kernel. That costs a slice per eight elements, so it is
done up to `MAX_LEAVES` blocks of 128 (256 elements); longer sums keep XLA's `reduce`
(documented in docs/semantics.md; the orders differ only in the last bits). Measured
against the `reduce`, interleaved: row sums of 20000 x 100 doubles 2.03 -> 2.15 ms,
of 200000 x 10 1.59 -> 0.49 ms, ten sums of 256 doubles in a loop 0.038 -> 0.029 ms;
mean and std of 20000 rows of 200, 11.2 -> 17.3 ms (the squared deviations, which
the `reduce` reads fused, are written out; NumPy 21 ms). With 1024 elements a sum is
about 200 ops, and programs holding many of them compiled slowly. float16 goes through
it in float32, as NumPy's half loop converts each element to float. Complex sums (four
running sums of pairs) are not this order and keep the `reduce`.

A sum along an axis NumPy's inner loop does not run along adds whole rows one after
another (`out += x[i]`), and a product along any axis multiplies one element after
another (NumPy's multiply loop has no pairwise form): `row_by_row_applies` says when
that order is staged, as that many elementwise ops on slices (`reductions._sequential`,
one fused kernel), up to `ROW_BY_ROW_MAX` slices. XLA:CPU's `reduce` over a leading
axis is slow besides: column sums of 64 x 100000 doubles 68.6 -> 3.1 ms (NumPy 2.6),
of 50 x 20000 13.0 -> 0.24 ms (NumPy 0.22). Past that many slices the `reduce` stays:
a `while` adding 32 rows a trip was exact but slower on 1000 x 1000 (1.05 against
0.27 ms).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.lowering.reduce import reduce

BLOCK = 128           # NumPy's PW_BLOCKSIZE
MAX_LEAVES = 2
ROW_BY_ROW_MAX = 64
_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


def pairwise_applies(x, kind, axes) -> bool:
    """Whether the sum of `x` over `axes` runs along NumPy's inner loop (the last axis
    longer than 1, or every axis) with at least 8 elements and few enough leaves to
    stage."""
    if kind != "add" or x.dtype not in _FLOATS or not axes or x.ndim == 0:
        return False
    if len(axes) == 1 and all(d == 1 for d in x.shape[axes[0] + 1:]):
        n = x.shape[axes[0]]            # (axes of length 1 after it: NumPy drops them)
    elif sorted(axes) == list(range(x.ndim)):
        n = int(np.prod(x.shape, dtype=np.int64))
    else:
        return False
    return 8 <= n <= MAX_LEAVES * BLOCK


def row_by_row_applies(x, kind, axes) -> bool:
    """Whether NumPy folds float or complex `x` over the one axis in `axes` slice by
    slice in order: a product, or a sum whose axis is not the last one longer than 1
    (the axis NumPy's inner loop runs along once it drops axes of length 1)."""
    if kind not in ("add", "mul") or len(axes) != 1 or x.dtype.kind not in "fc":
        return False
    axis = axes[0]
    if not 2 <= x.shape[axis] <= ROW_BY_ROW_MAX:
        return False
    longer = [i for i, d in enumerate(x.shape) if d != 1]
    return kind == "mul" or axis != longer[-1]


def pairwise_sum(x, axes):
    """The sum of `x` over `axes` (as `pairwise_applies` accepted) without the +0.0 that
    NumPy's reduction starts from (the caller adds it)."""
    if len(axes) == 1:
        kept = x.shape[:axes[0]] + x.shape[axes[0] + 1:]
        x = S.reshape(x, shape=x.shape[:axes[0] + 1])
    else:
        kept = ()
        x = S.reshape(x, shape=(int(np.prod(x.shape, dtype=np.int64)),))
    return S.reshape(_node(x, 0, x.shape[-1], _last_add), shape=kept)


def _last_add(a, b):
    """a + b as a `reduce` of the pair: XLA fuses elementwise ops into every consumer,
    so a sum staged as adds alone would be computed again for each element that reads
    it (`x - x.mean(axis=1, keepdims=True)`: 2.5x slower than the `reduce`); a
    reduction it computes once. Two terms and a zero give a + b in any order."""
    pair = S.concatenate(S.reshape(a, shape=a.shape + (1,)),
                         S.reshape(b, shape=b.shape + (1,)), axis=a.ndim)
    return reduce(pair, kind="add", axes=(a.ndim,))


def _node(x, offset, n, add=E.add):
    if n > BLOCK:
        half = n // 2
        half -= half % 8
        return add(_node(x, offset, half), _node(x, offset + half, n - half))
    return _leaf(x, offset, n, add)


def _leaf(x, offset, n, last=E.add):
    """NumPy's sum of x[..., offset:offset + n] for 8 <= n <= 128 (a leaf of a longer
    run is at least 64 long); `last` makes its final add."""
    whole = n - n % 8
    acc = _take(x, offset, 8)
    for i in range(offset + 8, offset + whole, 8):
        acc = E.add(acc, _take(x, i, 8))
    r = [S.reshape(_take(acc, j, 1), shape=acc.shape[:-1]) for j in range(8)]
    tail = [S.reshape(_take(x, i, 1), shape=x.shape[:-1])
            for i in range(offset + whole, offset + n)]
    left = E.add(E.add(r[0], r[1]), E.add(r[2], r[3]))
    right = E.add(E.add(r[4], r[5]), E.add(r[6], r[7]))
    if not tail:
        return last(left, right)
    res = E.add(left, right)
    for element in tail[:-1]:
        res = E.add(res, element)
    return last(res, tail[-1])


def _take(x, start, size):
    """x[..., start:start + size], a static slice of the last axis."""
    begin = (0,) * (x.ndim - 1) + (start,)
    limit = tuple(x.shape[:-1]) + (start + size,)
    return S.static_slice(x, start=begin, limit=limit, strides=(1,) * x.ndim)
