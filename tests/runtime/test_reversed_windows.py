"""Slices with step -1 and traced bounds (`r[k:0:-1]`, `y[k - 1::-1]`, from a loop index
or from data) are windows of the reversed axis: staged as one loop, not unrolled, reads
and writes alike. Compared with NumPy: values and the caller's arrays, including empty,
negative and out-of-range bounds."""
import warnings

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.operators.loops import NpxlaPerformanceWarning
from tests.differential import check

RNG = np.random.default_rng(11)


def backward_dots(a, b):
    n = a.shape[0]
    out = np.zeros(n)
    for k in range(1, n):
        out[k] = a[k:0:-1] @ b[:k]
    return out


def reversed_prefix_sums(a):
    n = a.shape[0]
    out = np.zeros(n)
    for k in range(1, n + 1):
        out[k - 1] = a[k - 1::-1].sum() + a[:k - 1:-1].sum() * 0.5
    return out


def reversed_writes(a):
    n = a.shape[0]
    for k in range(1, n):
        a[k:0:-1] += a[:k]          # the right-hand side is read before the write
        a[:k:-1] *= 0.5
    return a


def levinson_like(r, order):
    """The Levinson-Durbin update written with reversed slices of the prefix."""
    a = np.zeros(order + 1)
    a[0] = 1.0
    e = r[0]
    for k in range(1, order + 1):
        acc = r[k] + a[1:k] @ r[k - 1:0:-1]
        lam = -acc / e
        a[1:k + 1] = a[1:k + 1] + lam * a[k - 1::-1][:k]
        e *= 1 - lam * lam
    return a, e


def data_bounds(x, ij):
    i, j = ij[0], ij[1]
    return x[i:j:-1].sum(), x[i::-1].prod(), x[:j:-1].copy()[:1].sum()


@pytest.mark.parametrize("fn", [backward_dots, reversed_prefix_sums])
def test_reads_stage_one_loop(fn):
    args = [RNG.random(9) for _ in range(fn.__code__.co_argcount)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", NpxlaPerformanceWarning)
        check(fn, *args)
    # one staged loop, which `unroll` may run as a loop of body copies and a loop for
    # the trips left
    assert jit(fn).lower(*args).as_text().count("stablehlo.while") <= 2


def test_writes_through_a_reversed_window():
    check(reversed_writes, RNG.random(7))


def test_levinson_with_reversed_slices():
    check(levinson_like, np.array([4.0, 1.0, 0.5, 0.25, 0.1, 0.05]), 5)


@pytest.mark.parametrize("ij", [(5, 1), (1, 5), (-2, -6), (20, -20), (-20, 3), (0, -1),
                                (6, 6), (7, 2)])
def test_bounds_from_data(ij):
    check(data_bounds, RNG.random(8), np.array(ij))


def reversed_max(x, i):
    return x[i[0]::-1].max()


def test_empty_reversed_window_max_raises_like_numpy():
    check(reversed_max, RNG.random(5), np.array([3]))
    with pytest.raises(ValueError):
        reversed_max(RNG.random(5), np.array([-20]))
    with pytest.raises(ValueError):
        jit(reversed_max)(RNG.random(5), np.array([-20]))
