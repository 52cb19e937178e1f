"""Dot products of two long bounded vectors over a piece of the buffer sized to the window.

`np.dot(A[i, :j], A[j, :j])` in a loop over j has a run-time length, and the plain
lowering multiplies the whole zero-filled buffer: a textbook Cholesky does n^3 / 2
multiplications where NumPy does n^3 / 6, and at n = 2000 it is memory-bound on the rows
it streams (2.85 s, NumPy 3.0 s). Here the product picks, by a `stablehlo.case` on the
window's length, the shortest of a few static piece lengths (the buffer's length divided
by `RATIO` until `SHORTEST`) that holds the window, takes that piece of both vectors from where the
window starts (moved back where the piece would leave the buffer), masks it to the
window and multiplies it: at most `RATIO` times the window's work. A piece of a line
of a matrix (`A[i, :j]`) is sliced from the matrix itself inside the branch: slicing the
whole line first would copy it out in full on every call, and the copy costs what the
piece saves. The same holds for a window of a longer vector (`a[1:i]` of `a[1:]`,
`r[i - 1:0:-1]` of a padded reversed `r`): Levinson-Durbin at order 3000 10.0 -> 7.4
ms. Textbook Cholesky, this machine: n = 400 13.0 -> 6.5 ms, n = 1000 251 -> 93 ms,
n = 2000 2.85 -> 0.91 s (NumPy 0.10, 0.69, 3.0 s); back substitution with
`np.dot(U[i, i + 1:], x[i + 1:])` at n = 3000 9.9 -> 5.3 ms (NumPy 6.6 ms).

Values outside the window are never multiplied (masked to zero), as in the plain
lowering, so infinities and NaNs there cannot leak in. The sum is over the window's
elements in another blocking than the plain product's, so the last bits may differ from
it, as NumPy's BLAS `ddot` differs from both.
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
from npxla.runtime.lowering.ssa import defining_op
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.linalg.products import contract

# buffers shorter than this multiply in full: at n = 100-200 the case saved nothing
# measurable (Cholesky 0.40 ms, 2.1 ms either way)
MIN_LENGTH = 256
SHORTEST = 64       # the shortest piece
RATIO = 2 ** 0.5    # of one piece length to the next
_I64 = np.dtype(np.int64)


def applies(a, b) -> bool:
    """Whether `a . b` (1-D buffers of one length, one float dtype) is worth pieces."""
    return a.ndim == 1 and b.ndim == 1 and a.dtype == b.dtype and \
        a.dtype.kind in "fc" and a.shape[0] >= MIN_LENGTH


def _const(v):
    return as_abstract(np.int64(v))


def piece_lengths(length: int) -> list:
    """The static piece lengths, longest (the whole buffer) first."""
    sizes = [length]
    while (nxt := int(np.ceil(sizes[-1] / RATIO))) >= SHORTEST:
        sizes.append(nxt)
    return sizes


def vector_dot(a, b, window):
    """`a . b` over the positions inside `window` (an Extent) of two 1-D buffers of one
    length, the window already at the same place in both."""
    length = a.shape[0]
    sizes = piece_lengths(length)
    offset, count = B.traced(window.offset), B.traced(window.count)
    index = _const(0)
    for size in sizes[1:]:              # how many of the shorter pieces hold the window
        index = E.add(index, cast_to(E.compare(count, _const(size), "LE"), _I64))
    zero = as_abstract(np.zeros((), a.dtype))
    end = E.add(offset, count)

    def branch(size):
        def piece():
            start = E.maximum(E.minimum(offset, _const(length - size)), _const(0))
            ids = E.add(S.iota(shape=(size,), dtype=_I64, dim=0),
                        broadcast_to_shape(start, (size,)))
            keep = E.bitwise_and(E.compare(ids, broadcast_to_shape(offset, (size,)), "GE"),
                                 E.compare(ids, broadcast_to_shape(end, (size,)), "LT"))
            zeros = broadcast_to_shape(zero, (size,))
            pa = S.select(keep, _piece(a, start, size), zeros)
            pb = S.select(keep, _piece(b, start, size), zeros)
            return [contract(pa, pb, a.dtype, contract=((0,), (0,)))]
        return piece

    bodies = [trace_body(branch(size)) for size in sizes]
    op = hlo.CaseOp([tensor_type((), a.dtype)], cast_to(index, np.dtype(np.int32)).ir,
                    len(sizes))
    for body, region in zip(bodies, op.regions):
        body.finish(body.leaves)
        body.move_to(region)
    deps = a.deps | b.deps | offset.deps | count.deps
    return AbstractArray((), a.dtype, ir=op.results[0], deps=deps)


def _piece(x, start, size):
    """`x[start:start + size]`, taken from the array `x` was sliced from where `x` is one
    line of it (`A[i]`, `A[:, j]` through reshapes): the line is then not copied out
    whole before the case picks its piece, which would read the whole buffer again."""
    value = x.ir
    while (op := defining_op(value)) is not None and op.name == "stablehlo.reshape":
        value = op.operands[0]
    op = defining_op(value)
    if op is not None and op.name == "stablehlo.dynamic_slice":
        source = op.operands[0]
        shape = list(ir.RankedTensorType(source.type).shape)
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        line = [k for k, n in enumerate(sizes) if n != 1]
        if len(line) == 1 and sizes[line[0]] == x.shape[0] == shape[line[0]]:
            starts = [_wrap(v) for v in op.operands[1:]]
            starts[line[0]] = cast_to(start, starts[line[0]].dtype)
            sizes[line[0]] = size
            src = AbstractArray(tuple(shape), x.dtype, ir=source)
            return S.reshape(S.dynamic_slice(src, *starts, sizes=tuple(sizes)),
                             shape=(size,))
    within = _within_vector(value, x.shape[0])
    if within is not None:                 # a window of a longer vector: read it there
        source, first = within
        src = AbstractArray(tuple(ir.RankedTensorType(source.type).shape), x.dtype,
                            ir=source)
        return S.dynamic_slice(src, E.add(first, start), sizes=(size,))
    return S.dynamic_slice(x, start, sizes=(size,))


def _within_vector(value, length):
    """(source vector, where `value` starts in it) when `value` is a unit-stride
    `slice` or a `dynamic_slice` of a longer 1-D array (`a[1:]`, the reversed window
    `r[i - 1:0:-1]` cut from a padded reversed copy): a piece of it is then read from
    the source inside the branch, not copied out in full first on every trip. The
    start is the one the slice used, clamped as `dynamic_slice` clamps it."""
    op = defining_op(value)
    if op is None or op.name not in ("stablehlo.slice", "stablehlo.dynamic_slice"):
        return None
    source = op.operands[0]
    total = ir.RankedTensorType(source.type).shape
    if len(total) != 1:
        return None
    if op.name == "stablehlo.slice":
        if list(ir.DenseI64ArrayAttr(op.attributes["strides"])) != [1]:
            return None
        return source, _const(ir.DenseI64ArrayAttr(op.attributes["start_indices"])[0])
    first = cast_to(_wrap(op.operands[1]), _I64)
    return source, E.maximum(E.minimum(first, _const(total[0] - length)), _const(0))


def _wrap(value):
    """A 0-d integer SSA value as an AbstractArray."""
    t = ir.RankedTensorType(value.type)
    dtype = np.dtype(np.int32) if ir.IntegerType(t.element_type).width == 32 else _I64
    return AbstractArray((), dtype, ir=value)
