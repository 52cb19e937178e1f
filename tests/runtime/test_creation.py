"""Differential tests: array creation (runtime/numpy/creation.py)."""
import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.transpiler.base.errors import ConcretizationError

pytestmark = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")

DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float16,
          np.float32, np.float64, np.complex64, np.complex128]


def _arr(dt, shape=(2, 3)):
    return (np.arange(int(np.prod(shape))) % 5).reshape(shape).astype(dt)


# --- full / *_like ---------------------------------------------------------------------

def full_traced(v):
    return np.full((2, 3), v)


def full_dtype(v):
    return np.full(4, v, dtype=np.float32), np.full((2, 2), v, dtype=np.int8)


def full_array_fill(v):
    return np.full((3, 2), v)


@pytest.mark.parametrize("v", [2.5, 3, True, 1 + 2j, np.float32(1.5), np.int16(-7),
                               np.uint8(200)])
def test_full_traced_fill(v):
    check(full_traced, v)


@pytest.mark.parametrize("v", [2.7, -3, np.float64(-1.5)])
def test_full_dtype(v):
    check(full_dtype, v)


def test_full_broadcast_fill():
    check(full_array_fill, np.array([1.5, -2.0], np.float32))


def likes(x):
    return np.zeros_like(x), np.ones_like(x), np.full_like(x, 3)


def likes_dtype(x):
    return (np.zeros_like(x, dtype=np.float32), np.ones_like(x, shape=(4,)),
            np.full_like(x, 2.75), np.full_like(x, x), np.full_like(x, 1, dtype=bool))


@pytest.mark.parametrize("dt", DTYPES)
def test_likes(dt):
    check(likes, _arr(dt))


@pytest.mark.parametrize("x", [_arr(np.int32), _arr(np.float32, (3,)), _arr(np.complex64, (0, 2))])
def test_likes_dtype(x):
    check(likes_dtype, x)


def likes_of_scalar(x):
    return np.zeros_like(x, shape=(2,)), np.full_like(x, 7, shape=(3,))


@pytest.mark.parametrize("x", [3, 2.5, True])
def test_likes_of_python_scalars(x):
    check(likes_of_scalar, x)


def full_traced_like(x, v):
    return np.full_like(x, v)


def test_full_like_traced_fill():
    check(full_traced_like, _arr(np.int32), 2.9)     # unsafe cast: truncation
    check(full_traced_like, _arr(np.float32), np.float64(1e-3))


def empties(x):
    e = np.empty(x.shape, dtype=np.int16)
    f = np.empty_like(x)
    return e.shape, e.dtype == np.int16, f.shape, f.dtype == x.dtype


def test_empty_shapes_and_zero_fill():
    check(empties, _arr(np.float32))

    def g(x):
        return np.empty_like(x) + np.empty((2, 3)), np.empty(3, dtype=int)
    a, b = jit(g)(np.ones((2, 3)))
    assert (a == 0).all() and (b == 0).all()       # documented: empty is zero-filled


def zeros_n(n):
    return np.zeros(n), np.ones((n, 2), dtype=np.int8), np.zeros(n) + n


@pytest.mark.parametrize("n", [0, 3])
def test_traced_shape_specialises(n):
    check(zeros_n, n)


def zeros_from_array(x):
    return np.zeros(int(x))


def test_traced_array_shape_refused():
    with pytest.raises(ConcretizationError):
        jit(zeros_from_array)(np.array(3))


# --- ranges ----------------------------------------------------------------------------

def aranges(n, m):
    return (np.arange(n), np.arange(1, n, 2), np.arange(n, dtype=np.float32),
            np.arange(m, n), np.arange(0.5, n, 0.25))


@pytest.mark.parametrize("n,m", [(5, 2), (0, -3)])
def test_arange_python_int_bounds(n, m):
    check(aranges, n, m)


def arange_float(x):
    return np.arange(x)


def test_arange_of_float_argument_is_specialised():
    # a Python float argument that decides a shape is compiled for its value, like an int
    for v in (3.0, 2.5, 0.5):
        check(arange_float, v)


def arange_of_data(x):
    return np.arange(x.sum())


def test_arange_of_array_data_refused():
    with pytest.raises(ConcretizationError):
        jit(arange_of_data)(np.array([1.0, 2.0]))


def eyes(n):
    return np.eye(n), np.eye(n, n + 1, k=1, dtype=int), np.identity(n, dtype=bool)


def test_eye_identity():
    check(eyes, 3)


def lin(a, b):
    return np.linspace(a, b, 5), np.linspace(a, b, 4, endpoint=False, retstep=True)


def lin_more(a, b):
    return (np.linspace(a, b, 1, retstep=True), np.linspace(a, b, 0),
            np.linspace(a, b, 7, dtype=np.int32), np.linspace(a, b, 3, dtype=np.float32),
            np.linspace(a, b, 2, retstep=True))


def lin_axis(a, b):
    return np.linspace(a, b, 3, axis=-1), np.linspace(a, b, 4, axis=1)


@pytest.mark.parametrize("a,b", [(1.0, 3), (-2, 5), (np.float32(0.5), np.float32(-1.5)),
                                 (np.float16(1), 2.0), (np.int32(-3), 10)])
def test_linspace(a, b):
    check(lin, a, b, rtol=1e-6)


@pytest.mark.parametrize("a,b", [(-2.5, 7.25), (np.float32(1), 2)])
def test_linspace_options(a, b):
    check(lin_more, a, b, rtol=1e-6)


def test_linspace_arrays():
    check(lin, np.array([0.0, 1.0, -1.0]), 4.0)
    check(lin_axis, np.zeros((2, 2)), np.array([1.0, 2.0]))
    check(lin, np.array([1 + 1j, 2j]), 0j)


def lin_zero_step(a):
    return np.linspace(a, a, 4)


def test_linspace_zero_step():
    check(lin_zero_step, 1.5)
    check(lin_zero_step, np.array([1.0, 5e-324]))


# --- array / asarray / copy ------------------------------------------------------------

def arr1(a, b, c):
    return np.array([a, b, c])


def arr2(a, b, c, d):
    return np.array([[a, b], [c, d]]), np.array(((a, b), [c, d]), dtype=np.float32)


@pytest.mark.parametrize("args", [(1, 2, 3), (1, 2.5, True), (np.float32(1), 2.0, 3),
                                  (np.int8(1), 2, np.uint8(3)), (True, False, True),
                                  (1j, np.float32(2), 3), (np.float16(1), np.int8(2), 1)])
def test_array_of_scalars(args):
    check(arr1, *args)


def test_array_2d():
    check(arr2, 1, 2.5, np.float32(3), 4)
    check(arr2, np.int8(1), np.int8(2), np.int8(3), np.int8(4))


def arr_of_arrays(x, y):
    return np.array([x, y]), np.array([[x], [y]]), np.array([x, y, x + y], dtype=np.int32)


@pytest.mark.parametrize("dt", [np.float32, np.int64, np.complex128, np.bool_])
def test_array_of_arrays(dt):
    check(arr_of_arrays, _arr(dt, (3,)), _arr(dt, (3,)) * 2)


def test_array_mixed_const_and_traced():
    def f(x):
        return np.array([x, [1.0, 2.0, 3.0], np.zeros(3, np.float32)])
    check(f, np.arange(3, dtype=np.float32))
    check(f, np.arange(3, dtype=np.int16))


def test_array_inhomogeneous_error():
    def f(x):
        return np.array([x, [1.0]])
    with pytest.raises(ValueError, match="inhomogeneous"):
        jit(f)(np.ones(2))


def arr_of_traced(x):
    return (np.array(x), np.array(x, dtype=np.float32), np.array(x, ndmin=3),
            np.asarray(x, dtype=np.int16), np.asanyarray(x))


@pytest.mark.parametrize("x", [_arr(np.float64), _arr(np.complex64, (3,)), _arr(np.uint8, (0,)),
                               _arr(np.bool_, (2, 1))])
def test_array_of_traced_array(x):
    check(arr_of_traced, x)


def arr_of_scalar(x):
    # 0-d array results come back as NumPy scalars (a core limitation): reshape them
    return (np.array(x).reshape(1), np.asarray(x).reshape(1), np.array([x]),
            np.ascontiguousarray(x), np.zeros_like(x).reshape(1))


@pytest.mark.parametrize("x", [3, 2.5, True, 1j, np.float32(2.5)])
def test_array_of_scalar(x):
    r = check(arr_of_scalar, x)
    assert r[2].dtype == np.array([x]).dtype


def asarray_alias(a):
    b = np.asarray(a)
    b += 1
    return b


def array_copy(a):
    b = np.array(a)
    b += 1
    c = np.copy(a)
    c *= 2
    d = a.copy()
    d -= 1
    e = np.asarray(a, dtype=np.float32)
    e += 10
    return b, c, d, e


@pytest.mark.parametrize("dt", [np.float64, np.int32])
def test_asarray_aliases_copy_does_not(dt):
    check(asarray_alias, _arr(dt))        # a is mutated through b, as in NumPy
    check(array_copy, _arr(dt))           # a unchanged


def copies_of_constants():
    a = np.zeros(3)
    b = a.copy()
    b += 1
    c = np.copy(a)
    c += 2
    return a, b, c


def test_copy_of_constant():
    check(copies_of_constants)


def constants_of_one_value(x):
    zeros = np.array([0.0, -0.0, 0.0])
    return x * 0.5 + 2.0, np.full(3, np.nan) + x[:3], 1.0 / (zeros + 0.0 * x[:3]), \
        np.full(4, 1 + 2j) * x[:4]


def test_broadcast_constants_stay_splats_and_keep_their_bits():
    x = np.linspace(-1.0, 1.0, 200_000)
    text = jit(constants_of_one_value).lower(x).as_text()
    assert len(text) < 20_000        # no per-element constant data in the module
    with np.errstate(divide="ignore"):
        expected = constants_of_one_value(x)
    for e, g in zip(expected, jit(constants_of_one_value)(x)):
        assert e.dtype == g.dtype
        np.testing.assert_array_equal(g, e)     # -0.0 gives -inf, NaNs stay NaN
