"""Vector dot products in loops, summed as a tree of vector adds.

XLA turns a dot of two vectors into `reduce(multiply(a, b))`, and XLA:CPU emits that
reduce as one chain of scalar adds, each waiting for the one before: about 0.9 ns per
element here, whatever the form of the dot (a masked window, 32-wide row sums, a 1 x S
by S x 1 product). A Cholesky's `np.dot(A[i, :j], A[j, :j])`, a back substitution's
`np.dot(U[i, i+1:], x[i+1:])` and Levinson-Durbin's `np.dot(a[1:i], r[i-1:0:-1])` run
one such dot per trip, so that chain was most of their time (back substitution at
n = 3000: about 2 µs per row, against Numba's BLAS `ddot` at half that).

Here each such dot in a loop becomes its products, folded twice by adding eight
consecutive slices elementwise (XLA fuses that into one vectorised loop of independent
sums), and the reduce of the 64 times fewer partial sums; the last few products (fewer
than 64) are reduced on their own. `np.dot(A[i], x)` in a loop carrying `x`, rows of
1024: 0.90 -> 0.49 ms for 2,000 rows; 64-element rows 0.16 -> 0.13 ms. The forms
measured and left out: the products' columns summed by a `reduce` over rows of 64
(XLA:CPU chains each column's FMAs: 1.6-2x slower than the chain from 1,024
elements), halving level by level (XLA fuses the levels unevenly, with
recomputation), and the products padded to whole blocks (the pad is a copy).

The sum is the same within rounding: NumPy's `np.dot` is a BLAS `ddot`, whose order
(several vector accumulators) is no more the chain's than the tree's. CPU loops only:
outside a loop the dot runs once (and a long one goes to the host's BLAS,
`host_matmul`); a GPU's reduce is a parallel tree already.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.lowering.build import combine_lanes
from npxla.runtime.lowering.ssa import in_loop, ops_named

# dots shorter than this keep XLA's dot (windows of 1-32 elements ran 1.5x slower as
# products and a reduce; from 64 on the rewrite was faster at every length measured)
MIN_LENGTH = 64
# each level adds WAYS slices of the products elementwise; LEVELS levels, so the head
# of the products (a multiple of BLOCK = WAYS ** LEVELS) leaves BLOCK times fewer
# partial sums for the reduce, and the rest (fewer than BLOCK) is reduced on its own
WAYS = 8
LEVELS = 2
BLOCK = WAYS ** LEVELS
_FLOATS = {"f64": np.float64, "f32": np.float32}


def split_loop_dots(module: ir.Module) -> int:
    """Rewrite the vector dots inside `while` loops of `module`; returns how many."""
    changed = 0
    for op in ops_named(module, "stablehlo.dot_general"):
        n = _vector_dot(op)
        if n is not None and n >= MIN_LENGTH and in_loop(op):
            _as_tree(op, n)
            changed += 1
    return changed


def _vector_dot(op):
    """The length of a float dot of two vectors (no batch axes), else None."""
    a, b = (ir.RankedTensorType(v.type) for v in op.operands)
    out = ir.RankedTensorType(op.results[0].type)
    if a.rank != 1 or b.rank != 1 or out.rank != 0 or a.shape != b.shape or \
            a.element_type != out.element_type or b.element_type != out.element_type or \
            str(out.element_type) not in _FLOATS:
        return None
    dims = hlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    if list(dims.lhs_batching_dimensions) or list(dims.rhs_batching_dimensions) or \
            list(dims.lhs_contracting_dimensions) != [0] or \
            list(dims.rhs_contracting_dimensions) != [0]:
        return None
    return a.shape[0]


def _as_tree(op, n):
    a, b = op.operands
    element = ir.RankedTensorType(a.type).element_type
    with ir.InsertionPoint(op), op.location:
        zero = hlo.ConstantOp(ir.DenseElementsAttr.get(
            np.array(0, _FLOATS[str(element)]),
            type=ir.RankedTensorType.get([], element))).result
        head = n // BLOCK * BLOCK
        parts = []
        if head:
            p = hlo.MulOp(_piece(a, 0, head), _piece(b, 0, head)).result
            for level in range(LEVELS):
                p = _fold(p, head // WAYS ** level)
            parts.append(p)
        if head < n:
            parts.append(hlo.MulOp(_piece(a, head, n), _piece(b, head, n)).result)
        sums = [combine_lanes(p, "stablehlo.add", zero) for p in parts]
        total = sums[0] if len(sums) == 1 else hlo.AddOp(*sums).result
    op.results[0].replace_all_uses_with(total)
    op.erase()


def _piece(v, start, stop):
    n = ir.RankedTensorType(v.type).shape[0]
    return v if (start, stop) == (0, n) else hlo.SliceOp(v, [start], [stop], [1]).result


def _fold(p, m):
    """The WAYS consecutive slices of `p` (length m) added elementwise, as a balanced
    tree: XLA fuses that into one loop over the slice's elements, vectorised."""
    k = m // WAYS
    parts = [hlo.SliceOp(p, [r * k], [(r + 1) * k], [1]).result for r in range(WAYS)]
    while len(parts) > 1:
        parts = [hlo.AddOp(parts[i], parts[i + 1]).result for i in range(0, len(parts), 2)]
    return parts[0]
