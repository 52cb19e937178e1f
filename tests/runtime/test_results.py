"""Results are plain, writable NumPy arrays that share memory with nothing else, except
a result that is an array argument itself: that is the caller's object, as in NumPy."""
import gc

import numpy as np
import pytest

from npxla.runtime.xla import transfer
from npxla import jit


def three(x):
    y = x * 2.0
    return y, y + 0.0, x


def mutate_and_return(x):
    x[0] = 7.0
    return x * 1.0


@pytest.mark.parametrize("n", [4, transfer._VIEW_MIN_BYTES // 8 * 4], ids=["small", "large"])
def test_results_are_writable_and_independent(n):
    x = np.arange(float(n))
    y, z, same = jit(three)(x)
    assert same is x                  # the argument itself, as NumPy returns it
    for r in (y, z):
        assert type(r) is np.ndarray and r.flags.writeable and r.flags.c_contiguous
        assert not np.shares_memory(r, x)
    assert not np.shares_memory(y, z)
    y[:] = -1.0
    z[1] = 5.0
    np.testing.assert_array_equal(x, np.arange(float(n)))
    assert z[0] == 0.0 and z[1] == 5.0


def test_large_result_outlives_the_call_and_its_buffer():
    x = np.linspace(0.0, 1.0, transfer._VIEW_MIN_BYTES)
    r = jit(mutate_and_return)(x.copy())
    gc.collect()
    expected = mutate_and_return(x.copy())
    np.testing.assert_array_equal(r, expected)
    r += 1.0
    np.testing.assert_array_equal(r, expected + 1.0)


def test_repeated_calls_give_distinct_arrays():
    x = np.ones(transfer._VIEW_MIN_BYTES)
    f = jit(lambda a: a * 3.0)
    first, second = f(x), f(x)
    first[0] = 0.0
    assert second[0] == 3.0


def update_and_return(A, u):
    A += np.outer(u, u)
    return A


def swap(a, b):
    return b, a, a


def returned_0d(x):
    x += 1
    return x


def maybe_the_argument(x, c):
    if c > 0:                     # data-dependent: the argument on one path only
        return x
    return x * 2.0


@pytest.mark.parametrize("n", [3, 700])
def test_a_returned_argument_is_the_callers_array(n):
    A, u = np.ones((n, n)), np.arange(float(n))
    f = jit(update_and_return)
    for _ in range(2):                # the first call, then the cached program
        want = update_and_return(A.copy(), u)
        got = f(A, u)
        assert got is A
        np.testing.assert_array_equal(A, want)
    got[0, 0] = -5.0                  # writes through the result reach the caller's array
    assert A[0, 0] == -5.0


def test_returned_arguments_keep_their_identity_and_order():
    a, b = np.zeros(3), np.ones(3)
    r = jit(swap)(a, b)
    assert r[0] is b and r[1] is a and r[2] is a
    r = jit(swap)(a, a)               # one array passed twice
    assert all(x is a for x in r)
    x = np.array(2.0)
    assert jit(returned_0d)(x) is x and x == 3.0


def test_an_argument_returned_on_one_path_is_still_a_copy():
    """Documented in docs/semantics.md: a switched result is a new array."""
    x = np.arange(3.0)
    r = jit(maybe_the_argument)(x, np.int64(1))
    np.testing.assert_array_equal(r, x)
    r2 = jit(maybe_the_argument)(x, np.int64(-1))
    np.testing.assert_array_equal(r2, x * 2.0)


def test_device_output_still_returns_device_arrays():
    A, u = np.ones((3, 3)), np.arange(3.0)
    got = jit(update_and_return, output="device")(A, u)
    assert not isinstance(got, np.ndarray)
    np.testing.assert_array_equal(np.asarray(got), A)


def doubled(x):
    return x * 2.0


@pytest.mark.parametrize("n", [4, transfer._VIEW_MIN_BYTES // 8 * 4], ids=["small", "large"])
def test_fast_path_results_are_fresh_arrays_call_after_call(n):
    """The fast path's one-array result (a copy decided at its first call for small
    outputs, a view that owns XLA's buffer for large ones) is a new writable array on
    every call, never one an earlier call returned."""
    f = jit(doubled)
    x = np.arange(float(n))
    results = [f(x) for _ in range(4)]
    assert f._fast                          # the later calls took the fast path
    for r in results:
        assert type(r) is np.ndarray and r.flags.writeable and r.shape == (n,)
        np.testing.assert_array_equal(r, 2.0 * x)
    results[1][0] = -1.0
    assert results[2][0] == 0.0 and results[3][0] == 0.0 and f(x)[0] == 0.0
    assert not any(np.shares_memory(a, b) for i, a in enumerate(results)
                   for b in results[i + 1:])
    assert type(jit(np.sum)(x)) is np.float64
