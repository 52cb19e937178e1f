"""np.ravel_multi_index and np.unravel_index: flat indices from coordinates and back.

The dims are static (a shape); the coordinates may be traced. NumPy checks the
coordinates (mode='raise') and the flat indices eagerly with a ValueError; traced ones
are checked at run time (`errorflags.check`), with NumPy's message.
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.runtime.staging.abstract import as_abstract, is_abstract
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import dispatch, implements, register_property
from npxla.runtime.numpy.reductions.reductions import asarray, static

_I64 = np.dtype(np.int64)
_MODES = ("raise", "wrap", "clip")


def _dims(dims):
    dims = static(dims, "dims")
    dims = (dims,) if np.ndim(dims) == 0 else tuple(dims)
    return tuple(operator.index(d) for d in dims)


def _strides(dims, order):
    order = static(order, "order")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    strides, step = [0] * len(dims), 1
    for k in (reversed(range(len(dims))) if order == "C" else range(len(dims))):
        strides[k] = step
        step *= dims[k]
    return strides, step


def _ints(value):
    v = asarray(value)
    if v.dtype.kind not in "iub":
        raise TypeError("only int indices permitted")
    return cast_to(v, _I64)


def _call(fn, *args):
    return dispatch(fn, args, {})


@implements(np.ravel_multi_index, family="indexing",
            notes="traced coordinates are checked at run time (mode='raise')")
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    dims = _dims(dims)
    coords = [_ints(c) for c in multi_index]
    if len(coords) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    mode = static(mode, "mode")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims) or any(m not in _MODES for m in modes):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    coords = list(_call(np.broadcast_arrays, *coords))
    strides, _ = _strides(dims, order)
    flat, bad = None, None
    for c, n, m, s in zip(coords, dims, modes, strides):
        if m == "wrap":
            c = _call(np.mod, c, as_abstract(np.int64(n)))
        elif m == "clip":
            c = _call(np.clip, c, 0, max(n - 1, 0))
        else:
            out = _call(np.logical_or, _call(np.less, c, 0), _call(np.greater_equal, c, n))
            bad = out if bad is None else _call(np.logical_or, bad, out)
        term = _call(np.multiply, c, as_abstract(np.int64(s)))
        flat = term if flat is None else _call(np.add, flat, term)
    if bad is not None:
        check(bad, "invalid entry in coordinates array", error=ValueError)
    return flat


@implements(np.unravel_index, family="indexing",
            notes="traced indices are checked at run time")
def unravel_index(indices, shape, order="C"):
    dims = _dims(shape)
    idx = _ints(indices)
    strides, size = _strides(dims, order)
    bad = _call(np.logical_or, _call(np.less, idx, 0), _call(np.greater_equal, idx, size))
    check(bad, f"index {{}} is out of bounds for array with size {size}", error=ValueError,
          payload=idx)
    return tuple(_call(np.mod, _call(np.floor_divide, idx, as_abstract(np.int64(s))),
                       as_abstract(np.int64(n))) if n else idx
                 for s, n in zip(strides, dims))


class FlatIter:
    """`a.flat` of a traced array: indexing it indexes `a` flattened in C order, and an
    assignment writes through into `a` (NumPy's flatiter; iterating it is `a.ravel()`'s
    iteration)."""

    def __init__(self, base):
        self.base = base

    def _flat(self):
        return _call(np.reshape, self.base, (-1,))

    def __getitem__(self, index):
        return self._flat()[index]

    def __setitem__(self, index, value):
        # through the coordinates of the flat positions: `a` may be a strided view
        # (`a.T.flat[i] = v`), whose flattening is a copy
        mask = asarray(index) if isinstance(index, np.ndarray) or is_abstract(index) \
            else None
        if mask is not None and mask.dtype == np.bool_ and mask.ndim:
            if mask.size != self.base.size:
                raise IndexError(
                    "boolean index did not match indexed flat iterator along axis 0; size "
                    f"of axis is {self.base.size} but size of corresponding boolean axis "
                    f"is {mask.size}")
            # the mask's C order is the flat order: the same selection of `a` itself
            self.base[_call(np.reshape, mask, self.base.shape)] = value
            return
        positions = as_abstract(np.arange(self.base.size, dtype=np.int64))[index]
        self.base[unravel_index(positions, self.base.shape)] = value

    def __iter__(self):
        return iter(self._flat())

    def __len__(self):
        return int(self.base.size)


register_property("flat", FlatIter, fold=False)
