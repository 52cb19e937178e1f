"""Basic-index regions: ints, slices, None and `...` parsed into a `Region`, and the
region read or written as values.

Why a module of its own: both item access (indexing.py) and advanced indexing
(fancy_plan.py, which slices the non-advanced axes first) build on these regions;
below both, it keeps them free of an import cycle.

Static indices lower to `slice`; traced integer indices, and slices of a fixed length
at a traced start (`x[i:i + 3]`), to `dynamic_slice` / `dynamic_update_slice`, with a
runtime bounds flag instead of XLA's silent clamping for the integers.
Strided static updates use pad + select.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
from jaxlib.mlir import ir

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import gather as G
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.extents import same_value, value_range
from npxla.runtime.numpy.core.convert import broadcast_to_shape, cast_to
from npxla.runtime.numpy.core.errorflags import check

_I64 = np.dtype(np.int64)
_U64 = np.dtype(np.uint64)


@dataclass
class Region:
    """Per base axis: start, size and (positive) step of the selected elements; flipped
    axes are read in reverse; traced starts are int64 AbstractArrays."""
    starts: list
    sizes: list
    steps: list
    flipped: list
    int_axes: list       # axes indexed by an integer (dropped from the result)
    out_shape: tuple     # result shape (ints dropped, None axes inserted)

    @property
    def traced(self):
        return any(is_abstract(s) for s in self.starts)


def is_int(x):
    """A Python or NumPy integer (not a bool): an integer index."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def as_static(x):
    """Constant abstract integers behave like Python ints."""
    if is_abstract(x) and x.const is not None and x.ndim == 0 and x.dtype.kind in "iu":
        return int(x.const)
    return x


def _expand(index, ndim):
    if not isinstance(index, tuple):
        index = (index,)
    index = tuple(as_static(i) for i in index)
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    if sum(1 for i in index if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                         f"but {used} were indexed")
    out = []
    for i in index:
        if i is Ellipsis:
            out.extend([slice(None)] * (ndim - used))
        else:
            out.append(i)
    if not any(i is Ellipsis for i in index):
        out.extend([slice(None)] * (ndim - used))
    return out


# --- windows of a fixed length at a traced start ------------------------------------------
def fixed_window(entry: slice, n):
    """(int64 start, k) for a slice whose stop is its start plus a constant k and whose
    start is proven to keep it inside the axis (`x[i:i + 3]`, `x[2 * i:2 * i + 2]`,
    `x[i - 1:i + 2]` for a loop index i whose range allows it): NumPy's result then has
    exactly k elements, so it is a dynamic slice of static shape, not an array whose
    length is only known at run time. None for any other slice."""
    if entry.step is not None and not (is_int(entry.step) and entry.step == 1):
        return None
    start, stop = entry.start, entry.stop
    if not (_traced_int(start) and _traced_int(stop)):
        return None
    base_a, off_a = _affine(start.ir)
    base_b, off_b = _affine(stop.ir)
    k = off_b - off_a
    r = value_range(start)
    if k < 0 or r is None or r[0] < 0 or r[1] + k > n or not same_value(base_a, base_b):
        return None
    return cast_to(start, _I64), k


def _traced_int(v):
    return is_abstract(v) and v.ndim == 0 and v.const is None and v.dtype.kind in "iu"


_AFFINE_DEPTH = 6


def _affine(value):
    """(base, offset) with value == base + offset, peeling additions and subtractions
    of integer constants (and same-width converts) off `value`."""
    offset = 0
    for _ in range(_AFFINE_DEPTH):
        owner = value.owner
        if isinstance(owner, ir.Block):
            break
        name, operands = owner.name, list(owner.operands)
        if name == "stablehlo.convert" and ir.RankedTensorType(operands[0].type).element_type \
                == ir.RankedTensorType(value.type).element_type:
            value = operands[0]
            continue
        if name not in ("stablehlo.add", "stablehlo.subtract"):
            break
        k = _int_constant(operands[1])
        if k is not None:
            offset += k if name == "stablehlo.add" else -k
            value = operands[0]
            continue
        k = _int_constant(operands[0])
        if k is not None and name == "stablehlo.add":
            offset += k
            value = operands[1]
            continue
        break
    return value, offset


def _int_constant(value):
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "stablehlo.constant":
        return None
    attr = owner.attributes["value"]
    if not isinstance(attr, ir.DenseIntElementsAttr) or len(attr) != 1:
        return None
    return int(attr[0])


def _checked_before(i, message):
    """Whether this region already checks index `i` (the same value) against the same
    axis length, with the same message: `data[k]` then `indices[k]` over arrays of one
    length. The later check can never fire alone (the earlier one fires first, and NumPy
    raises there), and each costs a kernel per trip of a loop on XLA:CPU."""
    trace = current_trace()
    checks = trace.error_checks
    key = (id(checks), id(i), message)
    if key in trace.index_checks:
        return True
    trace.index_checks[key] = (checks, i)       # both kept alive: their ids stay theirs
    return False


def _normalise_traced(i, n, axis):
    known = i._range
    i = cast_to(i, _I64)
    if known is not None and 0 <= known[0] and known[1] < n:
        return i          # a loop index known to be in bounds: no wrap, no check
    zero = as_abstract(np.int64(0))
    size = as_abstract(np.int64(n))
    never_negative = known is not None and known[0] >= 0
    shifted = None if never_negative else E.add(i, size)
    wrapped = i if never_negative else S.select(E.compare(i, zero, "LT"), shifted, i)
    message = f"index {{}} is out of bounds for axis {axis} with size {n}"
    if not _checked_before(i, message):
        # -n <= i < n as one unsigned compare: i + n in [0, 2n) (wrapping past int64's
        # ends lands far above 2n); a check per indexed read in a scalar loop's trip
        if never_negative:
            bad = E.compare(S.convert(i, dtype=_U64), as_abstract(np.uint64(n)), "GE")
        else:
            bad = E.compare(S.convert(shifted, dtype=_U64), as_abstract(np.uint64(2 * n)),
                            "GE")
        check(bad, message, payload=i)
    if n == 0:
        # every index is out of bounds (the check above names it at run time); there is
        # no element to stage a read of: the program raises here whenever it gets here
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")
    return wrapped


def parse(x: AbstractArray, index) -> Region:
    """The region a basic index selects, with NumPy's rules: the index is padded with
    `:` (at the ellipsis), static ints out of bounds raise IndexError, slices follow
    `slice.indices` (negative steps become positive steps over flipped axes), None adds
    a size-1 axis, and traced 0-d integers wrap negatives with a run-time bounds check."""
    entries = _expand(index, x.ndim)
    starts, sizes, steps, flipped, int_axes, out_shape = [], [], [], [], [], []
    axis = 0
    for entry in entries:
        if entry is None:
            out_shape.append(1)
            continue
        n = x.shape[axis]
        if is_int(entry):
            i = operator.index(entry)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            starts.append(i % n), sizes.append(1), steps.append(1), flipped.append(False)
            int_axes.append(axis)
        elif isinstance(entry, slice) and (window := fixed_window(entry, n)) is not None:
            start, k = window                     # x[i:i + k]: traced start, k elements
            starts.append(start), sizes.append(k), steps.append(1), flipped.append(False)
            out_shape.append(k)
        elif isinstance(entry, slice):
            start, stop, step = slice(*[None if v is None else operator.index(v) for v in
                                        (entry.start, entry.stop, entry.step)]).indices(n)
            count = len(range(start, stop, step))
            if step < 0 and count:
                start, step = start + (count - 1) * step, -step
            starts.append(start if count else 0), sizes.append(count)
            steps.append(step if count else 1), flipped.append(entry.step is not None and
                                                               operator.index(entry.step) < 0)
            out_shape.append(count)
        elif is_abstract(entry) and entry.ndim == 0 and entry.dtype.kind in "iu":
            starts.append(_normalise_traced(entry, n, axis)), sizes.append(1)
            steps.append(1), flipped.append(False), int_axes.append(axis)
        else:
            raise IndexError(f"invalid basic index {entry!r}")
        axis += 1
    return Region(starts, sizes, steps, flipped, int_axes, tuple(out_shape))


def _all_full(x, r: Region):
    return not r.traced and all(s == 0 and z == n and st == 1 for s, z, st, n in
                                zip(r.starts, r.sizes, r.steps, x.shape))


def _slice(x, starts, sizes, steps):
    if all(s == 0 and z == n and st == 1 for s, z, st, n in zip(starts, sizes, steps, x.shape)):
        return x
    limits = [s + (z - 1) * st + 1 if z else s for s, z, st in zip(starts, sizes, steps)]
    return S.static_slice(x, start=tuple(starts), limit=tuple(limits), strides=tuple(steps))


def read(x: AbstractArray, r: Region) -> AbstractArray:
    if not r.traced:
        y = _slice(x, r.starts, r.sizes, r.steps)
    elif all(st == 1 for st in r.steps):
        # one dynamic slice, static starts as constants: a static slice first would be
        # a second array that XLA may materialise (a slab of rows around a column read)
        y = S.dynamic_slice(x, *[_index(s) for s in r.starts], sizes=tuple(r.sizes))
    else:
        traced = [is_abstract(s) for s in r.starts]
        y = _slice(x, [0 if t else s for t, s in zip(traced, r.starts)],
                   [n if t else z for t, z, n in zip(traced, r.sizes, x.shape)],
                   [1 if t else st for t, st in zip(traced, r.steps)])
        starts = [cast_to(s, _I64) if t else as_abstract(np.int64(0))
                  for t, s in zip(traced, r.starts)]
        y = S.dynamic_slice(y, *starts, sizes=tuple(r.sizes))
    flips = tuple(a for a, f in enumerate(r.flipped) if f)
    if flips:
        y = S.reverse(y, axes=flips)
    if y.shape != r.out_shape:
        y = S.reshape(y, shape=r.out_shape)
    return y


def write(x: AbstractArray, r: Region, value) -> AbstractArray:
    """New value of `x` with the region replaced by `value` (NumPy setitem casting)."""
    value = broadcast_to_shape(cast_to(as_abstract(value), x.dtype), r.out_shape)
    region_shape = tuple(r.sizes)
    if value.shape != region_shape:
        value = S.reshape(value, shape=region_shape)
    flips = tuple(a for a, f in enumerate(r.flipped) if f)
    if flips:
        value = S.reverse(value, axes=flips)
    if _all_full(x, r):
        return value
    if all(st == 1 for st in r.steps):
        return S.dynamic_update_slice(x, value, *[_index(s) for s in r.starts])
    if r.traced:        # strided, at a traced place: each element to its index
        return scatter_elements(x, region_indices(r), value)
    return _strided_update(x, r, value)


def scatter_elements(x, columns, value):
    """`x` with each element of `value` written at the index that `columns` (one int64
    array of `value`'s shape per axis of `x`, distinct index vectors) give it; indices
    past the end are dropped."""
    count = int(np.prod(value.shape, dtype=np.int64))
    index = S.concatenate(*[S.reshape(c, shape=(count, 1)) for c in columns], axis=1)
    return G.scatter(x, index, S.reshape(value, shape=(count,)), kind="replace",
                     unique=True)


def region_indices(r: Region) -> list:
    """Per base axis, the index of each element of the region (int64 arrays of the
    region's shape `r.sizes`, in the order `write` lays the value out)."""
    shape = tuple(r.sizes)
    out = []
    for d, (start, step) in enumerate(zip(r.starts, r.steps)):
        pos = S.iota(shape=shape, dtype=_I64, dim=d)
        if step != 1:
            pos = E.multiply(pos, broadcast_to_shape(as_abstract(np.int64(step)), shape))
        out.append(E.add(pos, broadcast_to_shape(_index(start), shape)))
    return out


def _index(start):
    """A region start (a Python int or a traced integer) as an int64 scalar array."""
    return cast_to(start, _I64) if is_abstract(start) else as_abstract(np.int64(start))


def _strided_update(x, r, value):
    low = list(r.starts)
    interior = [st - 1 for st in r.steps]
    high = [n - (s + (z - 1) * st + 1) if z else n - s
            for n, s, z, st in zip(x.shape, r.starts, r.sizes, r.steps)]
    zero = as_abstract(np.zeros((), x.dtype))
    spread = S.pad(value, zero, low=tuple(low), high=tuple(high), interior=tuple(interior))
    mask = S.pad(as_abstract(np.ones(value.shape, np.bool_)), as_abstract(np.False_),
                 low=tuple(low), high=tuple(high), interior=tuple(interior))
    return S.select(mask, spread, x)


def _static_index(index):
    return tuple(as_static(i) for i in index) if isinstance(index, tuple) else as_static(index)


def read_at(base, r, index):
    """`base[index]` for the parsed region `r`, folded by NumPy on known constants."""
    if base.const is not None and not r.traced:
        return as_abstract(np.array(base.const[_static_index(index)]))
    return read(base, r)


def write_at(base, r, index, value):
    """`base` with `base[index] = value` for the parsed region `r` (folded on constants)."""
    value = as_abstract(value)
    if base.const is not None and value.const is not None and not r.traced:
        new = base.const.copy()
        new[_static_index(index)] = value.const
        return as_abstract(new)
    return write(base, r, value)
