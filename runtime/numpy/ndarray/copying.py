"""`copy.copy(x)` and `copy.deepcopy(x)` of abstract arrays, as of the ndarrays they
stand for.

Legacy code saves state with the `copy` module (`self.z = deepcopy(z)`, `history =
copy.deepcopy(params)` of a dict of arrays). Python's `copy` asks the object for
`__copy__`/`__deepcopy__`; an abstract array answers as `ndarray.__copy__` and
`ndarray.__deepcopy__` do: a new array with the same values (`x.copy()`), never a view
and never the handle itself, so a later in-place update of either side does not reach
the other. A NumPy scalar is copied as a NumPy scalar, a 0-d array as a 0-d array.
Containers and objects holding arrays are deep-copied by Python's own `deepcopy`, which
calls this for each array (its memo keeps shared arrays shared, as in NumPy).
Arrays whose length is only known at run time are copied the same way.
"""
from __future__ import annotations

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.bounded import BoundedArray
from npxla.runtime.staging.pytypes import is_ndarray, mark_ndarray, scalar_copy


def _copy(self):
    if type(self) is AbstractArray and not is_ndarray(self):
        # a Python scalar is immutable (deepcopy gives it back); a NumPy scalar: an
        # equal scalar
        return self if self.weak else scalar_copy(self)
    out = self.copy()
    if type(out) is AbstractArray and not out.ndim:
        mark_ndarray(out)               # a 0-d array stays a 0-d array
    return out


def _deepcopy(self, memo=None):
    out = _copy(self)
    if memo is not None:
        memo[id(self)] = out
    return out


for _cls in (AbstractArray, BoundedArray):
    _cls.__copy__ = _copy
    _cls.__deepcopy__ = _deepcopy
