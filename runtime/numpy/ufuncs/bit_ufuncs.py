"""Ufuncs of a float's or an integer's bits: np.frexp, np.ldexp, np.bitwise_count,
np.gcd and np.lcm.

frexp and ldexp work on the IEEE fields, so they give C's answer where arithmetic
would not: XLA:CPU flushes subnormals to zero, but a bit pattern is read and written
as it is (frexp of a subnormal is NumPy's normalised mantissa and exponent; an ldexp
result that is subnormal still flushes, like every XLA result). gcd and lcm run
NumPy's Euclid loop (`npy_gcd`: absolute values, `a, b = b % a, a` until `a` is 0)
for as many steps as the dtype can need (Fibonacci numbers bound them: 12 for 8 bits,
96 for 64), each step a select that leaves finished elements alone.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import elementwise_extra as X
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.ufuncs.arithmetic import cmp, full, register_table, select

# float dtype -> (mantissa bits, exponent bias, |n| beyond which ldexp saturates)
_FIELDS = {np.dtype(np.float16): (10, 15, 40), np.dtype(np.float32): (23, 127, 300),
           np.dtype(np.float64): (52, 1023, 2200)}


def _int_of(dtype):
    return np.dtype(f"i{np.dtype(dtype).itemsize}")


def _power_of_two(k, dtype):
    """2.0**k in `dtype` for int64 `k` within its normal exponents, built from its
    bits."""
    mant, bias, _ = _FIELDS[np.dtype(dtype)]
    ity = _int_of(dtype)
    field = cast_to(E.add(k, full(k, bias)), ity)
    return X.bitcast(E.shift_left(field, full(field, mant)), dtype=dtype)


def _ldexp(x, n):
    """x * 2**n as three exact scalings of frexp's mantissa by powers of two (each within
    the dtype's normal exponents), the exponent clipped where the result is 0 or inf
    anyway."""
    limit = _FIELDS[x.dtype][2]
    x, e = _frexp(x)                   # (a subnormal x would read as 0: its bits do not)
    n = E.add(cast_to(n, np.int64), cast_to(e, np.int64))
    n = E.minimum(E.maximum(n, full(n, -limit)), full(n, limit))
    third = E.divide(n, full(n, 3))
    rest = E.subtract(n, E.add(third, third))
    for k in (third, third, rest):
        x = E.multiply(x, _power_of_two(k, x.dtype))
    return x


def _frexp(x):
    """(mantissa in [0.5, 1) with x's sign, int32 exponent); (x, 0) for 0, inf and NaN;
    subnormals normalised from their bits."""
    mant, bias, _ = _FIELDS[x.dtype]
    ity = _int_of(x.dtype)
    width = 8 * x.dtype.itemsize
    bits = X.bitcast(x, dtype=ity)
    sign = E.bitwise_and(bits, full(bits, -1 << (width - 1)))
    fraction_mask = full(bits, (1 << mant) - 1)
    field = E.bitwise_and(E.shift_right_logical(bits, full(bits, mant)),
                          full(bits, (1 << (width - 1 - mant)) - 1))
    fraction = E.bitwise_and(bits, fraction_mask)
    # a subnormal: its top set bit p becomes the implicit one
    top = E.subtract(full(bits, width - 1), E.clz(fraction))
    sub_fraction = E.bitwise_and(
        E.shift_left(fraction, E.subtract(full(bits, mant), top)), fraction_mask)
    subnormal = E.bitwise_and(cmp(field, full(field, 0), "EQ"),
                              cmp(fraction, full(fraction, 0), "NE"))
    special = E.bitwise_or(cmp(field, full(field, (1 << (width - 1 - mant)) - 1), "EQ"),
                           E.bitwise_and(cmp(field, full(field, 0), "EQ"),
                                         cmp(fraction, full(fraction, 0), "EQ")))
    exponent = select(subnormal, E.add(top, full(top, 2 - bias - mant)),
                      E.subtract(field, full(field, bias - 1)))
    fraction = select(subnormal, sub_fraction, fraction)
    m = X.bitcast(E.bitwise_or(E.bitwise_or(sign, full(bits, (bias - 1) << mant)), fraction),
                  dtype=x.dtype)
    exponent = select(special, full(exponent, 0), exponent)
    return select(special, x, m), cast_to(exponent, np.int32)


def _bitwise_count(x):
    """The 1-bits of |x| (NumPy's definition for signed integers), as uint8."""
    if x.dtype == np.bool_:
        x = cast_to(x, np.uint8)
    if x.dtype.kind == "i":
        x = E.abs_(x)
    return cast_to(E.popcnt(x), np.uint8)


def _euclid_steps(dtype):
    return {1: 12, 2: 24, 4: 48, 8: 96}[np.dtype(dtype).itemsize]


def _in_c_int(fn):
    """8- and 16-bit operands go through C's `int` (NumPy's loops call `npy_gcd`):
    |-128| is 128 there, and the result wraps back into the dtype."""
    def lower(a, b):
        if a.dtype.itemsize >= 4:
            return fn(a, b)
        wide = np.dtype(np.int32)
        return cast_to(fn(cast_to(a, wide), cast_to(b, wide)), a.dtype)
    return lower


def _unsigned_abs(x):
    """|x| read as the unsigned integer of x's width (|INT_MIN| is 2**(w-1) there, as in
    NumPy's `npy_gcdu`/`npy_lcmu`, which take `a < 0 ? -a : a` to unsigned)."""
    if x.dtype.kind != "i":
        return x
    return X.bitcast(E.abs_(x), dtype=np.dtype(f"u{x.dtype.itemsize}"))


def _euclid(a, b):
    zero, one = full(a, 0), full(a, 1)
    for _ in range(_euclid_steps(a.dtype)):
        going = cmp(a, zero, "NE")
        a, b = select(going, E.remainder(b, select(going, a, one)), a), select(going, a, b)
    return b


def _gcd(a, b):
    dtype = a.dtype
    return X.bitcast(_euclid(_unsigned_abs(a), _unsigned_abs(b)), dtype=dtype)


def _lcm(a, b):
    """|a| // gcd(a, b) * |b| in unsigned arithmetic (wrapping where it overflows, as
    NumPy's does), 0 where the gcd is 0."""
    dtype = a.dtype
    a, b = _unsigned_abs(a), _unsigned_abs(b)
    g = _euclid(a, b)
    zero = cmp(g, full(g, 0), "EQ")
    out = E.multiply(E.divide(a, select(zero, full(g, 1), g)), b)
    return X.bitcast(select(zero, full(out, 0), out), dtype=dtype)


LOWERINGS = {np.frexp: _frexp, np.ldexp: _ldexp, np.bitwise_count: _bitwise_count,
             np.gcd: _in_c_int(_gcd), np.lcm: _in_c_int(_lcm)}
register_table(LOWERINGS)
