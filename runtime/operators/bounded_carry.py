"""Arrays of run-time length kept in a variable across a staged branch or loop.

A staged `if` or `while` gives each variable one static type. An array whose length is
only known at run time (a `BoundedArray`: `x[x > t]`, `y[:k]`) has one: its buffer's
shape (the bound) and dtype, plus an int64 offset and count per dynamic axis. So such
a variable is carried as those parts (`Parts`, a named tuple the staging machinery
flattens like any other) and rebuilt after the branch or each iteration; the paths may
give different run-time lengths, or a static array of the bound's shape (its count is
then its length).

Different bounds:
- the paths of a data-dependent `if` (not one on loop indices or Python arguments,
  which unrolls or specialises instead) may give arrays of different static shapes or
  bounds (`z = np.hstack((z, v))` on one path only): the variable gets the largest
  bound, the smaller buffers are copied into buffers of that length;
- a `for` loop with a static trip count T may grow a variable by a fixed step per
  iteration (`z = np.hstack((z, v))`, with or without a `break`): its bound is its
  length before the loop plus T steps, and each iteration's buffer is cut back to that
  bound (the count is checked to fit at run time; by the step it always does).
A buffer copied so is not the array it was made from: writing through the variable
afterwards is refused (`mark_ambiguous`), as is reading it after a write to the
original, so no alias can silently miss a write. Other different bounds are refused.

Which variables hold such arrays is only known once a path has been traced, so the
plan (position in the variables' tree -> bound, dynamic axes, growth step) is learned
as the paths run, and the branch or loop is traced again once it changed.

Empty on one path: `if len(locs) == 0: return np.array([])` (float64) beside the
int64 indices `locs` of the other path. Where the `if` can be assumed, the paths' dtypes
stay NumPy's (`exact_dtypes_for`); elsewhere (inside a staged loop) promotion made the
indices float64, and the later `x[locs[0]]` a false IndexError (emd's sift). A static
array with no elements takes the dtype the other paths' arrays have there: no value
changes, only the empty array's dtype (its path's sums are then 0, not 0.0).
"""
from __future__ import annotations

import contextvars
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from npxla.transpiler.base.errors import ShapeMismatchError, TranspileError

from npxla.runtime.staging.abstract import (AbstractArray, as_abstract, mark_ambiguous,
                                            root_of)
from npxla.runtime.staging.bounded import BoundedArray, Extent, is_bounded
from npxla.runtime.staging.variables import Undefined, UndefinedReturnValue
from npxla.runtime.numpy.arrays.bounded import MAX_CREATED
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.errorflags import check

_ATTEMPTS = 6
# the condition of the `if` statement whose paths must give each array one dtype (set by
# `if_statements.if_stmt` where the condition can be assumed instead): its paths' arrays
# of different dtypes raise a `paths_differ` error rather than being promoted
exact_dtypes_for = contextvars.ContextVar("exact_dtypes_for", default=None)
_UNSET = (Undefined, UndefinedReturnValue)


class Parts(namedtuple("Parts", "buf offsets counts")):
    """A bounded array as carried values: its buffer, and per axis the offset and count
    of the valid window (None on the static axes)."""
    __slots__ = ()


class _Regrow(Exception):
    """A loop body changed the plan (a variable grew, or became an array of run-time
    length): trace the loop again with its initial values encoded by the new plan."""


@dataclass
class Entry:
    bound: tuple
    axes: frozenset
    example: object = None       # a bounded array met there (for the refusal)
    step: tuple = None           # loops: the growth per iteration


def _is_array(x):
    return is_bounded(x) or isinstance(x, (AbstractArray, np.ndarray))


def _shape(x):
    return tuple(x.bound) if is_bounded(x) else tuple(np.shape(x))


def _either(a, b):
    return a if a is not None else b


def _differing(a, b):
    return frozenset(k for k, (m, n) in enumerate(zip(a, b)) if m != n)


class Plan:
    """What `encode` makes of each position of the carried tree (see the module)."""

    def __init__(self, grow=False, trips=None):
        self.entries: dict = {}
        self.version = 0
        self.conflict = None
        self.grow = grow            # `if`: different bounds on the paths are padded
        self.trips = trips          # a static bound on the trips lets a variable grow
        #                             (an int, or a thunk giving one: `loops.trip_bound`)
        self.seen: dict = {}        # position -> first static shape met (this attempt)
        self.copied: dict = {}      # position -> pre-loop buffer copied into a bound
        self.growing = None         # (position, step) of a loop variable that grew
        self.start_version = 0      # the plan the loop's initial values were encoded by
        self.dtypes: dict = {}      # position -> dtype of the first array with elements
        self.empties: dict = {}     # position -> dtype of a static empty array met there
        self.redo = False           # an empty array met before its position's dtype

    def settle_dtype(self, path, x):
        """`x`, a static array with no elements, in the dtype of the arrays with elements
        met at `path` (see the module); other arrays are noted."""
        dtype = np.dtype(x.dtype)
        if not is_bounded(x) and 0 in _shape(x):
            want = self.dtypes.get(path)
            if want is None or want == dtype:
                self.empties[path] = dtype
                return x
            return x.astype(want) if isinstance(x, np.ndarray) else cast_to(x, want)
        if path not in self.dtypes:
            self.dtypes[path] = dtype
            self.redo |= self.empties.get(path, dtype) != dtype
        return x

    def _set(self, path, bound, axes, example, step=None):
        self.entries[path] = Entry(tuple(int(n) for n in bound), frozenset(axes), example,
                                   step)
        self.version += 1

    def _refuse_later(self, path, example, other):
        if self.conflict is None:
            self.conflict = (path, example, other)

    def see(self, path, x):
        """Note an array met at `path`: a bounded one plans the position (widened where
        the paths' bounds differ and `grow` allows it); static arrays only count where
        a bounded one is planned (static shapes that differ stay a ShapeMismatchError)."""
        shape = _shape(x)
        axes = frozenset(x.dynamic_axes()) if is_bounded(x) else frozenset()
        entry = self.entries.get(path)
        if entry is None:
            first = self.seen.setdefault(path, shape)
            if not is_bounded(x):
                return
            if first == shape:
                self._set(path, shape, axes, x)
            elif self.grow and len(first) == len(shape):
                self._set(path, np.maximum(first, shape), axes | _differing(first, shape), x)
            else:
                self._refuse_later(path, x, first)
            return
        if entry.step is not None:      # a growing loop variable: at most bound + step
            top = tuple(n + d for n, d in zip(entry.bound, entry.step))
            if len(shape) != len(top) or any(m > n for m, n in zip(shape, top)):
                self._refuse_later(path, _either(entry.example, x), shape)
            return
        if shape != entry.bound and not (self.grow and len(shape) == len(entry.bound)):
            self._refuse_later(path, _either(entry.example, x), shape)
            return
        bound = tuple(int(n) for n in np.maximum(entry.bound, shape))
        new_axes = entry.axes | axes | _differing(entry.bound, shape)
        if (bound, new_axes) != (entry.bound, entry.axes):
            self._set(path, bound, new_axes, _either(entry.example, x if is_bounded(x) else None))

    def plan_growth(self, path, before, after):
        """A loop body took an array of shape `before` and gave one of `after`: with a
        static trip count, its bound is `before` plus that many steps."""
        step = tuple(m - n for m, n in zip(after, before))
        if len(before) == len(after) and min(step) >= 0:
            self.growing = (path, step)
        entry = self.entries.get(path)
        if self.trips is None or len(before) != len(after) or min(step) < 0 or \
                entry is not None and (entry.step is not None or entry.bound != before):
            return False
        if callable(self.trips):
            self.trips = self.trips()
        bound = tuple(n + d * self.trips for n, d in zip(before, step))
        if int(np.prod(bound)) > MAX_CREATED:
            return False
        axes = _differing(before, after) | (entry.axes if entry is not None else frozenset())
        self._set(path, bound, axes, None if entry is None else entry.example, step)
        return True

    def refuse(self, names):
        path, example, other = self.conflict
        name = names[path[0]] if path and isinstance(path[0], int) and \
            path[0] < len(names) else "a variable"
        what = (f"keeping it in '{name}' across a staged branch or loop iteration where "
                f"another path gives '{name}' an array of another bound (at most "
                f"{getattr(example, 'bound', None)} and at most {other})")
        hint = (f"give '{name}' arrays sliced or selected from arrays of the same shape on "
                "every path (for example by slicing one preallocated array), or keep it a "
                "full-size array and its length in a separate variable")
        if is_bounded(example):
            example.refuse(what, hint=hint)
        raise ShapeMismatchError(f"'{name}' has arrays of different shapes on the paths "
                                 f"of a staged branch or loop ({other})", hint=hint)


def _walk(tree, fn, path=()):
    t = type(tree)
    if t is tuple or t is list:
        return t(_walk(x, fn, path + (i,)) for i, x in enumerate(tree))
    if t is dict:
        return {k: _walk(v, fn, path + (k,)) for k, v in tree.items()}
    return fn(path, tree)


def encode(tree, plan: Plan, where="branch"):
    """`tree` with the bounded arrays, and the arrays where the plan knows one, as
    `Parts` fitted to the planned bound (noting what it meets in the plan). `where`:
    "branch" (a copy made to fit is marked ambiguous inside the branch), "init" (a
    loop's initial values: copies are remembered in `plan.copied`) or "body"."""
    def one(path, x):
        if _is_array(x):
            if where == "branch" and exact_dtypes_for.get() is None:
                x = plan.settle_dtype(path, x)
            plan.see(path, x)
        entry = plan.entries.get(path)
        if entry is None:
            return x
        if type(x) in _UNSET:
            parts = tuple(x if a in entry.axes else None for a in range(len(entry.bound)))
            return Parts(x, parts, parts)
        if not _is_array(x) or len(_shape(x)) != len(entry.bound):
            return x
        if where == "branch" and is_bounded(x):
            x = BoundedArray(_unviewed(x.buf), x.ext, x.extent_deps)
        parts = _fitted(x, entry)
        source = x.buf if is_bounded(x) else x
        if parts.buf is not source:
            if where == "branch":
                mark_ambiguous(parts.buf, "branch", [source])
            elif where == "init":
                plan.copied[path] = source
        return parts
    return _walk(tree, one)


def _unviewed(buf):
    """A view that is all of its base, element for element (the buffer of `x[:k]` is
    `x[:]`), as the base itself: each path makes a view of its own, which the `if` could
    not name after it, while the base is one array every path shares."""
    while type(buf) is AbstractArray and buf._view is not None:
        base = buf._view[0]
        if type(base) is not AbstractArray or base.shape != buf.shape or \
                base.dtype != buf.dtype or buf.ir != base.ir:
            break
        buf = base
    return buf


def _fitted(x, entry):
    """`x` as the parts of an array of `entry`'s bound: a buffer of another length is
    moved to the front of one of that length (a copy); one longer than the bound (a
    grown loop variable) is cut back to it, with a run-time check that its valid part
    fits."""
    buf = x.buf if is_bounded(x) else as_abstract(x)
    ext = [e or Extent(0, n) for e, n in zip(x.ext, x.bound)] if is_bounded(x) else \
        [Extent(0, n) for n in buf.shape]
    for a, n in enumerate(entry.bound):
        if buf.shape[a] == n:
            continue
        if buf.shape[a] > n:
            check(B.compare(ext[a].count, n, "GT"), "an array grown in a loop outgrew the "
                  "bound its trip count gives it", error=RuntimeError)
        buf = B.relocate(buf, a, ext[a].offset, 0, n)
        ext[a] = Extent(0, ext[a].count)
    return Parts(buf, tuple(e.offset if a in entry.axes else None for a, e in enumerate(ext)),
                 tuple(e.count if a in entry.axes else None for a, e in enumerate(ext)))


def decode(tree):
    """`tree` with every `Parts` rebuilt as the bounded (or static) array it carries."""
    def one(path, x):
        if type(x) is not Parts or type(x.buf) in _UNSET:
            return x if type(x) is not Parts else x.buf
        buf = x.buf
        ext = []
        for a, (off, count) in enumerate(zip(x.offsets, x.counts)):
            full = off is None or (B.known(off) == 0 and B.known(count) == buf.shape[a])
            ext.append(None if full else Extent(off, count))
        return B.make(buf, ext)
    return _walk(tree, one)


# --- the staged `if` ----------------------------------------------------------------------
def stage_if(pred, branches, names, single, stage, grow=False):
    """`stage(pred, branches, names, single)` (the staged `if`) with bounded results
    carried as their parts; with `grow`, paths may give arrays of different shapes."""
    plan = Plan(grow=grow)
    for _ in range(_ATTEMPTS):
        seen = plan.version
        plan.seen = {}

        def encoded(fn):
            return lambda: encode(fn(), plan)
        try:
            out = stage(pred, [encoded(fn) for fn in branches], names, single)
        except TranspileError:
            if plan.conflict is not None and grow:
                plan.refuse(names)
            if plan.version != seen and plan.conflict is None:
                continue            # a later path met a bounded array: trace again
            raise                   # (without `grow`: unrolled or specialised instead)
        if plan.redo:               # an empty array's dtype is known now: trace again
            plan.redo = False
            continue
        return decode(out) if plan.entries else out
    if plan.conflict is not None and grow:
        plan.refuse(names)
    return stage(pred, branches, names, single)


# --- staged loops ---------------------------------------------------------------------------
def stage_while(pred0, test, body, init, names, stage, trips=None, **options):
    """`stage(pred0, test, body, init, names, **options)` (the staged loop) with bounded
    carried values carried as their parts; with `trips` (a `for` loop's static trip
    count), a variable may grow by a fixed step per iteration."""
    plan = Plan(trips=trips)
    options.setdefault("key", body.__code__)     # the user's body, not the wrapper
    for _ in range(_ATTEMPTS):
        plan.seen = {}
        plan.copied = {}
        start = encode(tuple(init), plan, "init")
        seen = plan.start_version = plan.version
        try:
            out = stage(pred0, lambda *c: test(*decode(c)), _body(body, plan, names), start,
                        names, **options)
        except _Regrow:
            continue
        except TranspileError as e:
            if plan.conflict is not None:
                plan.refuse(names)
            if plan.version != seen:
                continue
            _growth_hint(e, plan, names)
            raise
        if out is None or not plan.entries:
            return out
        for path, source in plan.copied.items():     # the loop may not have run at all
            parts = _at(out, path)
            if type(parts) is Parts and type(parts.buf) is AbstractArray:
                mark_ambiguous(parts.buf, "loop", [source])
        return tuple(decode(tuple(out)))
    if plan.conflict is not None:
        plan.refuse(names)
    return stage(pred0, test, body, init, names, **options)


def _growth_hint(e, plan, names):
    """A variable that grows in a loop without a static trip count: say how to bound
    it (the loop's own error says what differs)."""
    if not isinstance(e, ShapeMismatchError) or plan.growing is None:
        return
    path, step = plan.growing
    name = names[path[0]] if path and isinstance(path[0], int) and path[0] < len(names) \
        else "it"
    e.hint = (f"'{name}' grows by {step} in every iteration of a loop with no static bound "
              f"on its trip count (a `while`, or a range of traced length): write the "
              f"loop as `for i in range(n_max):` with a `break` (then '{name}' is an array "
              f"of run-time length, at most n_max steps long), or preallocate '{name}' "
              f"with its final shape and fill it with '{name}[i] = ...'")


def _at(tree, path):
    for k in path:
        tree = tree[k]
    return tree


def _body(body, plan, names):
    def run(*carried):
        given = decode(carried)
        out = tuple(body(*given))
        if _grows(given, out, plan) and plan.trips is not None:
            raise _Regrow()
        _check_unshared(out, plan, names)
        encoded = encode(out, plan, "body")
        if plan.version != plan.start_version:
            raise _Regrow()     # the values before the loop need the new plan too
        return encoded
    return run


def _grows(given, out, plan) -> bool:
    """Whether a variable the body got as one shape it gave back longer (planned now)."""
    found = []

    def one(path, x):
        found.append((path, x))
        return x
    _walk(given, one)
    before = dict(found)
    grew = False

    def compare(path, x):
        nonlocal grew
        old = before.get(path)
        entry = plan.entries.get(path)
        if _is_array(x) and _is_array(old) and (entry is None or entry.step is None) and \
                _shape(x) != _shape(old):
            grew = plan.plan_growth(path, _shape(old), _shape(x)) or grew
        return x
    _walk(out, compare)
    return grew


def _check_unshared(out, plan, names):
    """A planned loop variable whose buffer is cut back to its bound must not be the
    array another variable holds too: the copy would not see the other's writes."""
    roots: dict = {}

    def one(path, x):
        buf = x.buf if is_bounded(x) else x
        if type(buf) is AbstractArray:
            roots.setdefault(id(root_of(buf)), []).append(path)
        return x
    _walk(out, one)
    for paths in roots.values():
        grown = [p for p in paths if p in plan.entries and plan.entries[p].step]
        if grown and len(paths) > 1:
            plan._refuse_later(grown[0], None, "the same array as another variable")
            plan.refuse(names)
