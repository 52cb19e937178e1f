"""einsum, tensordot, kron, cross vs NumPy: dtypes, shapes, ellipsis, broadcasting,
repeated indices, several operands, errors; random einsum subscripts with hypothesis."""
import warnings

import numpy as np
import pytest

from matrix import alternate
from hypothesis import given, settings, strategies as st

from differential import check, random_array, tolerance
from npxla import jit

RNG = np.random.default_rng(3)
DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def data(shape, dt=np.float64):
    return random_array(RNG, shape, dt, -4, 5)


def tol(dt):
    return tolerance(dt, half=2e-2, double=1e-10)


# --- einsum ----------------------------------------------------------------------------------

def einsums(a, b, c, v):
    return (np.einsum("ijk,kl->ijl", a, b), np.einsum("ii", c), np.einsum("ii->i", c),
            np.einsum("ij->ji", c), np.einsum("i,i", v, v), np.einsum("i,j", v, v),
            np.einsum("...k,kl", a, b), np.einsum("ijk->", a), np.einsum("ij,jk,kl->il", c, c, c),
            np.einsum("bij,bjk->bik", a[:, :, :3], a[:, :3, :3]), np.einsum("ij,j", c, v),
            np.einsum("ijk,ijk->ik", a, a), np.einsum("ijk->kji", a))


@pytest.mark.parametrize("dt", alternate(DTYPES))
def test_einsum_dtypes(dt):
    check(einsums, data((2, 3, 4), dt), data((4, 5), dt), data((3, 3), dt), data((3,), dt),
          **tol(dt))


def einsum_forms(a, b, c, v):
    return (np.einsum(c, [0, 1], v, [1], [0]), np.einsum(a, [Ellipsis, 2], [2, Ellipsis]),
            np.einsum(c, [1, 1]), np.einsum("i...,i...->...", a, np.ones((2, 1, 4))),
            np.einsum("ij,jk", np.ones((2, 1)), b[:3]), np.einsum("iij->j", np.ones((3, 3, 2))),
            np.einsum("ij,ij->", c, c, optimize=True).reshape(1), np.einsum("Ba", c),
            np.einsum("bA", c), np.einsum("i,i->i", np.ones(1), v),
            np.einsum(" i j , j k -> i k ", c, c), np.einsum("...", v), np.einsum("...,...", v, 2),
            np.einsum("ij...,j...->i...", a, b[:3, :4]), np.einsum("...ii->...i", a[:, :3, :3]),
            np.einsum("i,j,k->ijk", v, v[:2], v[:1]), np.einsum("ij,kl->", c, c),
            np.einsum("ijj->ij", a[:, :3, :3]), np.einsum("iii->i", np.ones((2, 2, 2))),
            np.einsum("i,jk,k->ij", v, c, v, optimize="greedy"),
            np.einsum("ij,ij,ij->ij", c, c, c))


def test_einsum_forms():
    check(einsum_forms, data((2, 3, 4)), data((4, 5)), data((3, 3)), data((3,)))


def einsum_options(a, b, out):
    r1 = np.einsum("ij,jk->ik", a, b, dtype=np.float64)
    r2 = np.einsum("ij,jk->ik", a, b, dtype=np.int8, casting="unsafe")
    np.einsum("ij,jk->ik", a, b, out=out)
    return r1, r2, out, np.einsum("ij->", a, dtype=np.int64)


def test_einsum_dtype_casting_out():
    check(einsum_options, data((2, 3), np.int16), data((3, 4), np.int16),
          np.zeros((2, 4), np.int64))


def einsum_mixed(a, b, s):
    return (np.einsum("ij,jk", a, b), np.einsum("ij,", a, s), np.einsum("i,i", a[0], b[:, 0]))


@pytest.mark.parametrize("da,db,s", [(np.int8, np.uint8, 3), (np.float32, np.int64, 2.5),
                                     (np.bool_, np.int16, True), (np.float16, np.complex64, 1j)])
def test_einsum_mixed_dtypes(da, db, s):
    check(einsum_mixed, data((3, 3), da), data((3, 4), db), s, **tol(np.float16))


def einsum_bad_subscripts(a):
    return np.einsum("ij,jk", a, a[0])


def einsum_bad_sizes(a):
    return np.einsum("ij,jk", a, a)


def einsum_bad_repeat(a):
    return np.einsum("ii", a)


def einsum_bad_cast(a):
    return np.einsum("ij->j", a, dtype=np.int64)


def einsum_bad_output(a):
    return np.einsum("ij->ik", a)


@pytest.mark.parametrize("fn,exc", [
    (einsum_bad_subscripts, ValueError), (einsum_bad_sizes, ValueError),
    (einsum_bad_repeat, ValueError), (einsum_bad_cast, TypeError),
    (einsum_bad_output, ValueError)])
def test_einsum_errors(fn, exc):
    a = data((2, 3))
    with pytest.raises(exc) as expected:
        fn(a)
    with pytest.raises(exc) as got:
        jit(fn)(a)
    assert str(expected.value).split("\n")[0] in str(got.value)


def einsum_in_loop(a, n):
    acc = np.zeros(a.shape[1])
    for _ in range(n):
        acc = acc + np.einsum("ij,j->i", a, acc + 1.0)
    return acc


def test_einsum_in_loop():
    check(einsum_in_loop, data((3, 3)), 4)


LETTERS = "abcd"


@st.composite
def einsum_case(draw):
    sizes = {c: draw(st.integers(1, 3)) for c in LETTERS}
    n_ops = draw(st.integers(1, 3))
    terms, shapes = [], []
    for _ in range(n_ops):
        labels = draw(st.lists(st.sampled_from(LETTERS), min_size=0, max_size=3))
        # sometimes broadcast a label with size 1
        shape = tuple(1 if draw(st.integers(0, 5)) == 0 else sizes[c] for c in labels)
        if len(set(labels)) != len(labels):        # repeated labels need equal sizes
            shape = tuple(sizes[c] for c in labels)
        terms.append("".join(labels))
        shapes.append(shape)
    used = sorted(set("".join(terms)))
    if draw(st.booleans()):
        out = "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
        subscripts = ",".join(terms) + "->" + out
    else:
        subscripts = ",".join(terms)
    dt = draw(st.sampled_from([np.float64, np.int32, np.complex128, np.bool_]))
    return subscripts, shapes, dt


def run_einsum(subscripts, *ops):
    return np.einsum(subscripts, *ops)


@settings(max_examples=30, deadline=None)
@given(einsum_case())
def test_einsum_random_subscripts(case):
    subscripts, shapes, dt = case
    ops = [data(s, dt) for s in shapes]
    try:
        expected = np.einsum(subscripts, *ops)
    except ValueError:
        return
    got = jit(run_einsum, static_argnums=0)(subscripts, *ops)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    assert np.shape(got) == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)


# --- tensordot -------------------------------------------------------------------------------

def tensordots(a, b, c):
    return (np.tensordot(a, b, 1), np.tensordot(a, a, 3).reshape(1),
            np.tensordot(a, c, ([1], [0])), np.tensordot(c, c, 0),
            np.tensordot(a, a, ((0, 1), (0, 1))),
            np.tensordot(a, a, ([-1, 0], [2, 0])), np.tensordot(c, c, (1, 0)),
            np.tensordot(a, b, axes=[[2], [0]]), np.tensordot(c, c).reshape(1))


@pytest.mark.parametrize("dt", alternate([np.bool_, np.int8, np.uint16, np.int64, np.uint64, np.float16,
                                np.float32, np.complex128]))
def test_tensordot_dtypes(dt):
    check(tensordots, data((2, 3, 4), dt), data((4, 5), dt), data((3, 3), dt), **tol(dt))


def tensordot_mixed(a, b, s):
    return np.tensordot(a, b, 1), np.tensordot(a, s, 0), np.tensordot(a[:0], b[:, :0], 1)


def test_tensordot_mixed_and_empty():
    check(tensordot_mixed, data((0, 4), np.int8), data((4, 3), np.float32), 2, rtol=1e-6)
    check(tensordot_mixed, data((2, 4), np.uint8), data((4, 3), np.int8), 2.5)


def tensordot_bad(a):
    return np.tensordot(a, a, ([0], [1]))


def test_tensordot_error():
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        jit(tensordot_bad)(data((2, 3)))


# --- kron ------------------------------------------------------------------------------------

def krons(a, b, v):
    return (np.kron(a, b), np.kron(v, b), np.kron(a, v), np.kron(v, v), np.kron(a[None], b),
            np.kron(a[0, 0], b), np.kron(a, b[:0]))


@pytest.mark.parametrize("dt", DTYPES)
def test_kron_dtypes(dt):
    check(krons, data((2, 3), dt), data((3, 2), dt), data((4,), dt), **tol(dt))


def kron_scalars(a, s, t):
    return np.kron(a, s), np.kron(s, a), np.kron(s, t)


def test_kron_scalars():
    check(kron_scalars, data((2, 2), np.int8), 3, 2.5)
    check(kron_scalars, data((2,), np.float32), np.float64(2.0), np.int16(3))


# --- cross -----------------------------------------------------------------------------------

def crosses(a, b):
    return (np.cross(a, b), np.cross(a[0], b[1]), np.cross(a, b[0]), np.cross(a.T, b.T, axis=0),
            np.cross(a.T, b, axisa=0), np.cross(a, b, axisc=0), np.cross(a[:, None], b))


def crosses_2d(a, b):
    return (np.cross(a[:, :2], b), np.cross(a, b[:, :2]), np.cross(a[:, :2], b[:, :2]),
            np.cross(a[:, :2], b[:, :2], axisc=0), np.cross(a[0, :2], b[:, :2]))


@pytest.mark.parametrize("dt", [np.int8, np.uint32, np.float16, np.float64, np.complex64])
def test_cross_dtypes(dt):
    a, b = data((4, 3), dt), data((4, 3), dt)
    check(crosses, a, b, **tol(dt))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(crosses_2d, a, b, **tol(dt))


def cross_mixed(a, b):
    return np.cross(a, b), np.cross(a, [1, 2, 3]), np.cross([1.5, 0, 2], b)


def test_cross_mixed():
    check(cross_mixed, data((2, 3), np.int8), data((3,), np.uint8))
    check(cross_mixed, data((2, 3), np.float32), data((3,), np.int64))


def cross_2d(a, b):
    return np.cross(a, b)


def test_cross_2d_warns():
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
        jit(cross_2d)(data((2,)), data((2,)))


def cross_bad(a, b):
    return np.cross(a, b)


@pytest.mark.parametrize("sa,sb,dt,exc,msg", [
    ((4,), (3,), np.float64, ValueError, "incompatible dimensions"),
    ((), (3,), np.float64, ValueError, "zero dimension"),
    ((3,), (3,), np.bool_, TypeError, "boolean subtract"),
])
def test_cross_errors(sa, sb, dt, exc, msg):
    with pytest.raises(exc, match=msg):
        jit(cross_bad)(data(sa, dt), data(sb, dt))
