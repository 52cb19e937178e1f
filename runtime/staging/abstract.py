"""Abstract arrays: mutable handles over immutable SSA values.

An `AbstractArray` carries a NumPy dtype, a static shape, a *weak* flag (a traced
Python scalar, NEP 50) and either an MLIR value or a known constant (a NumPy array:
values computed from constants only are folded by NumPy itself, so `np.array(x.shape)`
stays usable as a shape). In-place updates replace the handle's value, so every alias
of the handle sees them; a *view* is a handle whose value is recomputed from its base
(`fwd`) and whose writes are pushed back into the base (`bwd`).
"""
from __future__ import annotations

import sys

import numpy as np

from npxla.transpiler.base.errors import ConcretizationError, UnsupportedOperationError
from npxla.transpiler.base.origin import locate_stack

from npxla.runtime.staging import journal as _journal
from npxla.runtime.staging.structured_constants import materialise


class NumPyLayer:
    """The two NumPy operations the staging model itself performs: `where(cond, a, b)`
    (reading a switch handle, distributing a write over it) and `conform(value, dtype,
    shape)` (casting and broadcasting an assigned value). The NumPy layer installs them,
    with every operator, method and NumPy protocol of `AbstractArray`
    (`runtime/numpy/methods.py`): this module stays a leaf below it."""
    where = None
    conform = None
    # `refuse_write(cond)`: a write into a read-only array, where the traced bool `cond`
    # holds (None: wherever this line runs); raises NumPy's ValueError or records it
    refuse_write = None


numpy_layer = NumPyLayer()


class AbstractArray:
    __slots__ = ("_ir", "_const", "shape", "dtype", "weak", "deps", "_view", "_version",
                 "_born", "_alias_of", "_alias_bases", "_alias_site", "_switch", "_range",
                 "_selection", "_readonly", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, shape, dtype, *, ir=None, const=None, weak=False, deps=frozenset()):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak = weak
        self.deps = deps
        self._ir = ir
        self._const = const
        self._view = None
        self._version = 0
        self._born = _journal.serial
        # set when this handle may or may not be the same array as another one,
        # depending on data (`y = x; if c: y = x + 1`): writing through it is refused
        self._alias_of = None
        # with `_alias_of`: ((root handle, its version then), ...) of the arrays it may
        # be; reading it after one of them was written is refused (see `mark_ambiguous`)
        self._alias_bases = None
        self._alias_site = None       # where the region that made it ambiguous is
        # (fresh, ((cond, existing handle), ...)): a region's result that *is* each
        # existing handle where its cond holds, else the new array `fresh` (see `switch`)
        self._switch = None
        # a switch's last selected value and the stamp it was selected at: reads
        # while no option changed reuse it (see `_selected`)
        self._selection = None
        # (lo, hi): static bounds of a traced integer (loop indices), so indexing with
        # it needs neither negative-index wrapping nor a bounds check
        self._range = None
        # an argument the caller passed read-only (`flags.writeable` False): a write into
        # it, or into a view of it, raises NumPy's ValueError where it happens
        self._readonly = False

    # --- construction -------------------------------------------------------------
    @classmethod
    def from_const(cls, value, weak=None):
        if weak is None:
            weak = isinstance(value, (bool, int, float, complex))
        arr = np.array(value)
        if weak and isinstance(value, int) and not isinstance(value, bool):
            arr = np.array(value, dtype=np.int64)
        return cls(arr.shape, arr.dtype, const=arr, weak=weak)

    @classmethod
    def view_of(cls, base: "AbstractArray", fwd, bwd):
        """A handle whose value is `fwd(base)` and whose writes become `bwd(base, new)`."""
        first = _current(fwd(base))
        view = cls(first.shape, first.dtype, ir=first._ir, const=first._const,
                   weak=first.weak, deps=first.deps)
        view._view = (base, fwd, bwd, base._stamp())
        return view

    @classmethod
    def switch(cls, fresh: "AbstractArray", options):
        """The result of a data-dependent region that is an existing array on some paths
        (`if c: y = x` / `return x`, or a view of it) and a new one (`fresh`, the
        region's merged value) on the others. `options`: ((cond, existing handle), ...),
        conds are traced bools that hold on exclusive paths. Reading it selects the
        *current* value of the array the path chose, so it sees later in-place updates
        as NumPy's alias would; writing it writes each existing array where its path
        was taken, and `fresh` (private to this handle) on the others."""
        h = cls(fresh.shape, fresh.dtype, ir=fresh._ir, weak=fresh.weak, deps=fresh.deps)
        h._switch = (fresh, tuple(options))
        h._selected()       # selected here, where later regions can all reuse it
        return h

    # --- state ------------------------------------------------------------------------
    def _stamp(self):
        """Changes whenever this handle's value may have changed (views compare it).
        For a switch: the versions of every handle it may select, each once (options
        are often switches that share options: a data-dependent `break` in an unrolled
        loop makes a chain of them, which a walk of every path visits exponentially
        often)."""
        if self._switch is None:
            return self._version
        out: list = []
        seen: set = set()

        def visit(h):
            if id(h) in seen:
                return
            seen.add(id(h))
            if h._switch is None:
                out.append(h._version)
                return
            fresh, options = h._switch
            out.extend((h._version, fresh._version))
            for _, o in options:
                o._refresh() if o._view is not None else None
                visit(o)
        visit(self)
        return tuple(out)

    def _selected(self, memo=None):
        """The switch's current value; `memo` holds the value of every switch among its
        options selected so far in this read, so a shared one is selected once. The
        value is kept with the stamp it was selected at and reused while no option
        changed and it is visible here (not made in a region closed since): a return
        in nested unrolled loops reads chains of switches at every step, and selecting
        them anew at each read doubled the module per loop level."""
        memo = {} if memo is None else memo
        hit = memo.get(id(self))
        if hit is not None:
            return hit
        stamp = self._stamp()
        kept = self._selection
        if kept is not None and kept[0] == stamp and _journal.visible(kept[1]):
            memo[id(self)] = kept[1]
            return kept[1]
        fresh, options = self._switch
        value = fresh
        for cond, o in options:
            if o._switch is not None and o._view is None and o._alias_bases is None:
                o = o._selected(memo)
            value = numpy_layer.where(cond, o, value)
        self._selection = (stamp, value)
        memo[id(self)] = value
        return value

    def _refresh(self):
        base, fwd, bwd, seen = self._view
        base._refresh() if base._view is not None else None
        stamp = base._stamp()
        if stamp != seen:
            fresh = _current(fwd(base))
            _journal.record(self, False)
            self._ir, self._const, self.deps = fresh._ir, fresh._const, fresh.deps
            self._view = (base, fwd, bwd, stamp)
            self._version += 1   # views of this view must refresh too

    @property
    def ir(self):
        """The MLIR value (constants are materialised where they are used)."""
        if self._view is not None:
            self._refresh()
        if self._alias_bases is not None:
            _check_not_stale(self)
        if self._switch is not None:
            return self._selected().ir
        if self._ir is not None:
            return self._ir
        return materialise(self._const)

    @property
    def const(self):
        """The NumPy value when it is known at staging time, else None."""
        if self._view is not None:
            self._refresh()
        if self._alias_bases is not None:
            _check_not_stale(self)
        if self._switch is not None:
            return self._selected().const
        return self._const

    @property
    def is_const(self):
        return self.const is not None

    def assign(self, new: "AbstractArray"):
        """In-place update: this handle (and every alias) now holds `new`."""
        if self._alias_of is not None:
            _refuse_ambiguous_alias(self._alias_of)
        self._range = None
        new = numpy_layer.conform(new, self.dtype, self.shape)
        if self._readonly:
            numpy_layer.refuse_write(None)
        if self._switch is not None:
            fresh, options = self._switch
            for cond, o in options:
                if root_of(o)._readonly:        # only where that path chose it
                    numpy_layer.refuse_write(cond)
                    continue
                o.assign(numpy_layer.where(cond, new, o))
            fresh.assign(new)
            self.deps = self.deps | new.deps
            self._version += 1
            return
        if self._view is not None:
            base, fwd, bwd, _ = self._view
            base.assign(bwd(base, new))
            self._refresh()
        _journal.record(self, True)
        self._ir, self._const = new._ir, (None if new._const is None else np.array(new._const))
        self.deps = self.deps | new.deps
        self._version += 1

    @property
    def mutated(self):
        return self._version > 0

    # --- array attributes ---------------------------------------------------------
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self):
        kind = "const" if self._const is not None and self._view is None else "traced"
        weak = ", weak" if self.weak else ""
        return f"AbstractArray({kind}, shape={self.shape}, dtype={self.dtype}{weak})"

    __hash__ = None

    # --- conversion to Python values ------------------------------------------------
    def _concrete(self, what):
        c = self.const
        if c is None:
            raise ConcretizationError(
                f"a traced array (shape {self.shape}, {self.dtype}) was used where a "
                f"concrete Python {what} is needed", deps=self.deps)
        return c

    def __bool__(self):
        return bool(self._concrete("bool"))

    def __index__(self):
        c = self._concrete("int")
        if c.dtype.kind not in "iub":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(c)

    def __int__(self):
        return int(self._concrete("int"))

    def __float__(self):
        return float(self._concrete("float"))

    def __complex__(self):
        return complex(self._concrete("complex"))

    def __array__(self, dtype=None, copy=None):
        c = self._concrete("NumPy array")
        return c if dtype is None else c.astype(dtype)

    def item(self, *args):
        return self._concrete("scalar").item(*args)

    def tolist(self):
        return self._concrete("list").tolist()


def _current(h: "AbstractArray") -> "AbstractArray":
    """A handle whose raw `_ir`/`_const` hold `h`'s value now. A view's fields are only
    current after a refresh, and a switch's never are (its value is selected from its
    options when read): `fwd` of an identity view (`x[:]`) hands back the switch itself,
    and copying its fields gave the value it had when the `if` ended, so every write
    made since was lost."""
    if h._view is not None:
        h._refresh()
    return h._selected() if h._switch is not None else h


def _refuse_ambiguous_alias(where):
    made = "" if where != "loop" else " (or a view the loop made of an array from outside it)"
    raise UnsupportedOperationError(
        f"after the data-dependent {where}, this array may be the same array as another "
        f"variable{made} on some paths and a new array on others, so an in-place update "
        "would change the other variable only sometimes; that cannot be compiled",
        hint="copy it before updating in place (y = y.copy()), or write y = y + v "
             "instead of y += v")


def root_of(x: AbstractArray) -> AbstractArray:
    """The array a chain of views ends in (the one that owns the memory)."""
    while x._view is not None:
        x = x._view[0]
    return x


def mark_ambiguous(handle, where, candidates):
    """`handle` (a region's result) is one of the existing arrays `candidates` on some
    paths and a new array on others. Writing through it is refused (see `assign`), and
    so is reading it after one of the candidates was written: the staged value is a
    copy taken at the end of the region and would miss the write, where NumPy's alias
    sees it."""
    bases = {}
    stack = list(candidates)
    while stack:
        c = stack.pop()
        for root, version in (c._alias_bases or ()):
            bases.setdefault(id(root), (root, version))
        root = root_of(c)
        if root._switch is not None:
            stack.extend(o for _, o in root._switch[1])
        else:
            bases.setdefault(id(root), (root, root._version))
    handle._alias_of = where
    handle._alias_bases = tuple(bases.values())
    handle._alias_site = locate_stack(sys._getframe(1))


def _check_not_stale(handle):
    for root, version in handle._alias_bases:
        if root._version != version:
            handle._alias_bases = None      # refused once; the error may be caught
            # read by npxla itself (the function's results): point at the region
            site = None if locate_stack(sys._getframe(1)) is not None else \
                handle._alias_site
            raise UnsupportedOperationError(
                f"after the data-dependent {handle._alias_of}, this array may be the same "
                "array as another variable on some paths and a new array on others; that "
                "other array was then updated in place, so whether this one sees the "
                "update depends on data; that cannot be compiled",
                hint="copy it where it is assigned (y = x.copy()) so it never shares "
                     "memory with another variable, or read the other variable instead",
                location=site)


def is_abstract(x) -> bool:
    return type(x) is AbstractArray


def as_abstract(x) -> AbstractArray:
    """Lift a Python/NumPy value to a (constant) abstract array; handles pass through."""
    if type(x) is AbstractArray:
        return x
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        return AbstractArray.from_const(x, weak=True)
    arr = np.asarray(x)
    if arr.dtype == object:
        raise TypeError(f"cannot use {type(x).__name__} as an array in compiled code")
    return AbstractArray.from_const(arr, weak=False)
