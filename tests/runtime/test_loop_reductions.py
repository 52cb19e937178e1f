"""Counted loops that carry an order-free integer reduction (sums, counts, products,
bit ops) are computed as one `reduce` over all trips
(`runtime/lowering/loop_reductions.py`): the same bits as the loop run by Python and
NumPy, and no `while` left where the loop had nothing else to do. Loops the rewrite
leaves alone (float sums, max and min, partial sums read in the trip, a break, short
loops) are checked against Python too."""
import numpy as np
import pytest

from npxla import jit


def int_sum(x):
    s = 0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def count_positive(x):
    c = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            c += 1
    return c


def count_not_positive(x):
    c = 3
    for i in range(x.shape[0]):
        if x[i] > 0:
            pass
        else:
            c += 2
    return c


def int_max(x):
    m = x[0]
    for i in range(1, x.shape[0]):
        if x[i] > m:
            m = x[i]
    return m


def int_min_builtin(x):
    m = x[0]
    for i in range(x.shape[0]):
        m = min(m, x[i])
    return m


def bits_or_xor(x):
    a = 0
    b = 0
    for i in range(x.shape[0]):
        a |= x[i]
        b ^= x[i] * 3
    return a, b


def wrapping_product(x):
    p = np.int32(1)
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def float_max(x):
    m = x[0]
    for i in range(1, x.shape[0]):
        if x[i] > m:
            m = x[i]
    return m


def float_max_last(x):
    m = -np.inf
    for i in range(x.shape[0]):
        if x[i] >= m:
            m = x[i]
    return m


def float_min_swapped(x):
    m = x[0]
    for i in range(x.shape[0]):
        if m > x[i]:
            m = x[i]
    return m


def float_max_builtin(x):
    m = 0.0
    for i in range(x.shape[0]):
        m = max(m, x[i])
    return m


def triangle_count(a):
    c = 0
    for i in range(a.shape[0]):
        for j in range(i):
            if a[i, j] > a[j, i]:
                c += 1
    return c


def triangle_sum(a):
    out = np.zeros(a.shape[0], dtype=a.dtype)
    for i in range(a.shape[0]):
        s = np.int64(0)
        for j in range(i):
            s += a[i, j]
        out[i] = s
    return out


def sum_and_prefix(x):
    # the running sum is read by the trip: not an order-free reduction
    s = 0
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        s += x[i]
        out[i] = s
    return s, out


def count_until(x):
    # a break may end the loop sooner: left alone
    c = 0
    for i in range(x.shape[0]):
        if x[i] < -900:
            break
        c += 1
    return c


def float_sum(x):
    # order matters: stays a loop
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


def _ints(n, dtype=np.int64, seed=0):
    return np.random.default_rng(seed).integers(-1000, 1000, n).astype(dtype)


def _floats_with_specials(n, seed=0):
    x = np.random.default_rng(seed).standard_normal(n)
    x[::17] = np.nan
    x[5] = -0.0
    x[9] = 0.0
    return x


N = 10_000              # above MIN_TRIPS


CASES = [
    (int_sum, lambda: (_ints(N + 1),), True),
    (int_sum, lambda: (_ints(N, np.int8),), True),          # wraps, as NumPy's int8
    (int_sum, lambda: (_ints(N, np.uint16),), True),
    (int_sum, lambda: (_ints(300),), False),                 # short: stays a loop
    (count_positive, lambda: (_floats_with_specials(N),), True),
    (count_not_positive, lambda: (_floats_with_specials(N),), True),
    (bits_or_xor, lambda: (_ints(N),), True),
    (wrapping_product, lambda: (_ints(N, np.int32) % 7 + 1,), True),
    (int_max, lambda: (_ints(N),), False),                   # max/min: the loop is faster
    (int_min_builtin, lambda: (_ints(N, np.uint32),), False),
    (float_max, lambda: (_floats_with_specials(N),), False),
    (float_max_last, lambda: (np.array([-0.0, -3.0, 0.0, -0.0]),), False),
    (float_min_swapped, lambda: (_floats_with_specials(3000),), False),
    (float_max_builtin, lambda: (np.abs(_floats_with_specials(3000)) * 0.0,), False),
    (triangle_count, lambda: (np.random.default_rng(1).standard_normal((60, 60)),), False),
    (triangle_sum, lambda: (_ints(200 * 200).reshape(200, 200),), False),
    (sum_and_prefix, lambda: (_ints(N),), False),
    (count_until, lambda: (_ints(N),), False),
    (float_sum, lambda: (_floats_with_specials(N),), False),
]


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), (got, want)


@pytest.mark.parametrize("fn, make, loop_gone", CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_loop_reductions_match_python(fn, make, loop_gone):
    args = make()
    with np.errstate(all="ignore"):
        want = fn(*[a.copy() for a in args])
    f = jit(fn, cache=False)
    _same(f(*args), want)
    if loop_gone:
        assert "stablehlo.while" not in f.lower(*args).as_text()


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_triangular_counts_of_every_size(n):
    a = np.random.default_rng(n).standard_normal((n, n))
    _same(jit(triangle_count, cache=False)(a), triangle_count(a))


def test_the_count_s_overflow_check_is_proven_not_dropped():
    """`c += 1` on a Python int checks for overflow; the trips cannot carry the count
    past int64, so the check is proven and the loop is gone. A count starting near the
    limit keeps its loop and raises as before."""
    x = np.ones(N)
    assert "stablehlo.while" not in jit(count_positive, cache=False).lower(x).as_text()


def near_limit(x):
    c = 2 ** 63 - 50
    for i in range(x.shape[0]):
        if x[i] > 0:
            c += 1
    return c


def test_a_count_that_may_overflow_keeps_its_loop_and_error():
    f = jit(near_limit, cache=False)
    x = np.ones(N)
    assert "stablehlo.while" in f.lower(x).as_text()
    x[40:] = -1.0
    assert f(x) == near_limit(x)
    with pytest.raises(Exception, match="int64|overflow|Overflow"):
        f(np.ones(N))



def masked_rows(a):
    # a bound known only at run time (within a known range): trips past it count as 0
    total = np.int64(0)
    for i in range(a.shape[0]):
        s = np.int64(0)
        for j in range(i * 5000):
            s += a[i, j]
        total += s * (i + 1)
    return total


@pytest.mark.parametrize("rows", [1, 2, 3, 5])
def test_a_loop_of_run_time_length_in_a_known_range_is_reduced_under_a_mask(rows):
    a = _ints(rows * 20_000).reshape(rows, 20_000)
    f = jit(masked_rows, cache=False)
    _same(f(a), masked_rows(a))
    # the inner loop (at most (rows - 1) * 5000 trips) is a reduce from MIN_TRIPS on
    text = f.lower(a).as_text()
    if (rows - 1) * 5000 >= 8192:
        assert text.count("stablehlo.while") == 1 and "stablehlo.reduce" in text
    else:
        assert "stablehlo.reduce" not in text
