"""`np.r_[...]` and `np.c_[...]` of traced values.

NumPy builds them in `__getitem__` with `np.array(item, ndmin=1)` and `concatenate`,
which would need the values of traced arrays. Legacy code uses them to gather scalars
and arrays into one array (`a, b, c = np.r_[abc]`, `np.r_[x.min(), x.max()]`); that is
a concatenation of the items made at least 1-d (`r_`) or columns (`c_`). Slices
(`np.r_[0:n:2]`) and string directives (`np.r_['0,2', ...]`) are NumPy's own when no
item is traced; with a traced item they are refused by NumPy's path as before.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.registry import dispatch, has_abstract


def index_trick(owner, index):
    """The array `owner[index]` gives for owner `np.r_` or `np.c_`, or NotImplemented
    when NumPy's own `__getitem__` should run."""
    items = index if isinstance(index, tuple) else (index,)
    if not has_abstract(items, {}) or any(isinstance(i, (slice, str)) for i in items):
        return NotImplemented
    # a list item is an array (`np.r_[[a], [b]]` stacks rows); NumPy's dtype: of the
    # arrays and 0-d items, Python scalars weak (NEP 50)
    items = [as_array(i) if isinstance(i, (list, tuple)) else i for i in items]
    dtype = np.result_type(*[_typed(i) for i in items])
    parts = [dispatch(np.atleast_1d, (dispatch(np.asarray, (i,), {"dtype": dtype}),), {})
             for i in items]
    if owner is np.r_:
        return dispatch(np.concatenate, (parts,), {})
    # c_: 1-d items are columns
    parts = [dispatch(np.reshape, (a, (-1, 1)), {}) if a.ndim == 1 else a for a in parts]
    return dispatch(np.concatenate, (parts,), {"axis": -1})


_WEAK = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def _typed(item):
    """What `np.result_type` should see for one item: Python scalars, traced ones too,
    as Python values (weak), everything else by dtype."""
    if type(item) in (bool, int, float, complex):
        return item
    dtype = getattr(item, "dtype", None)
    if dtype is None:
        return np.asarray(item).dtype
    return _WEAK[np.dtype(dtype).kind] if getattr(item, "weak", False) else np.dtype(dtype)
