"""Scalar-type constructors (`np.float32(x)`, `np.int64(x)`, ...) and the builtins
`float`, `int`, `bool`, `complex` on abstract arrays.

NumPy scalar types called on an array behave like `astype` (a 0-d input gives a NumPy
scalar of that type, an n-d input an array); the builtins give *weak* results, since in
NumPy they return Python scalars. Values follow NumPy's casts (`cast_to`): float -> int
truncates toward zero, complex -> real drops the imaginary part (without NumPy's
ComplexWarning), anything -> bool is `!= 0`, integer -> integer wraps. Floats outside
the target integer range (and NaN, inf) follow XLA's conversion, which saturates (NaN
gives 0; a negative float cast to an unsigned type gives 0): C leaves these undefined
and NumPy's results differ between platforms (x86 wraps or gives INT_MIN).
"""
from __future__ import annotations

import builtins

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.numpy.core.coercion import as_array
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import implements
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.errorflags import check
from npxla.transpiler.base.errors import IntegerOverflowError, UnsupportedFunctionError

_COMPLEX_MSG = {
    "f": "float() argument must be a string or a real number, not 'complex'",
    "i": "int() argument must be a string, a bytes-like object or a real number, not "
         "'complex'",
}

# --- NumPy scalar types ----------------------------------------------------------------

_SCALAR_TYPES = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                 np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
                 np.complex128, np.intp, np.uintp, np.longlong, np.ulonglong)


def _scalar_type_impl(sctype):
    def impl(value=0, *args, **kwargs):
        if args or kwargs:
            raise UnsupportedFunctionError(
                f"np.{sctype.__name__}(x) takes one argument in compiled code")
        dtype = np.dtype(sctype)
        if type(value) is AbstractArray and value.weak and value.dtype.kind == "c" \
                and dtype.kind in "iuf":
            raise TypeError(_COMPLEX_MSG["f" if dtype.kind == "f" else "i"])
        return cast_to(as_array(value), dtype, weak=False)
    impl.__name__ = f"{sctype.__name__}_impl"
    return impl


for _t in dict.fromkeys(_SCALAR_TYPES):      # np.intp is np.int64 etc.: register once
    implements(_t, family="casts",
               notes="an out-of-range Python int is wrapped, not an OverflowError; floats "
                     "outside an integer type's range saturate (NaN gives 0)")(
        _scalar_type_impl(_t))


# --- builtins --------------------------------------------------------------------------

def _python_scalar_operand(fn_name, x):
    x = as_abstract(x)
    if x.ndim != 0:
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
    return x


@implements(builtins.float, family="casts",
            notes="float(complex NumPy scalar or 0-d array) takes the real part, as for "
                  "NumPy scalars (NumPy raises TypeError for a 0-d complex array)")
def float_(x=0.0):
    x = _python_scalar_operand("float", x)
    if x.dtype.kind == "c" and x.weak:
        raise TypeError(_COMPLEX_MSG["f"])
    return cast_to(x, np.float64, weak=True)


@implements(builtins.int, family="casts",
            notes="int(x) is an int64: uint64 values above 2**63-1 wrap; int() of NaN "
                  "and inf raise Python's ValueError/OverflowError at run time, of a "
                  "float beyond int64 IntegerOverflowError")
def int_(x=0, *args):
    if args:
        raise UnsupportedFunctionError("int(x, base) is not supported on traced values")
    x = _python_scalar_operand("int", x)
    if x.dtype.kind == "c" and x.weak:
        raise TypeError(_COMPLEX_MSG["i"])
    if x.dtype.kind == "f" and x.const is None:
        check_int_of_float(x)
    return cast_to(x, np.int64, weak=True)


def check_int_of_float(x):
    """Python's errors for `int(float)` where the value has none as an int64: NaN
    (ValueError) and inf (OverflowError); a finite value beyond int64 would be a Python
    int npxla cannot hold (refused at run time, IntegerOverflowError)."""
    def const(v):
        return S.broadcast_in_dim(as_abstract(np.array(v, x.dtype)), shape=x.shape, dims=())
    magnitude = E.abs_(x)
    check(E.compare(x, x, direction="NE"), "cannot convert float NaN to integer",
          ValueError)
    check(E.compare(magnitude, const(np.inf), direction="EQ"),
          "cannot convert float infinity to integer", OverflowError)
    big = E.bitwise_and(E.compare(magnitude, const(2.0 ** 63), direction="GE"),
                        E.compare(magnitude, const(np.inf), direction="LT"))
    check(big, "int() of a float of magnitude 2**63 or more: a Python int that compiled "
               "code cannot hold (int64)", IntegerOverflowError)


@implements(builtins.bool, family="casts")
def bool_(x=False):
    x = as_abstract(x)
    if x.size > 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")
    if x.size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. Use "
                         "`array.size > 0` to check that an array is not empty.")
    if x.ndim:
        x = S.reshape(x, shape=())
    return cast_to(x, np.bool_, weak=True)


@implements(builtins.complex, family="casts")
def complex_(real=0j, imag=None):
    x = _python_scalar_operand("complex", real)
    out = cast_to(x, np.complex128, weak=True)
    if imag is not None:
        y = _python_scalar_operand("complex", imag)
        if y.dtype.kind == "c" and not y.weak:    # NumPy complex scalar: float(imag)
            y = cast_to(y, np.float64)
        j = as_abstract(np.complex128(1j))
        out = E.add(out, E.multiply(cast_to(y, np.complex128), j))
        out.weak = True
    return out
