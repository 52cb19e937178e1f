"""Cumulative (prefix) reductions, in one of two forms:

- along an axis whose slices are wide (a (200, 1000) array along either axis), NumPy's
  own loop: `y[i] = y[i - 1] + x[i]` as a `while` over the axis. The sums are NumPy's to
  the last bit, and it is faster than the other form wherever the slices are wide
  (measured per call, (200, 1000) along axis 1: 1.74 -> 0.61 ms, NumPy 0.78; (2000,
  2000) along axis 0: 62 -> 18 ms, NumPy 37; along axis 1: 40 -> 27 ms, NumPy 16);
- float and complex sums and products along narrower slices (1-d arrays): the same
  loop, BLOCK steps per trip (`_blocked`): NumPy's bits (complex products up to
  XLA's complex multiply), and faster than a tree-shaped scan beyond a few thousand
  elements (1-d float64, median per call: 1e5 elements 1.96 -> 0.36 ms, NumPy 0.40;
  1e6 8.8 -> 3.8-5.4 ms, NumPy 3.9-4.2; smaller calls take the NumPy tier);
- otherwise (integers, bools, max/min, which associate exactly) `stablehlo.reduce_window`
  over a window that covers everything up to each element (padding n - 1 identity
  values in front), which XLA rewrites into a tree-shaped scan (as JAX's cumsum relies
  on).

`kind`: add, mul, max, min (NaN-propagating, as NumPy's maximum/minimum), fmax, fmin
(NaN-skipping; their identity is NaN), and, or, xor.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.trace import constant
from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.reduce import identity
from npxla.runtime.lowering.sort import _cmp

# A prefix reduction along an axis with at least SEQUENTIAL_MIN_LANES elements in each of
# its slices (the product of the other axes) runs as NumPy's loop: a `while` over the
# axis, each iteration combining two contiguous slices; along the last axis, between
# two transposes, and only when the axis has SEQUENTIAL_MIN_LAST elements or more (the
# transposes of a narrow axis cost more than the loop saves).
SEQUENTIAL_MIN_LANES = 32
SEQUENTIAL_MIN_LAST = 128
# Narrower rounding sums and products (1-d arrays) run NumPy's loop too, BLOCK steps per
# trip of the `while` (`_blocked`)
BLOCK = 16
# marks these loops in the module (their trip counts are the array's: running the
# function as NumPy instead costs what NumPy's own loop does, see driver/numpy_tier)
LIBRARY_LOOP = "npxla.library_loop"

_BINARY = {"add": hlo.AddOp, "mul": hlo.MulOp, "max": hlo.MaxOp, "min": hlo.MinOp,
           "and": hlo.AndOp, "or": hlo.OrOp, "xor": hlo.XorOp}


def _combine(kind, a, b, dtype):
    if kind in ("fmax", "fmin"):
        best = _BINARY[kind[1:]](a, b).result
        if np.dtype(dtype).kind != "f":
            return best
        a_nan, b_nan = _cmp(a, a, "NE", dtype), _cmp(b, b, "NE", dtype)
        return hlo.SelectOp(a_nan, b, hlo.SelectOp(b_nan, a, best).result).result
    return _BINARY[kind](a, b).result


def _lowering(t, x, init, *, kind, axis, dtype):
    shape = ir.RankedTensorType(x.type).shape
    n = shape[axis]
    wide = int(np.prod(shape)) // max(n, 1) >= SEQUENTIAL_MIN_LANES
    if n > 1 and wide and (axis < len(shape) - 1 or n >= SEQUENTIAL_MIN_LAST):
        return _along_first(t, x, axis, lambda tt, v, a: _sequential(tt, v, kind, a, dtype))
    if n > 1 and kind in ("add", "mul") and np.dtype(dtype).kind in "fc":
        # a rounding sum or product: NumPy's order, a block of BLOCK elements per trip
        return _along_first(t, x, axis, lambda tt, v, a: _blocked(v, kind, a, dtype))
    window = [n if i == axis else 1 for i in range(len(shape))]
    pad = np.array([[n - 1 if i == axis else 0, 0] for i in range(len(shape))], np.int64)
    op = hlo.ReduceWindowOp([t], [x], [init], window, window_strides=[1] * len(shape),
                            padding=ir.DenseIntElementsAttr.get(pad))
    scalar = ir.RankedTensorType.get([], ir.RankedTensorType(x.type).element_type)
    block = op.body.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        a, b = block.arguments
        hlo.ReturnOp([_combine(kind, a, b, dtype)])
    return op.results[0]


def _along_first(t, x, axis, run):
    """`run(type, x, axis)`, with a last axis (of more than one) moved to the front
    first, so that each step combines contiguous slices."""
    rank = len(ir.RankedTensorType(x.type).shape)
    if axis != rank - 1 or rank == 1:
        return run(t, x, axis)
    moved = hlo.TransposeOp(x, [axis] + list(range(axis))).result
    y = run(moved.type, moved, 0)
    return hlo.TransposeOp(y, list(range(1, rank)) + [0]).result


def _slice_at(y, axis, start, size, shape):
    """`size` entries of `y` from `start` (an int64 scalar value) along `axis`."""
    zero = _index(0)
    at = [start if d == axis else zero for d in range(len(shape))]
    return hlo.DynamicSliceOp(y, at, [size if d == axis else z
                                      for d, z in enumerate(shape)]).result


def _index(v):
    return constant(np.array(v, np.int64))


def _chain(kind, dtype, prev, block, axis, shape, count):
    """prev (op) block[0], then (op) block[1], ...: the `count` running values, joined
    along `axis`."""
    acc, outs = prev, []
    for j in range(count):
        lo = [j if d == axis else 0 for d in range(len(shape))]
        hi = [j + 1 if d == axis else z for d, z in enumerate(shape)]
        piece = hlo.SliceOp(block, lo, hi, [1] * len(shape)).result
        acc = _combine(kind, acc, piece, dtype)
        outs.append(acc)
    return outs[0] if count == 1 else hlo.ConcatenateOp(outs, axis).result


def _blocked(x, kind, axis, dtype):
    """NumPy's running sum or product along `axis` (`y[i] = y[i - 1] op x[i]`, rounded
    at every step, which a tree-shaped scan is not): a `while` whose trips each carry
    BLOCK steps, then the last few steps after it. Per element about a third of the
    one-step loop's time (a trip costs more than its arithmetic). Each block of steps
    reads the inputs from `x`, never from the `y` it updates: XLA:CPU emits an update
    in place element by element, so a running value computed from `y`'s own elements
    there would read ones already overwritten (checked with jax.jit on jaxlib 0.10)."""
    shape = ir.RankedTensorType(x.type).shape
    n = shape[axis]
    trips = (n - 1) // BLOCK
    y = x
    zero = _index(0)

    def update(y, x, start, count, block_shape):
        prev = _slice_at(y, axis, hlo.SubtractOp(start, _index(1)).result, 1, shape)
        block = _slice_at(x, axis, start, count, shape)
        run = _chain(kind, dtype, prev, block, axis, block_shape, count)
        return hlo.DynamicUpdateSliceOp(
            y, run, [start if d == axis else zero for d in range(len(shape))]).result

    if trips:
        scalar = ir.RankedTensorType.get([], ir.IntegerType.get_signless(64))
        op = hlo.WhileOp([scalar, x.type, x.type], [_index(1), x, x])
        op.attributes[LIBRARY_LOOP] = ir.UnitAttr.get()
        cond = op.cond.blocks.append(scalar, x.type, x.type)
        with ir.InsertionPoint(cond):
            hlo.ReturnOp([_cmp(cond.arguments[0], _index(1 + trips * BLOCK), "LT",
                               np.int64)])
        body = op.body.blocks.append(scalar, x.type, x.type)
        with ir.InsertionPoint(body):
            i, v, src = body.arguments
            block_shape = [BLOCK if d == axis else z for d, z in enumerate(shape)]
            v = update(v, src, i, BLOCK, block_shape)
            hlo.ReturnOp([hlo.AddOp(i, _index(BLOCK)).result, v, src])
        y = op.results[1]
    start = 1 + trips * BLOCK
    rest = n - start
    if rest and not trips:        # all of it here: `x`'s first entry, then the steps
        first = _slice_at(x, axis, zero, 1, shape)
        run = _chain(kind, dtype, first, _slice_at(x, axis, _index(1), rest, shape), axis,
                     [rest if d == axis else z for d, z in enumerate(shape)], rest)
        return hlo.ConcatenateOp([first, run], axis).result
    if rest:
        y = update(y, x, _index(start), rest,
                   [rest if d == axis else z for d, z in enumerate(shape)])
    return y


def _sequential(t, x, kind, axis, dtype):
    """`y = x; for i in 1..n-1: y[i] = y[i - 1] (op) y[i]` along `axis`, as NumPy runs
    it: one `while` whose iterations each combine two slices of the other axes."""
    shape = ir.RankedTensorType(x.type).shape
    scalar = ir.RankedTensorType.get([], ir.IntegerType.get_signless(64))

    def index(v):
        return constant(np.array(v, np.int64))

    op = hlo.WhileOp([scalar, t], [index(1), x])
    op.attributes[LIBRARY_LOOP] = ir.UnitAttr.get()
    cond = op.cond.blocks.append(scalar, t)
    with ir.InsertionPoint(cond):
        hlo.ReturnOp([_cmp(cond.arguments[0], index(shape[axis]), "LT", np.int64)])
    body = op.body.blocks.append(scalar, t)
    with ir.InsertionPoint(body):
        i, y = body.arguments
        sizes = [1 if d == axis else z for d, z in enumerate(shape)]
        zero = index(0)
        at = [i if d == axis else zero for d in range(len(shape))]
        before = [hlo.SubtractOp(i, index(1)).result if d == axis else zero
                  for d in range(len(shape))]
        prev = hlo.DynamicSliceOp(y, before, sizes).result
        cur = hlo.DynamicSliceOp(y, at, sizes).result
        y = hlo.DynamicUpdateSliceOp(y, _combine(kind, prev, cur, dtype), at).result
        hlo.ReturnOp([hlo.AddOp(i, index(1)).result, y])
    return op.results[1]


cumulative_p = Primitive("cumulative", typing=lambda x, init, *, kind, axis, dtype: x,
                         lowering=_lowering)


def cumulative(x: AbstractArray, *, kind: str, axis: int) -> AbstractArray:
    """Inclusive prefix reduction of `x` along `axis` with the binary op `kind`."""
    if kind in ("fmax", "fmin"):
        fill = np.array(np.nan, x.dtype) if x.dtype.kind == "f" else identity(kind[1:],
                                                                              x.dtype)
    elif kind == "xor":
        fill = np.zeros((), x.dtype)
    elif kind == "add" and x.dtype.kind in "fc":
        # -0.0 is addition's exact identity: a prefix starting at -0.0 stays -0.0, as
        # NumPy's running sum does (+0.0 + -0.0 would be +0.0)
        fill = np.array(-0.0, x.dtype)
    else:
        fill = identity(kind, x.dtype)
    init = AbstractArray.from_const(np.asarray(fill, x.dtype), weak=False)
    return cumulative_p(x, init, kind=kind, axis=axis, dtype=x.dtype)
