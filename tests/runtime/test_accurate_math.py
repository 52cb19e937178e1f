"""Differential tests of the float64 functions rebuilt in runtime/numpy/ufuncs/accurate_math.py
(exp, log2, log10, log1p, expm1, sinh, cosh, tanh, cbrt, arcsin, arcsinh, arccosh,
arctanh, and hypot): within
1 ulp of NumPy over their domains, special values (NaN, +-inf, +-0, domain errors)
exactly as NumPy, float32/float16 through float64 (correctly rounded but for rare
double roundings), 0-d arrays, complex operands still on XLA's ops, and the inputs
where XLA's own versions were far off (docs/accuracy.md)."""
import math

import numpy as np
import pytest

from differential import DEVICE
from npxla import jit
from npxla.runtime.numpy.ufuncs import host_ufuncs


@pytest.fixture(autouse=True)
def _kernels_only(monkeypatch):
    """These tests measure npxla's own kernels: on hosts where large arrays' functions
    are NumPy's own loops (`host_ufuncs`), those are turned off here."""
    monkeypatch.setattr(host_ufuncs, "ENABLED", False)

FUNCS = ("exp", "log2", "log10", "log1p", "expm1", "sinh", "cosh", "tanh", "cbrt",
         "arcsin", "arcsinh", "arccosh", "arctanh")
TINY, MAX = np.finfo(np.float64).tiny, np.finfo(np.float64).max
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, np.inf, -np.inf, np.nan, TINY, -TINY,
            MAX, -MAX, 1e-300, -1e-300, 1e300, -1e300]
# inputs where XLA's float64 op was more than an ulp off (tests/benchmarks/accuracy.py)
BAD = {
    "exp": [0.38955067346551964, 1.0, -1.0, 709.78, 709.782712893384, 709.7827128933841,
            -708.3, -700.0, 2 ** -26, -(2 ** -53), 0.34657359027997264, 0.5 * math.log(2)],
    "arcsin": [4.4457765289843635e-308, -4.4457765289843635e-308, 1e-300, 2 ** -26,
               3e-9, -0.8263828921644325, 0.9999999999999999, -0.9999999999999999,
               0.7071067811865476, 0.5, 1.5, -2.0],
    "log2": [1.0, 1.0001, 0.9999, 1 + 2 ** -52, 1 - 2 ** -53, 0.9703016542020517,
             1.4142135623730951, 0.7071067811865476],
    "log10": [1.004386949129764, 3.0, 7.0, 0.3, 1e-5, 1e22, 1e-22],
    "log1p": [-0.4142051156123988, -0.41419709071089433, -0.38, -0.343, 0.34, 0.45,
              0.53, -0.024255681947008834, 1e-10, -1e-10, 2 ** -53, -(2 ** -54),
              -1 + 2 ** -53, 2 ** 53, 1e300],
    "expm1": [0.18833690720328367, 3e-8, -3e-8, 0.3, -0.3, 0.4999, 0.3466, -0.3466,
              0.6931, 1.04, -1.04, -38.0, -45.0, -50.0, 700.0, 709.782712893384,
              709.7827128933841, 1.1163274960037177e-16],
    "sinh": [-578.7778390809573, 578.7778390809573, 22.0, 30.0, 0.1084754680819855, 0.9,
             -0.9, 1e-5, 2 ** -26, 2 ** -27, 709.0, 710.0, -710.4758600739439,
             710.4758600739439, 710.4758600739440, 711.0, 800.0],
    "cosh": [-578.7778390809573, 22.0, 0.002986324559875353, 0.9, 1e-5, 709.0, 710.0,
             710.4758600739439, 710.4758600739440, 711.0, -800.0],
    "tanh": [19.5, -19.5, 19.0, 19.06, 19.07, 20.0, 25.0, -0.5003491204217028, 0.55, 1e-8,
             -1e-8, 3e-9, 0.01, 5.0, 2 ** -27, 2 ** -26],
    "cbrt": [-8.0, 27.0, -1e-300, 1e300, 64.0, 0.001, -1.1171629729731527e+139, 3.0,
             7.99999999, 1.0000001],
    "arcsinh": [0.007733605479661065, 1e-9, -1e-9, 0.35, -0.35, 2 ** 28, 2 ** 28 + 2 ** 3,
                1e7, 1e154, 1e200, -1e300],
    "arccosh": [1.0000304090752914, 1 + 2 ** -52, 1.0, 1.5, 2.0, 2 ** 28, 2 ** 28 + 8.0,
                1e200, 0.5, 0.0, -1.0],
    "arctanh": [-0.03064897739423109, 0.5, -0.5, 0.999, 1 - 2 ** -53, -(1 - 2 ** -53),
                1.0, -1.0, 1.5, -2.0, 1e-9, 0.17028000842583735],
}


def _domain(name, rng, n=3000):
    """Random inputs over the function's domain: uniform near the interesting range
    and log-uniform magnitudes over the finite range."""
    def lu(lo, hi, k):
        return np.exp(rng.uniform(np.log(lo), np.log(hi), k))

    def signed(v):
        return v * rng.choice([-1.0, 1.0], len(v))

    parts = {
        "exp": [rng.uniform(-1, 1, n), rng.uniform(-708, 709.78, n),
                signed(lu(1e-300, 1e-3, n))],
        "arcsin": [rng.uniform(-1, 1, n), signed(1 - lu(1e-16, 1e-3, n)),
                   signed(lu(1e-300, 1e-3, n))],
        "log2": [rng.uniform(0.5, 2, n), lu(1e-300, 1e300, n)],
        "log10": [rng.uniform(0.5, 2, n), lu(1e-300, 1e300, n)],
        "log1p": [rng.uniform(-0.5, 1, n), signed(lu(1e-300, 1e-3, n)),
                  -lu(0.5, 1 - 1e-16, n), lu(1, 1e300, n)],
        "expm1": [rng.uniform(-1, 1, n), rng.uniform(-50, 709.78, n),
                  signed(lu(1e-300, 1e-3, n))],
        "sinh": [rng.uniform(-2, 2, n), rng.uniform(-710.4, 710.4, n),
                 signed(lu(1e-300, 1, n))],
        "cosh": [rng.uniform(-2, 2, n), rng.uniform(-710.4, 710.4, n),
                 signed(lu(1e-300, 1, n))],
        "tanh": [rng.uniform(-1, 1, n), rng.uniform(-21, 21, n), signed(lu(1e-300, 1, n))],
        "cbrt": [rng.uniform(-8, 8, n), signed(lu(1e-300, 1e300, n))],
        "arcsinh": [rng.uniform(-2, 2, n), signed(lu(1e-300, 1e300, n))],
        "arccosh": [rng.uniform(1, 2, n), 1 + lu(1e-16, 1e-2, n), lu(1, 1e300, n)],
        "arctanh": [rng.uniform(-1, 1, n), signed(lu(1e-300, 1, n)),
                    signed(1 - lu(1e-16, 1e-3, n))],
    }[name]
    return np.concatenate(parts)


def _ulps(a, b):
    """|a - b| in ulps of their dtype (finite values, adjacent floats 1 apart, -0 == 0)."""
    ity = {8: np.int64, 4: np.int32, 2: np.int16}[a.dtype.itemsize]
    ia, ib = (v.view(ity).astype(np.int64) for v in (a, b))
    top = np.int64(np.iinfo(ity).max)
    ia, ib = (np.where(v < 0, -(v & top), v) for v in (ia, ib))
    return np.abs(ia - ib)


def _run(name, x):
    fn = getattr(np, name)
    got = np.asarray(jit(lambda v: fn(v), device=DEVICE)(x))
    with np.errstate(all="ignore"):
        expected = fn(x)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    return expected, got


def _numpys_own_error(fn, x, got, d, max_ulp):
    """`d` with the distances over `max_ulp` replaced by npxla's distance from `fn` in
    long double (x86's 64-bit significand), rounded to float64. The bounds hold against
    NumPy's AVX-512 loops; on hosts without them NumPy calls the C library, whose cbrt
    and sinh can be 1-3 ulp off where npxla is correctly rounded (glibc's
    cbrt(-5.375663892172353) is -1.7517711474893423, 3 ulp from npxla's
    -1.7517711474893416, the correctly rounded value)."""
    if np.finfo(np.longdouble).nmant < 60 or x.dtype != np.float64:
        return d
    over = d > max_ulp
    with np.errstate(all="ignore"):
        exact = fn(x[over].astype(np.longdouble)).astype(np.float64)
    d = d.copy()
    d[over] = _ulps(exact, got[over])
    return d


def _assert_close(name, x, expected, got, max_ulp=1, fn=None):
    """Same NaNs and infinities, signed zeros alike, at most `max_ulp` ulps apart
    elsewhere; inputs or NumPy results that are subnormal are left out (XLA:CPU flushes
    subnormals to zero). With `fn` (NumPy's function of one float64 argument), an
    element further from NumPy counts as close when it is within `max_ulp` of `fn`
    computed in long double: NumPy's own error (`_numpys_own_error`)."""
    x, expected, got = (np.atleast_1d(a) for a in (x, expected, got))
    tiny = np.finfo(expected.dtype).tiny
    keep = ~(((np.abs(x) < tiny) & (x != 0)) | ((np.abs(expected) < tiny) & (expected != 0)))
    x, expected, got = x[keep], expected[keep], got[keep]
    bad = np.isnan(expected) != np.isnan(got)
    assert not bad.any(), f"{name}: NaN mismatch at {x[bad][:5]}: {got[bad][:5]}"
    fin = ~np.isnan(expected)
    inf = fin & (np.isinf(expected) | np.isinf(got))
    assert (expected[inf] == got[inf]).all(), \
        f"{name}: inf mismatch at {x[inf][expected[inf] != got[inf]][:5]}"
    zero = fin & (expected == 0)
    assert (got[zero] == 0).all() and \
        (np.signbit(got[zero]) == np.signbit(expected[zero])).all(), \
        f"{name}: signed zero mismatch at {x[zero][:5]}"
    d = _ulps(expected[fin & ~inf], got[fin & ~inf])
    x = x[fin & ~inf]
    if fn is not None and len(d) and d.max() > max_ulp:
        d = _numpys_own_error(fn, x, got[fin & ~inf], d, max_ulp)
    worst = int(np.argmax(d)) if len(d) else 0
    assert not len(d) or int(d[worst]) <= max_ulp, \
        (f"{name}({x[worst]!r}) = {got[fin & ~inf][worst]!r}, NumPy "
         f"{expected[fin & ~inf][worst]!r}: {int(d[worst])} ulp")


@pytest.mark.parametrize("name", FUNCS)
def test_float64_within_one_ulp_of_numpy(name):
    x = np.concatenate([np.array(SPECIALS + BAD[name]),
                        _domain(name, np.random.default_rng(FUNCS.index(name)))])
    expected, got = _run(name, x)
    _assert_close(name, x, expected, got, fn=getattr(np, name))


# float32 keeps XLA's own op for these (within a few ulp of NumPy, whose float32 loops
# are 1-3 ulp from correctly rounded; the float64 detour costs 2-5x): math_ufuncs.LOWERINGS
XLA_SINGLE = {"exp": 6, "arcsin": 3, "expm1": 3, "log1p": 2, "tanh": 4, "arcsinh": 3, "arccosh": 4, "arctanh": 3}


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float32_and_float16_round_the_float64_result(name, dtype):
    """Computed in float64 and rounded: at most 1 ulp from the correctly rounded result
    (NumPy's float64 one rounded), and within NumPy's own float32 error (its loops are
    up to 3 ulp off, log10) of NumPy; float16 goes through float32 like NumPy's. The
    functions of XLA_SINGLE keep XLA's float32 op: within its few ulp of NumPy."""
    with np.errstate(all="ignore"):
        x = np.concatenate([np.array(SPECIALS + BAD[name]),
                            _domain(name, np.random.default_rng(7), 500)]).astype(dtype)
    expected, got = _run(name, x)
    if name in XLA_SINGLE:
        if dtype == np.float32:
            _assert_close(name, x, expected, got, max_ulp=XLA_SINGLE[name] + 2)
        return
    _assert_close(name, x, expected, got, max_ulp=3 if dtype == np.float32 else 1)
    with np.errstate(all="ignore"):
        reference = getattr(np, name)(x.astype(np.float64)).astype(np.float32).astype(dtype)
    _assert_close(name, x, reference, got, max_ulp=1)


def test_hypot_within_one_ulp_of_numpy_and_its_special_values():
    rng = np.random.default_rng(3)
    n = 4000
    a = np.concatenate([rng.uniform(-5, 5, n), np.exp(rng.uniform(-690, 700, n)),
                        [-3.8162812029587947, 0.0, np.inf, np.nan, 1e308, 3.0]])
    b = np.concatenate([rng.uniform(-5, 5, n), np.exp(rng.uniform(-690, 700, n)),
                        [-0.7682138066721089, -0.0, np.nan, -np.inf, 1e308, 4.0]])
    for dtype in (np.float64, np.float32):
        with np.errstate(all="ignore"):
            x, y = a.astype(dtype), b.astype(dtype)
            expected = np.hypot(x, y)
        got = jit(lambda u, v: np.hypot(u, v), device=DEVICE)(x, y)
        assert got.dtype == expected.dtype
        _assert_close("hypot", np.minimum(np.abs(x), np.abs(y)), expected, got,
                      max_ulp=1 if dtype == np.float64 else 0)
    assert got[-3] == np.inf and got[-4] == np.inf and got[-1] == 5.0


def test_fast_math_keeps_xlas_exp():
    """fast_math=True trades the last bit for XLA's own exp (2-3x faster)."""
    x = np.linspace(-700, 700, 10001)
    fast = jit(lambda v: np.exp(v), fast_math=True, device=DEVICE)(x)
    _assert_close("exp", x, np.exp(x), fast, max_ulp=2)


def test_zero_dimensional_and_scalar_operands():
    def f(a, b):
        return (np.log2(a), np.log1p(b), np.sinh(a), np.tanh(b), np.cbrt(-a),
                np.arccosh(a), math.log2(a), math.tanh(b))

    for a, b in ((np.float64(8.0), np.float64(-0.4142051156123988)),
                 (np.array(8.0), np.array(-0.4142051156123988)),
                 (np.float32(8.0), np.float32(0.25))):
        got = jit(f, device=DEVICE)(a, b)
        with np.errstate(all="ignore"):
            expected = f(a, b)
        for g, e in zip(got, expected):
            assert np.shape(g) == np.shape(e) and np.asarray(g).dtype == np.asarray(e).dtype
            _assert_close("f", np.asarray(a), np.asarray(e), np.asarray(g))
    assert type(got[6]) is float and got[6] == 3.0


def test_regressions_exact():
    """The values the accuracy table flagged, and exact results NumPy gives."""
    def f(x):
        return np.log2(x)

    assert jit(f, device=DEVICE)(np.array([1.0]))[0] == 0.0
    powers = 2.0 ** np.arange(-1022, 1024)
    assert (jit(f, device=DEVICE)(powers) == np.arange(-1022, 1024)).all()

    def g(n):
        return int(np.log2(n))

    assert jit(g, device=DEVICE)(8.0) == 3
    tens = 10.0 ** np.arange(-300, 301)
    got = jit(lambda v: np.log10(v), device=DEVICE)(tens)
    assert (got == np.log10(tens)).all()

    def h(x):
        return (np.tanh(x), np.sinh(-x), np.cosh(x), np.expm1(-x), np.cbrt(-x))

    t, s, c, e, r = jit(h, device=DEVICE)(np.array([19.5, 710.0, np.inf, 8.0]))
    assert t.tolist()[:3] == [1.0, 1.0, 1.0] and t[3] == np.tanh(8.0)
    # sinh(-710) correctly rounded (NumPy's AVX-512 loop gives it; glibc is 1 ulp off)
    assert np.isfinite(s[1]) and s[1] == -1.1169973830808555e+308 and s[2] == -np.inf
    assert np.isfinite(c[1]) and c[2] == np.inf
    assert e[2] == -1.0 and r[3] == -2.0
    specials = jit(lambda v: (np.log1p(v), np.arccosh(v), np.arctanh(v), np.sinh(v)),
                   device=DEVICE)(np.array([-1.0, 0.5, -0.0]))
    assert specials[0][0] == -np.inf and np.isnan(specials[1][1])
    assert specials[2][0] == -np.inf and np.signbit(specials[3][2])


def test_complex_operands_keep_xla_ops():
    z = np.array([1 + 1j, -0.5 + 2j, 3 - 0.25j])
    for name in ("log2", "log10", "log1p", "expm1", "sinh", "cosh", "tanh", "arcsinh",
                 "arccosh", "arctanh"):
        fn = getattr(np, name)
        np.testing.assert_allclose(jit(lambda v: fn(v), device=DEVICE)(z), fn(z),
                                   rtol=1e-12, err_msg=name)


def test_fast_math_keeps_the_error_free_transformations():
    """`fast_math=True` lets XLA contract user products into FMAs; the kernels' own
    products stay rounded, so they stay within 1 ulp."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-3, 3, 2000), np.array(BAD["sinh"] + BAD["tanh"])])

    def f(v):
        return np.sinh(v), np.tanh(v), np.expm1(v), np.log1p(np.abs(v))

    got = jit(f, device=DEVICE, fast_math=True)(x)
    with np.errstate(all="ignore"):
        expected = f(x)
    for name, e, g in zip(("sinh", "tanh", "expm1", "log1p"), expected, got):
        _assert_close(name, x, e, np.asarray(g))


def cube(v):
    return v ** 3


def power_table(v):
    return (v ** 4, v ** 5.0, v ** -3, v ** 16, v ** -16, np.power(v, 7), v ** -2,
            v ** 2.5, v ** 2, v ** -1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_constant_integer_powers_within_one_ulp_of_numpy(dtype):
    """x ** n for a constant integer 3 <= |n| <= 16 by double-double squaring (was XLA's
    pow: 1 ulp off NumPy and several times slower); other exponents keep XLA's pow."""
    rng = np.random.default_rng(5)
    with np.errstate(all="ignore"):
        x = np.concatenate([rng.uniform(-3, 3, 3000), np.exp(rng.uniform(-40, 40, 3000)),
                            [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, 1e300,
                             -1e300, 1e-300]]).astype(dtype)
        expected = power_table(x)
    got = jit(power_table, device=DEVICE)(x)
    for e, g in zip(expected, got):
        assert g.dtype == e.dtype
        _assert_close("power", x, e, g, max_ulp=1 if dtype == np.float64 else 3)


def test_integer_power_of_integers_and_traced_exponents_unchanged():
    def f(a, k):
        return a ** 3, a ** k, 2.0 ** k
    a = np.arange(-5, 6, dtype=np.int64)
    got = jit(f, device=DEVICE)(a, 4)
    expected = f(a, 4)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
        assert np.asarray(g).dtype == np.asarray(e).dtype
