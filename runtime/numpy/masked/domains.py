"""Operations NumPy masks elements in, by value: checked on the values, never ignored.

`np.ma` masks an element where an operation leaves its domain, in two ways:

- a ufunc *called* on a masked array (`np.log(m)`, `np.divide(m, b)`, `m % b`, `-m`
  through `__array_wrap__`) masks where `np.ma.core.ufunc_domain[ufunc]` holds
  (log: x <= 0; sqrt: x < 0; arcsin: |x| > 1; divide: |a| * tiny >= |b|; ...);
- a `MaskedArray` *operator* masks more: `m / b`, `m // b` (and reflected) mask where
  the domain holds or the result is not finite; `m ** b` where the result is not
  finite; `m /= b`, `m //= b` where the domain holds; `m **= b` where the result is
  not finite.

Compiled code holds no masks, so each such operation on a masked operand is checked:
while compiling when the operands are known (a refusal now if an element is masked),
else by the program, which raises `MASKED_VALUES` where it meets such an element. The
predicates are NumPy's own domain objects' (their thresholds are read from them).
"""
from __future__ import annotations

import sys

import numpy as np

from npxla.transpiler.base import catalogue as C
from npxla.transpiler.base.origin import locate_stack

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.numpy.core.errorflags import check_raises
from npxla.runtime.numpy.core.registry import dispatch

# MaskedArray's own operators -> (the ufunc whose domain masks, or None; whether a
# non-finite result is masked too). Every other operator is ndarray's: a ufunc call.
OPERATORS = {
    "__truediv__": (np.true_divide, True), "__rtruediv__": (np.true_divide, True),
    "__floordiv__": (np.floor_divide, True), "__rfloordiv__": (np.floor_divide, True),
    "__itruediv__": (np.true_divide, False), "__ifloordiv__": (np.floor_divide, False),
    "__pow__": (None, True), "__rpow__": (None, True), "__ipow__": (None, True),
}
_WHY = {"_DomainGreater": "x <= {0.critical_value}",
        "_DomainGreaterEqual": "x < {0.critical_value}",
        "_DomainCheckInterval": "x lies outside [{0.a}, {0.b}]",
        "_DomainTan": "|cos(x)| < {0.eps}",
        "_DomainSafeDivide": "the divisor is 0 (|a| * tiny >= |b|)"}


def _d(fn, *args):
    return dispatch(fn, args, {})


def domain_of(ufunc):
    """NumPy's domain object for `ufunc` on masked arrays, or None."""
    return np.ma.core.ufunc_domain.get(ufunc)


def _domain_flag(domain, operands):
    """Where `domain` (one of np.ma's domain objects) masks, as NumPy computes it."""
    kind = type(domain).__name__
    if kind == "_DomainSafeDivide":
        tolerance = domain.tolerance if domain.tolerance is not None else \
            np.finfo(float).tiny
        a, b = (_strong(x) for x in operands[:2])
        return _d(np.greater_equal, _d(np.multiply, _d(np.absolute, a), tolerance),
                  _d(np.absolute, b))
    x = operands[0]
    if kind == "_DomainGreater":
        return _d(np.less_equal, x, domain.critical_value)
    if kind == "_DomainGreaterEqual":
        return _d(np.less, x, domain.critical_value)
    if kind == "_DomainCheckInterval":
        return _d(np.logical_or, _d(np.greater, x, domain.b), _d(np.less, x, domain.a))
    if kind == "_DomainTan":
        return _d(np.less, _d(np.absolute, _d(np.cos, x)), domain.eps)
    raise C.MASKED_OPERATION.error_for(fn=str(domain), why="an unknown np.ma domain")


def _strong(x):
    """`np.asarray(x)` as _DomainSafeDivide takes it: a Python scalar becomes a 0-d
    array of its default dtype (not a weak scalar)."""
    if type(x) in (bool, int, float, complex):
        return np.asarray(x)
    if type(x) is AbstractArray and x.weak:
        c = x.const
        if c is not None:
            return np.asarray(c.item())
        return dispatch(np.asarray, (x,), {})
    return x


def _nonfinite(result):
    if not isinstance(result, AbstractArray) or result.dtype.kind not in "fc":
        return None
    return _d(np.logical_not, _d(np.isfinite, result))


def check_ufunc(ufunc, operands, what):
    """A ufunc called on a masked operand: masked where its domain holds."""
    domain = domain_of(ufunc)
    if domain is not None:
        _require(_domain_flag(domain, operands), what, _WHY.get(
            type(domain).__name__, "NumPy's domain fails").format(domain))


def check_operator(name, operands, what):
    """A MaskedArray operator (`operands` in NumPy's order: self first unless
    reflected), before it computes: masked where its domain holds."""
    ufunc, _ = OPERATORS[name]
    if ufunc is not None:
        domain = domain_of(ufunc)
        _require(_domain_flag(domain, operands), what,
                 _WHY[type(domain).__name__].format(domain))


def check_operator_result(name, result, what):
    """The same operator's result: most mask where it is not finite."""
    if OPERATORS[name][1]:
        flag = _nonfinite(result)
        if flag is not None:
            _require(flag, what, "the result is not finite (inf or nan)")


def check_finite(result, what):
    """A method whose NumPy implementation divides with a masked operator
    (`m.mean(axis)`): masked where the result is not finite."""
    for leaf in (result if isinstance(result, (tuple, list)) else (result,)):
        flag = _nonfinite(leaf)
        if flag is not None:
            _require(flag, what, "the result is not finite (inf or nan)")


def _require(flag, what, why):
    """Refuse now if the known `flag` holds anywhere; a traced one is checked when the
    program runs (it raises MASKED_VALUES there)."""
    if not isinstance(flag, AbstractArray):
        flag = AbstractArray.from_const(np.asarray(flag), weak=False)
    const = flag.const
    if const is not None:
        if np.any(const):
            raise C.MASKED_VALUES.error_for(what=what, why=why)
        return
    where = locate_stack(sys._getframe(1))
    error = C.MASKED_VALUES.error_for(location=where, what=what, why=why)
    check_raises(_d(np.any, flag) if flag.ndim else flag, error)
