"""Kernighan's bit count as one instruction (`converters/bit_count_loops.py`).

`while v: v &= v - 1; c += k` runs once per set bit of `v` and leaves `v == 0`, so
its result is `(0, c + k * popcount(v))`, computed here with `stablehlo.popcnt` of the
two's complement bits (NumPy's fixed-width integers wrap the same way in the loop:
`v - 1` of the most negative value is the largest one, whose `&` with it is 0).
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.lowering import elementwise as E
from npxla.runtime.numpy.core.convert import cast_to
from npxla.runtime.numpy.core.registry import dispatch


def bit_count_applies(v, c):
    """Whether the loop's result is the count's, bit for bit: `v` a traced 0-d integer
    of a NumPy dtype (a Python int may be negative: Python's loop never ends), `c` a
    Python or NumPy integer (a float count would round differently, summed at once)."""
    if type(v) is not AbstractArray or v.const is not None or v.weak or v.shape or \
            v.dtype.kind not in "iu":
        return False
    if type(c) is AbstractArray:
        return not c.shape and c.dtype.kind in "iu"
    return isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_))


def bit_count(v, c, k):
    """(v & 0, c + k * popcount(v)): the count added as a Python int would be, with
    the same overflow check as the loop's additions."""
    bits = cast_to(E.popcnt(v), np.dtype(np.int64), weak=True)
    steps = bits if k == 1 else dispatch(np.multiply, (bits, k), {})
    return dispatch(np.bitwise_and, (v, 0), {}), dispatch(np.add, (c, steps), {})
