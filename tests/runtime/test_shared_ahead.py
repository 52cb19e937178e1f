"""Values that several carried arrays' updates share, computed a trip ahead and carried
(`lowering/shared_ahead.py`), against NumPy bit for bit: bisection to several
tolerances (no trip, one, many), NaN in the data, three arrays from one value, a shared
value handed on itself, values that depend on the counter, a `break`, escape counts over a
complex grid (the absolute value counts as expensive), and loops left
alone (cheap shared work, small arrays); after XLA's optimisation the bisection loop
computes its sine once a trip and copies neither array."""
import re

import numpy as np
import pytest
from differential import check

from benchmarks.kernels import load_example
from npxla import jit
from npxla.runtime.lowering import loop_tests, shared_ahead
from test_row_lanes import copies_in_loop_bodies

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(46)
N = 2 * shared_ahead.MIN_ELEMENTS + 5

bisection = load_example("bisection").EXAMPLE.fn.__wrapped__


def three_from_one(x, y, z, steps):
    for _ in range(steps):
        # (a square root and a division: expensive, and correctly rounded on every host,
        # where np.exp is NumPy's C library's, up to 1 ulp from npxla's on hosts without
        # NumPy's AVX-512 loops)
        s = 1.0 / np.sqrt(1.0 + (x - y) ** 2)
        x = x + 0.1 * s
        y = y - 0.1 * s
        z = z * s
    return x, y, z


def handed_on(lo, hi, steps):
    mid = 0.5 * (lo + hi)
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        up = np.sqrt(mid) > 1.5
        lo = np.where(up, lo, mid)
        hi = np.where(up, mid, hi)
    return lo, hi, mid


def with_the_counter(a, b, steps):
    for t in range(steps):
        w = np.sqrt(a * a + t)          # (correctly rounded: see three_from_one)
        a = a - 0.01 * w
        b = b + w / (t + 1)
    return a, b


def stops_early(lo, hi, limit):
    trips = 0
    while True:
        mid = 0.5 * (lo + hi)
        hit = np.cos(mid) > 0.0
        lo = np.where(hit, mid, lo)
        hi = np.where(hit, hi, mid)
        trips += 1
        if trips >= limit or np.max(hi - lo) < 1e-9:
            break
    return lo, hi, trips


def escape_counts(c, steps):
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int64)
    for _ in range(steps):
        alive = np.abs(z) <= 2.0                 # a complex abs: a scaled root
        z = np.where(alive, z * z + c, z)
        counts[alive] += 1
    return z, counts


def cheap_shared(x, y, steps):
    for _ in range(steps):
        d = x - y
        x = x - 0.5 * d
        y = y + 0.25 * d
    return x, y


@pytest.mark.parametrize("tol", [10.0, 0.5, 1e-3, 1e-12])
@pytest.mark.parametrize("n", [7, N])
def test_bisection_matches_numpy(tol, n):
    check(bisection, RNG.uniform(0.0, 2 * np.pi, n), 0.7, tol, rtol=0, atol=0)


def test_bisection_with_nan_and_infinity():
    M = RNG.uniform(0.0, 2 * np.pi, N)
    M[[3, 50]] = np.nan
    check(bisection, M, 0.7, 1e-6, rtol=0, atol=0)


@pytest.mark.parametrize("steps", [0, 1, 9])
def test_three_arrays_from_one_value(steps):
    x, y, z = (RNG.standard_normal(N) for _ in range(3))
    check(three_from_one, x, y, z, steps, rtol=0, atol=0)


@pytest.mark.parametrize("steps", [0, 1, 12])
def test_a_shared_value_handed_on(steps):
    check(handed_on, np.zeros(N), np.full(N, 9.0) + RNG.random(N), steps, rtol=0, atol=0)


def test_values_that_depend_on_the_counter():
    check(with_the_counter, RNG.random(N), RNG.random(N), 7, rtol=0, atol=0)


@pytest.mark.parametrize("limit", [1, 3, 100])
def test_a_loop_that_breaks(limit):
    check(stops_early, np.zeros(N), np.full(N, 3.0), limit, rtol=0, atol=0)


@pytest.mark.parametrize("steps", [0, 1, 30])
def test_escape_counts_with_a_complex_abs(steps):
    side = int(np.sqrt(N)) + 1
    c = (RNG.uniform(-2.0, 0.6, (side, side)) + 1j * RNG.uniform(-1.2, 1.2, (side, side)))
    c[0, 0] = complex(np.nan, 0.0)
    c[1, 1] = complex(np.inf, 1.0)
    check(escape_counts, c, steps, rtol=0, atol=0)
    text = jit(escape_counts).lower(c, steps).as_text()
    # the mask is carried: the loop's state holds a boolean array of the grid's shape
    state = re.search(r"stablehlo.while\(.*\) : (.*)", text).group(1)
    assert f"tensor<{side}x{side}xi1>" in state


def test_cheap_shared_work_and_small_arrays_stay_as_written():
    x, y = RNG.standard_normal(N), RNG.standard_normal(N)
    check(cheap_shared, x, y, 5, rtol=0, atol=0)
    text = jit(cheap_shared).lower(x, y, 5).as_text()
    assert text.count(f"tensor<{N}xf64>, tensor<{N}xf64>, tensor<{N}xf64>") == 0
    small = RNG.uniform(0.0, 6.0, 100)
    check(bisection, small, 0.7, 1e-9, rtol=0, atol=0)


def test_bisection_computes_one_sine_a_trip_and_copies_nothing():
    # (an exit test over fewer elements stays in the body, where XLA fuses it with the
    # updates and copies the arrays for it: `loop_tests`)
    M = RNG.uniform(0.0, 2 * np.pi, loop_tests._MIN_ELEMENTS + 3)
    text = jit(bisection).lower(M, 0.7, 1e-12).as_text("hlo")
    assert copies_in_loop_bodies(text, M.shape) == 0
    body = re.search(r"body=(%[\w.\-]+)", text).group(1)
    computations = {c.split(" ", 1)[0]: c for c in re.split(r"\n(?=\S)", text)}
    called = re.findall(r"calls=(%[\w.\-]+)", computations[body])
    assert sum(computations[c].count(" sine(") for c in called) == 1
