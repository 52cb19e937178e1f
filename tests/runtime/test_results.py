"""Results are plain, writable NumPy arrays that share memory with nothing else."""
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
    for r in (y, z, same):
        assert type(r) is np.ndarray and r.flags.writeable and r.flags.c_contiguous
        assert not np.shares_memory(r, x)
    assert not np.shares_memory(y, z)
    y[:] = -1.0
    z[1] = 5.0
    same[2] = 9.0
    np.testing.assert_array_equal(x, np.arange(float(n)))
    assert z[0] == 0.0 and z[1] == 5.0 and same[2] == 9.0


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
