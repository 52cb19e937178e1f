"""`and`, `or`, `not` and chained comparisons with Python's evaluation order.

Python values short-circuit exactly as in Python and return the deciding operand. A
traced operand decides at run time: `a and b` becomes `b if a else a`, a staged
conditional expression, so the later operands are still evaluated only when needed.
"""
from __future__ import annotations

import operator

import numpy as np

from npxla.runtime.operators.conditionals import if_exp, is_traced, to_pred
from npxla.runtime.numpy.core.registry import dispatch


def and_(*operands):
    return _chain(operands, stop_when=False)


def or_(*operands):
    return _chain(operands, stop_when=True)


def _chain(thunks, stop_when):
    value = thunks[0]()
    for k in range(1, len(thunks)):
        if is_traced(value):
            rest = thunks[k:]
            decided = value
            tail = (lambda: _chain(rest, stop_when))

            def keep(v=decided):
                return v
            return if_exp(value, keep, tail) if stop_when else if_exp(value, tail, keep)
        if bool(value) == stop_when:
            return value
        value = thunks[k]()
    return value


def not_(x):
    if not is_traced(x):
        return not x
    result = dispatch(np.logical_not, (to_pred(x),), {})
    result.weak = True      # `not` gives a Python bool
    return result


_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne, "is": operator.is_,
            "is not": operator.is_not, "in": lambda a, b: a in b,
            "not in": lambda a, b: a not in b}


def compare_chain(operands, ops):
    """`a < b <= c`: each operand evaluated at most once, left to right."""
    left = operands[0]()
    values = {}

    def step(k):
        def thunk():
            if k not in values:
                values[k] = operands[k]()
            lhs = left if k == 1 else values[k - 1]
            return _COMPARE[ops[k - 1]](lhs, values[k])
        return thunk
    return and_(*[step(k) for k in range(1, len(operands))])
