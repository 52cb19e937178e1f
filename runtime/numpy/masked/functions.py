"""The `np.ma` functions and the masked-only attributes (`.mask`, `.data`, `.filled()`).

The constructors (`np.ma.asarray`, `np.ma.array`, `np.ma.masked_array`,
`np.ma.atleast_2d`, ...) compute their data as the NumPy function they use inside
(`np.array(data, copy=None)`, `np.atleast_2d(np.asarray(x))`: a view of the argument
where NumPy's is one) and take their types from NumPy on stand-ins (`standins`): a
masked array whose mask is `nomask` (np.ma.asarray of a plain array) or all False
(np.ma.atleast_2d, `mask=False`). A mask with a True element, a traced mask, a fill
value or a hard mask is refused (`MASKED_MASK`, `MASKED_OPERATION`).

The accessors answer from the mark: `np.ma.getmask(m)` of a `nomask` array is
`np.ma.nomask` itself (a Python constant, so `if not np.any(np.ma.getmask(m))` is a
Python branch); of an all-False mask, a constant array (written to: refused).
"""
from __future__ import annotations

import weakref

import numpy as np

from npxla.transpiler.base import catalogue as C

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, root_of
from npxla.runtime.staging.pytypes import FALSE, NOMASK, mark_ndarray, mask_state
from npxla.runtime.numpy.core.registry import _leaves, dispatch, implements, wrap_result
from npxla.runtime.numpy.masked.standins import alias, mark_like, probe, unrouted

_NOTES = "masked arrays that mask nothing (mask nomask or all False); see docs/semantics.md"


def _masked_result(fn, what, plain, args, kwargs, fresh_object=True):
    """`plain()` (the data, computed unrouted) typed as NumPy's `fn(*args, **kwargs)`
    on stand-ins. `fresh_object`: NumPy returns a new array object even when the data
    is an argument's (a view of it), so an argument handle becomes a view."""
    with unrouted():
        result = plain()
    inputs = _leaves((args, kwargs), [])
    if fresh_object:
        result = _fresh(result, inputs)
    return mark_like(result, probe(fn, args, kwargs, what).result, inputs, what)


def _fresh(result, inputs):
    if isinstance(result, (tuple, list)):
        return type(result)(_fresh(r, inputs) for r in result)
    if type(result) is AbstractArray and any(result is x for x in inputs):
        return alias(result)
    return result


def _static_mask(mask, what):
    """Refuse a mask that is traced or masks an element; `nomask` and all-False masks
    pass."""
    if mask is np.ma.nomask:
        return
    for leaf in _leaves(mask, []):
        if leaf.const is None:
            raise C.MASKED_MASK.error_for(what=f"{what} with a mask computed from data")
    const = mask.const if isinstance(mask, AbstractArray) else mask
    if np.any(np.asarray(const, dtype=object) != False):   # noqa: E712 - NumPy's test
        raise C.MASKED_MASK.error_for(what=f"{what} with a mask that holds True")


def _options(what, fill_value, hard_mask):
    if fill_value is not None:
        raise C.MASKED_OPERATION.error_for(
            fn=what, why="a fill value is not kept on compiled masked arrays")
    if hard_mask:
        raise C.MASKED_OPERATION.error_for(
            fn=what, why="a hard mask is not kept on compiled masked arrays")


def _data_of(data, dtype, copy, order, ndmin):
    """`np.array(data, dtype=dtype, copy=copy or None, order=order, ndmin=ndmin)`."""
    kw = {"dtype": dtype, "copy": True if copy else None, "ndmin": ndmin}
    if order is not None:
        kw["order"] = order
    return dispatch(np.array, (data,), kw)


@implements(np.ma.array, family="masked", creates=True, fold=False, notes=_NOTES)
def ma_array(data, dtype=None, copy=False, order=None, mask=np.ma.nomask, fill_value=None,
             keep_mask=True, hard_mask=False, shrink=True, subok=True, ndmin=0):
    _static_mask(mask, "np.ma.array")
    _options("np.ma.array", fill_value, hard_mask)
    return _masked_result(
        np.ma.array, "np.ma.array", lambda: _data_of(data, dtype, copy, order, ndmin),
        (data,), dict(dtype=dtype, copy=copy, order=order, mask=mask, keep_mask=keep_mask,
                      shrink=shrink, subok=subok, ndmin=ndmin))


@implements(np.ma.MaskedArray, family="masked", creates=True, fold=False, notes=_NOTES)
def masked_array(data=None, mask=np.ma.nomask, dtype=None, copy=False, subok=True, ndmin=0,
                 fill_value=None, keep_mask=True, hard_mask=None, shrink=True, order=None):
    _static_mask(mask, "np.ma.masked_array")
    _options("np.ma.masked_array", fill_value, hard_mask)
    return _masked_result(
        np.ma.MaskedArray, "np.ma.masked_array",
        lambda: _data_of(data, dtype, copy, order, ndmin),
        (data,), dict(mask=mask, dtype=dtype, copy=copy, subok=subok, ndmin=ndmin,
                      keep_mask=keep_mask, shrink=shrink, order=order))


@implements(np.ma.asarray, family="masked", creates=True, fold=False, notes=_NOTES)
def ma_asarray(a, dtype=None, order=None):
    return _masked_result(np.ma.asarray, "np.ma.asarray",
                          lambda: _data_of(a, dtype, False, order or "C", 0),
                          (a,), dict(dtype=dtype, order=order))


@implements(np.ma.asanyarray, family="masked", creates=True, fold=False, notes=_NOTES)
def ma_asanyarray(a, dtype=None, order=None):
    # a masked array of the dtype asked for is returned itself, as NumPy does
    keep = mask_state(a) is not None and (dtype is None or np.dtype(dtype) == a.dtype) \
        and order in (None, "A", "K")
    return _masked_result(np.ma.asanyarray, "np.ma.asanyarray",
                          lambda: _data_of(a, dtype, False, order, 0),
                          (a,), dict(dtype=dtype, order=order), fresh_object=not keep)


def _atleast(fn, np_fn):
    what = f"np.ma.{fn.__name__}"

    def impl(*arys):
        def plain():
            out = [dispatch(np_fn, (dispatch(np.asarray, (a,), {}),), {}) for a in arys]
            return out[0] if len(out) == 1 else tuple(out)
        return _masked_result(fn, what, plain, arys, {})
    impl.__name__ = fn.__name__
    return implements(fn, family="masked", creates=True, fold=False, notes=_NOTES)(impl)


_atleast(np.ma.atleast_1d, np.atleast_1d)
_atleast(np.ma.atleast_2d, np.atleast_2d)
_atleast(np.ma.atleast_3d, np.atleast_3d)


# --- accessors ----------------------------------------------------------------------------
_MASKS: dict = {}       # id(mask handle) -> weak reference (writes into one are refused)


def mask_handle(x: AbstractArray) -> AbstractArray:
    """The all-False mask array of `x` (mark FALSE), as a constant that refuses writes:
    NumPy's is the array's own mask, and a True written into it would mask an element."""
    h = as_abstract(np.zeros(x.shape, bool))
    h._readonly = True
    if not x.shape:
        mark_ndarray(h)
    _MASKS[id(h)] = weakref.ref(h, lambda _r, k=id(h): _MASKS.pop(k, None))
    return h


def is_mask_handle(x) -> bool:
    """Whether `x` (or the array it is a view of) is a masked array's mask."""
    if not _MASKS or not isinstance(x, AbstractArray):
        return False
    root = root_of(x)
    ref = _MASKS.get(id(root))
    return ref is not None and ref() is root


@implements(np.ma.getmask, family="masked", fold=False, notes=_NOTES)
def getmask(a):
    state = mask_state(a) if isinstance(a, AbstractArray) else None
    return mask_handle(a) if state == FALSE else np.ma.nomask


@implements(np.ma.getmaskarray, family="masked", fold=False, notes=_NOTES)
def getmaskarray(arr):
    if isinstance(arr, AbstractArray) and mask_state(arr) == FALSE:
        return mask_handle(arr)
    h = as_abstract(np.zeros(np.shape(arr) if not isinstance(arr, AbstractArray)
                             else arr.shape, bool))
    if not h.shape:
        mark_ndarray(h)
    return h


@implements(np.ma.getdata, family="masked", fold=False, notes=_NOTES)
def getdata(a, subok=True):
    if isinstance(a, AbstractArray) and mask_state(a) is not None:
        return alias(a)
    with unrouted():
        out = dispatch(np.array, (a,), {"copy": None})
    if not subok and out is a:
        return alias(a)
    return out


@implements(np.ma.filled, family="masked", fold=False, notes=_NOTES)
def filled(a, fill_value=None):
    if isinstance(a, AbstractArray) and mask_state(a) is not None:
        return _filled_method(a)(fill_value)
    if isinstance(a, AbstractArray):
        return a
    return dispatch(np.array, (a,), {})


@implements(np.ma.is_masked, family="masked", fold=False, notes=_NOTES)
def is_masked(x):
    return False        # nothing compiled masks an element


@implements(np.ma.isMaskedArray, np.ma.isMA, family="masked", fold=False, notes=_NOTES)
def is_masked_array(x):
    if isinstance(x, AbstractArray):
        return mask_state(x) is not None
    return isinstance(x, np.ma.MaskedArray)


# --- attributes of a masked array ---------------------------------------------------------
def _filled_method(self):
    def filled(fill_value=None):
        probe(lambda s, v: s.filled(v), (self, fill_value), {}, "MaskedArray.filled")
        return alias(self)          # nothing is masked: the data itself
    return filled


def _compressed_method(self):
    def compressed():
        with unrouted():
            flat = dispatch(np.ravel, (alias(self),), {})
            if mask_state(self) == FALSE:        # NumPy compresses: a copy
                flat = dispatch(np.array, (flat,), {})
        return flat
    return compressed


def _exact(value):
    """A value NumPy's stand-in gave that depends on shapes and dtypes only."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        out = wrap_result(value)
        mark_ndarray(out)
        return out
    return wrap_result(value) if isinstance(value, (np.ndarray, np.generic)) else value


def _count_method(self):
    def count(axis=None, keepdims=np._NoValue):
        kw = {} if keepdims is np._NoValue else {"keepdims": keepdims}
        got = probe(lambda s, a, **k: s.count(a, **k), (self, axis), kw,
                    "MaskedArray.count")
        return _exact(got.result)
    return count


def _probed_attribute(name):
    def attribute(self):
        return _exact(probe(lambda s: getattr(s, name), (self,), {},
                            f"MaskedArray.{name}").result)
    return attribute


# name -> fn(masked handle): the attributes NumPy's MaskedArray adds to ndarray
ATTRIBUTES = {
    "mask": getmask,
    "_mask": getmask,           # what np.ma's own code reads (run as plain Python)
    "data": alias,
    "_data": alias,
    "filled": _filled_method,
    "compressed": _compressed_method,
    "count": _count_method,
    "fill_value": _probed_attribute("fill_value"),
    "hardmask": _probed_attribute("hardmask"),
    "sharedmask": _probed_attribute("sharedmask"),
    "baseclass": lambda self: np.ndarray,
}
