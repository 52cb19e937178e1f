"""Contractions and norms on bounded arrays (arrays whose length is known only at run
time): np.dot / np.matmul / `@` / np.inner / np.vdot and the 2-norm of a vector.

The two contracted axes are brought to one extent and zero-padded (the identity of a
dot product); big matrix-vector products run by tiles (`bounded_blocks`).
"""
from __future__ import annotations


import numpy as np

from npxla.runtime.staging.bounded import BoundedArray, is_bounded
from npxla.runtime.numpy.linalg import bounded_blocks as blocks
from npxla.runtime.numpy.linalg import bounded_buckets as buckets
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.ufuncs.bounded import bind, elementwise, first_bounded
from npxla.runtime.numpy.reductions.bounded import reduction


# --- contractions -------------------------------------------------------------------------
def contraction(fn, name, args, kwargs):
    """np.dot / np.matmul / `@` / np.inner / np.vdot with bounded operands: the two
    contracted axes are brought to one extent and zero-padded, the others keep theirs."""
    a, b = (B.as_operand(x) for x in args[:2])
    if name == "vdot":
        a, b = _flat1(a), _flat1(b)
        name = "dot"
        fn = np.dot
        if a.dtype.kind == "c":
            a = elementwise(np.conjugate, (a,), {})
    ab, ae = B.parts(a)
    bb, be = B.parts(b)
    if ab.ndim == 0 or bb.ndim == 0:
        return elementwise(np.multiply, (a, b), {})
    if max(ab.ndim, bb.ndim) > 2 and name != "inner":
        first_bounded((a, b)).refuse(f"np.{name} of arrays with more than 2 dimensions")
    ka = ab.ndim - 1
    kb = bb.ndim - 1 if name == "inner" or bb.ndim == 1 else bb.ndim - 2
    ea, eb = ae[ka], be[kb]
    ref = ea if ea is not None else eb
    length = ab.shape[ka] if ea is not None else bb.shape[kb]
    ext = [e for k, e in enumerate(ae) if k != ka] + [e for k, e in enumerate(be) if k != kb]
    if ref is not None:
        ab = _aligned(ab, ea, ka, ref, length, name)
        bb = _aligned(bb, eb, kb, ref, length, name)
        blocked = _blocked(ab, bb, ka, kb, ref, ae, be, name)
        if blocked is None and name in ("dot", "matmul", "inner") and \
                buckets.applies(ab, bb):
            blocked = buckets.vector_dot(ab, bb, ref)
        if blocked is not None:
            return B.make(blocked, ext, B.extent_deps(a, b))
        ab, bb = _zero_outside(ab, ka, ref), _zero_outside(bb, kb, ref)
    result = dispatch(fn, (ab, bb), {})
    return B.make(result, ext, B.extent_deps(a, b))


def _aligned(buf, e, axis, ref, length, name):
    """One operand's contracted axis moved to the common extent `ref` (its length
    checked equal at run time)."""
    count = e.count if e is not None else buf.shape[axis]
    B.check_counts(count, ref.count, f"shapes not aligned for np.{name}")
    return B.relocate(buf, axis, e.offset if e is not None else 0, ref.offset, length)


def _zero_outside(buf, axis, ref):
    ext = [None] * buf.ndim
    ext[axis] = ref
    return B.filled(BoundedArray(buf, ext), 0, [axis])


def _blocked(ab, bb, ka, kb, ref, ae, be, name):
    """A matrix-vector product of big operands by tiles (`bounded_blocks`), or None."""
    if name not in ("dot", "matmul") or ab.ndim + bb.ndim != 3:
        return None
    mat, vec, axis, rows = (ab, bb, 1, ae[0]) if ab.ndim == 2 else (bb, ab, 0, be[1])
    if not blocks.applies(mat, vec, axis):
        return None
    return blocks.matvec(mat, vec, axis, ref, rows)


def _flat1(x):
    if is_bounded(x) and x.ndim != 1:
        x.refuse("np.vdot of a bounded array with more than one dimension")
    return x if is_bounded(x) else dispatch(np.ravel, (x,), {})


def vector_norm(fn, args, kwargs):
    params = bind(fn, args, kwargs)
    x = params["x"]
    if params.get("ord") not in (None, 2) or params.get("axis") is not None or x.ndim != 1:
        x.refuse("np.linalg.norm other than the 2-norm of a vector")
    sq = elementwise(np.square, (elementwise(np.absolute, (x,), {}),), {})
    total = reduction(np.sum, "sum", (sq,), {})
    out = dispatch(np.sqrt, (total,), {})
    if params.get("keepdims"):
        out = dispatch(np.reshape, (out, (1,)), {})
    return out
