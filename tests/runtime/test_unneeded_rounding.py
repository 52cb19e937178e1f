"""Roundings that nothing could fuse with are dropped after staging
(`lowering/unneeded_rounding.py`): a product read only by compares, max/min and sum
reductions, an argmax, or returned, reaches XLA bare; one that an add (or a loop's next
trip, or a branch) reads keeps its rounding. Every case is bit for bit NumPy's; the
cancelling ones (`a*x + b*x` with `a == -b`) differ in every bit under contraction,
and the compiled program is checked for the `or` the rounding leaves."""
import re

import numpy as np
import pytest

from npxla import jit
from tests.differential import check

RNG = np.random.default_rng(53)


def max_of_product(a, b):
    return np.max(a * b)


def argmax_of_product(a, b):
    return np.argmax(a * b)


def count_over(a, b, t):
    return np.count_nonzero(a * b > t)


def where_product(a, b, t):
    return np.where(a * b > t, a * b, -b)


def product_returned_and_added(a, b, x):
    p = a * x
    return p, p + b * x


def where_then_added(a, b, x, m):
    return np.where(m, a * x, 0.0) + b * x


def loop_carried(a, b, x):
    s = a * x
    for _ in range(3):
        s = s + b * x
    return s


def roundings_left(fn, *args) -> int:
    """How many `or`s of float bits the optimised program still computes."""
    return len(re.findall(r"= u(?:16|32|64)\[[\d,]*\](?:\{[\d,]*\})? or\(",
                          jit(fn).lower(*args).as_text("hlo")))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_read_only_where_nothing_fuses_run_bare(dtype):
    a = RNG.normal(size=5000).astype(dtype)
    b = RNG.normal(size=5000).astype(dtype)
    a[17] = np.nan
    for fn, args in [(max_of_product, (a, b)), (argmax_of_product, (a, b)),
                     (count_over, (a, b, dtype(0.5))), (where_product, (a, b, dtype(0.1)))]:
        check(fn, *args, rtol=0, atol=0)
        assert roundings_left(fn, *args) == 0, fn.__name__


def _cancelling(dtype):
    a = RNG.normal(size=4096).astype(dtype) * dtype(1e3)
    x = RNG.normal(size=4096).astype(dtype) * dtype(1e3) + dtype(0.1)
    return a, -a, x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_product_an_add_reads_keeps_its_rounding(dtype):
    a, b, x = _cancelling(dtype)
    p, s = check(product_returned_and_added, a, b, x, rtol=0, atol=0)
    assert not s.any()                   # NumPy's exact zeros, not FMA residuals
    assert roundings_left(product_returned_and_added, a, b, x) >= 1
    m = RNG.random(4096) > 0.3
    out = check(where_then_added, a, b, x, m, rtol=0, atol=0)
    assert not out[m].any()
    assert roundings_left(where_then_added, a, b, x, m) >= 1


def test_a_product_carried_into_the_next_trip_keeps_its_rounding():
    a, b, x = _cancelling(np.float64)
    check(loop_carried, a, b, x, rtol=0, atol=0)
    assert roundings_left(loop_carried, a, b, x) >= 1
