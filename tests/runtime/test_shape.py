"""Differential tests: shape manipulation and views (runtime/numpy/arrays/shape.py).

View write-through is tested with in-place operators (`v += 1` reaches the base and,
through it, the caller's array); tests that need `a[i] = v` are marked `indexing`.
"""
import numpy as np
import pytest

from matrix import alternate
from hypothesis import given, settings, strategies as st
from numpy.exceptions import AxisError

from differential import check
from npxla import jit
from npxla.transpiler.base.errors import UnsupportedFunctionError

pytestmark = pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")

ALL = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
       np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def _arr(dt, shape=(2, 3)):
    return (np.arange(int(np.prod(shape))) % 7).reshape(shape).astype(dt)


# --- reshape family --------------------------------------------------------------------

def reshapes(a):
    return (a.reshape(3, 2), a.reshape((6,)), a.reshape(-1), a.reshape([1, -1, 2]),
            np.reshape(a, (3, -1)), np.reshape(a, 6), a.ravel(), np.ravel(a), a.flatten(),
            a.reshape(2, 3, order="C"))


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint32, np.float32, np.complex128])
def test_reshape_values(dt):
    check(reshapes, _arr(dt))


def reshape_empty(a):
    return a.reshape(0, 5), a.reshape(-1, 3), np.ravel(a)


def test_reshape_empty():
    check(reshape_empty, np.zeros((0, 3)))


def reshape_scalar(x):
    return np.reshape(x, (1, 1)), np.ravel(x), np.atleast_1d(x)


@pytest.mark.parametrize("x", [2.5, 3, np.float32(1.5), np.array(4, np.int8)])
def test_reshape_scalar(x):
    check(reshape_scalar, x)


def bad_reshape(a):
    return a.reshape(4, -1)


def bad_reshape2(a):
    return a.reshape(-1, -1)


def test_reshape_errors():
    a = np.ones((2, 3))
    for f in (bad_reshape, bad_reshape2):
        with pytest.raises(ValueError) as np_err:
            f(a)
        with pytest.raises(ValueError) as err:
            jit(f)(a)
        assert str(np_err.value) in str(err.value)


def reshape_f(a):
    return a.reshape(3, 2, order="F")


def ravel_f(a):
    return a.ravel("F")


def test_order_f_refused():
    for f in (reshape_f, ravel_f):
        with pytest.raises(UnsupportedFunctionError):
            jit(f)(np.ones((2, 3)))


# --- views: writes reach the base, base writes reach the view --------------------------

def view_writes(a):
    v = a.reshape(3, 2)
    v += 1
    r = a.ravel()
    r *= 2
    t = a.T
    t -= 1
    return v, r, t


def view_reads_after_base_write(a):
    v = a.reshape(3, 2)
    t = np.transpose(a)
    a += 10
    return v, t


def view_chain(a):
    v = a.reshape(3, 2).T          # view of a view
    v += 100
    e = np.expand_dims(a, 0)
    e *= 2
    s = np.squeeze(e)
    s -= 1
    w = np.swapaxes(a, 0, 1)
    w += 1
    m = np.moveaxis(a[None] if False else e, 0, -1)
    m += 3
    return v, e, s, w, m


def copies_do_not_write(a):
    f = a.flatten()
    f += 1
    c = a.astype(a.dtype)
    c += 1
    k = a.T.reshape(-1)            # NumPy must copy here (not contiguous)
    k += 1
    j = np.concatenate([a, a])
    j += 1
    s = np.stack([a])
    s += 1
    return a, f, c, k, j, s


def contiguous_view_of_transpose(a):
    k = a.T.reshape(3, 2, 1)       # only adds an axis: still a view in NumPy
    k += 1
    return k


@pytest.mark.parametrize("dt", [np.float64, np.int32])
def test_view_write_through(dt):
    check(view_writes, _arr(dt))
    check(view_reads_after_base_write, _arr(dt))
    check(view_chain, _arr(dt))
    check(copies_do_not_write, _arr(dt))
    check(contiguous_view_of_transpose, _arr(dt))


def views_of_local(x):
    a = np.zeros((2, 3)) + x       # a traced local
    v = a.reshape(6)
    v += np.arange(6.0)
    t = a.T
    t *= 2
    return a


def test_views_of_local():
    check(views_of_local, 1.5)


def ufunc_out_into_view(a, b):
    v = a.T
    np.add(v, b, out=v)
    return v


def test_ufunc_out_into_view():
    check(ufunc_out_into_view, _arr(np.float64), np.ones((3, 2)))


def test_setitem_through_view():   # needs basic indexing (runtime/numpy/indexing/indexing.py)
    pytest.importorskip("npxla.runtime.numpy.indexing.indexing")

    def f(a):
        v = a.reshape(2, 3)
        v[0, 0] = 9
        a.T[1] = -1
        return v

    try:
        check(f, np.arange(6.0))
    except NotImplementedError:
        pytest.skip("basic indexing not implemented yet")


# --- axis permutations -----------------------------------------------------------------

def perms(a):
    return (a.T, a.transpose(), a.transpose(1, 0, 2), a.transpose((2, 0, 1)),
            np.transpose(a, (-1, 0, 1)), a.swapaxes(0, 2), np.swapaxes(a, -1, 1),
            np.moveaxis(a, 0, -1), np.moveaxis(a, [0, 1], [2, 0]), a.transpose(None))


@pytest.mark.parametrize("dt", ALL)
def test_permutations(dt):
    check(perms, _arr(dt, (2, 3, 4)))


def bad_axes(a):
    return a.transpose(0, 1)


def bad_axes2(a):
    return np.swapaxes(a, 0, 3)


def bad_axes3(a):
    return np.moveaxis(a, [0, 1], [0])


def bad_squeeze(a):
    return np.squeeze(a, 0)


def bad_expand(a):
    return np.expand_dims(a, 5)


@pytest.mark.parametrize("f,exc", [(bad_axes, ValueError), (bad_axes2, AxisError),
                                   (bad_axes3, ValueError), (bad_squeeze, ValueError),
                                   (bad_expand, AxisError)])
def test_axis_errors(f, exc):
    a = np.ones((2, 3, 4))
    with pytest.raises(exc) as np_err:
        f(a)
    with pytest.raises(exc) as err:
        jit(f)(a)
    assert str(np_err.value) in str(err.value)


@settings(max_examples=15, deadline=None)
@given(st.permutations(range(4)), st.sampled_from([np.float32, np.int16]))
def test_transpose_hypothesis(perm, dt):
    check(transpose_perm, _arr(dt, (1, 2, 3, 4)), tuple(perm))   # perm: specialised ints


def transpose_perm(a, p):
    return np.transpose(a, p), a.transpose(*p)


# --- unit axes -------------------------------------------------------------------------

def unit_axes(a):
    return (np.expand_dims(a, 0), np.expand_dims(a, -1), np.expand_dims(a, (0, 2)),
            np.squeeze(np.expand_dims(a, 1)), a.reshape(1, 2, 1, 3).squeeze(),
            a.reshape(1, 2, 1, 3).squeeze(axis=(0, 2)), np.squeeze(a.reshape(2, 1, 3), 1))


def atleasts(a, b, c):
    return (np.atleast_1d(a), np.atleast_2d(a), np.atleast_3d(a), np.atleast_1d(b, c),
            np.atleast_2d(b, c), np.atleast_3d(b, c))


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.float64, np.complex64])
def test_unit_axes(dt):
    check(unit_axes, _arr(dt))


def test_atleast():
    check(atleasts, 2.5, np.arange(3), np.ones((2, 2), np.int8))
    check(atleasts, np.ones((2, 2, 2)), np.float32(1), np.arange(4.0))


def atleast_alias(a):
    b = np.atleast_2d(a)       # already 2-d: NumPy returns a itself
    b += 1
    c = np.atleast_3d(a)       # a view
    c *= 2
    return b, c


def test_atleast_alias():
    check(atleast_alias, np.ones((2, 3)))


# --- joining ---------------------------------------------------------------------------

def joins(a, b):
    return (np.concatenate([a, b]), np.concatenate((a, b), axis=1),
            np.concatenate([a, b], axis=-1), np.concatenate([a, b], axis=None),
            np.stack([a, b]), np.stack((a, b), axis=1), np.stack([a, b], -1),
            np.hstack([a, b]), np.vstack([a, b]), np.column_stack([a, b]))


@pytest.mark.parametrize("da,db", [(np.float64, np.float64), (np.int8, np.uint8),
                                   (np.float32, np.int64), (np.bool_, np.complex64),
                                   (np.uint64, np.int64), (np.float16, np.int16)])
def test_joins(da, db):
    check(joins, _arr(da), _arr(db))


def joins_1d(a, b):
    return (np.hstack([a, b]), np.vstack([a, b]), np.column_stack([a, b]),
            np.concatenate([a, b, [1.5, 2.5, 3.5]]), np.stack([a, b, a]), np.hstack([a, 7]))


def test_joins_1d():
    check(joins_1d, np.arange(3.0), np.arange(3, dtype=np.float32))
    check(joins_1d, np.arange(3), np.zeros(3, np.int8))


def joins_scalars(x, y):
    return np.stack([x, y]), np.hstack([x, y]), np.vstack([x, y]), np.column_stack([x, y])


@pytest.mark.parametrize("x,y", [(1, 2.5), (np.float32(1), 2), (True, np.int8(3))])
def test_join_scalars(x, y):
    check(joins_scalars, x, y)


def join_dtype(a, b):
    return (np.concatenate([a, b], dtype=np.float32), np.stack([a, b], dtype=np.int64,
                                                              casting="unsafe"),
            np.concatenate([a, b], axis=0, dtype=np.complex128))


def test_join_dtype():
    check(join_dtype, _arr(np.int32), _arr(np.float64) / 3)


def join_out(a, b, out):
    np.concatenate([a, b], out=out)
    return out


def test_join_out():
    check(join_out, _arr(np.int32), _arr(np.int32), np.zeros((4, 3)))


def concat_of_array(a):
    return np.concatenate(a), np.stack(a, axis=1)


def test_concatenate_of_an_array():
    check(concat_of_array, _arr(np.float32, (2, 3, 4)))


def join_bad_cast(a, b):
    return np.concatenate([a, b], dtype=np.int8)


def join_bad_shape(a, b):
    return np.concatenate([a, b.T])


def stack_bad_shape(a, b):
    return np.stack([a, b.T])


@pytest.mark.parametrize("f,exc", [(join_bad_cast, TypeError), (join_bad_shape, ValueError),
                                   (stack_bad_shape, ValueError)])
def test_join_errors(f, exc):
    a, b = np.ones((2, 3)), np.ones((2, 3))
    with pytest.raises(exc) as np_err:
        f(a, b)
    with pytest.raises(exc) as err:
        jit(f)(a, b)
    assert str(np_err.value) in str(err.value)


# --- broadcasting ----------------------------------------------------------------------

def bcasts(a, b):
    return (np.broadcast_to(a, (4, 2, 3)), np.broadcast_to(b, (2, 3)),
            np.broadcast_arrays(a, b), np.broadcast_arrays(a, a + 0))


@pytest.mark.parametrize("dt", [np.int8, np.float32, np.complex128])
def test_broadcast(dt):
    check(bcasts, _arr(dt), _arr(dt, (3,)))


def bcast_scalar(x):
    return np.broadcast_to(x, (2, 2)), np.broadcast_arrays(x, np.ones(3))


def test_broadcast_scalar():
    check(bcast_scalar, 2.5)


def bcast_write(a):
    v = np.broadcast_to(a, (2, 3))
    v += 1
    return v


def bcast_arrays_same_shape_alias(a, b):
    x, y = np.broadcast_arrays(a, b)   # same shapes: NumPy returns the inputs
    x += 1
    return x, y


def test_broadcast_read_only():
    with pytest.raises(ValueError, match="read-only"):
        bcast_write(np.arange(3.0))
    with pytest.raises(ValueError, match="read-only"):
        jit(bcast_write)(np.arange(3.0))
    check(bcast_arrays_same_shape_alias, np.ones(3), np.zeros(3))


# --- astype ----------------------------------------------------------------------------

def as_all(a):
    return tuple(a.astype(dt) for dt in ALL)


@pytest.mark.parametrize("dt", alternate(ALL))
def test_astype_matrix(dt):
    # in-range values: out-of-range float->int casts are implementation-defined
    a = np.array([[0, 1, 5], [3, 0, 2]]).astype(dt)
    if np.dtype(dt).kind in "fc":
        a = (a * np.array(1.25, dt)).astype(dt)
    check(as_all, a)


def as_signed(a):
    return a.astype(np.int8), a.astype(np.int64), a.astype(bool), a.astype(np.float16)


def test_astype_truncation_and_complex():
    check(as_signed, np.array([-2.7, -0.5, 0.5, 2.7, 0.0, 100.9]))
    check(as_signed, np.array([1.5 + 2j, -0.0 + 1j, 0j, -3.9 - 1j], np.complex64))
    check(as_signed, np.array([np.nan, np.inf, -np.inf, 1.0])[3:] if False else
          np.array([1e-30, -1e-30], np.float32))


def as_copy(a):
    b = a.astype(a.dtype, copy=False)     # no copy: NumPy returns a itself
    b += 1
    c = a.astype(a.dtype)                 # a copy
    c += 1
    d = np.astype(a, np.float32)
    return b, c, d


def test_astype_copy_semantics():
    check(as_copy, _arr(np.float64))


def as_casting(a):
    return a.astype(np.int32, casting="safe")


def test_astype_casting_error():
    with pytest.raises(TypeError) as np_err:
        as_casting(np.ones(3))
    with pytest.raises(TypeError) as err:
        jit(as_casting)(np.ones(3))
    assert str(np_err.value) in str(err.value)


# --- static queries --------------------------------------------------------------------

def queries(a, x):
    return (np.shape(a), np.ndim(a), np.size(a), np.size(a, 1), np.size(a, -1), np.shape(x),
            np.ndim(x), np.size(x), a.shape, a.ndim, a.size, a.T.shape, np.shape([x, x]))


def test_static_queries():
    r = check(queries, _arr(np.float32, (2, 3, 4)), 2.5)
    assert type(r[1]) is int and type(r[3]) is int


def method_view_of_constant():
    a = np.zeros((2, 3))
    v = a.reshape(6)          # method on a constant handle: folded by the core dispatcher
    v += 1
    t = a.T
    t += 1
    return a


def function_view_of_constant():
    a = np.zeros((2, 3))
    v = np.reshape(a, 6)
    v += 1
    t = np.transpose(a)
    t += 1
    return a


def test_function_view_of_constant():
    check(function_view_of_constant)


def test_method_view_of_constant():
    check(method_view_of_constant)
