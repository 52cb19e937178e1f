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


def is_(a, b):
    """`a is b`. A traced Python bool (`bool(x > 0)`, `not x`: a weak 0-d bool) is one of
    the two singletons when the program runs, so `ok is False` tests its value, as in
    Python; any other traced value is a new object (a NumPy scalar or array: `x > 0` is
    `np.True_`, never `True`), and identity holds only for the same handle."""
    for value, singleton in ((a, b), (b, a)):
        if (singleton is True or singleton is False) and _python_bool(value):
            return value if singleton else not_(value)
    return a is b


def is_not(a, b):
    same = is_(a, b)
    return not_(same) if is_traced(same) else not same


def _python_bool(value) -> bool:
    return is_traced(value) and getattr(value, "weak", False) and \
        value.dtype == np.bool_ and value.shape == ()


_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne, "is": is_, "is not": is_not,
            "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


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
