"""The transcendental accuracy table (tests/benchmarks/accuracy.py) on a few functions
at a small n: the ulp metric itself, and float64 bounds that hold now and must keep
holding (sqrt is exact; exp, log, sin, arctan2 stay within NumPy's own error, 1-2
ulp; the functions of runtime/numpy/ufuncs/accurate_math.py within 1 ulp, and their float32
results correctly rounded but for rare double roundings). The full table:
`python -m tests.benchmarks.accuracy` (docs/accuracy.md)."""
import numpy as np
import pytest

from tests.benchmarks import accuracy as A
from npxla.runtime.numpy.ufuncs import host_ufuncs


@pytest.fixture(autouse=True)
def _kernels_only(monkeypatch):
    """These tests measure npxla's own kernels: on hosts where large arrays' functions
    are NumPy's own loops (`host_ufuncs`), those are turned off here."""
    monkeypatch.setattr(host_ufuncs, "ENABLED", False)


def test_ulp_distance_counts_adjacent_floats_across_zero_and_binades():
    for dt in (np.float64, np.float32):
        one, sub = dt(1), np.finfo(dt).smallest_subnormal
        e = np.array([1, 1, 0, -0.0, sub, 2, np.inf, -np.inf, np.nan, np.nan, 1,
                      np.inf, np.inf], dt)
        g = np.array([np.nextafter(one, dt(2)), np.nextafter(one, dt(0)), -0.0, 0,
                      -sub, np.nextafter(dt(2), dt(0)), np.inf, -np.inf, np.nan, 1,
                      np.nan, np.finfo(dt).max, -np.inf], dt)
        d, nan_mis, inf_mis = A.ulp_distance(e, g)
        assert d.tolist() == [1, 1, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0]
        assert nan_mis.tolist() == [False] * 9 + [True, True, False, False]
        assert inf_mis.tolist() == [False] * 11 + [True, True]
    # the largest distance (from -max to +max) does not overflow
    m = np.finfo(np.float64).max
    d, _, _ = A.ulp_distance(np.array([-m]), np.array([m]))
    assert int(d[0]) == 2 * (0x7FEFFFFFFFFFFFFF)


def test_inputs_cover_the_regions_and_the_specials():
    args, tags, labels = A.draw_inputs("log1p", "float32", 1000)
    (x,) = args
    assert x.dtype == np.float32 and len(x) == len(tags) == 1000
    assert labels[0] == "specials" and set(np.unique(tags)) == set(range(len(labels)))
    assert np.isnan(x).any() and np.isinf(x).any() and (x == 0).any()
    assert (A._subnormal(x)).any()
    (x, y), _, _ = A.draw_inputs("power", "float64", 1000)
    assert x.dtype == y.dtype == np.float64 and len(x) == len(y) == 1000


# float64 max ulp against NumPy, elements without subnormals (XLA:CPU flushes them);
# measured at n = 2**20: sqrt 0, exp 2, log 1, sin 0, arctan2 1, and 1 for the functions
# of accurate_math (XLA's own were up to 4e18 (log2), 496 (sinh, cosh), 129 (log1p,
# arctanh), 7 (tanh), 3-4 (expm1, log10, cbrt, arcsinh, arccosh) ulp off)
ACCURATE = ("log2", "log10", "log1p", "expm1", "sinh", "cosh", "tanh", "cbrt", "arcsinh",
            "arccosh", "arctanh")
BOUNDS = {"sqrt": 0, "exp": 2, "log": 1, "sin": 1, "arctan2": 1,
          **{name: 1 for name in ACCURATE}}


def _numpy_is_the_one_off(name, bound):
    """Whether, at every input where npxla is more than `bound` ulp from NumPy, npxla is
    at least as close as NumPy to the function in long double (x86's 64-bit
    significand). The bounds were measured where NumPy runs its AVX-512 loops; elsewhere
    NumPy calls the C library, whose `acosh` is up to 2 ulp off: glibc's
    arccosh(1.0004763642898786) is 0.03086507651676251, npxla's the correctly rounded
    0.030865076516762503."""
    if np.finfo(np.longdouble).nmant < 60:
        return False
    from npxla import jit
    args, _, _ = A.draw_inputs(name, "float64", 4096)
    ufunc = getattr(np, name)
    with np.errstate(all="ignore"):
        want = ufunc(*args)
        got = np.asarray(jit(A.KERNELS[name])(*args))
        d, nan_mis, inf_mis = A.ulp_distance(want, got)
        over = (d > bound) & ~nan_mis & ~inf_mis & ~A._subnormal(want)
        for a in args:
            over &= ~A._subnormal(a)
        ref = ufunc(*(a[over].astype(np.longdouble) for a in args))
        return bool(np.all(np.abs(got[over] - ref) <= np.abs(want[over] - ref)))


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_float64_accuracy_bounds(name):
    r = A.measure(name, "float64", n=4096, chunk=2048)
    s = r.normal
    assert s.count > 3500 and r.all.count == 4096
    assert s.nan_mismatch == 0 and s.inf_mismatch == 0, A.to_markdown([r], 4096)
    assert s.max_ulp <= BOUNDS[name] or _numpy_is_the_one_off(name, BOUNDS[name]), \
        A.to_markdown([r], 4096)
    if name == "sqrt":
        assert s.over0 == 0


@pytest.mark.parametrize("name", [n for n in ACCURATE if n not in (
    "expm1", "log1p", "tanh", "arcsinh", "arccosh", "arctanh")])     # XLA's float32 ops
def test_float32_of_the_accurate_functions_is_correctly_rounded(name):
    """float32 is computed in float64 and rounded: against NumPy's float64 result rounded
    (NumPy's own float32 loops are up to 3 ulp from it), at most 1 ulp (a double
    rounding)."""
    r = A.measure(name, "float32", n=2048, chunk=2048)
    worst, over1 = r.ref["npxla"]
    assert worst <= 1 and over1 == 0, A.to_markdown([r], 2048)
    assert r.normal.nan_mismatch == 0 and r.normal.inf_mismatch == 0


def test_the_report_renders_both_tables():
    results = [A.measure("sqrt", "float32", n=512), A.measure("hypot", "float64", n=512)]
    md = A.to_markdown(results, 512)
    assert md.count("| function | dtype | max ulp |") == 2
    assert "| sqrt | float32 | 0 |" in md
    assert "correctly rounded reference" in md
