"""The arithmetic of dynamic extents: offsets and counts, valid-element masks, moving a
buffer's valid window, and bringing operands to one common extent.

Offsets and counts stay Python ints while they are known and become int64 scalars
once one of their inputs is traced, so `A[:, :3]`-like cases fold away and loops pay
only for what is traced. Every alignment that depends on a traced count records a
run-time check with NumPy's broadcast error: a shape mismatch NumPy would report must
not be hidden by the padding.
"""
from __future__ import annotations

import operator

import numpy as np
from jaxlib.mlir import ir

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.staging.bounded import BoundedArray, Extent, is_bounded
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check

_I64 = np.dtype(np.int64)


# --- offsets and counts: Python ints while known --------------------------------------
def known(v):
    """`v` as a Python int if it is known at staging time, else None."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    if is_abstract(v) and v.const is not None and v.ndim == 0:
        return int(v.const)
    return None


def traced(v) -> AbstractArray:
    k = known(v)
    if k is not None:
        return as_abstract(np.int64(k))
    out = cast_to(v, _I64)
    if out is not v and getattr(v, "_range", None) is not None:
        out._range = v._range          # a weak loop index made int64 keeps its range
    return out


def traced_bound(v) -> bool:
    """Whether an index or slice bound is a value only known at run time."""
    return (is_abstract(v) and v.const is None) or is_bounded(v)


def value_range(v):
    """(lo, hi) that `v` provably lies in, or None: a known int, or a traced int whose
    range staging derived (a static loop's index and arithmetic on it)."""
    k = known(v)
    if k is not None:
        return k, k
    return getattr(v, "_range", None)


# Interval rules of the extent arithmetic. With them a bound computed from a loop index
# (`k + 1` for k in range(n - 1)) is known to need no wrapping or clipping, and the
# masks built from it compare with the bound itself: XLA:CPU evaluates what is left of
# such scalar chains (wrap, clip, max) for every element of the fused loop that uses
# the mask (LU at n = 200: 31 ms with them, 6.5 ms without).
_RANGES = {
    "add": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "sub": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "mul": lambda a, b: (min(x * y for x in a for y in b), max(x * y for x in a for y in b)),
    "maximum": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    "minimum": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
}
# maximum/minimum whose operands' ranges decide the answer: (first wins, second wins)
_DECIDED = {
    "maximum": (lambda a, b: a[0] >= b[1], lambda a, b: b[0] >= a[1]),
    "minimum": (lambda a, b: a[1] <= b[0], lambda a, b: b[1] <= a[0]),
}
_I64_RANGE = (-(1 << 63), (1 << 63) - 1)


def _arith(name, py, hlo_op):
    rule, decided = _RANGES[name], _DECIDED.get(name)
    identity = {"add": 0, "sub": 0, "mul": 1}.get(name, object())

    def op(a, b):
        ka, kb = known(a), known(b)
        if ka is not None and kb is not None:
            return py(ka, kb)
        if kb == identity:
            return _result(a)
        if ka == identity and name in ("add", "mul"):
            return _result(b)
        ra, rb = value_range(a), value_range(b)
        if decided is not None and ra is not None and rb is not None:
            if decided[0](ra, rb):
                return _result(a)
            if decided[1](ra, rb):
                return _result(b)
        a, b = traced(a), traced(b)
        if a.shape != b.shape:
            shape = a.shape or b.shape
            a, b = broadcast_to_shape(a, shape), broadcast_to_shape(b, shape)
        out = hlo_op(a, b)
        if ra is not None and rb is not None and not out.shape:
            lo, hi = rule(ra, rb)
            if _I64_RANGE[0] <= lo and hi <= _I64_RANGE[1]:
                out._range = (lo, hi)
        return out
    return op


def _result(v):
    """An operand returned as the result: a Python int if known, else int64 traced."""
    k = known(v)
    return k if k is not None else traced(v)


add = _arith("add", operator.add, E.add)
sub = _arith("sub", operator.sub, E.subtract)
mul = _arith("mul", operator.mul, E.multiply)
maximum = _arith("maximum", max, E.maximum)
minimum = _arith("minimum", min, E.minimum)


def clip(v, lo, hi):
    return minimum(maximum(v, lo), hi)


def same(a, b) -> bool:
    """Provably equal at staging time: equal constants, or traced values computed the
    same way from the same values (`k + 1` written twice in `L[k + 1:, k]` and
    `U[k + 1:, k:]`). Extents that are the same need no run-time check and no moving."""
    if a is b:
        return True
    ka, kb = known(a), known(b)
    if ka is not None or kb is not None:
        return ka is not None and ka == kb
    return is_abstract(a) and is_abstract(b) and same_value(a.ir, b.ir)


_SAME_DEPTH = 8


def same_value(u, v, depth=_SAME_DEPTH) -> bool:
    """Whether two MLIR values are the results of the same pure computation: the same
    op with the same attributes on operands that are the same (block arguments and
    ops with regions only equal themselves)."""
    if u == v:
        return True
    if depth == 0 or u.type != v.type or isinstance(u.owner, ir.Block) or \
            isinstance(v.owner, ir.Block):
        return False
    if ir.OpResult(u).result_number != ir.OpResult(v).result_number:
        return False
    a, b = u.owner.operation, v.owner.operation
    if a.name != b.name or a.name not in _PURE or len(a.operands) != len(b.operands):
        return False
    attrs, other = a.attributes, b.attributes
    if len(attrs) != len(other) or any(str(attrs[name]) != str(other[name]) if name in other
                                       else True for name in attrs):
        return False
    return all(same_value(x, y, depth - 1) for x, y in zip(a.operands, b.operands))


# the ops extent arithmetic is made of: pure, so equal inputs give equal results
_PURE = frozenset(f"stablehlo.{name}" for name in (
    "constant", "add", "subtract", "multiply", "maximum", "minimum", "select", "compare",
    "convert", "negate", "and", "or", "not", "reshape", "broadcast_in_dim", "clamp"))


def compare(a, b, direction) -> AbstractArray:
    return E.compare(traced(a), traced(b), direction)


def normalise_bound(v, n):
    """A slice bound as `slice.indices` makes it for a positive step: negatives count
    from the end, then clipped to [0, n]."""
    k = known(v)
    if k is not None:
        return min(max(k + n if k < 0 else k, 0), n)
    v = traced(v)
    rng = value_range(v)
    if rng is not None and 0 <= rng[0] and rng[1] <= n:
        return v
    wrapped = S.select(compare(v, 0, "LT"), add(v, n), v)
    return clip(wrapped, 0, n)


def extent_deps(*values):
    """What decides the extents of the bounded ones among `values`."""
    deps = frozenset()
    for v in values:
        if is_bounded(v):
            deps |= v.extent_deps
    return deps


def deps_of(*values):
    deps = frozenset()
    for v in values:
        deps |= getattr(v, "deps", frozenset())
    return deps


# --- masks and windows ------------------------------------------------------------------
def axis_mask(b: BoundedArray, axis) -> AbstractArray:
    """The valid positions along one dynamic axis, as a 1-D bool array. Both sides are
    tested even where a range proves one open: XLA:CPU's code for the fused update
    was faster with `pos < n` kept (LU at n = 200: 6.5 ms against 11 ms)."""
    e = b.ext[axis]
    n = b.bound[axis]
    pos = S.iota(shape=(n,), dtype=_I64, dim=0)
    lo = broadcast_to_shape(traced(e.offset), (n,))
    hi = broadcast_to_shape(traced(add(e.offset, e.count)), (n,))
    return E.bitwise_and(E.compare(pos, lo, "GE"), E.compare(pos, hi, "LT"))


def _mask(b: BoundedArray, axes) -> AbstractArray:
    """True where the buffer holds an element of the array along `axes` (the bound's
    shape)."""
    mask = None
    for axis in axes:
        m = S.broadcast_in_dim(axis_mask(b, axis), shape=b.bound, dims=(axis,))
        mask = m if mask is None else E.bitwise_and(mask, m)
    return mask


def sorts_last(dtype):
    """A value that sorts after every element of `dtype` (NaN after numbers, as NumPy;
    a stable sort keeps such padding after real NaNs, since it comes later)."""
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max


def at_front(b: BoundedArray) -> BoundedArray:
    """`b` with every dynamic axis's valid window moved to offset 0."""
    buf, ext = b.buf, list(b.ext)
    for a, e in enumerate(b.ext):
        if e is not None and known(e.offset) != 0:
            buf = relocate(buf, a, e.offset, 0, buf.shape[a])
            ext[a] = Extent(0, e.count)
    return BoundedArray(buf, ext, b.extent_deps)


def valid_mask(b: BoundedArray) -> AbstractArray:
    """True where the buffer holds an element of the array."""
    return _mask(b, b.dynamic_axes())


def filled(b: BoundedArray, value, axes=None) -> AbstractArray:
    """The buffer with its padding (along `axes`, default all dynamic axes) replaced by
    `value`, so a reduction or contraction over the bound sees only the array."""
    axes = b.dynamic_axes() if axes is None else [a for a in axes if b.ext[a] is not None]
    if not axes:
        return b.buf
    fill = broadcast_to_shape(as_abstract(np.asarray(value, b.dtype)), b.bound)
    return S.select(_mask(b, axes), b.buf, fill)


def relocate(buf: AbstractArray, axis, src, dst, length) -> AbstractArray:
    """`buf` moved along `axis` so that element `src + t` lands at `dst + t`, in a buffer
    of `length` there (elements that fall outside are padding)."""
    if same(src, dst) and buf.shape[axis] == length:
        return buf
    low = [0] * buf.ndim
    high = [0] * buf.ndim
    low[axis], high[axis] = length, length
    zero = as_abstract(np.zeros((), buf.dtype))
    padded = S.pad(buf, zero, low=tuple(low), high=tuple(high), interior=(0,) * buf.ndim)
    start = [as_abstract(np.int64(0))] * buf.ndim
    start[axis] = traced(add(length, sub(src, dst)))
    sizes = list(buf.shape)
    sizes[axis] = length
    return S.dynamic_slice(padded, *start, sizes=tuple(sizes))


def check_counts(a, b, what="operands could not be broadcast together"):
    """A run-time ValueError where two extents differ (NumPy's broadcast error)."""
    if same(a, b):
        return
    ka, kb = known(a), known(b)
    if ka is not None and kb is not None:
        raise ValueError(f"{what} (lengths {ka} and {kb})")
    check(compare(a, b, "NE"), what, error=ValueError)


def make(buf: AbstractArray, ext, deps=frozenset()):
    """A bounded array, or `buf` itself when no axis is dynamic any more."""
    ext = tuple(ext)
    if all(e is None for e in ext):
        return buf
    return BoundedArray(buf, ext, deps)


def as_operand(x):
    """A bounded array or an abstract one (Python and NumPy values lifted)."""
    return x if is_bounded(x) or is_abstract(x) else as_abstract(x)


def parts(x):
    """(buffer, extents) of any operand; static arrays have no dynamic axis."""
    if is_bounded(x):
        return x.buf, x.ext
    return x, (None,) * x.ndim


def broadcast_one(buf, axis, e, dst, length):
    """`buf` with its axis moved to `dst` in a buffer of `length` (see `relocate`), or,
    where its run-time count is 1, its single element spread along the whole axis
    (NumPy broadcasts a length-1 axis whatever its length was known to be). A buffer
    with no room along the axis holds no such element."""
    moved = relocate(buf, axis, e.offset, dst, length)
    if known(e.count) is not None and known(e.count) != 1 or buf.shape[axis] == 0:
        return moved
    start = [as_abstract(np.int64(0))] * buf.ndim
    start[axis] = traced(e.offset)
    sizes = list(buf.shape)
    sizes[axis] = 1
    one = S.dynamic_slice(buf, *start, sizes=tuple(sizes))
    one = broadcast_to_shape(one, moved.shape)
    single = broadcast_to_shape(compare(e.count, 1, "EQ"), moved.shape)
    return S.select(single, one, moved)


def _unless_one(a, b):
    """NumPy's broadcast length of two lengths that are equal or 1: `b` where `a` is 1
    (a 0-length axis beats a 1-length one)."""
    ka = known(a)
    if ka is not None:
        return b if ka == 1 else a
    return S.select(compare(a, 1, "EQ"), traced(b), traced(a))


def _axis_plan(ops, ndim, k):
    """(bound, extent, fitters) of output axis k: each fitter maps an operand's buffer
    to the output's layout along that axis (None: leave it)."""
    dyn, sizes = [], set()
    for i, (buf, ex) in enumerate(ops):
        a = buf.ndim - ndim + k
        if a < 0:
            continue
        if ex[a] is not None:
            dyn.append((i, a, ex[a], buf.shape[a]))
        elif buf.shape[a] != 1:
            sizes.add(buf.shape[a])
    if len(sizes) > 1:
        raise ValueError("operands could not be broadcast together with shapes "
                         + " ".join(str(b.shape) for b, _ in ops))
    fit = {}
    if not dyn:
        return (sizes.pop() if sizes else 1), None, fit
    what = "operands could not be broadcast together"
    _, _, ref, ref_len = dyn[0]
    if not sizes and all(same(e.count, ref.count) for _, _, e, _ in dyn):
        for i, a, e, n in dyn[1:]:          # one length: move to the first one's place
            fit[i] = lambda buf, a=a, e=e: relocate(buf, a, e.offset, ref.offset, ref_len)
        return ref_len, ref, fit
    if sizes:                               # a static length n: the result has it
        n = sizes.pop()
        target_count, length, ext = n, n, None
    else:                   # lengths equal or 1 at run time: the one that is not 1
        target_count = dyn[0][2].count
        for _, _, e, _ in dyn[1:]:
            target_count = _unless_one(target_count, e.count)
        length = max(m for _, _, _, m in dyn)
        ext = Extent(0, target_count)
    for i, a, e, _ in dyn:
        ok = E.bitwise_or(compare(e.count, target_count, "EQ"), compare(e.count, 1, "EQ"))
        if ok.const is None or not bool(ok.const):
            check(E.bitwise_not(ok), what, error=ValueError)
        fit[i] = lambda buf, a=a, e=e: broadcast_one(buf, a, e, 0, length)
    return length, ext, fit


def conform(operands):
    """Bring operands to one broadcast bound and common extents, as NumPy broadcasts:
    the buffers, the result's bound and extents. Dynamic axes of one length (provably
    the same) are moved to the first one's offset; otherwise the result's length is
    the largest, every dynamic length must equal it or be 1 at run time (checked; a
    1 broadcasts), and a static length n > 1 makes the result's axis static."""
    ops = [parts(as_operand(x)) for x in operands]
    ndim = max(buf.ndim for buf, _ in ops)
    bound, ext, fits = [], [], []
    for k in range(ndim):
        n, e, fit = _axis_plan(ops, ndim, k)
        bound.append(n), ext.append(e), fits.append(fit)
    out = []
    for i, (buf, _) in enumerate(ops):
        for k in range(ndim):
            if i in fits[k]:
                buf = fits[k][i](buf)
        out.append(buf)
    return out, tuple(bound), tuple(ext)


def shape_of(x: BoundedArray) -> tuple:
    """NumPy's `x.shape`: ints, and traced (weak) ints for the dynamic axes."""
    return tuple(n if e is None else weak_count(e.count, x.extent_deps, n)
                 for n, e in zip(x.bound, x.ext))


def length(x: BoundedArray):
    """`len(x)`: the first axis's length (a traced count when it is dynamic)."""
    return shape_of(x)[0]


def size_of(x: BoundedArray):
    """`x.size`: a Python int in NumPy, so a weak traced int here."""
    total = 1
    for n in shape_of(x):
        total = mul(total, n)
    return _weak(total, x.extent_deps)


def weak_count(count, deps, bound):
    """A run-time count as NumPy's Python int (a weak traced int64 depending on `deps`),
    known to lie in [0, bound]: `np.zeros(len(x))` then has a bound (see
    `arrays/bounded_creation.py`), and arithmetic on it keeps one."""
    out = _weak(traced(count), deps)
    if is_abstract(out):
        rng = value_range(count)
        out._range = (0, bound) if rng is None else (max(rng[0], 0), min(rng[1], bound))
    return out


def _weak(v, deps):
    if known(v) is not None:
        return known(v)
    return AbstractArray(v.shape, v.dtype, ir=v.ir, weak=True, deps=v.deps | deps)


def to_origin(x: BoundedArray) -> AbstractArray:
    """The buffer with every dynamic axis's valid window moved to start at 0 (so the
    array is a prefix of the buffer: the layout results are returned in)."""
    buf = x.buf
    for axis in x.dynamic_axes():
        buf = relocate(buf, axis, x.ext[axis].offset, 0, x.bound[axis])
    return buf


def counts_vector(x: BoundedArray) -> AbstractArray:
    """The counts of `x`'s dynamic axes as one int64 vector (a result's trim recipe)."""
    parts_ = [S.reshape(traced(x.ext[a].count), shape=(1,)) for a in x.dynamic_axes()]
    return parts_[0] if len(parts_) == 1 else S.concatenate(*parts_, axis=0)
