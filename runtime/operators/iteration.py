"""What a `for` loop iterates over, described so it can be staged by index.

`range` objects, arrays (rows; of an array of run-time length, a traced count of them),
and `range`/`enumerate`/`zip` over traced values are described by an `Iteration`: a
trip count (a Python int when static) and the item for a traced index. Anything else
(lists, tuples, dicts, generators) is not described and the loop stays a Python loop.
`converted_call` routes `range`, `enumerate`, `zip` (with traced arguments) and
`reversed` (of a range too) here; the descriptors still iterate like the builtins they
replace when used outside a `for` (`list(enumerate(x))`).
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.catalogue import TRACED_RANGE_ITERATED

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.extents import value_range


def _static(x):
    return not (is_abstract(x) and x.const is None)


class Iteration:
    count = 0

    @property
    def static(self):
        return _static(self.count)

    def item(self, i):
        raise NotImplementedError

    def python(self):
        """The items for a Python loop (static trip count only)."""
        raise NotImplementedError

    def __iter__(self):
        if not self.static:
            raise TRACED_RANGE_ITERATED.error_for(deps=self.count.deps,
                                                  how="a range, enumerate or zip")
        return iter(self.python())


class RangeItems(Iteration):
    def __init__(self, start, stop, step):
        for v in (start, stop, step):
            if is_abstract(v) and v.dtype.kind not in "iub":
                raise TypeError(f"'{v.dtype}' object cannot be interpreted as an integer")
        self.start, self.stop, self.step = start, stop, step
        self.count = _range_length(start, stop, step)

    def item(self, i):
        out = self.start + i * self.step
        if is_abstract(out) and out is not i and not out.shape:
            bounds, known = self._item_range(), out._range
            if bounds is not None and known is not None:   # the index's own range too
                bounds = (max(bounds[0], known[0]), min(bounds[1], known[1]))
            if bounds is not None and bounds[0] <= bounds[1]:
                out._range = bounds
        return out

    def _item_range(self):
        """(lo, hi) every item lies in when the bounds' ranges are known, even with a
        traced trip count (`for j in range(i)` inside a loop over i): slices bounded by
        the item then need no wrapping or clipping (see `bounded_core.value_range`)."""
        if not _static(self.step) or int(self.step) == 0:
            return None
        start, stop = value_range(self.start), value_range(self.stop)
        if start is None or stop is None:
            return None
        lo, hi = (start[0], stop[1] - 1) if int(self.step) > 0 else (stop[0] + 1, start[1])
        return (lo, hi) if lo <= hi else None

    def python(self):
        return range(int(self.start), int(self.stop), int(self.step))


def _range_length(start, stop, step):
    if _static(start) and _static(stop) and _static(step):
        return len(range(int(start), int(stop), int(step)))
    if _static(step):
        step = int(step)
        if step == 0:
            raise ValueError("range() arg 3 must not be zero")
        if step in (1, -1):
            # `stop - start`, clamped at 0, with the interval rules: a triangular inner
            # loop (`for j in range(i)`) then knows its trip count's bound, and its
            # index needs no overflow checks (see `loops._staged_for`)
            span = B.sub(stop, start) if step == 1 else B.sub(start, stop)
            return B.maximum(span, 0)
        span = (stop - start + step - 1) // step if step > 0 else \
            (start - stop - step - 1) // (-step)
        return np.maximum(span, 0)
    up = np.maximum((stop - start + step - 1) // step, 0)
    down = np.maximum((start - stop - step - 1) // (-step), 0)
    return np.where(step > 0, up, down)


class Rows(Iteration):
    def __init__(self, array):
        if not array.shape:
            raise TypeError("iteration over a 0-d array")
        self.array = array
        self.count = array.shape[0]

    def item(self, i):
        if not is_abstract(i) or i.const is not None:
            return self.array[int(i)]
        a = self.array
        zero = as_abstract(np.int64(0))
        index = i if i.dtype == np.int64 else S.convert(i, dtype=np.int64)
        row = S.dynamic_slice(a, index, *[zero] * (a.ndim - 1), sizes=(1,) + a.shape[1:])
        return S.reshape(row, shape=a.shape[1:])

    def python(self):
        return (self.array[k] for k in range(self.count))


class BoundedRows(Iteration):
    """The rows of an array of run-time length (`for v in x[x > 0]`): a traced trip
    count when its first axis is the dynamic one (the loop is then one staged `while`,
    as over `range(len(x))`), each row read from the buffer at the window's offset."""

    def __init__(self, array):
        self.array = array
        e = array.ext[0]
        self.count = array.bound[0] if e is None or array.bound[0] == 0 else \
            B.weak_count(e.count, array.extent_deps, array.bound[0])

    def item(self, i):
        a = self.array
        e = a.ext[0]
        if e is None:           # a static first axis: rows of run-time length
            return a[i]
        index = B.traced(B.add(e.offset, i))
        zero = as_abstract(np.int64(0))
        row = S.dynamic_slice(a.buf, index, *[zero] * (a.ndim - 1), sizes=(1,) + a.bound[1:])
        return B.make(S.reshape(row, shape=a.bound[1:]), a.ext[1:], a.extent_deps)

    def python(self):
        return (self.array[k] for k in range(self.count))


class Enumerate(Iteration):
    def __init__(self, inner, start=0):
        self.inner, self.start = inner, start
        self.count = inner.count

    def item(self, i):
        return (self.start + i, self.inner.item(i))

    def python(self):
        return enumerate(self.inner.python(), self.start)


class Zip(Iteration):
    def __init__(self, parts):
        self.parts = parts
        counts = [p.count for p in parts]
        if all(_static(c) for c in counts):
            self.count = min(int(c) for c in counts)
        else:
            count = counts[0]
            for c in counts[1:]:
                count = np.minimum(count, c)
            self.count = count

    def item(self, i):
        return tuple(p.item(i) for p in self.parts)

    def python(self):
        return zip(*[p.python() for p in self.parts])


class Reversed(Iteration):
    """`reversed(seq)` of a range or of an array's rows: the same items, last first
    (trip `i` takes item `count - 1 - i`). Left to Python, `for t in
    reversed(range(n))` (a Kalman smoother's backward pass) ran as a Python loop over
    the items: unrolled, the compiled program grew with `n` (200 trips: 12 s of XLA
    compile against 0.2 s as a loop)."""

    def __init__(self, inner):
        self.inner = inner
        self.count = inner.count
        self._items = None          # the items `next()` has not taken yet

    def item(self, i):
        j = self.count - 1 - i
        if is_abstract(j) and is_abstract(i) and i.weak and not j.weak:
            # a count from array data (`reversed(range(np.argmax(x)))`) is an int64,
            # the index a Python int as the forward loop's: the items stay Python ints
            ranged = j._range
            j = AbstractArray(j.shape, j.dtype, ir=j.ir, weak=True, deps=j.deps)
            j._range = ranged
        return self.inner.item(j)

    def python(self):
        items = self.inner.python()
        return reversed(items if isinstance(items, range) else list(items))

    def __next__(self):
        """`next(reversed(range(n)))`: the builtin's result is an iterator (static
        trip counts only, as in any Python iteration of these descriptors)."""
        if self._items is None:
            self._items = iter(self)
        return next(self._items)


def over_run_time_length(it) -> bool:
    """Whether `it` iterates over the rows of an array of run-time length."""
    if isinstance(it, BoundedRows):
        return True
    if isinstance(it, (Enumerate, Reversed)):
        return over_run_time_length(it.inner)
    return isinstance(it, Zip) and any(over_run_time_length(p) for p in it.parts)


def iteration_of(x):
    """The Iteration describing `x`, or None when `x` is iterated as Python."""
    if isinstance(x, Iteration):
        return x
    if type(x) is range:
        return RangeItems(x.start, x.stop, x.step)
    if type(x) is AbstractArray:
        return Rows(x)
    if is_bounded(x):
        return BoundedRows(x)
    return None


def traced_range(*args):
    """`range(...)` when a bound is traced (a Python range otherwise)."""
    if all(_static(a) for a in args):
        return range(*[int(a) for a in args])
    start, stop, step = (0, args[0], 1) if len(args) == 1 else \
        (args[0], args[1], 1) if len(args) == 2 else args
    return RangeItems(start, stop, step)


def traced_enumerate(iterable, start=0):
    inner = iteration_of(iterable)
    return enumerate(iterable, start) if inner is None else Enumerate(inner, start)


def traced_reversed(seq):
    """`reversed(seq)`: described when `seq` is a range or an array (also one of
    run-time length), else the builtin's iterator (a list, a user's `__reversed__`)."""
    inner = iteration_of(seq)
    if type(inner) not in (RangeItems, Rows, BoundedRows) or \
            (type(seq) is AbstractArray and not seq.shape):
        return reversed(seq)
    return Reversed(inner)


def traced_zip(*iterables, **kwargs):
    parts = [iteration_of(x) for x in iterables]
    if kwargs or not parts or any(p is None for p in parts):
        return zip(*iterables, **kwargs)
    return Zip(parts)
