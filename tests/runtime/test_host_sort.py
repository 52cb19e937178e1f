"""Large sorts on the CPU are NumPy's own, called back from the program
(`runtime/numpy/reductions/host_sort.py`), and equal NumPy's stable sort bit for bit: the signs of
tied zeros and the NaNs' payloads in input order, argsort's ties by position, along
every axis, in place on an argument, inside loops, and through the functions built on
sorting (median, percentile, unique, partition). Small, complex and multi-key sorts
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
