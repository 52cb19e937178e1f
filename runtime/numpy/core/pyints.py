"""Traced Python ints are int64 on the device, while Python's ints never overflow.

Matching Python exactly would need arbitrary precision on device, so a result that
leaves int64 stops the program instead of wrapping silently: every operation whose
operands are all Python ints (weak ints) and that can leave int64 carries a run-time
check that raises `OverflowError`. A Python int raised to a negative Python int is a
float in Python and cannot be an int64 either: it raises `ValueError`, as NumPy does
for integer arrays. Operations with a NumPy operand keep NumPy's wrapping (the check
only applies where Python, not NumPy, defines the result).

The checks are computed on strong int64 copies of the operands, so they never recurse
into themselves.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.numpy.core.errorflags import check
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.core.values import fresh

_MIN = int(np.iinfo(np.int64).min)
_MAX = int(np.iinfo(np.int64).max)

OVERFLOW = ("Python int arithmetic left the int64 range at run time: npxla computes "
            "traced Python ints in int64, where Python's ints have no limit. Keep the "
            "values below 2**63 or convert them with float(...)")
NEGATIVE_POWER = ("a Python int raised to a negative Python int is a float in Python, "
                  "an integer power here: write float(base) ** exponent")


def _strong(x):
    """An int64 operand that is not weak, so the check's own arithmetic is NumPy's."""
    if type(x) is not AbstractArray:
        return as_abstract(np.int64(x))
    return fresh(x)


def _const(value):
    return as_abstract(np.int64(value))


def _cmp(a, b, direction):
    return E.compare(a, b, direction)


def _negative(x):
    return _cmp(x, _const(0), "LT")


def _past(a, k):
    """`a + k` leaves int64, for a constant k: one comparison (the common `i += 1`)."""
    if k == 0:
        return as_abstract(np.bool_(False))
    if k > 0:
        return _cmp(a, _const(_MAX - k), "GT")
    return _cmp(a, _const(_MIN - k), "LT")


def _add(a, b, r):
    if b.const is not None:
        return _past(a, int(b.const))
    if a.const is not None:
        return _past(b, int(a.const))
    return _negative(E.bitwise_and(E.bitwise_xor(a, r), E.bitwise_xor(b, r)))


def _subtract(a, b, r):
    if b.const is not None and int(b.const) != _MIN:
        return _past(a, -int(b.const))
    return _negative(E.bitwise_and(E.bitwise_xor(a, b), E.bitwise_xor(a, r)))


def _multiply(a, b, r):
    for x, k in ((a, b.const), (b, a.const)):
        if k is not None and int(k) != 0:
            return _multiply_const(x, int(k))
    # an exact product divides back; a wrapped one is off by at least 2 (|a| <= 2**63)
    nonzero = _cmp(a, _const(0), "NE")
    quotient = E.divide(r, S.select(nonzero, a, _const(1)))
    wrapped = _cmp(quotient, b, "NE")
    min_by_minus_one = E.bitwise_and(_cmp(a, _const(-1), "EQ"), _cmp(b, _const(_MIN), "EQ"))
    return E.bitwise_and(nonzero, E.bitwise_or(wrapped, min_by_minus_one))


def _power(a, b, r):
    # the float power decides: it is within a few ulp of the exact one
    big = E.power(S.convert(a, dtype=np.float64), S.convert(b, dtype=np.float64))
    return E.bitwise_or(_cmp(big, as_abstract(np.float64(2.0 ** 63)), "GE"),
                        _cmp(big, as_abstract(np.float64(-2.0 ** 63)), "LT"))


def _left_shift(a, b, r):
    back = E.shift_right_arithmetic(r, b)
    return E.bitwise_and(_cmp(a, _const(0), "NE"),
                         E.bitwise_or(_cmp(b, _const(64), "GE"), _cmp(back, a, "NE")))


def _multiply_const(a, k):
    """`a * k` leaves int64, for a constant k != 0: two comparisons."""
    lo, hi = (-(-_MIN // k), _MAX // k) if k > 0 else (-(-_MAX // k), _MIN // k)
    flags = ([_cmp(a, _const(lo), "LT")] if lo > _MIN else []) + \
        ([_cmp(a, _const(hi), "GT")] if hi < _MAX else [])
    if not flags:           # k = 1 (a `range`'s unit step): no int64 is past a bound
        return as_abstract(np.bool_(False))
    return flags[0] if len(flags) == 1 else E.bitwise_or(*flags)


def _is_min(a, r=None):
    return _cmp(a, _const(_MIN), "EQ")


def _floor_divide(a, b, r):
    return E.bitwise_and(_is_min(a), _cmp(b, _const(-1), "EQ"))


_BINARY = {np.add: _add, np.subtract: _subtract, np.multiply: _multiply,
           np.power: _power, np.left_shift: _left_shift, np.floor_divide: _floor_divide}
_UNARY = {np.negative: _is_min, np.absolute: _is_min}


def _weak_int(x):
    if type(x) is int:
        return True
    return type(x) is AbstractArray and x.weak and x.dtype == np.int64


def applies(ufunc, args) -> bool:
    """Whether `ufunc(*args)` is Python-int arithmetic that can leave int64 at run time."""
    if ufunc not in _BINARY and ufunc not in _UNARY:
        return False
    if not args or not all(_weak_int(a) for a in args):
        return False
    return any(type(a) is AbstractArray and a.const is None for a in args)


def _interval(x):
    """Static bounds of a Python int operand (a loop index knows its range), or None."""
    if type(x) is int:
        return (x, x)
    if x.const is not None:
        return (int(x.const), int(x.const))
    return x._range


_INTERVAL = {np.add: lambda a, b: (a[0] + b[0], a[1] + b[1]),
             np.subtract: lambda a, b: (a[0] - b[1], a[1] - b[0]),
             np.multiply: lambda a, b: (min(p := [x * y for x in a for y in b]), max(p))}


def _statically_safe(ufunc, args):
    rule = _INTERVAL.get(ufunc)
    bounds = [_interval(a) for a in args]
    if rule is None or any(b is None for b in bounds):
        return False
    lo, hi = rule(*bounds)
    return _MIN <= lo and hi <= _MAX


def check_operands(ufunc, args):
    """Checks that come before the result's: checked first, they are the ones reported
    (a negative power of Python ints is a float in Python, whatever the ufunc says)."""
    if ufunc is np.power:
        check(_negative(_strong(args[1])), NEGATIVE_POWER, ValueError)


def check_result(ufunc, args, result):
    """Add the run-time checks for `result = ufunc(*args)` (see `applies`)."""
    if type(result) is not AbstractArray or result.dtype != np.int64:
        return
    if _statically_safe(ufunc, args):
        return
    ops = [_strong(a) for a in args]
    r = _strong(result)
    if ufunc in _UNARY:
        check(_UNARY[ufunc](ops[0], r), OVERFLOW, OverflowError)
        return
    check(_BINARY[ufunc](ops[0], ops[1], r), OVERFLOW, OverflowError)
