"""NumPy's floating-point error state (`np.seterr`) after a call is what running the
function would leave. Staging runs the function's Python, and an attempt that is given
up (a loop whose index turns out to be needed, so it is unrolled and staged again) may
have set the state without reaching the line that restores it: hurst's `compute_Hc`,
run unmodified, left `np.seterr(all='raise')` behind, and every later NumPy call in the
process raised FloatingPointError."""
import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.base.errors import TranspileError


def std_of_windows(x, w):
    err = np.geterr()
    np.seterr(all="raise")
    s = 0.0
    for start in range(0, len(x), w):       # the index is a slice bound: unrolled
        s += np.std(x[start:start + w])
    np.seterr(**err)
    return s


def leaves_it_set(x):
    np.seterr(divide="ignore")              # NumPy keeps this after the call
    return x / 0.0


def refused(x):
    np.seterr(over="raise")
    return len({float(v): 1 for v in x})    # a dict keyed by traced values: refused


@pytest.fixture
def default_state():
    saved = np.geterr()
    np.seterr(divide="warn", over="warn", under="ignore", invalid="warn")
    yield np.geterr()
    np.seterr(**saved)


def test_a_restored_state_stays_restored(default_state):
    x = np.random.default_rng(0).standard_normal(100)
    assert jit(std_of_windows)(x, 10) == std_of_windows(x, 10)
    assert np.geterr() == default_state


def test_a_state_the_function_sets_stays_set(default_state):
    with np.errstate(divide="ignore"):
        expected = leaves_it_set(np.ones(3))
    np.seterr(**default_state)
    np.testing.assert_array_equal(jit(leaves_it_set)(np.ones(3)), expected)
    assert np.geterr() == {**default_state, "divide": "ignore"}


def test_a_refused_function_leaves_the_state_as_it_was(default_state):
    with pytest.raises(TranspileError, match="test_error_state.py:"):
        jit(refused)(np.ones(3))
    assert np.geterr() == default_state
