"""dot / matmul / inner / outer / vdot vs NumPy: shapes, dtypes, errors, batch broadcasting."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from differential import check, random_array, tolerance
from npxla import jit

RNG = np.random.default_rng(1)
DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]


def data(shape, dt):
    return random_array(RNG, shape, dt, -4, 5)


def tol(dt):
    return tolerance(dt, double=1e-10)


def all_products(a, b, v, w):
    return (a @ b, np.matmul(a, v), v @ b, v @ w, np.dot(a, b), a.dot(v), np.dot(v, w),
            np.inner(a, a), np.inner(v, w), np.outer(a, v), np.vdot(a, a), np.vdot(v, w),
            np.dot(a, 2), np.inner(v, w[0]))


@pytest.mark.parametrize("dt", DTYPES)
def test_dtypes(dt):
    check(all_products, data((3, 4), dt), data((4, 2), dt), data((4,), dt), data((4,), dt),
          **tol(dt))


@pytest.mark.slow     # heavy: CI's slow run covers it (tests/matrix.py)
def test_integer_wraparound():
    a = np.full((2, 40), 100, np.int8)
    b = np.full((40, 3), 7, np.int8)
    check(all_products, a, b, a[0], a[1])
    check(all_products, a.astype(np.uint8), b.astype(np.uint8), a[0].astype(np.uint8),
          b[:, 0].astype(np.uint8))


def test_mixed_promotion():
    def f(a, b, s):
        return a @ b, np.dot(a, b), np.dot(a, s), np.outer(a[0], s), np.inner(a, s)
    check(f, data((2, 3), np.int8), data((3, 2), np.float32), 2.5, rtol=1e-6)
    check(f, data((2, 3), np.bool_), data((3, 2), np.int16), 3)
    check(f, data((2, 3), np.uint8), data((3, 2), np.int8), np.float32(1.5))


@pytest.mark.parametrize("sa,sb", [
    ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (4,)),
    ((2, 3, 4), (5, 4, 2)), ((3, 0), (0, 2)), ((0, 3), (3, 2)), ((), (3, 2)), ((2, 3), ()),
    ((0,), (0,))])
def test_dot_shapes(sa, sb):
    def f(a, b):
        return np.dot(a, b)
    check(f, data(sa, np.float64), data(sb, np.float64))


@pytest.mark.parametrize("sa,sb", [
    ((4,), (4,)), ((3, 4), (4,)), ((4,), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4),
                                                                           (5, 4, 2)),
    ((3, 0), (0, 2)), ((0, 3), (3, 2)), ((1, 2, 3), (4, 3, 2)),
    # a stack times one matrix (one tall product), one matrix times a stack
    ((2, 3, 1, 5), (5, 5)), ((3, 4, 5), (5,)), ((0, 4, 5), (5, 2)), ((3, 4, 5), (5, 0)),
    ((4, 5), (2, 3, 5, 6)), ((5,), (3, 5, 2)), ((4, 0), (3, 0, 2))])
def test_matmul_shapes(sa, sb):
    def f(a, b):
        return a @ b, np.matmul(a, b)
    check(f, data(sa, np.float64), data(sb, np.float64))
    check(f, data(sa, np.int32), data(sb, np.int64))


@pytest.mark.parametrize("sa,sb", [((), (3,)), ((3,), (3,)), ((2, 3), (4, 3)),
                                   ((2, 3, 4), (5, 4)), ((0, 3), (3,))])
def test_inner_outer_vdot(sa, sb):
    def f(a, b):
        return np.inner(a, b), np.outer(a, b), np.vdot(b, b)
    check(f, data(sa, np.complex128), data(sb, np.complex128))


@pytest.mark.parametrize("fn,sa,sb", [
    ("dot", (2, 3), (4,)), ("dot", (3,), (4,)), ("dot", (2, 3), (4, 5)),
    ("dot", (2, 3, 4), (5, 6, 7)), ("inner", (2, 3), (4, 5)), ("inner", (3,), (4,)),
    ("vdot", (2, 3), (4,)), ("matmul", (2, 3), (4, 2)), ("matmul", (3,), ()),
    ("matmul", (2, 3, 4), (5, 4, 6))])
def test_errors(fn, sa, sb):
    f = {"dot": dot_f, "inner": inner_f, "vdot": vdot_f, "matmul": matmul_f}[fn]
    a, b = np.ones(sa), np.ones(sb)
    with pytest.raises(ValueError) as expected:
        f(a, b)
    with pytest.raises(ValueError) as actual:
        jit(f)(a, b)
    assert str(expected.value) in str(actual.value)


def dot_f(a, b):
    return np.dot(a, b)


def inner_f(a, b):
    return np.inner(a, b)


def vdot_f(a, b):
    return np.vdot(a, b)


def matmul_f(a, b):
    return a @ b


def test_out_and_inplace():
    def f(a, b):
        o = np.zeros((3, 2))
        np.matmul(a, b, out=o)
        c = np.ones((3, 3))
        c @= c
        return o, np.dot(a, b, out=np.empty((3, 2)))
    check(f, data((3, 4), np.float64), data((4, 2), np.float64))


_dims = st.integers(min_value=1, max_value=3)


@settings(max_examples=12, deadline=None)
@given(batch_a=st.lists(_dims, max_size=2), batch_b=st.lists(_dims, max_size=2),
       n=_dims, k=_dims, m=_dims, vec_a=st.booleans(), vec_b=st.booleans(),
       dt=st.sampled_from([np.float64, np.int32, np.complex64]))
def test_matmul_broadcasting(batch_a, batch_b, n, k, m, vec_a, vec_b, dt):
    # make batch dims broadcast-compatible: mismatching sizes become 1 in `a`
    lb = min(len(batch_a), len(batch_b))
    for i in range(1, lb + 1):
        if batch_a[-i] != batch_b[-i]:
            batch_a[-i] = 1
    sa = (k,) if vec_a else tuple(batch_a) + (n, k)
    sb = (k,) if vec_b else tuple(batch_b) + (k, m)
    check(matmul_f, data(sa, dt), data(sb, dt), **tol(dt))


def transposed_operands(a, b, v):
    return a.T @ b, a @ b.T, v @ a.T, a.T @ v, np.dot(a.T, b), b.T.dot(v), a.T @ b.T


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.complex128])
def test_transposed_operands(dt):
    check(transposed_operands, data((4, 4), dt), data((4, 4), dt), data((4,), dt),
          **tol(dt))


def test_a_transposed_operand_is_not_copied():
    def f(a, y):
        return a.T @ y
    a, y = data((300, 300), np.float64), data((300,), np.float64)
    check(f, a, y)
    optimised = jit(f).lower(a, y).compile().as_text()
    assert "transpose(" not in optimised
