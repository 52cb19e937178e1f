"""Traced Python ints: int64 on device, but a result Python would not wrap raises
(`OverflowError`, or `ValueError` for a negative Python-int power) instead of wrapping.
Results that stay in range match plain Python; NumPy-typed operands keep NumPy's wrap."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npxla import jit

MIN, MAX = -2 ** 63, 2 ** 63 - 1


def ops(a, b):
    return a + b, a - b, a * b, -a, abs(a), a // b if b else 0


jops = jit(ops)


@settings(max_examples=40, deadline=None)
@given(st.integers(MIN, MAX), st.integers(MIN, MAX))
def test_python_int_arithmetic_matches_python_or_raises(a, b):
    exact = ops(a, b)
    if all(MIN <= v <= MAX for v in exact):
        assert jops(a, b) == exact
    else:
        with pytest.raises(OverflowError, match="left the int64 range"):
            jops(a, b)


@pytest.mark.parametrize("a, b", [(MAX, 1), (MIN, -1), (2 ** 62, 2), (-1, MIN), (MIN, -1),
                                  (3, MAX // 3 + 1), (MAX, -2)])
def test_boundaries_raise(a, b):
    with pytest.raises(OverflowError):
        jops(a, b)


@pytest.mark.parametrize("a, b", [(MAX - 1, 1), (MIN + 1, -1), (2 ** 62, 1), (-1, MAX),
                                  (3, MAX // 3), (MIN // 2, 2), (-(MAX // 2), -2), (0, MAX)])
def test_boundaries_in_range(a, b):
    assert jops(a, b)[:3] == ops(a, b)[:3]


def times_constant(a):
    return a * 3, a * -7, a + 10, a - 10, 5 - a


@pytest.mark.parametrize("a", [MAX // 7, MIN // 7 + 1, 0, -(MAX // 7), MAX - 10, MIN + 10])
def test_constant_operands(a):
    exact = times_constant(a)
    if all(MIN <= v <= MAX for v in exact):
        assert jit(times_constant)(a) == exact
    else:
        with pytest.raises(OverflowError):
            jit(times_constant)(a)


def polynomial_hash(x, seed):
    h = seed
    for _ in range(x.shape[0]):
        h = h * 31 + 7
    return h


def test_hash_loop_raises_where_python_grows():
    f = jit(polynomial_hash)
    assert f(np.zeros(5), 3) == polynomial_hash(np.zeros(5), 3)
    with pytest.raises(OverflowError) as info:
        f(np.zeros(20), 3)
    assert "h = h * 31 + 7" in "".join(getattr(info.value, "__notes__", []))


def doubling(n, limit):
    k = 1
    while k < limit:           # k would wrap to a negative value and loop forever
        k = k * n
    return k


def test_overflow_ends_a_data_dependent_loop():
    f = jit(doubling)
    assert f(2, 1000) == 1024
    with pytest.raises(OverflowError):
        f(2, MAX)


def power(a, b):
    return a ** b


def test_python_int_power():
    f = jit(power)
    assert f(3, 4) == 81 and f(-2, 63) == (-2) ** 63
    with pytest.raises(OverflowError):
        f(2, 63)
    with pytest.raises(ValueError, match="float"):
        f(2, -1)


def counter(x, n):
    i = 0
    while i < n:
        x[i % 3] += i
        i += 1
    return i


def test_counter_loops_keep_working():
    x = np.zeros(3)
    assert jit(counter)(x, 10) == 10 and x.tolist() == [18.0, 12.0, 15.0]


def numpy_typed(a, b):
    return np.int64(a) * b


def test_numpy_typed_operands_still_wrap_like_numpy():
    with np.errstate(over="ignore"):
        expected = numpy_typed(2 ** 62, 4)
    assert jit(numpy_typed)(2 ** 62, 4) == expected


def _triangular(A, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        for j in range(i):
            x[i] += A[i, j] * x[j]
        for k in range(i, 0, -1):
            x[i] -= 1e-3 * A[k, i]
        x[i] = (b[i] - x[i]) / A[i, i]
    return x


def test_loop_indices_of_bounded_ranges_carry_no_overflow_checks():
    """A loop index lies in its range: `range(i)` inside a loop over i has a trip count
    bounded by n, so arithmetic on the index needs no int64 checks (which a staged loop
    would evaluate and carry on every iteration: Cholesky at n = 100, 3.8 -> 1.6 ms)."""
    A = np.random.default_rng(0).uniform(1.0, 2.0, (6, 6))
    b = np.arange(6.0)
    f = jit(_triangular)
    np.testing.assert_allclose(f(A, b), _triangular(A, b), rtol=1e-12)
    text = f.lower(A, b).as_text()
    assert "while" in text and str(np.iinfo(np.int64).max) not in text


def _counted(lo, hi):
    total = 0.0
    for i in range(lo, hi):
        total += i
    for i in range(hi, lo, -1):
        total += 10.0 * i
    return total


@pytest.mark.parametrize("lo, hi", [(0, 5), (5, 2), (-3, 3), (4, 4)])
def test_traced_range_bounds_with_unit_steps(lo, hi):
    assert jit(_counted)(np.int64(lo), np.int64(hi)) == _counted(lo, hi)
    assert jit(_counted)(lo, hi) == _counted(lo, hi)


def iterations(x, tol):
    for it in range(10_000):
        x = x * 0.5
        if np.abs(x).max() < tol:
            break
    return it + 1, x


def _checks(text):
    """Whether the program returns run-time check flags (its last result, `Nxi1`)."""
    results = re.search(r"@main\(.*\) -> \(([^)]*)\) \{", text).group(1)
    return results.rstrip().endswith("xi1>")


def test_a_loop_index_keeps_its_range_after_the_loop():
    """After `for it in range(10_000)` (left by a data-dependent break or not), `it`
    lies in [0, 9999]: `it + 1` needs no run-time overflow check, which kept the
    result off the fast call path (power iteration at 300 x 300: 0.77 -> 0.57 ms per
    call)."""
    x = np.linspace(1.0, 2.0, 50)
    f = jit(iterations)
    for tol in (1e-3, 1e3):
        got, want = f(x, tol), iterations(x, tol)
        assert got[0] == want[0] and np.array_equal(got[1], want[1])
    assert not _checks(f.lower(x, 1e-3).as_text())


def test_a_counter_of_a_while_loop_keeps_its_check():
    """`k = k + 1` in a while loop has no static bound: the check stays."""
    f = jit(doubling)
    assert _checks(f.lower(2, 1000).as_text())
    assert f(3, 100) == doubling(3, 100)
