"""Large sorts on the CPU are NumPy's own, called back from the program
(`runtime/numpy/reductions/host_sort.py`), and equal NumPy's stable sort bit for bit: the signs of
tied zeros and the NaNs' payloads in input order, argsort's ties by position, along
every axis, in place on an argument, inside loops, and through the functions built on
sorting (median, percentile, unique, partition). Large partitions and medians select
with NumPy's own partition: NumPy's arrangement, element for element. Small, complex and multi-key sorts
keep XLA's sort."""
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from differential import check
from npxla import jit
from npxla.runtime.lowering.callbacks import CPU_BUFFER_CALLBACK_TARGET
from npxla.runtime.numpy.reductions.host_sort import MIN_ELEMENTS

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(11)


def _bits(x):
    """The array's bytes as unsigned integers: tells -0.0 from 0.0 and NaN payloads."""
    x = np.ascontiguousarray(x)
    if x.dtype.kind != "f":
        return x
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def assert_same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))


def _calls_back(fn, *args):
    return CPU_BUFFER_CALLBACK_TARGET in jit(fn).lower(*args).as_text()


def awkward(shape, dtype):
    """Many ties; floats also hold 0.0 and -0.0, NaNs of both signs and two payloads,
    and infinities."""
    x = RNG.integers(-4, 5, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "f":
        flat = x.reshape(-1)
        flat[::7] = -0.0
        flat[::9] = np.nan
        flat[1::13] = -np.nan
        bits = flat.view(np.dtype(f"u{flat.dtype.itemsize}"))
        bits[2::17] = np.array(np.nan, dtype).view(bits.dtype) | 1    # another payload
        flat[3::19] = np.inf
        flat[4::23] = -np.inf
    return x


def sort_axis0(x):
    return np.sort(x, axis=0)


def sort_last(x):
    return np.sort(x)


def sort_flat(x):
    return np.sort(x, axis=None)


def argsort_axis0(x):
    return np.argsort(x, axis=0)


def argsort_last(x):
    return x.argsort()


def argsort_flat(x):
    return np.argsort(x, axis=None, kind="stable")


SORTS = [sort_axis0, sort_last, sort_flat]
ARGSORTS = [argsort_axis0, argsort_last, argsort_flat]


def _stable(fn, x):
    """NumPy's stable result for the same call."""
    name = fn.__name__
    axis = {"axis0": 0, "last": -1, "flat": None}[name.split("_")[1]]
    return (np.sort if name.startswith("sort") else np.argsort)(x, axis=axis, kind="stable")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64,
                                   np.uint8, np.bool_])
@pytest.mark.parametrize("fn", SORTS + ARGSORTS)
def test_equal_to_numpys_stable_sort_bit_for_bit(fn, dtype):
    x = awkward((40, 60), dtype)
    assert _calls_back(fn, x)
    assert_same_bits(jit(fn)(x), _stable(fn, x))


@pytest.mark.parametrize("fn", ARGSORTS)
def test_argsort_without_ties_is_numpys(fn):
    """Distinct keys: NumPy's fast argsort is already the stable one."""
    x = RNG.normal(size=(50, 70))
    np.testing.assert_array_equal(jit(fn)(x), _stable(fn, x))


def sort_in_place(x):
    x.sort(axis=0)
    return x[0].sum()


def test_in_place_sort_of_an_argument_is_written_back():
    x = awkward((64, 32), np.float64)
    want = np.sort(x, axis=0, kind="stable")
    got = x.copy()
    jit(sort_in_place)(got)
    assert_same_bits(got, want)
    check(sort_in_place, x)


def sort_in_a_loop(x, tol):
    total = 0.0
    while np.abs(x).max() > tol:
        s = np.sort(x)
        total += s[len(s) // 2]
        x = x * 0.5
    return total, np.argsort(x)


def test_inside_a_data_dependent_loop():
    x = RNG.normal(size=4096)
    assert _calls_back(sort_in_a_loop, x, 0.01)
    check(sort_in_a_loop, x, 0.01, rtol=0, atol=0)


def order_statistics(x):
    return (np.median(x), np.median(x, axis=0), np.percentile(x, [5, 50, 95], axis=1),
            np.quantile(x, 0.3), np.unique(np.round(x)), np.partition(x, 3, axis=None)[3])


def test_functions_built_on_sorting():
    x = RNG.normal(size=(300, 80))
    x[::17, ::3] = np.nan
    check(order_statistics, x)
    check(order_statistics, (np.nan_to_num(x[:, :20]) * 3).astype(np.int64))


def partitioned(x, kth):
    return np.partition(x, kth, axis=-1)


def partitioned_in_place(x):
    x.partition((0, -1), axis=0)


def medians(x):
    return np.median(x), np.median(x, axis=0), np.median(x, axis=1, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_partition_and_median_are_numpys_own_selection(dtype):
    """Large partitions are NumPy's introselect on the host: the same arrangement, not
    only a valid one; medians read from it are NumPy's, which partitions the same way
    (the signs of tied zeros and the NaN at the end included)."""
    for shape in ((40, 61), (41, 60)):             # odd and even lines
        x = awkward(shape, dtype)
        assert _calls_back(partitioned, x, 7)
        for kth in (7, -1, (0, 30, 59)):
            assert_same_bits(jit(partitioned)(x, kth), np.partition(x, kth, axis=-1))
        assert _calls_back(medians, x)
        for got, want in zip(jit(medians)(x), medians(x)):
            assert_same_bits(np.asarray(got), np.asarray(want))
        clean = np.nan_to_num(x) if np.dtype(dtype).kind == "f" else x
        for got, want in zip(jit(medians)(clean), medians(clean)):
            assert_same_bits(np.asarray(got), np.asarray(want))
    y = awkward((64, 20), dtype)
    want = y.copy()
    partitioned_in_place(want)
    jit(partitioned_in_place)(y)
    assert_same_bits(y, want)


def quantiles(x):
    return (np.percentile(x, [5, 50, 95]), np.quantile(x, 0.3, axis=0, method="hazen"),
            np.quantile(x, [0.0, 1.0], axis=1, method="weibull"),
            np.percentile(x, 37.5, method="midpoint"), np.quantile(x, 0.25, method="lower"))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_quantiles_select_as_numpy_does(dtype):
    """A constant q of an interpolating method partitions at NumPy's own positions (0,
    the last, the ranks around each q): NumPy's values bit for bit, the signs of tied
    zeros included (a discrete method, here `lower`, still sorts)."""
    x = awkward((60, 41), dtype)
    clean = np.nan_to_num(x) if np.dtype(dtype).kind == "f" else x
    for data in (x, clean):
        for got, want in zip(jit(quantiles)(data), quantiles(data)):
            assert_same_bits(np.asarray(got), np.asarray(want))


METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest"]


def quantile_of(x, q, method):
    return np.quantile(x, q, axis=-1, method=method)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_at_many_q(method):
    x = awkward((3, 1500), np.float64)
    x[:2] = np.nan_to_num(x[:2], posinf=np.inf, neginf=-np.inf)   # one row with NaNs
    q = np.concatenate([[0.0, 1.0, 0.5], RNG.uniform(0, 1, 29)])
    assert_same_bits(jit(quantile_of, static_argnums=(1, 2))(x, tuple(q), method),
                     quantile_of(x, q, method))


def lexsorted(a, b):
    return np.lexsort((a, b))


def test_small_complex_and_multi_key_sorts_stay_in_xla():
    small = RNG.normal(size=MIN_ELEMENTS - 1)
    assert not _calls_back(sort_last, small)
    z = RNG.normal(size=2000) + 1j * RNG.normal(size=2000)
    assert not _calls_back(sort_last, z)
    a, b = RNG.integers(0, 3, 3000), RNG.integers(0, 3, 3000)
    assert not _calls_back(lexsorted, a, b)
    check(lexsorted, a, b)
    check(sort_last, z)


def test_functions_split_over_devices_keep_xlas_sort():
    """An SPMD program cannot call back into Python: the sort stays in XLA there."""
    x = awkward((64, 40), np.float64)
    f = jit(sort_axis0, shard={"x": 1}, device="cpu")
    assert CPU_BUFFER_CALLBACK_TARGET not in f.lower(x).as_text()
    assert_same_bits(f(x), np.sort(x, axis=0, kind="stable"))


_VALUES = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan, -np.nan])


@settings(max_examples=40, deadline=None)
@example([0.0, 0.0, 0.0, 0.0, -np.nan], 0, np.float64, 24)   # a lone -NaN in a line
@given(st.lists(_VALUES, min_size=1, max_size=12), st.integers(0, 2**32 - 1),
       st.sampled_from([np.float64, np.float32]), st.sampled_from([24, 300]))
def test_property_sort_and_argsort_equal_the_stable_sort(pool, seed, dtype, line):
    """Lines of 24 (searched together) and of 300 (few lines: searched one by one)."""
    x = np.random.default_rng(seed).choice(np.array(pool, dtype),
                                           size=(-(-MIN_ELEMENTS // line), line))
    for fn in (sort_last, sort_axis0, argsort_last, argsort_axis0):
        assert_same_bits(jit(fn)(x), _stable(fn, x))


def nanmedians(x):
    return (np.nanmedian(x), np.nanmedian(x, axis=0), np.nanmedian(x, axis=-1, keepdims=True),
            np.nanmedian(x, axis=(0, 2)) if x.ndim == 3 else np.nanmedian(x.T, axis=1))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("shape", [(40, 61), (41, 30), (3, 700), (6, 20, 11)])
def test_nanmedian_is_numpys_own_call(dtype, shape):
    """A large float nanmedian is NumPy's own on the host (NumPy drops the NaNs and
    selects: 44,850 float64 took 5.8 ms sorted in the program against NumPy's 0.1):
    its values bit for bit, the signs of tied zeros included, along lines shorter than
    600 (NumPy's masked-array path) and longer, over merged axes, and lines of NaNs
    only (NaN, without NumPy's warning)."""
    x = awkward(shape, dtype)
    x[1] = np.nan                                  # lines of NaNs only along axis -1
    assert _calls_back(nanmedians, x)
    zeros = np.where(np.isnan(x), np.nan, np.copysign(0.0, x)).astype(dtype)   # +-0 only
    for data in (x, np.nan_to_num(x), zeros):
        for got, want in zip(jit(nanmedians)(data), nanmedians(data)):
            assert_same_bits(np.asarray(got), np.asarray(want))


def nanmedian_of_differences(x):
    """pymannkendall's Sen slope: the median of every pairwise slope, NaN-aware."""
    n = len(x)
    d = np.ones(n * (n - 1) // 2)
    idx = 0
    for i in range(n - 1):
        j = np.arange(i + 1, n)
        d[idx:idx + len(j)] = (x[j] - x[i]) / (j - i)
        idx = idx + len(j)
    return np.nanmedian(d)


def test_nanmedian_of_a_loop_built_array():
    x = np.cumsum(RNG.normal(size=120))
    x[::11] = np.nan
    assert _calls_back(nanmedian_of_differences, x)
    check(nanmedian_of_differences, x)
    check(nanmedian_of_differences, np.nan_to_num(x))


def test_small_nanmedians_stay_in_xla():
    x = awkward((10, 10), np.float64)
    assert not _calls_back(nanmedians, x)
    check(nanmedians, x)


def nanquantiles(x):
    return (np.nanpercentile(x, [5, 50, 95]), np.nanquantile(x, 0.3, axis=0, method="hazen"),
            np.nanquantile(x, np.float32(0.7), axis=-1, keepdims=True),
            np.nanpercentile(x, 50, axis=0, method="lower"),
            np.nanquantile(x, np.array([0.0, 1.0, 0.25]), axis=-1, method="weibull"))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(40, 61), (3, 700)])
def test_nanquantile_at_a_constant_q_is_numpys_own_call(dtype, shape):
    """q as the caller passed it (a Python int or float, a list, a NumPy scalar or
    array): NumPy's values and dtypes bit for bit, lines of NaNs only included."""
    x = awkward(shape, dtype)
    x[1] = np.nan
    assert _calls_back(nanquantiles, x)
    for data in (x, np.nan_to_num(x)):
        for got, want in zip(jit(nanquantiles)(data), nanquantiles(data)):
            assert_same_bits(np.asarray(got), np.asarray(want))


def nanquantile_traced(x, q):
    return np.nanquantile(x, q, axis=0)


def test_nanquantile_at_a_traced_q_sorts_in_the_program():
    x = awkward((40, 61), np.float64)
    check(nanquantile_traced, x, np.float64(0.4))
    check(nanquantile_traced, x, np.array([0.1, 0.9]))
