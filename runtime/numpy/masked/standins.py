"""What NumPy returns for an operation on masked arrays, asked of NumPy itself.

Whether `np.dot(M, m)`, `m[t]`, `m.T`, `m.sum(0)` or `np.float64(1) + m` gives a masked
array, and whether its mask is `np.ma.nomask` or an all-False array, follows from
`np.ma`'s code paths (a method of `MaskedArray`, a ufunc's `__array_wrap__`, a function
that calls `asarray`), not from a rule one could write down once. So every operation on
a masked handle also runs in NumPy on *stand-ins*: arrays of the operands' shapes,
dtypes and Python types (a `MaskedArray` with the same kind of mask where the handle is
a masked array), holding the operands' values where they are known constants and
harmless values (in every domain, not singular) otherwise. The stand-in result's types
are the result's types (`mark_like`); its values are never used.

An operation whose masked result depends on the values (a division by zero) is
checked on the values themselves (`domains`); a stand-in result that masks an element
anyway means the stand-ins fell outside a domain, and the next set of values is tried.
"""
from __future__ import annotations

import contextlib
import warnings

import numpy as np

from npxla.transpiler.base import catalogue as C

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import BoundedArray
from npxla.runtime.staging.pytypes import (FALSE, NOMASK, is_marked, mark_masked,
                                           mark_ndarray, mask_state)
from npxla.runtime.numpy.core.registry import masked_routes
from npxla.runtime.numpy.indexing.indexing import getitem as _plain_getitem

# (float off the diagonal, float on it, integer, bool): the values of unknown operands
# for one attempt. Square trailing matrices get a distinct diagonal, so that they are
# symmetric positive definite (inv, solve, cholesky); the second and third sets serve
# the domains the first misses (arccosh needs >= 1, x // i needs i != 0).
_CANDIDATES = ((0.5, 1.5, 0, True), (0.25, 0.75, 1, True), (1.25, 2.5, 1, False))


@contextlib.contextmanager
def unrouted():
    """Compute on masked handles as on plain arrays: the registry routes nothing that
    touches a masked array to `routes` meanwhile (the value of an operation, and the
    checks on it, are plain array computations)."""
    masked_routes.active += 1
    try:
        yield
    finally:
        masked_routes.active -= 1


class Probe:
    """NumPy's result of one operation on stand-ins: `result`, the stand-in `args`,
    and `exact` when every operand was a known constant (the result is NumPy's own)."""
    __slots__ = ("result", "args", "exact")

    def __init__(self, result, args, exact):
        self.result, self.args, self.exact = result, args, exact


def _data(h: AbstractArray, cand):
    c = h.const
    if c is not None:
        return np.array(c, copy=True)
    off, diag, integer, boolean = cand
    dtype = h.dtype
    if dtype.kind == "b":
        return np.full(h.shape, boolean)
    if dtype.kind in "iu":
        return np.full(h.shape, integer, dtype)
    out = np.full(h.shape, off, dtype)
    if len(h.shape) >= 2 and h.shape[-1] == h.shape[-2]:
        eye = np.eye(h.shape[-1], dtype=bool)
        out[..., eye] = diag
    return out


def as_masked(data, state):
    """A real `np.ma.MaskedArray` of `data` with the mask `state` stands for."""
    if state == NOMASK:
        return np.ma.MaskedArray(data)
    return np.ma.MaskedArray(data, mask=np.zeros(np.shape(data), bool))


def _standin(x, cand, known):
    t = type(x)
    if t is BoundedArray:
        raise C.MASKED_OPERATION.error_for(
            fn="an array whose length is only known at run time",
            why="npxla does not keep masked arrays of a run-time length")
    if t is AbstractArray:
        if x.const is None:
            known[0] = False
        data = _data(x, cand)
        state = mask_state(x)
        if state is not None:
            return as_masked(data, state)
        if x.shape:
            return data
        if x.weak:
            return data.item()
        return data if is_marked(x) else data[()]
    if t is tuple or t is list:
        return t(_standin(v, cand, known) for v in x)
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        return t(*[_standin(v, cand, known) for v in x])
    if t is dict:
        return {k: _standin(v, cand, known) for k, v in x.items()}
    if t is slice:
        return slice(*[_standin(v, cand, known) for v in (x.start, x.stop, x.step)])
    return x


def _masks_any(tree) -> bool:
    if isinstance(tree, np.ma.MaskedArray):
        return tree is np.ma.masked or bool(np.ma.getmaskarray(tree).any())
    if isinstance(tree, (tuple, list)):
        return any(_masks_any(v) for v in tree)
    return False


def probe(call, args, kwargs, what) -> Probe:
    """`call(*args, **kwargs)` run by NumPy on stand-ins of `args` (abstract operands
    replaced). Refused (`what` names the operation) when NumPy masks elements of the
    operands' known values, or when no set of stand-in values gives a result."""
    failure, fn = None, what.strip("'")
    for cand in _CANDIDATES:
        known = [True]
        a, k = _standin(args, cand, known), _standin(kwargs, cand, known)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with np.errstate(all="ignore"):
                    out = call(*a, **k)
        except Exception as e:                  # noqa: BLE001 - NumPy's own error
            if known[0]:
                raise C.MASKED_OPERATION.error_for(
                    fn=fn, why=f"NumPy raises {type(e).__name__}: {e}") from None
            failure = e
            continue
        if _masks_any(out):
            if known[0]:
                raise C.MASKED_VALUES.error_for(what=what, why="NumPy's domain fails")
            continue
        return Probe(out, (a, k), known[0])
    if failure is None:       # masked whatever values the traced operands hold
        raise C.MASKED_VALUES.error_for(
            what=what, why="NumPy's domain fails, whatever the traced operands hold")
    raise C.MASKED_OPERATION.error_for(
        fn=fn, why="npxla cannot tell which type NumPy gives (NumPy raises "
                   f"{type(failure).__name__} on stand-in values: {failure})")


def state_of(value):
    """NOMASK or FALSE for a masked array that masks nothing, None for anything else."""
    if not isinstance(value, np.ma.MaskedArray):
        return None
    return NOMASK if value._mask is np.ma.nomask else FALSE


def alias(h: AbstractArray) -> AbstractArray:
    """A new handle that is a view of all of `h` (NumPy's `np.asarray(m)`: another
    object over the same memory), so `h`'s own mark stays."""
    return _plain_getitem(h, Ellipsis)


def mark_like(result, probed, inputs, what):
    """`result` (npxla's value of the operation) with each handle marked as the value
    NumPy gave at the same place of `probed` (a masked array, with its kind of mask, or
    not); a handle that is one of `inputs` and must change its mark becomes a view of
    it. A dtype or structure that differs from NumPy's is refused, never returned."""
    ids = {id(x) for x in inputs}
    return _mark(result, probed, ids, what)


def _mark(result, probed, ids, what):
    t = type(result)
    if t is AbstractArray or t is BoundedArray:
        return _mark_leaf(result, probed, ids, what)
    if isinstance(result, (tuple, list)) and isinstance(probed, (tuple, list)) and \
            len(result) == len(probed):
        items = [_mark(r, p, ids, what) for r, p in zip(result, probed)]
        if all(a is b for a, b in zip(items, result)):
            return result
        if isinstance(result, tuple) and hasattr(t, "_fields"):
            return t(*items)
        return t(items)
    if isinstance(probed, np.ma.MaskedArray):
        raise C.MASKED_OPERATION.error_for(
            fn=what.strip("'"), why="NumPy returns a masked array where npxla's result "
                                    f"is {type(result).__name__}")
    return result


def _mark_leaf(h, p, ids, what):
    fn = what.strip("'")
    state = state_of(p)
    dtype = getattr(p, "dtype", None)
    if dtype is not None and np.dtype(dtype) != h.dtype:
        raise C.MASKED_OPERATION.error_for(
            fn=fn, why=f"NumPy's masked array gives dtype {np.dtype(dtype)} here, where "
                       f"a plain array gives {h.dtype}")
    if type(h) is AbstractArray and isinstance(p, (np.ndarray, np.generic)) and \
            np.shape(p) != h.shape:     # static shapes do not depend on the values
        raise C.MASKED_OPERATION.error_for(
            fn=fn, why=f"NumPy's masked array gives shape {np.shape(p)} here, where a "
                       f"plain array gives {h.shape}")
    if state is None:
        if mask_state(h) is not None:
            if id(h) in ids:
                h = alias(h)
            else:
                mark_masked(h, None)
        if isinstance(p, np.ndarray) and p.ndim == 0 and id(h) not in ids:
            mark_ndarray(h)
        return h
    if type(h) is BoundedArray or np.ndim(p) != h.ndim:
        raise C.MASKED_OPERATION.error_for(
            fn=fn, why="npxla keeps no masked array of a run-time length")
    if mask_state(h) != state and id(h) in ids:
        h = alias(h)
    mark_masked(h, state)
    return h


def refuse_across_flow():
    """A masked array kept in a variable that a data-dependent branch or loop assigns:
    the value the staged region makes is a new plain array (`operators.unify`)."""
    raise C.MASKED_ACROSS_FLOW.error_for()
