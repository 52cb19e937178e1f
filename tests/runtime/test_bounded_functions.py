"""NumPy functions beyond ufuncs and reductions on arrays of run-time length (refused
before): sort/argsort, median/quantile/percentile and their nan forms, unique,
concatenate/hstack/append, diff, nanmax/nanmin/nanargmax/nanargmin, ptp, allclose,
average, flip/flipud/fliplr, atleast_nd, np.r_ and the element-by-element functions (round, isclose, nan_to_num,
zeros_like, ...). Differential against NumPy: values, dtypes, errors; NaNs, empty
selections, integers, bounds from data and from a staged loop's index."""
import warnings

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.operators.loops import NpxlaPerformanceWarning
from tests.differential import check

RNG = np.random.default_rng(41)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

_DATA = np.array([0.3, np.nan, -1.2, 0.3, 2.5, -0.7, 1.1, 0.3, -2.0, 0.9])
_INTS = np.array([3, -1, 4, 1, -5, 9, 2, 6, 5, 3])


def ordering(x, k):
    y = x[:k[0]]
    z = x[x > 0]
    u = np.unique(x)[:k[0]]          # distinct values: NumPy's argsort is not stable
    return (np.sort(y), np.sort(z), np.argsort(u[::-1]), u[::-1].argsort(),
            np.unique(z), np.unique(y, return_counts=True), np.flip(y), np.diff(y),
            np.diff(z, n=2))


def statistics(x, k):
    y = x[:k[0]]
    z = x[x > 0]
    return (np.median(y), np.nanmedian(y), np.median(z), np.nanpercentile(y, 90),
            np.nanquantile(z, 0.25, method="lower"), np.average(y))


def extremes(x, k):
    y = x[k[0]:]
    return np.ptp(y), np.nanmax(y), np.nanmin(y), np.nanpercentile(y, [10, 90])


def quantiles(x, k):
    y = x[k[0]:]
    return (np.quantile(y, 0.3), np.percentile(y, [25, 50, 75]),
            np.quantile(y, 0.5, method="nearest"), np.median(y))


def joins(x, k):
    y = x[:k[0]]
    z = x[x > 0]
    return (np.concatenate([y, z]), np.hstack([z, x[:2], y]), np.append(y, 7.0),
            np.concatenate((y, y), axis=None), np.append(z, [[1.0, 2.0]]))


def elementwise(x, k):
    y = x[:k[0]]
    return (np.round(y, 1), y.round(), np.isclose(y, 0.3), np.nan_to_num(y),
            np.zeros_like(y), np.full_like(y, 2.0), np.ones_like(y, dtype=np.int32),
            np.allclose(y, y), y.ravel(), y.flatten())


def flips_and_new_axes(x, k):
    y = x[:k[0]]
    z = x[x > 0]
    rows = np.outer(x, x[:3])[:k[0]]
    return (np.flipud(y), np.flipud(rows), np.fliplr(rows), np.fliplr(rows[:, :k[0]]),
            np.atleast_1d(y), np.atleast_1d(y, z, 2.0), np.atleast_2d(z),
            np.atleast_3d(y), np.atleast_3d(rows), np.atleast_2d(rows),
            np.r_[np.flipud(y[:2]), 0], np.r_[z[::-1], 1.5, y])    # (emd's padding)


@pytest.mark.parametrize("x", [_DATA, _INTS, _DATA.astype(np.float32)])
@pytest.mark.parametrize("k", [0, 1, 2, 5, 10])
@pytest.mark.parametrize("fn", [ordering, statistics, joins, elementwise,
                                flips_and_new_axes])
def test_functions_of_run_time_length_arrays(fn, x, k):
    check(fn, x, np.array([k]))


@pytest.mark.parametrize("x", [_DATA, _INTS, np.array([np.nan, np.nan, 1.0, np.nan])])
@pytest.mark.parametrize("k", [0, 1, 3])
def test_extremes_of_nonempty_arrays(x, k):
    check(extremes, x, np.array([k]))


def empty_extreme(x, k):
    return np.nanmax(x[:k[0]])


def test_an_empty_nanmax_raises_like_numpy():
    with pytest.raises(ValueError, match="reduction operation fmax"):
        jit(empty_extreme)(_DATA, np.array([0]))


@pytest.mark.parametrize("x", [_DATA[2:], _INTS])
@pytest.mark.parametrize("k", [0, 3, 7])
def test_quantiles(x, k):
    check(quantiles, x, np.array([k]))


def test_the_quantile_of_nothing_raises_like_numpy():
    x = np.arange(4.0)
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        quantiles(x, np.array([4]))
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        jit(quantiles)(x, np.array([4]))


def nan_arg(x, k):
    return np.nanargmax(x[:k[0]]), np.nanargmin(x[:k[0]]), np.nanmax(x[:k[0]])


@pytest.mark.parametrize("x, k, error", [
    (np.array([np.nan, np.nan, 1.0]), 2, "All-NaN slice encountered"),
    (np.array([1.0, 2.0]), 0, "argmax of an empty sequence"),
])
def test_nan_arg_extremes_raise_like_numpy(x, k, error):
    with pytest.raises(ValueError, match=error):
        nan_arg(x, np.array([k]))
    with pytest.raises(ValueError, match=error):
        jit(nan_arg)(x, np.array([k]))


def running_medians(x):
    n = x.shape[0]
    out = np.zeros(n)
    last = np.zeros(n)
    for i in range(1, n + 1):
        out[i - 1] = np.median(x[:i]) + np.percentile(x[:i], 90)
        last[i - 1] = np.sort(x[:i])[-1] + np.unique(x[:i]).size
    return out, last


def test_a_staged_loop_of_medians_and_sorts():
    x = np.round(RNG.random(12) * 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NpxlaPerformanceWarning)
        check(running_medians, x)
    assert jit(running_medians).lower(x).as_text().count("stablehlo.while") == 1


def searching_and_binning(x, k):
    y = x[:k[0]]
    s = np.sort(x[x > 0])
    return (np.searchsorted(s, 0.5), np.searchsorted(s, [0.0, 1.1, 9.0], side="right"),
            np.searchsorted(np.sort(y), y), np.histogram(y, bins=4),
            np.histogram(s, bins=3, range=(0.0, 3.0), density=True),
            np.histogram(y, bins=[-3.0, 0.0, 1.0, 3.0], weights=y * 2),
            np.interp(y, [-1.0, 0.0, 2.0], [5.0, 0.0, 1.0]), np.trapezoid(s, dx=0.5))


@pytest.mark.parametrize("x", [_DATA[2:], _INTS, np.array([1, 1, 2, 2, 2, 3]) * 1.0])
@pytest.mark.parametrize("k", [0, 1, 4, 6])
def test_searching_binning_interpolating(x, k):
    check(searching_and_binning, x, np.array([k]))


def _nan_histogram(x, k):
    return np.histogram(x[:k[0]], bins=3)


def test_a_histogram_of_nans_raises():
    with pytest.raises(ValueError):
        _nan_histogram(_DATA, np.array([3]))
    with pytest.raises(ValueError, match="range"):
        jit(_nan_histogram)(_DATA, np.array([3]))


def rolling_and_convolving(x, k):
    y = x[:k[0]]
    z = x[x > 0.25]
    w = np.array([0.5, 0.25, 0.25])
    return (np.roll(y, 2), np.roll(z, -1), np.repeat(y, 3), np.repeat(z, 0),
            np.convolve(z, w), np.convolve(w, z, mode="same"), np.convolve(z, w, "valid"),
            np.convolve(y, [1.0, -1.0], mode="same"))


@pytest.mark.parametrize("x", [_DATA[2:], np.array([0.5, 1.0, 2.0, 0.1, 0.3, 0.9, 0.7])])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_rolling_repeating_convolving(x, k):
    check(rolling_and_convolving, x, np.array([k]))


def _convolve_nothing(x, k):
    return np.convolve(x[:k[0]], [1.0, 2.0])


def test_convolving_nothing_raises_like_numpy():
    with pytest.raises(ValueError, match="a cannot be empty"):
        _convolve_nothing(_DATA, np.array([0]))
    with pytest.raises(ValueError, match="a cannot be empty"):
        jit(_convolve_nothing)(_DATA, np.array([0]))


def tiles_and_gradients(x, k):
    y = x[:k[0]]
    z = x[x > 0.25]
    return (np.tile(y, 2), np.tile(z, 0), np.tile(z, 3).sum(), np.gradient(z),
            np.gradient(y, 0.5), np.gradient(np.arange(10)[:k[0]]))


@pytest.mark.parametrize("x", [_DATA[2:], np.array([0.5, 1.0, 2.0, 0.1, 0.3, 0.9, 0.7])])
@pytest.mark.parametrize("k", [2, 3, 6])
def test_tiles_and_gradients(x, k):
    check(tiles_and_gradients, x, np.array([k]))


def _gradient_of_one(x, k):
    return np.gradient(x[:k[0]])


def test_a_gradient_of_one_element_raises_like_numpy():
    with pytest.raises(ValueError, match="too small to calculate a numerical gradient"):
        _gradient_of_one(_DATA, np.array([1]))
    with pytest.raises(ValueError, match="too small to calculate a numerical gradient"):
        jit(_gradient_of_one)(_DATA, np.array([1]))


def scalar_masks(x, y):
    m = x[0] > 0                     # a 0-d mask: a new axis of length 1 or 0
    z, w = y.copy(), y.copy()
    z[m] = 7.0
    w[m] += y[m] * 2
    s = np.asarray(x[1])
    b = np.empty_like(s)             # (pymap3d's ecef2geodetic of scalars)
    b[~np.isclose(s, 0)] = np.arctan(s[~np.isclose(s, 0)])
    b[np.isclose(s, 0)] = 0
    return y[m], y[m].sum(axis=0), z, w, b


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([-1.0, 0.0])])
def test_zero_d_boolean_masks(x):
    check(scalar_masks, x, np.arange(6.0).reshape(2, 3))
