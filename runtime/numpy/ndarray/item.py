"""`x.item(...)`: one element of a traced array as the Python scalar NumPy returns.

Legacy code converts with `.item()` everywhere (`rate.item(np.argmin(abs(rate)))` in
numpy-financial's irr, `x.sum().item()` before formatting). NumPy gives a Python `float`
for any float dtype, an `int` for any integer, a `bool` or a `complex`; staging holds a
Python scalar as a *weak* 0-d value of its kind (`staging/pytypes.py`), so the element
is read (a flat index, a multi-index, or the only element) and cast to float64, int64,
bool or complex128, weak. The values are NumPy's: float32 to float64 is exact, and an
integer's value is kept, except a uint64 above 2**63 - 1, which wraps as `int(x)` does
in compiled code (docs/semantics.md). A constant folds as NumPy would.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.bounded import is_bounded
from npxla.runtime.numpy.core import extents as B
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.ufuncs.bounded import one_d

_PYTHON = {"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64,
           "c": np.complex128}
_ONE = "can only convert an array of size 1 to a Python scalar"


def item(x, args):
    """The element of `x` (an AbstractArray or a bounded array) that `x.item(*args)`
    names, as a weak Python scalar."""
    const = getattr(x, "const", None)
    if const is not None:
        return np.asarray(const).item(*args)
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if not args:
        value = _only(x)
    elif len(args) == 1:
        value = _flat(x)[args[0]]
    else:
        if len(args) != x.ndim:
            raise ValueError("incorrect number of indices for array")
        value = x[tuple(args)]
    return cast_to(value, np.dtype(_PYTHON[value.dtype.kind]), weak=True)


def _only(x):
    """The one element of `x`; NumPy's ValueError for any other size (at run time where
    the size is only known then)."""
    if is_bounded(x):
        flat = B.at_front(_flat(x))
        check(B.compare(flat.ext[0].count, 1, "NE"), _ONE, error=ValueError)
        return flat.buf[0]
    if x.size != 1:
        raise ValueError(_ONE)
    return dispatch(np.reshape, (x, ()), {})


def _flat(x):
    return one_d(x, "item") if is_bounded(x) else dispatch(np.ravel, (x,), {})
