"""Differential tests: np.isclose, np.allclose, np.array_equal, np.array_equiv
(runtime/numpy/ufuncs/comparisons.py): dtypes, tolerances, NaN/inf, broadcasting, Python
scalars, and the Python-bool results of the all-or-nothing forms."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from differential import check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def all_forms(a, b):
    return (np.isclose(a, b), np.isclose(a, b, equal_nan=True),
            np.isclose(a, b, rtol=0.1, atol=0.5), np.allclose(a, b),
            np.allclose(a, b, rtol=0.1, atol=0.01, equal_nan=True),
            np.array_equal(a, b), np.array_equal(a, b, equal_nan=True),
            np.array_equiv(a, b))


A = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 2.0, 0.0, 100.0])
B = np.array([1.0 + 1e-7, np.nan, np.inf, np.inf, 0.0, 2.1, -0.0, 100.001])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex64,
                                   np.complex128], ids=lambda d: np.dtype(d).name)
def test_floats_with_special_values(dtype):
    check(all_forms, A.astype(dtype), B.astype(dtype))
    check(all_forms, A.astype(dtype), A.astype(dtype))          # equal, NaNs included


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int64, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_integers_and_bools(dtype):
    a = np.array([0, 1, 1, 0, 1, 1]).astype(dtype)
    check(all_forms, a, a.copy())
    check(all_forms, a, a[::-1].copy())


def test_int_min_is_made_inexact_first():
    info = np.iinfo(np.int8)
    check(all_forms, np.array([info.min, info.max], np.int8),
          np.array([info.min, info.max], np.int8))


@pytest.mark.parametrize("a,b", [
    (np.arange(6.0).reshape(2, 3), np.arange(3.0)),             # broadcasting
    (np.arange(6.0).reshape(2, 3), np.arange(2.0)),             # not broadcastable
    (np.ones((2, 1)), np.ones((1, 3))),
    (np.zeros((0, 3)), np.zeros(3)),                            # empty
    (np.float32(1.0), np.array([1.0, 1.00001])),                # NumPy scalar
    (1.0, np.array([1.0, 1.00001], np.float32)),                # Python float (weak)
    (np.arange(3, dtype=np.int16), 2),                          # Python int
    (np.array([1 + 1j, 2j]), np.array([1 + 1.000001j, 2j])),
])
def test_shapes_and_scalars(a, b):
    check(all_forms if _broadcastable(a, b) else equality_only, a, b)


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(np.shape(a), np.shape(b))
        return True
    except ValueError:
        return False


def equality_only(a, b):
    return np.array_equal(a, b), np.array_equiv(a, b), np.array_equal(a, b, equal_nan=True)


def test_results_are_python_bools():
    r = check(all_forms, A, B)
    assert [type(v) for v in r[3:]] == [bool] * 5
    assert isinstance(r[0], np.ndarray)


def scalar_isclose(x, y):
    return np.isclose(x, y), np.isclose(x, 1), np.isclose(2.0, y, atol=1.5)


@pytest.mark.parametrize("x,y", [(2.0, 2.0000001), (1, 3), (np.float32(1), np.nan),
                                 (np.array(2.0), np.int8(2))])
def test_scalar_arguments_give_numpy_bools(x, y):
    check(scalar_isclose, x, y)


def traced_tolerances(a, b, rtol, atol):
    return np.isclose(a, b, rtol=rtol, atol=atol), np.allclose(a, b, rtol, atol)


def test_traced_tolerances():
    check(traced_tolerances, A, B, 1e-3, 1e-6)
    check(traced_tolerances, A.astype(np.float32), B.astype(np.float32), 0.5, np.float64(0))
    check(traced_tolerances, A, B, np.array([0.1, 0.0, 0.0, 0.0, 0.0, 0.5, 0, 0]), 0.0)


def same_object(a):
    return np.array_equal(a, a, equal_nan=True), np.array_equal(a, a)


def test_array_equal_same_object():
    check(same_object, np.array([np.nan, 1.0]))


def allclose_in_loop(x):
    n = 0
    while not np.allclose(x, 0.0, atol=1e-3):
        x = x * 0.5
        n += 1
    return x, n


def test_allclose_as_a_loop_condition():
    check(allclose_in_loop, np.array([1.0, -3.0, 0.25]))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-10, 10) | st.just(float("nan")), min_size=1, max_size=6),
       st.floats(0, 1), st.booleans())
def test_isclose_property(values, delta, equal_nan):
    a = np.array(values)
    b = a + delta * np.arange(a.size)

    def f(a, b):
        return np.isclose(a, b, equal_nan=equal_nan), np.allclose(a, b, equal_nan=equal_nan)
    check(f, a, b)
