"""Strided slices of run-time length: a step other than 1 with traced bounds (`x[j::3]`,
`x[i:0:-2]`), a traced step (`x[::k]`), and any step on an axis that is already dynamic
(`x[:k][::2]`, `x[mask][1::2]`). They were refused (or made their loop unroll); they are
gathered views now (runtime/numpy/indexing/bounded_strided.py). Compared with NumPy: values,
dtypes and the caller's arrays, for bounds from data and from a staged loop's index."""
import warnings

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.operators.loops import NpxlaPerformanceWarning
from tests.differential import check

RNG = np.random.default_rng(23)


def data_bounds(x, ij):
    i, j = ij[0], ij[1]
    return (x[i::3], x[i:j:2].sum(), x[:j:4] * 2, x[i:j:-2], x[i::-3].prod(),
            x[:j:-2].copy())


@pytest.mark.parametrize("ij", [(5, 1), (1, 5), (-2, -6), (20, -20), (-20, 3), (0, -1),
                                (6, 6), (7, 2), (0, 11)])
def test_bounds_from_data(ij):
    check(data_bounds, RNG.random(11), np.array(ij))


def traced_step(x, k):
    step = k[0]
    return x[::step], x[2::step].sum(), x[-3:1:step], x[1:-1:step].max(initial=-1.0)


@pytest.mark.parametrize("k", [1, 2, 3, 12, -1, -2, -5, -40])
def test_a_traced_step(k):
    check(traced_step, RNG.random(10), np.array([k]))


def test_a_zero_step_raises_like_numpy():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        jit(traced_step)(RNG.random(10), np.array([0]))


def phase_sums(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0] // 2):
        out[i] = x[i::2].sum() + x[:i:-3].sum()
    return out


def interleave(x, y):
    for i in range(3):
        x[i::3] = y[i::3] * (i + 1)
    return x


@pytest.mark.parametrize("fn, shapes", [(phase_sums, [(12,)]),
                                        (interleave, [(10,), (10,)])])
def test_loops_over_the_phase_stage_one_loop(fn, shapes):
    args = [RNG.random(s) for s in shapes]
    with warnings.catch_warnings():
        warnings.simplefilter("error", NpxlaPerformanceWarning)
        check(fn, *args)
    assert jit(fn).lower(*args).as_text().count("stablehlo.while") == 1


def through_a_view(x, j):
    y = x[j[0]::2]
    y[0] = -1.0             # reaches x
    x[j[0] + 2] = 100.0     # and y sees it
    y *= 2
    return y.copy(), y.max(), y.size


@pytest.mark.parametrize("j", [0, 1, 4, 7])
def test_writes_through_the_view_reach_the_caller(j):
    check(through_a_view, RNG.random(10), np.array([j]))


def two_d(a, j):
    j = j[0]
    a[j::2, 1] = 7.0
    a[0, j::-2] += 1.0
    return a[1, j::2].sum(), a[:, j::-1].copy(), a[j::3, ::2] * 2


@pytest.mark.parametrize("j", [0, 1, 2, 4])
def test_two_dimensional_arrays(j):
    check(two_d, RNG.random((5, 6)), np.array([j]))


def steps_of_dynamic_axes(x, k):
    k = k[0]
    y = x[:k]
    z = x[x > 0.3]
    return (y[::2], y[::-2], y[k - 1:0:-2], z[::3], z[1::2].sum(), y[1:-1:-1],
            y[-2::-1], z[::-1][::2])


@pytest.mark.parametrize("k", [0, 1, 2, 5, 9])
def test_steps_on_a_dynamic_axis(k):
    check(steps_of_dynamic_axes, RNG.random(9), np.array([k]))


def writes_into_dynamic_axes(x, k):
    x[:k[0]][::2] = 0.0
    x[k[0]:][::-3] -= 1
    return x


@pytest.mark.parametrize("k", [0, 3, 7])
def test_writes_into_a_strided_dynamic_axis(k):
    check(writes_into_dynamic_axes, np.arange(9, dtype=np.int32), np.array([k]))


def empty_and_small(x, j):
    return x[j[0]::3], x[j[0]::-3], x[j[0]:j[0]:2].sum()


@pytest.mark.parametrize("x", [np.arange(4.0), np.arange(1, dtype=np.float32),
                               np.arange(3, dtype=np.int8)])
@pytest.mark.parametrize("j", [0, 2, 40, -40])
def test_empty_and_short_axes(x, j):
    check(empty_and_small, x, np.array([j]))
