"""Differential tests: np.bincount and np.histogram (runtime/numpy/reductions/histograms.py):
dtypes, weights, minlength, uniform and explicit edges, ranges (static and traced),
density, values on bin edges, and the refusals for data-dependent lengths."""
import numpy as np
import pytest

from matrix import alternate

from differential import check, tolerance
from npxla import jit
from npxla.transpiler.base.errors import ConcretizationError, DataDependentShapeError

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(7)
DATA = RNG.normal(size=200)


# --- bincount ----------------------------------------------------------------------------

def bincount(x):
    return np.bincount(x, minlength=8)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64,
                                   np.uint32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_bincount_dtypes(dtype):
    x = RNG.integers(0, 8, size=30).astype(dtype)
    check(bincount, x)


def bincount_weights(x, w):
    return np.bincount(x, weights=w, minlength=6), np.bincount(x, w, 7)


@pytest.mark.parametrize("wdtype", [np.float64, np.float32, np.int32, np.uint8, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_bincount_weights(wdtype):
    x = np.array([0, 1, 1, 5, 3, 5, 5])
    w = (RNG.random(7) * 4).astype(wdtype)
    check(bincount_weights, x, w)


def test_bincount_uint64():
    check(bincount, np.array([0, 3, 3, 7], np.uint64))


def bincount_empty(x, w):
    return np.bincount(x), np.bincount(x, minlength=3), np.bincount(x, w, minlength=2)


def test_bincount_empty_input_has_static_length():
    check(bincount_empty, np.zeros(0, np.int64), np.zeros(0))


def bincount_const_x(w):
    return np.bincount(np.array([0, 3, 3, 1]), weights=w)


def test_bincount_constant_x_traced_weights():
    check(bincount_const_x, np.array([0.5, 1.0, 2.0, 4.0]))


def bincount_in_loop(xs):
    total = np.zeros(4, np.int64)
    for row in xs:
        total = total + np.bincount(row, minlength=4)
    return total


def test_bincount_in_a_loop():
    check(bincount_in_loop, RNG.integers(0, 4, size=(5, 9)))


def bincount_no_minlength(x):
    return np.bincount(x)


def test_bincount_without_minlength_is_data_dependent():
    with pytest.raises(DataDependentShapeError, match="minlength") as e:
        jit(bincount_no_minlength)(np.array([0, 1, 2]))
    assert "max(x) < minlength" in e.value.hint


def test_bincount_value_beyond_minlength_raises_after_the_call():
    f = jit(bincount)
    with pytest.raises(IndexError, match="minlength=8"):
        f(np.array([0, 8, 1]))
    with pytest.raises(IndexError, match="negative"):
        f(np.array([0, -1, 1]))
    np.testing.assert_array_equal(f(np.array([0, 7, 1])), np.bincount([0, 7, 1], minlength=8))


def bincount_bad(x, w):
    return np.bincount(x, weights=w, minlength=4)


@pytest.mark.parametrize("x,w,exc", [
    (np.array([0.0, 1.0]), None, TypeError),
    (np.array([0, 1], np.complex64), None, TypeError),
    (np.array([[0, 1]]), None, ValueError),
    (np.array(1), None, ValueError),
    (np.array([0, 1]), np.array([1.0, 2.0, 3.0]), ValueError),
    (np.array([0, 1]), np.array([1j, 2]), TypeError),
])
def test_bincount_errors_match_numpy(x, w, exc):
    with pytest.raises(exc) as expected:
        bincount_bad(x, w)
    with pytest.raises(exc) as got:
        jit(bincount_bad)(x, w)
    assert str(expected.value) in str(got.value)


def bincount_minlength(x, n):
    return np.bincount(x, minlength=n)


def test_bincount_minlength_errors():
    with pytest.raises(ValueError, match="must not be negative"):
        jit(bincount_minlength, static_argnums=1)(np.array([0]), -1)
    with pytest.raises(TypeError, match="use 0 instead of None"):
        jit(bincount_minlength, static_argnums=1)(np.array([0]), None)
    with pytest.raises(ConcretizationError):
        jit(bincount_minlength)(np.array([0]), np.int64(3))


# --- histogram ------------------------------------------------------------------------

def tol(dtype):
    return tolerance(dtype, half=1e-6, single=1e-6, double=(1e-7, 1e-12))


def hist_uniform(x):
    return np.histogram(x), np.histogram(x, 7), np.histogram(x, bins=4, range=(-1, 1.5)), \
        np.histogram(x, 5, density=True)


@pytest.mark.parametrize("dtype", alternate([np.float64, np.float32, np.float16, np.int8,
                                             np.int16, np.int64, np.uint8, np.uint64],
                                            ids=lambda d: np.dtype(d).name))
def test_histogram_uniform_bins(dtype):
    x = DATA * (1 if np.dtype(dtype).kind == "f" else 20)
    if np.dtype(dtype).kind == "u":
        x = np.abs(x)
    check(hist_uniform, x.astype(dtype), **tol(dtype))


def test_histogram_values_on_edges_and_outside():
    # values exactly on interior edges, on the last edge (closed), NaN and outside range
    x = np.array([0.0, 0.1, 0.2, 0.3, 0.7, 1.0, 1.0, -0.5, 1.5, np.nan, 0.6, 0.9])
    check(hist_edges_range, x)
    check(hist_edges_range, x.astype(np.float32), rtol=1e-6)


def hist_edges_range(x):
    return np.histogram(x, bins=10, range=(0, 1)), np.histogram(x, 3, range=(0.1, 0.7)), \
        np.histogram(x, [0.0, 0.1, 0.3, 0.3, 1.0])


def hist_edges(x, edges):
    return np.histogram(x, edges), np.histogram(x, edges, density=True)


@pytest.mark.parametrize("edges", [
    np.array([-2.0, -0.5, 0.0, 0.1, 3.0]),
    np.array([-1, 0, 2], np.int64),               # integer edges keep their dtype
    np.array([0.0, 0.0, 1.0, 1.0]),               # repeated edges: empty bins
    np.array([-5.0, 5.0]),
], ids=["float", "int", "repeated", "one-bin"])
def test_histogram_explicit_edges_traced(edges):
    check(hist_edges, DATA, edges)
    check(hist_edges, (DATA * 3).astype(np.int32), edges)


def hist_list_edges(x):
    return np.histogram(x, bins=[-1, 0, 0.5, 2])


def test_histogram_list_edges():
    check(hist_list_edges, DATA)
    check(hist_list_edges, DATA.astype(np.float32))


def hist_weights(x, w):
    return np.histogram(x, 6, weights=w), np.histogram(x, 6, weights=w, density=True), \
        np.histogram(x, [-1.0, 0.0, 0.5, 3.0], weights=w)


@pytest.mark.parametrize("wdtype", [np.float64, np.float32, np.int32, np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_histogram_weights(wdtype):
    w = (RNG.random(DATA.shape) * 5).astype(wdtype)
    if np.dtype(wdtype).kind == "c":
        w = w + 1j * w[::-1]
    check(hist_weights, DATA, w, **tol(wdtype))


def hist_traced_range(x, lo, hi):
    return np.histogram(x, 8, range=(lo, hi))


@pytest.mark.parametrize("lo,hi", [(-1.0, 2.0), (-2, 2), (0.5, 0.5), (np.float32(-1),
                                                                      np.float32(1))])
def test_histogram_traced_range(lo, hi):
    check(hist_traced_range, DATA, lo, hi)
    check(hist_traced_range, DATA.astype(np.float32), lo, hi, rtol=1e-6, atol=1e-6)


def hist_any(x):
    return np.histogram(x, 4)


@pytest.mark.parametrize("x", [
    np.zeros(0), np.full(5, 3.0), np.full(4, 7, np.int16), np.arange(12.0).reshape(3, 4),
    np.array([True, False, True, True]),
], ids=["empty", "constant", "constant-int", "2d", "bool"])
def test_histogram_special_inputs(x):
    check(hist_any, x)


def hist_2d_weights(x, w):
    return np.histogram(x, 3, weights=w)


def test_histogram_2d_weights_are_raveled():
    check(hist_2d_weights, DATA[:12].reshape(3, 4), np.arange(12.0).reshape(3, 4))


def hist_auto(x):
    return np.histogram(x, bins="auto")


def hist_nonfinite(x):
    return np.histogram(x, 3)


def test_histogram_refusals_and_runtime_checks():
    with pytest.raises(DataDependentShapeError, match="auto"):
        jit(hist_auto)(DATA)
    with pytest.raises(IndexError, match="not finite"):
        jit(hist_nonfinite)(np.array([1.0, np.nan]))


def hist_bad(x, bins, range):
    return np.histogram(x, bins, range)


@pytest.mark.parametrize("bins,range,exc", [
    (0, None, ValueError),
    (2.5, None, TypeError),
    (np.ones((2, 2)), None, ValueError),
    (3, (2.0, 1.0), ValueError),
    (3, (0.0, np.inf), ValueError),
])
def test_histogram_errors_match_numpy(bins, range, exc):
    with pytest.raises(exc) as expected:
        hist_bad(DATA, bins, range)
    with pytest.raises(exc) as got:
        jit(hist_bad, static_argnums=(1, 2))(DATA, bins, range) if not isinstance(
            bins, np.ndarray) else jit(hist_bad, static_argnums=2)(DATA, bins, range)
    assert str(expected.value) in str(got.value)


def hist_constant_bad_edges(x):
    # made inside: a constant (a global array would be an input read at each call)
    return np.histogram(x, np.array([1.0, 0.0, 2.0]))


def test_histogram_constant_edges_are_checked():
    # (a traced edges array cannot be checked: documented)
    with pytest.raises(ValueError, match="monotonically"):
        jit(hist_constant_bad_edges)(DATA)
