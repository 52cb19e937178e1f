"""argmax/argmin of a long 1-d array in two levels, because XLA:CPU runs the variadic
(value, index) reduce that `reduce.arg_reduce` emits as a scalar loop: 1M doubles take
4.7-5.5 ms there, against 0.4 ms for NumPy and 0.3 ms for XLA's own `max`.

The array is cut into rows of BLOCK elements (the last row short, padded with the
reduction's identity by `reduce_window`, which pads without writing anything):
1. `reduce_window` takes each row's max (or min) in the fast, vectorised form;
2. the variadic reduce picks the first row whose extreme is the best (a NaN counts as
   best, as in NumPy) - n / BLOCK elements;
3. the variadic reduce picks the first best element of that row - BLOCK elements.
The result is NumPy's index exactly: the first occurrence of the extreme lies in the
first row that holds it. Step 3 reads BLOCK elements starting at
min(row * BLOCK, n - BLOCK); for the short last row that window starts inside the row
before, whose elements are all worse (else step 2 had picked it), so the first best
element of the window is still the answer. Measured at 1M doubles: 0.3-0.5 ms.

XLA's `reduce_window` skips NaN in step 1 (YNNPACK runs it: see `reduce.GUARD_MIN`), so
float data that may hold a NaN (their sum is NaN: `reduce.may_hold_nan`, one more fast
pass, shared with the program's own sum or mean of the same array) take the variadic
reduce over everything instead, which keeps NumPy's NaN rule.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.trace import constant
from npxla.runtime.lowering.core import Primitive
from npxla.runtime.lowering.reduce import (_BINARY, _arg_body, _reduce_lowering,
                                            may_hold_nan, identity)

BLOCK = 64
# below this many elements the variadic reduce is as fast. Measured per call on aligned
# doubles, blocks of 1024 from 16384 elements against blocks of 64 from 1024: 2000
# elements 22.7 -> 19.1 us, 10000 64.5 -> 25.1 us (NumPy 5.2), 200,000 127 -> 113 us
BLOCKED_MIN = 1024


def _first_best(x, n, kind, dtype):
    """The index (an i64 value) of the first best element of the 1-d value `x` of
    length `n`."""
    elem = ir.RankedTensorType(x.type).element_type
    i64 = ir.IntegerType.get_signless(64)
    index = hlo.IotaOp(ir.RankedTensorType.get([n], i64), 0).result
    outs = [ir.RankedTensorType.get([], elem), ir.RankedTensorType.get([], i64)]
    inits = [constant(identity(kind, dtype)), constant(np.zeros((), np.int64))]
    return _reduce_lowering(outs, x, index, *inits, axes=(0,), body=_arg_body, kind=kind,
                            dtypes=(np.dtype(dtype),))[1]


def _lowering(t, x, *, kind, dtype):
    n = ir.RankedTensorType(x.type).shape[0]
    if np.dtype(dtype).kind != "f":
        return _blocked(x, n, kind, dtype)
    op = hlo.IfOp([t], may_hold_nan(x, (0,), dtype))
    with ir.InsertionPoint(op.true_branch.blocks.append()):
        hlo.ReturnOp([_first_best(x, n, kind, dtype)])
    with ir.InsertionPoint(op.false_branch.blocks.append()):
        hlo.ReturnOp([_blocked(x, n, kind, dtype)])
    return op.results[0]


def _blocked(x, n, kind, dtype):
    rows = -(-n // BLOCK)
    elem = ir.RankedTensorType(x.type).element_type
    scalar = ir.RankedTensorType.get([], elem)
    pad = np.array([[0, rows * BLOCK - n]], np.int64)
    op = hlo.ReduceWindowOp([ir.RankedTensorType.get([rows], elem)], [x],
                            [constant(identity(kind, dtype))], [BLOCK],
                            window_strides=[BLOCK], padding=ir.DenseIntElementsAttr.get(pad))
    block = op.body.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([_BINARY[kind](*block.arguments).result])
    row = _first_best(op.results[0], rows, kind, dtype)

    def i64(v):
        return constant(np.array(v, np.int64))

    start = hlo.MinOp(hlo.MulOp(row, i64(BLOCK)).result, i64(n - BLOCK)).result
    window = hlo.DynamicSliceOp(x, [start], [BLOCK]).result
    return hlo.AddOp(start, _first_best(window, BLOCK, kind, dtype)).result


blocked_arg_p = Primitive("blocked_arg", typing=lambda x, *, kind, dtype: ((), np.int64),
                          lowering=_lowering)


def blocked_applies(x: AbstractArray) -> bool:
    """Whether `blocked_arg` serves an arg-reduction of `x` (1-d, long, real numbers)."""
    return x.ndim == 1 and x.shape[0] >= BLOCKED_MIN and x.dtype.kind in "iuf"


def blocked_arg(x: AbstractArray, *, kind: str) -> AbstractArray:
    """NumPy's argmax (kind "max") or argmin ("min") of the long 1-d array `x`."""
    return blocked_arg_p(x, kind=kind, dtype=x.dtype)
