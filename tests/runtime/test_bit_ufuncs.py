"""np.frexp, np.ldexp, np.bitwise_count, np.gcd and np.lcm (were refused), differential
against NumPy to the bit: signed zeros, inf, NaN, subnormal inputs (read from their
bits), the extremes of every integer dtype, wrapping lcm."""
import numpy as np
import pytest

from npxla import jit

RNG = np.random.default_rng(12)
FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _floats(dtype):
    fi = np.finfo(dtype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, fi.tiny, -fi.tiny / 4,
               fi.smallest_subnormal, fi.max, -fi.max, 1.0, -0.5, 3.0]
    return np.concatenate([RNG.standard_normal(300) * 1e3, special]).astype(dtype)


def _bits_equal(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def frexp(x):
    return np.frexp(x)


def ldexp(x, n):
    return np.ldexp(x, n)


@pytest.mark.parametrize("dtype", FLOATS)
def test_frexp(dtype):
    x = _floats(dtype)
    (wm, we), (gm, ge) = frexp(x), jit(frexp)(x)
    _bits_equal(gm, wm)
    assert ge.dtype == we.dtype == np.int32 and np.array_equal(ge, we)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_ldexp(dtype, itype):
    x = _floats(dtype)
    n = RNG.integers(-60, 60, x.size).astype(itype)
    n[:6] = [5000, -5000, 1100, -1100, 0, 40]
    with np.errstate(over="ignore"):
        want = ldexp(x, n)
    got = jit(ldexp)(x, n)
    # XLA:CPU flushes a float32/float64 subnormal result to zero (docs/semantics.md):
    # elsewhere, the bits
    normal = ~((want != 0) & (np.abs(want) < np.finfo(dtype).tiny))
    _bits_equal(got[normal], want[normal])
    assert np.all((got[~normal] == 0) | (got[~normal] == want[~normal]))


@pytest.mark.parametrize("dtype", INTS + [np.bool_])
def test_bitwise_count(dtype):
    if dtype is np.bool_:
        x = np.array([True, False, True])
    else:
        info = np.iinfo(dtype)
        x = RNG.integers(info.min, info.max, 100, dtype=dtype, endpoint=True)
        x[:3] = [info.min, info.max, 0]
    want, got = np.bitwise_count(x), jit(lambda v: np.bitwise_count(v))(x)
    assert got.dtype == want.dtype == np.uint8 and np.array_equal(got, want)


def gcd_lcm(a, b):
    return np.gcd(a, b), np.lcm(a, b), np.gcd(a, 6)


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm(dtype):
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, 80, dtype=dtype, endpoint=True)
    b = RNG.integers(info.min, info.max, 80, dtype=dtype, endpoint=True)
    a[:6] = [0, 0, info.max, info.min, 1, info.max]
    b[:6] = [0, 5, info.max, 0, info.min, 1]
    a[6:40], b[6:40] = RNG.integers(0, 60, 34), RNG.integers(0, 60, 34)
    with np.errstate(all="ignore"):
        want = gcd_lcm(a, b)
    got = jit(gcd_lcm)(a, b)
    for w, g in zip(want, got):
        assert g.dtype == w.dtype and np.array_equal(g, w)


def test_gcd_of_bools_is_numpys_type_error():
    x = np.array([True, False])
    with pytest.raises(TypeError):
        np.gcd(x, x)
    with pytest.raises(TypeError):
        jit(lambda v: np.gcd(v, v))(x)


def reduce_gcd(v):
    g = v[0]
    i = 1
    while i < len(v) and g != 1:        # data-dependent: a staged loop
        g = np.gcd(g, v[i])
        i += 1
    m, e = np.frexp(v * 1.5)
    if g > 2:
        m = np.ldexp(m, e - 1)
    return g, i, m, np.bitwise_count(v), np.lcm(v, g)


@pytest.mark.parametrize("v", [np.array([12, 18, 30, 42]), np.array([12, 18, 35, 42]),
                               np.array([-8, 16, 64, 24])])
def test_bit_ufuncs_in_staged_control_flow(v):
    want, got = reduce_gcd(v), jit(reduce_gcd)(v)
    for w, g in zip(want, got):
        assert np.asarray(g).dtype == np.asarray(w).dtype and np.array_equal(g, w)
