"""Sorting and searching vs NumPy: sort, argsort, lexsort, sort_complex, partition,
argpartition, searchsorted, and the in-place ndarray.sort / ndarray.partition."""
import numpy as np
import pytest

from matrix import alternate
from hypothesis import given, settings, strategies as st

from differential import check, random_array
from npxla import jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(4)
DTYPES = [np.bool_, np.int8, np.int16, np.int64, np.uint8, np.uint64, np.float16,
          np.float32, np.float64, np.complex64, np.complex128]


def data(shape, dt):
    """Small values (many ties); floats also get NaN, infinities and signed zeros."""
    x = random_array(RNG, shape, dt, -3, 4)
    if np.dtype(dt).kind == "f":
        flat = x.reshape(-1)
        flat[::5] = np.nan
        flat[1::7] = -0.0
        flat[2::11] = np.inf
        flat[3::13] = -np.inf
        flat[4::6] = np.round(flat[4::6])
    if np.dtype(dt).kind == "c":
        flat = x.reshape(-1)
        flat[::4] = flat[::4].real            # ties in the real part
        flat[1::5] = complex(np.nan, 1)
        flat[2::7] = complex(1, np.nan)
        flat[3::9] = complex(np.nan, np.nan)
        flat[4::6] = complex(np.nan, -2)
    return x


def sort_forms(x):
    return (np.sort(x), np.sort(x, axis=0), np.sort(x, axis=None), np.sort(x, axis=-2,
            kind="quicksort"), np.sort(x, stable=True))


def argsort_forms(x):
    return (np.argsort(x, kind="stable"), np.argsort(x, axis=0, kind="stable"),
            np.argsort(x, axis=None, kind="stable"), x.argsort(axis=-2, stable=True),
            np.argsort(x, axis=1, kind="mergesort"))


@pytest.mark.parametrize("dt", DTYPES)
def test_sort_argsort_dtypes(dt):
    x = data((3, 7), dt)
    check(sort_forms, x)
    check(argsort_forms, x)


def test_nan_and_signed_zero_order():
    x = np.array([0.0, -0.0, np.nan, 1.0, -np.inf, np.inf, -0.0, np.nan, 0.0, -1.0])
    res = check(argsort_forms, x.reshape(2, 5))
    stable = np.sort(x, kind="stable")
    assert np.signbit(jit(lambda_free_sort)(x)).tolist() == np.signbit(stable).tolist()
    check(argsort_forms, -x.reshape(5, 2))
    assert res[0].dtype == np.intp


def lambda_free_sort(x):
    return np.sort(x)


def test_complex_nan_classes():
    # NumPy: R + Rj < R + nanj < nan + Rj < nan + nanj, lexicographic within a class
    x = np.array([3 + 1j, complex(np.nan, 0), complex(1, np.nan), complex(np.nan, np.nan),
                  2 + 0j, 1 + 0j, complex(np.nan, -1), complex(np.nan, 5), complex(-3, np.nan),
                  1 - 1j, 1 + 0j])
    check(argsort_forms, x.reshape(1, -1))
    check(sort_forms, x.reshape(1, -1))


def test_extreme_integers():
    x = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, -1, 1,
                  np.iinfo(np.int64).min])
    check(argsort_forms, x.reshape(2, 3))
    check(sort_forms, np.array([2**64 - 1, 0, 2**63, 2**63 - 1, 5], np.uint64).reshape(1, 5))


def test_default_kind_on_distinct_values():
    def f(x):
        return np.argsort(x), np.argsort(x, axis=0), x.argsort(), np.argsort(-x, axis=None)
    check(f, RNG.permutation(60).reshape(6, 10).astype(np.float32))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 0), (0, 4), (2, 1, 3)])
def test_shapes(shape):
    def flat(x):
        return np.sort(x, axis=None), np.argsort(x, axis=None)
    check(flat, data(shape, np.float64))
    if shape:
        check(lambda_free_sort, data(shape, np.int32))

        def axis0(x):
            return np.sort(x, axis=0), np.argsort(x, axis=0)
        check(axis0, data(shape, np.float32))


def test_scalars_and_lists():
    def f(s, t):
        return np.sort([s, t, 1.5]), np.argsort([t, s]), np.sort(s, axis=None)
    check(f, 2.5, -1.0)
    check(f, np.float32(3), np.float32(-2))

    def g(x):
        return np.sort(x)
    with pytest.raises(np.exceptions.AxisError):
        jit(g)(np.float64(2.0))


def test_sort_method_in_place():
    def f(x, y):
        r = x.sort()
        y.sort(axis=0)
        row = y[1]
        row.sort()            # a view: the write reaches y
        return r, x * 1, y.sum()
    check(f, data((3, 5), np.float64), data((4, 3), np.int16))

    def g(x):
        x.sort(axis=0, kind="stable")
        x[0].sort()
        return x
    check(g, data((3, 5), np.float32))

    def h(x):
        x.sort(axis=None)
    with pytest.raises(TypeError):
        jit(h)(np.ones(3))


def test_sort_in_loop():
    def f(x):
        out = 0.0
        for i in range(x.shape[0]):
            s = np.sort(x[i])
            out = out + s[0] * i
        return out
    check(f, data((4, 6), np.float64) * 0 + RNG.normal(size=(4, 6)))


def test_order_refused():
    def f(x):
        return np.sort(x, order="a")
    with pytest.raises(Exception, match="order"):
        jit(f)(np.ones(3))


# --- lexsort / sort_complex ------------------------------------------------------------

def test_lexsort():
    def f(a, b):
        return np.lexsort((a, b)), np.lexsort((b, a)), np.lexsort([a]), np.lexsort(
            (a, b), axis=0)
    check(f, data((4, 6), np.int8), data((4, 6), np.float64))

    def g(k):
        return np.lexsort(k), np.lexsort(k, axis=0)
    check(g, data((3, 5, 2), np.int16))

    def bad(a, b):
        return np.lexsort((a, b))
    with pytest.raises(ValueError, match="same shape"):
        jit(bad)(np.ones(3), np.ones(4))


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.float32, np.float64, np.complex64])
def test_sort_complex(dt):
    def f(x):
        return np.sort_complex(x)
    check(f, data((3, 4), dt))


# --- partition / argpartition --------------------------------------------------------------

def partition_forms(x):
    p = np.partition(x, 2)
    q = np.partition(x, (0, 3), axis=0)
    r = np.partition(x, -1, axis=None)
    # NumPy fixes only the kth elements and which values go left/right of them
    return (p[:, 2], np.sort(p[:, :2], axis=1), np.sort(p[:, 3:], axis=1), q[0], q[3],
            np.sort(q[1:3], axis=0), r[-1])


def argpartition_forms(x):
    p = np.argpartition(x, 3)
    q = x.argpartition(1, axis=0)
    return p[:, 3], np.sort(p[:, :3], axis=1), q[1], np.sort(np.argpartition(x, 5, axis=None)[:5])


@pytest.mark.parametrize("dt", [np.int32, np.uint8, np.float32, np.float64, np.bool_])
def test_partition(dt):
    check(partition_forms, data((5, 6), dt))


def test_argpartition_distinct():
    check(argpartition_forms, RNG.permutation(30).reshape(5, 6).astype(np.float64))
    check(argpartition_forms, RNG.permutation(30).reshape(5, 6).astype(np.int16))


def test_partition_method_and_errors():
    def f(x):
        x.partition(2)
        return np.sort(x[:, :2], axis=1), x[:, 2]
    check(f, RNG.permutation(20).reshape(4, 5).astype(np.float64))

    def g(x):
        return np.partition(x, 5)

    def h(x):
        return np.argpartition(x, -6)
    with pytest.raises(ValueError, match=r"kth\(=5\) out of bounds \(5\)"):
        jit(g)(np.ones(5))
    with pytest.raises(ValueError, match="out of bounds"):
        jit(h)(np.ones(5))


# --- searchsorted ---------------------------------------------------------------------------

def search_forms(a, v):
    return (np.searchsorted(a, v), np.searchsorted(a, v, side="right"),
            a.searchsorted(v, "left"), np.searchsorted(a, v, side="right"))


@pytest.mark.parametrize("dt", alternate([np.bool_, np.int8, np.uint16, np.int64, np.uint64,
                                          np.float16, np.float32, np.float64, np.complex128]))
def test_searchsorted_dtypes(dt):
    a = np.sort(data((9,), dt))
    v = data((3, 4), dt)
    v.reshape(-1)[:2] = a[[0, -1]]        # exact hits at both ends
    check(search_forms, a, v)


@pytest.mark.parametrize("n", [1, 2, 5, 16, 33])
def test_searchsorted_lengths(n):
    a = np.sort(RNG.integers(-5, 6, n)).astype(np.float64)
    v = np.arange(-7, 8) / 1.0
    check(search_forms, a, v)


def test_searchsorted_nan_and_mixed():
    a = np.array([-np.inf, -1.0, 0.0, 0.0, 2.0, np.inf, np.nan, np.nan])
    v = np.array([np.nan, -np.inf, np.inf, 0.0, -0.0, 1.0, 3.0])
    check(search_forms, a, v)

    def f(a, s, i):
        # comparisons in NumPy's common dtype: a uint8 table with a negative Python int
        return np.searchsorted(a, s), np.searchsorted(a, i), np.searchsorted(a, [i, s])
    check(f, np.array([1, 2, 200], np.uint8), 2.5, -1)
    check(f, np.array([1.0, 2.0, 3.0], np.float32), np.float64(2.0000001), 7)


def test_searchsorted_sorter_and_shapes():
    def f(a, v, s):
        return (np.searchsorted(a, v, sorter=s), np.searchsorted(a, v, "right", s),
                np.searchsorted(a, 1.5, sorter=s), np.searchsorted(a, v[:0]))
    a = RNG.permutation(10).astype(np.float64) / 2
    check(f, a, RNG.integers(-1, 7, (2, 3)).astype(np.float64), np.argsort(a))

    def empty(a, v):
        return np.searchsorted(a, v), np.searchsorted(a, 3)
    check(empty, np.zeros(0), np.ones(4))

    def bad(a, v):
        return np.searchsorted(a, v)
    with pytest.raises(ValueError, match="object too deep"):
        jit(bad)(np.ones((2, 2)), np.ones(3))

    def bad_side(a, v):
        return np.searchsorted(a, v, side="middle")
    with pytest.raises(ValueError, match="side"):
        jit(bad_side)(np.ones(2), np.ones(3))


# --- properties -------------------------------------------------------------------------------

@settings(max_examples=12, deadline=None)
@given(st.integers(1, 3).flatmap(lambda nd: st.tuples(
    st.lists(st.integers(0, 4), min_size=nd, max_size=nd), st.integers(-nd, nd - 1))),
    st.sampled_from([np.int32, np.float64, np.float32]))
def test_sort_property(shape_axis, dt):
    shape, axis = shape_axis

    def f(x):
        return np.sort(x, axis=axis), np.argsort(x, axis=axis, kind="stable")
    check(f, data(tuple(shape), dt))


def test_traced_kth_refused():
    def f(x, k):
        return np.partition(x, k)
    with pytest.raises(TypeError, match="kth must be known when compiling"):
        jit(f)(np.ones(4), np.int64(1))       # ConcretizationError is a TypeError
