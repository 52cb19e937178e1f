"""Python's ZeroDivisionError for traced Python numbers.

A Python `int`, `float` or `complex` argument is traced as a weak 0-d value (one
program serves every value). Where all operands of `/`, `//`, `%`, `divmod` or `**` are
such Python numbers, Python defines the result, and Python raises `ZeroDivisionError`
for a zero divisor (or zero to a negative power), where NumPy's loops return inf, NaN
or 0 with a warning. So these operations carry a run-time check that raises Python's
exception, with Python's own message, after the call. An operand that is a NumPy value
(an array element, a NumPy scalar) keeps NumPy's semantics.
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.numpy.core.errorflags import check

_PYTHON = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_OPERATORS = {np.true_divide: operator.truediv, np.floor_divide: operator.floordiv,
              np.remainder: operator.mod, np.divmod: divmod, np.power: operator.pow}


def _python_type(x):
    """The Python type of a Python-number operand, or None for anything else."""
    if type(x) in (bool, int, float, complex):
        return type(x)
    if type(x) is AbstractArray and x.weak and x.ndim == 0:
        return _PYTHON.get(x.dtype.kind)
    return None


def applies(ufunc, args) -> bool:
    """Whether `ufunc(*args)` is Python arithmetic on traced numbers that may divide by
    zero."""
    if ufunc not in _OPERATORS or len(args) != 2:
        return False
    if any(_python_type(a) is None for a in args):
        return False
    return any(type(a) is AbstractArray and a.const is None for a in args)


def _message(ufunc, args):
    """Python's message for these operand types (it names them: 'float modulo')."""
    a, b = (_python_type(x)(1) for x in args)
    try:
        if ufunc is np.power:
            (a * 0) ** -b
        else:
            _OPERATORS[ufunc](a, b * 0)
    except ZeroDivisionError as e:
        return str(e)
    return "division by zero"       # pragma: no cover - every case above raises


def check_operands(ufunc, args):
    """Record the check: the divisor is zero (the base is zero and the exponent
    negative, for `**`)."""
    a, b = (as_abstract(x) if type(x) is not AbstractArray else x for x in args)
    if ufunc is np.power:
        if _python_type(b) not in (int, float) or _python_type(a) is complex:
            return
        flag = E.bitwise_and(E.compare(a, as_abstract(a.dtype.type(0)), "EQ"),
                             E.compare(b, as_abstract(b.dtype.type(0)), "LT"))
    else:
        flag = E.compare(b, as_abstract(b.dtype.type(0)), "EQ")
    check(flag, _message(ufunc, args), ZeroDivisionError)
