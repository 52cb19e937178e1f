"""Matrix products on a large argument that is not 64-byte aligned, without copying it.

`superset` passes such an argument as the aligned memory around it and slices it back
inside the program; a dot cannot read that slice in place, so XLA copies the matrix
first (a 160 MB `A @ x` spent three times as long copying as multiplying). A dot can
read a *whole* parameter in place, though. So a matrix A (r x c, k elements past an
aligned address) whose every use is a product with something else is passed as:

- P: the r x c matrix that starts k elements *before* A, at the aligned address (its
  rows straddle A's: P[i, :k] is the end of A's row i - 1, P[i, k:] the start of row i;
  P[0, :k] lies before A, in the same 64-byte line, and is never part of a result);
- T: A's last k elements (a copy of at most 7 elements).

and each product is rebuilt from one product with P (in place) and a few with thin
pieces (`P[1:, :k]`, `P[0, k:]`, T):

    A @ X   = P @ [0; X[:c-k]]  (row 0 from P[0, k:])  +  [P[1:, :k]; T] @ X[c-k:]
    A.T @ V = (P.T @ V)[k:]  stacked on  P[1:, :k].T @ V[:-1] + T (x) V[-1]

The first form multiplies P[i, :k] (A's own elements) by zeros, which is exact only when
they are finite: the caller checks that on the host (`needs_finite`) and otherwise runs
the copying executable. Sums are grouped differently from one dot on A, so the last
bits may differ with the array's address, as with BLAS libraries that peel unaligned
heads.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.xla import module_edit

_FLOATS = ("f32", "f64")


def plan(module_text, avals, candidates):
    """{parameter: uses rows-form products (bool)} of the rank-2 float parameters among
    `candidates` whose every use is a product this module can rebuild."""
    with module_edit.editing(module_text) as edit:
        ir, block = edit.ir, edit.block
        out = {}
        for p in candidates:
            shape, dtype = avals[p]
            if len(shape) != 2 or shape[0] < 2 or np.dtype(dtype).kind != "f":
                continue
            uses = _product_uses(block.arguments[p], ir)
            if uses:
                out[p] = any(contracted == 1 for _, _, contracted in uses)
        return out


def split_module(module_text, splits, avals):
    """`module_text` whose parameters p in `splits` ({p: k}) stand for P, with one more
    parameter (T, k elements) per split appended after the others, in order of p."""
    with module_edit.editing(module_text) as edit:
        ir, hlo, block = edit.ir, edit.hlo, edit.block
        for p, k in sorted(splits.items()):
            elem = ir.RankedTensorType(block.arguments[p].type).element_type
            tail = block.add_argument(ir.RankedTensorType.get([k], elem),
                                      ir.Location.unknown())
            build = _Builder(hlo, ir, block.arguments[p], tail, k)
            for op, side, contracted in _product_uses(block.arguments[p], ir):
                with ir.InsertionPoint(op):
                    new = build.product(op, side, contracted)
                op.result.replace_all_uses_with(new)
                op.erase()
            for use in list(_uses(block.arguments[p])):
                if use.name == "stablehlo.transpose" and not list(_uses(use.result)):
                    use.erase()
        return edit.text()


def needs_finite(value, k):
    """Whether the rows-form rebuild is exact for `value` (r x c) shifted by k: the
    elements it multiplies by zero, the last k of every row but the last, are finite."""
    return bool(np.isfinite(value[:-1, value.shape[1] - k:]).all())


# --- reading the module ---------------------------------------------------------------
def _uses(value):
    return [use.owner for use in value.uses]


def _product_uses(arg, ir):
    """[(dot op, side of A (0 lhs, 1 rhs), A's contracted axis)] covering every use of
    `arg` (directly or through a 2-D transpose), or [] when some use is anything else."""
    out = []
    for op in _uses(arg):
        if op.name == "stablehlo.transpose":
            perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
            if perm != [1, 0]:
                return []
            for dot in _uses(op.result):
                found = _as_product(dot, op.result, arg, ir)
                if found is None:
                    return []
                out.append((dot, found[0], 1 - found[1]))
            continue
        found = _as_product(op, arg, arg, ir)
        if found is None:
            return []
        out.append((op, *found))
    return out


def _as_product(op, value, arg, ir):
    """(side, contracted axis of `value`) when `op` is a dot_general of `value` with
    another operand (not `arg` again), no batch axes and one contracted axis."""
    from jaxlib.mlir.dialects import stablehlo as hlo
    if op.name != "stablehlo.dot_general":
        return None
    lhs, rhs = op.operands[0], op.operands[1]
    if (lhs == value) == (rhs == value):
        return None
    side = 0 if lhs == value else 1
    other = op.operands[1 - side]
    if other == arg or (not isinstance(other.owner, ir.Block) and
                        other.owner.name == "stablehlo.transpose" and
                        other.owner.operands[0] == arg):
        return None
    dims = hlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    if list(dims.lhs_batching_dimensions) or list(dims.rhs_batching_dimensions):
        return None
    mine = list(dims.lhs_contracting_dimensions if side == 0 else
                dims.rhs_contracting_dimensions)
    theirs = list(dims.rhs_contracting_dimensions if side == 0 else
                  dims.lhs_contracting_dimensions)
    if len(mine) != 1 or ir.RankedTensorType(other.type).rank > 2:
        return None
    if ir.RankedTensorType(other.type).rank == 2 and theirs[0] not in (0, 1):
        return None
    return side, mine[0]


# --- building the products ------------------------------------------------------------
class _Builder:
    """Emits the rebuilt products of one split parameter at the current insertion point."""

    def __init__(self, hlo, ir, P, T, k):
        self.hlo, self.ir, self.P, self.T, self.k = hlo, ir, P, T, k
        t = ir.RankedTensorType(P.type)
        self.r, self.c = t.shape
        self.elem = t.element_type

    def _t(self, shape):
        return self.ir.RankedTensorType.get(list(shape), self.elem)

    def _shape(self, v):
        return list(self.ir.RankedTensorType(v.type).shape)

    def _slice(self, v, start, limit):
        return self.hlo.SliceOp(v, start, limit, [1] * len(start)).result

    def _dot(self, a, b, ca, cb, precision):
        sa, sb = self._shape(a), self._shape(b)
        shape = [n for i, n in enumerate(sa) if i != ca] + [n for i, n in enumerate(sb)
                                                           if i != cb]
        dims = self.hlo.DotDimensionNumbers.get(
            lhs_batching_dimensions=[], rhs_batching_dimensions=[],
            lhs_contracting_dimensions=[ca], rhs_contracting_dimensions=[cb])
        return self.hlo.DotGeneralOp(self._t(shape), a, b, dims,
                                     precision_config=precision).result

    def _concat(self, parts, axis):
        return self.hlo.ConcatenateOp(parts, axis).result

    def _reshape(self, v, shape):
        return self.hlo.ReshapeOp(self._t(shape), v).result

    def _transpose(self, v):
        return self.hlo.TransposeOp(v, [1, 0]).result

    def product(self, op, side, contracted):
        """The value replacing dot `op`, whose operand on `side` is A (or A.T) and
        contracts A's axis `contracted`."""
        precision = op.attributes["precision_config"] if "precision_config" in \
            op.attributes else None
        other = op.operands[1 - side]
        dims = self.hlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
        theirs = list(dims.rhs_contracting_dimensions if side == 0 else
                      dims.lhs_contracting_dimensions)[0]
        shape = self._shape(other)
        if len(shape) == 1:
            y = self._reshape(other, [shape[0], 1])
        else:
            y = other if theirs == 0 else self._transpose(other)
        out = self._rows(y, precision) if contracted == 1 else self._cols(y, precision)
        result_shape = list(self.ir.RankedTensorType(op.result.type).shape)
        if len(shape) == 1:
            return self._reshape(out, result_shape)
        return out if side == 0 else self._transpose(out)

    def _rows(self, x, precision):
        """A @ x for x (c, m)."""
        r, c, k = self.r, self.c, self.k
        m = self._shape(x)[1]
        top, bottom = self._slice(x, [0, 0], [c - k, m]), self._slice(x, [c - k, 0], [c, m])
        zeros = self.hlo.ConstantOp(self.ir.DenseElementsAttr.get_splat(
            self._t([k, m]), self.ir.FloatAttr.get(self.elem, 0.0))).result
        body = self._dot(self.P, self._concat([zeros, top], 0), 1, 0, precision)
        first = self._dot(self._slice(self.P, [0, k], [1, c]), top, 1, 0, precision)
        body = self._concat([first, self._slice(body, [1, 0], [r, m])], 0)
        ends = self._concat([self._slice(self.P, [1, 0], [r, k]),
                             self._reshape(self.T, [1, k])], 0)
        return self.hlo.AddOp(body, self._dot(ends, bottom, 1, 0, precision)).result

    def _cols(self, v, precision):
        """A.T @ v for v (r, m)."""
        r, c, k = self.r, self.c, self.k
        m = self._shape(v)[1]
        whole = self._dot(self.P, v, 0, 0, precision)
        head = self._slice(whole, [k, 0], [c, m])
        ends = self._concat([self._slice(self.P, [1, 0], [r, k]),
                             self._reshape(self.T, [1, k])], 0)
        return self._concat([head, self._dot(ends, v, 0, 0, precision)], 0)
