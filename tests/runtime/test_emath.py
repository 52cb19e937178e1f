"""np.emath (numpy.lib.scimath): complex results exactly where real input leaves the
real domain. The dtype depends on the data, so npxla assumes real results, checks that
when the program runs, and stages again for complex ones; inside a staged loop, where
nothing can be assumed, it refuses, located. Differential against NumPy on inputs inside
and outside each domain, for float64, float32 and integer input."""
import warnings

import numpy as np
import pytest

from differential import check
from npxla import TranspileError, jit

UNARY = ["sqrt", "log", "log10", "log2", "arccos", "arcsin", "arctanh"]
INPUTS = [np.array([0.25, 0.5, 0.75]), np.array([-4.0, 0.5, 0.9]),
          np.array([0.5, -0.25], np.float32), np.array([4, 9], np.int8),
          np.array([-4, 9], np.int16), np.array([2.0, np.nan]), np.array([1 + 1j, -2j])]


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_take_numpy_dtype_on_every_input(name):
    fn = getattr(np.emath, name)

    def f(x):
        return fn(x)
    run = jit(f)
    for x in INPUTS + INPUTS[:2]:        # back to real results after complex ones
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = f(x)
            got = run(x)
        assert got.dtype == want.dtype, (name, x, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12, equal_nan=True)


def powers(x, p):
    return np.emath.power(x, p)


@pytest.mark.parametrize("x, p", [(np.array([2.0, 3.0]), np.array([2, 3])),
                                  (np.array([2.0, 3.0]), np.array([2, -1])),
                                  (np.array([-2.0, 3.0]), 0.5),
                                  (np.array([2, 3]), np.array([2, 3]))])
def test_power(x, p):
    check(powers, x, p)


def sqrt_in_loop(x):
    while x.sum() > 1:
        x = x / 2
        y = np.emath.sqrt(x - 0.1)
    return x, y


def test_inside_a_staged_loop_it_is_refused_located():
    with pytest.raises(TranspileError) as info:
        jit(sqrt_in_loop)(np.array([1.0, 2.0]))
    assert info.value.location is not None and "np.emath.sqrt" in str(info.value)
