"""`np.emath` (`numpy.lib.scimath`): math functions whose result is complex where the
real input leaves their real domain (`np.emath.sqrt(-1.0)` is `1j`).

NumPy checks the data: a real input with any element outside the domain (`x < 0` for
`sqrt`, `log`, `power`; `|x| > 1` for `arccos`, `arcsin`, `arctanh`) is converted to
complex first, otherwise the real function runs. So the result's dtype depends on the
data, which a compiled program must know in advance: it assumes every element in the
domain (real results) and checks that when it runs; a run that finds one outside is
staged again for complex results (`speculate.assume`, as for `np.linalg.eig`). Where
no assumption can be made (inside a data-dependent branch or loop body) the call is
refused, located. Complex input is computed as it is.
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.errors import UnsupportedFunctionError

from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import dispatch, implements
from npxla.runtime.numpy.core.speculate import assume

FAMILY = "emath"
_SINGLE = frozenset(np.dtype(t) for t in (np.single, np.byte, np.short, np.ubyte, np.ushort))


def _outside_below_zero(x):
    return dispatch(np.less, (x, 0), {})


def _outside_unit(x):
    return dispatch(np.greater, (dispatch(np.absolute, (x,), {}), 1), {})


def _none_of(pred, name):
    """Whether no element of `pred` holds: assumed now, checked when the program runs."""
    none = assume(dispatch(np.logical_not, (dispatch(np.any, (pred,), {}),), {}))
    if none is None:
        raise UnsupportedFunctionError(
            f"np.emath.{name} of real input returns real or complex results depending on "
            "the data (complex where an element is outside the function's real domain), "
            "and a compiled program needs its dtype in advance (it assumes real results, "
            "and checks when it runs, only outside data-dependent branches and loops)",
            hint=f"pass complex input, np.emath.{name}(x.astype(complex)), or the real "
                 f"np.{name} where the data is known to be in its domain")
    return none


def _real_or_complex(x, outside, name):
    """`x` as NumPy's emath gives it to the real function: unchanged when no element is
    outside the domain, else as complex."""
    if x.dtype.kind == "c" or _none_of(outside(x), name):
        return x
    return cast_to(x, np.complex64 if x.dtype in _SINGLE else np.complex128)


def _unary(name, ufunc, outside):
    @implements(getattr(np.emath, name), family=FAMILY,
                notes="real results assumed and checked when the program runs (complex "
                      "ones: staged again); refused inside data-dependent branches and "
                      "loops")
    def impl(x):
        return dispatch(ufunc, (_real_or_complex(as_array(x), outside, name),), {})
    impl.__name__ = name
    return impl


for _name, _ufunc, _outside in (
        ("sqrt", np.sqrt, _outside_below_zero), ("log", np.log, _outside_below_zero),
        ("log10", np.log10, _outside_below_zero), ("log2", np.log2, _outside_below_zero),
        ("arccos", np.arccos, _outside_unit), ("arcsin", np.arcsin, _outside_unit),
        ("arctanh", np.arctanh, _outside_unit)):
    _unary(_name, _ufunc, _outside)


@implements(np.emath.power, family=FAMILY,
            notes="real results assumed and checked when the program runs (complex ones: "
                  "staged again); refused inside data-dependent branches and loops")
def power(x, p):
    x = _real_or_complex(as_array(x), _outside_below_zero, "power")
    p = as_array(p)
    # NumPy's _fix_int_lt_zero: an int power with a negative element is made float
    if p.dtype.kind in "iu" and not _none_of(dispatch(np.less, (p, 0), {}), "power"):
        p = cast_to(p, np.float64)
    return dispatch(np.power, (x, p), {})
