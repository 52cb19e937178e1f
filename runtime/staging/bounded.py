"""Bounded arrays: arrays whose extent along some axes is only known at run time.

`A[i, :j]` inside a staged loop, `A_col[A_row[i]:A_row[i + 1]]` and `x[x < 0]` have a
length that depends on a traced value, but each has a static *bound*: a slice selects
at most the axis it slices, a mask at most every element. A `BoundedArray` keeps a
buffer of the bound's static shape (`buf`, an ordinary abstract array, usually a view
of the sliced array so that writes reach it) and, per dynamic axis, the traced offset
and count of the valid elements inside the buffer: `buf[off:off + count]` along that
axis is the array NumPy would have. Elements outside are padding with arbitrary values;
every operation that could let them into a result (a reduction, a contraction, an
assignment into a static array) masks them first.

It is deliberately *not* an `AbstractArray`: code that knows nothing of dynamic extents
cannot mistake one for a static array and compute on its padding. The NumPy layer
installs the operations that handle them (`runtime/numpy/bounded_*.py`) through
`bounded_layer`; everything else asks for a Python value and is refused, with the
extent's dependencies, so a loop index makes staging unroll that loop (as before dynamic
extents existed) and data gets a located error.
"""
from __future__ import annotations

from dataclasses import dataclass

from npxla.transpiler.base.catalogue import RUN_TIME_LENGTH

from npxla.runtime.staging.speculation import RerunSignal


@dataclass(frozen=True)
class Extent:
    """The valid part of one axis of a buffer: `count` elements from `offset`. Either
    may be a Python int (known) or a traced int64 scalar `AbstractArray`, with
    0 <= offset and offset + count <= the buffer's length on that axis."""
    offset: object
    count: object


class BoundedLayer:
    """Set by the NumPy layer (`runtime/numpy/bounded_methods.py`): `call(entry, fn,
    args, kwargs)` runs a registered NumPy function some of whose arguments are bounded
    arrays; `getitem(x, index)`/`setitem(x, index, value)` handle indices and values
    with dynamic extents on ordinary arrays."""
    call = None
    getitem = None
    setitem = None


bounded_layer = BoundedLayer()


class BoundedArray:
    __slots__ = ("buf", "ext", "deps", "extent_deps", "weak", "selection", "__weakref__")
    __array_priority__ = 2000

    def __init__(self, buf, ext, deps=frozenset()):
        self.buf = buf
        self.ext = tuple(ext)
        # what decides the extents (a loop index, array data): given by the maker, since
        # the extent arithmetic itself does not track dependencies
        self.extent_deps = frozenset(deps)
        for e in self.ext:
            if e is not None:
                for v in (e.offset, e.count):
                    self.extent_deps |= getattr(v, "deps", frozenset())
        self.deps = self.extent_deps | buf.deps
        self.weak = False
        # for `x[mask]` and what elementwise ops make of it: (rows, flat mask, the
        # buffer's value then): the same elements in place, unselected ones among them.
        # Reductions that ignore order read it instead of the compacted buffer (XLA then
        # drops the compaction, a scan and a scatter); a write to the buffer voids it.
        self.selection = None

    @property
    def dtype(self):
        return self.buf.dtype

    @property
    def ndim(self):
        return self.buf.ndim

    @property
    def bound(self):
        """The buffer's static shape: the largest shape the array can have."""
        return self.buf.shape

    @property
    def const(self):
        return None

    def dynamic_axes(self):
        return [a for a, e in enumerate(self.ext) if e is not None]

    def refuse(self, what, hint=None):
        """Raise for an operation that needs this array's shape as a Python value (the
        catalogue's NPX115, which the linter reports from the source); `hint`, when
        given, says what to write instead of the catalogue's general advice."""
        err = RUN_TIME_LENGTH.error_for(
            deps=self.extent_deps, fn=what,
            how=f"a slice bound or selection traced while the program runs; at most "
                f"{self.bound}")
        if hint is not None:
            err.hint = hint
        raise err

    def __bool__(self):
        self.refuse("truth testing")

    def __index__(self):
        self.refuse("using it as an integer")

    def __int__(self):
        self.refuse("int()")

    def __float__(self):
        self.refuse("float()")

    def __iter__(self):
        # a `for` statement is staged as a loop with the run-time count as its trip
        # count (`operators.iteration.BoundedRows`); what reaches here iterates in
        # Python: a comprehension, list(), tuple(), unpacking
        self.refuse("iterating over it in Python (a comprehension, list(), unpacking)",
                    hint=ITERATION_HINT)

    def __array__(self, dtype=None, copy=None):
        self.refuse("converting it to a NumPy array")

    def __str__(self):
        # text is needed now (library code's `"%s" % x`, `str.join`); print, logging and
        # f-strings in converted code format it at run time instead
        self.refuse("str()")

    def __format__(self, spec):
        self.refuse("format()")

    def __len__(self):
        self.refuse("len()")

    def __hash__(self):
        return id(self)

    def __repr__(self):
        dims = ", ".join("?" if e is not None else str(n) for n, e in zip(self.bound, self.ext))
        return f"BoundedArray(shape=({dims}), bound={self.bound}, dtype={self.dtype})"


ITERATION_HINT = (
    "a Python list of run-time length cannot be compiled; compute the values as an array "
    "instead: an expression on the whole array (np.log(v) for [np.log(e) for e in v]), "
    "or a `for` statement that fills a preallocated one (out = np.zeros(len(v)); "
    "for i, e in enumerate(v): out[i] = f(e)), which runs as one loop of the run-time "
    "length")


class WindowOverflow(RerunSignal):
    """A run whose speculative windows (`runtime/numpy/bounded_window.py`) were too
    short for the data: `needs` maps each window's site to the length it needed. The
    driver widens those windows, stages again and reruns the call; the caller never sees
    this exception, and nothing of the failed run reached the caller's arrays."""

    def __init__(self, needs):
        super().__init__(needs)
        self.needs = dict(needs)


def is_bounded(x) -> bool:
    return type(x) is BoundedArray
