"""How a captured value is compared on each call: typed keys for plain data (so `1`,
`1.0` and `True` differ, as do `-0.0` and `0.0`, and NaN equals NaN) and the Python
source of a scalar's check. Both the environment capture (`guards`) and the generated
guard (`guardgen`) use them.
"""
from __future__ import annotations

import math

import numpy as np

SCALARS = (bool, int, float, complex, str, bytes, type(None))
DATA_MAX = 1 << 16      # elements of a pure-data container guarded by value
DATA_TYPED = 32          # up to this size compared element by element with types


class _Missing:
    __slots__ = ()

    def __repr__(self):
        return "<missing>"


MISSING = _Missing()


def is_data(v, budget):
    """Plain data (scalars in tuples/lists/dicts), small enough to compare by value."""
    t = type(v)
    budget[0] -= 1
    if budget[0] < 0:
        return False
    if t in SCALARS:
        return True
    if t in (tuple, list):
        return all(is_data(x, budget) for x in v)
    if t is dict:
        return all(type(k) in SCALARS and is_data(x, budget) for k, x in v.items())
    return False


def data_key(v):
    """A typed, comparable description of plain data (1 and 1.0 and True differ, and
    so do -0.0 and 0.0; NaN equals NaN)."""
    t = type(v)
    if t is float:
        return (t, v) if v == v and v != 0.0 else (t, repr(v))
    if t in SCALARS:
        return (t, v)
    if t is dict:
        return (t, tuple((data_key(k), data_key(x)) for k, x in v.items()))
    return (t, tuple(data_key(x) for x in v))


def scalar_condition(var, value, const):
    """Python source of the check that `var` still is the scalar `value` (`const`: the
    name under which `value` is in the guard's namespace)."""
    t = type(value)
    if value is None or t is bool:
        return f"{var} is {value!r}"
    tname = f"type({var}) is T_{const}"
    if t is float or isinstance(value, np.floating):
        if value != value:
            return f"{tname} and {var} != {var}"
        if value == 0:
            sign = math.copysign(1.0, float(value))
            return f"{tname} and {var} == 0 and copysign(1.0, {var}) == {sign!r}"
    if (t is complex or isinstance(value, np.complexfloating)) and value != value:
        return f"{tname} and {var} != {var}"
    return f"{tname} and {var} == {const}"
