"""Matrix-vector products of big bounded operands, computed by blocks.

A bounded operand is its full-size buffer plus the extents of its valid part, so the
plain lowering of `L[j + 1:, :j] @ L[j, :j]` zero-fills the buffer outside the window
and multiplies all of it: in a loop over j that is n^2 work per step where NumPy does
(n - j) j, and a Cholesky at n = 400 runs several times slower than NumPy. Here the
product runs as a loop over the `ROWS` x `BLOCK` tiles that meet the window (of the
contracted axis, and of the matrix's free axis when that is bounded too); each tile
is masked to the window and multiplied with its piece of the vector. Tiles at the
buffer's end start earlier (a dynamic slice stays inside the buffer), so a tile only
counts the rows and columns that the tiles before it did not.

The work drops to NumPy's, but each tile costs XLA:CPU a few microseconds of kernel
launches and a small dot at ~2 GFLOP/s, so the gain is modest (see `MIN_LENGTH`).

Values outside the window are never multiplied (masked tiles are zeros), so infinities
and NaNs there cannot leak in, as with the plain lowering.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.staging.regions import trace_body
from npxla.runtime.staging.types import tensor_type
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.convert import broadcast_to_shape
from npxla.runtime.numpy.linalg.products import contract

BLOCK = 64          # tile length along the contracted axis
ROWS = 64           # and along the free axis
# shorter axes: the plain product is as fast (Cholesky by columns, this machine: n = 150
# 2.8 ms plain, 4.2 ms by tiles; n = 400 33 -> 26 ms; n = 800 270 -> 220 ms)
MIN_LENGTH = 256
_I64 = np.dtype(np.int64)


def applies(mat, vec, axis) -> bool:
    """Whether `mat` (2-D, contracted along `axis`) times `vec` is worth blocking: both
    axes at least two blocks long, one floating dtype."""
    return mat.ndim == 2 and vec.ndim == 1 and mat.dtype == vec.dtype and \
        mat.dtype.kind in "fc" and mat.shape[axis] >= MIN_LENGTH and \
        mat.shape[1 - axis] >= MIN_LENGTH


def _const(v):
    return as_abstract(np.int64(v))


def _block_range(ext, length, size):
    """(first block, block count) of the `size`-long blocks that meet `ext` (None: all
    `length`)."""
    if ext is None:
        return _const(0), _const(-(-length // size))
    first = E.divide(B.traced(ext.offset), _const(size))
    last = E.divide(B.traced(B.add(B.add(ext.offset, ext.count), size - 1)), _const(size))
    return first, E.maximum(E.subtract(last, first), _const(0))


def _tile_mask(start, nominal, window, size):
    """Over the `size` indices from `start` (the tile's first index after clamping):
    inside the tile's own share [nominal, nominal + size) and inside `window` (an
    Extent, or None for the whole axis)."""
    ids = E.add(S.iota(shape=(size,), dtype=_I64, dim=0), broadcast_to_shape(start, (size,)))
    lo, hi = nominal, E.add(nominal, _const(size))
    if window is not None:
        lo = E.maximum(lo, B.traced(window.offset))
        hi = E.minimum(hi, B.traced(B.add(window.offset, window.count)))
    return E.bitwise_and(E.compare(ids, broadcast_to_shape(lo, (size,)), "GE"),
                         E.compare(ids, broadcast_to_shape(hi, (size,)), "LT"))


def matvec(mat, vec, axis, window, rows):
    """`mat @ vec` contracted along `mat`'s `axis` (1: mat-vec, 0: vec-mat), counting only
    the contracted positions inside `window` (an Extent) and computing only the result
    entries inside `rows` (an Extent of the free axis, or None for all). Entries
    outside `rows` are zero."""
    free = 1 - axis
    m, k = mat.shape[free], mat.shape[axis]
    zero = as_abstract(np.zeros((), mat.dtype))
    r0, rn = _block_range(rows, m, ROWS)
    t0, tn = _block_range(window, k, BLOCK)
    trips = E.multiply(rn, tn)
    shape = (ROWS, BLOCK) if axis == 1 else (BLOCK, ROWS)

    def body(p, acc):
        r = E.add(r0, E.divide(p, E.maximum(tn, _const(1))))
        t = E.add(t0, E.remainder(p, E.maximum(tn, _const(1))))
        r_nominal, t_nominal = E.multiply(r, _const(ROWS)), E.multiply(t, _const(BLOCK))
        rs = E.minimum(r_nominal, _const(m - ROWS))
        ts = E.minimum(t_nominal, _const(k - BLOCK))
        tile = S.dynamic_slice(mat, *((rs, ts) if axis == 1 else (ts, rs)), sizes=shape)
        cols = _tile_mask(ts, t_nominal, window, BLOCK)
        keep = S.broadcast_in_dim(cols, shape=shape, dims=(axis,))
        tile = S.select(keep, tile, broadcast_to_shape(zero, shape))
        piece = S.select(cols, S.dynamic_slice(vec, ts, sizes=(BLOCK,)),
                         broadcast_to_shape(zero, (BLOCK,)))
        partial = contract(tile, piece, mat.dtype, contract=((axis,), (0,)))
        own = _tile_mask(rs, r_nominal, None, ROWS)        # rows an earlier tile did not
        partial = S.select(own, partial, broadcast_to_shape(zero, (ROWS,)))
        total = E.add(S.dynamic_slice(acc, rs, sizes=(ROWS,)), partial)
        return E.add(p, _const(1)), S.dynamic_update_slice(acc, total, rs)

    init = [_const(0), broadcast_to_shape(zero, (m,))]
    b = trace_body(body, [((), _I64, False, frozenset()),
                          ((m,), mat.dtype, False, frozenset())])
    types = [tensor_type((), _I64), tensor_type((m,), mat.dtype)]
    op = hlo.WhileOp(types, [x.ir for x in init])
    cond = op.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        more = E.compare(AbstractArray((), _I64, ir=cond.arguments[0]), trips, "LT")
        hlo.ReturnOp([more.ir])
    b.emit(lambda: b.finish(b.leaves))
    b.move_to(op.body)
    deps = mat.deps | vec.deps | trips.deps
    return AbstractArray((m,), mat.dtype, ir=op.results[1], deps=deps)
