"""Signatures whose program baked in the values of Python number arguments
(`Specialised`: `x.reshape(-1, k)` needs `k` as a constant) take the fast path too, one
runner per values (`jitted.ByValue`), the baked numbers left out of the program's
parameters. They took the general path before: pyentrp's `util_pattern_space(x, 1, 3)`
48 -> 14 µs a call. The tier that may run them as NumPy is off here (tests/conftest.py)."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.driver.jitted import ByValue


def row_sums(x, k):
    return x.reshape(-1, k).sum(axis=1) * 2.0


def pick_row(x, k, i):
    return x.reshape(-1, k)[i]


def windows(x, m, step):
    n = x.shape[0] - (m - 1) * step
    return np.stack([x[j * step:j * step + n] for j in range(m)], axis=1)


def _fresh(fn):
    f = jit(fn)
    f.clear_cache()
    return f


def _table(f):
    (entry,) = f._fast.values()
    assert type(entry[1]) is ByValue
    return entry[1]


def test_each_value_gets_its_runner_and_its_answer():
    f = _fresh(row_sums)
    x = np.arange(12.0)
    for _ in range(3):
        for k in (2, 3, 4, 6):
            np.testing.assert_array_equal(f(x, k), row_sums(x, k))
    table = _table(f)
    assert table.positions == (1,) and len(table.runners) == 4
    info = f.cache_info()
    f(x, 3)
    assert (f.cache_info().hits, f.cache_info().misses) == (info.hits + 1, 4)


def test_a_bool_and_an_int_of_one_value_are_apart():
    f = _fresh(row_sums)
    x = np.arange(6.0)
    np.testing.assert_array_equal(f(x, 1), row_sums(x, 1))
    np.testing.assert_array_equal(f(x, 1), row_sums(x, 1))
    for flag in (True, np.True_):     # NumPy refuses a bool as a length (npxla took it)
        with pytest.raises(TypeError, match="an integer is required"):
            row_sums(x, flag)
        with pytest.raises(TypeError, match="an integer is required"):
            f(x, flag)


@pytest.mark.parametrize("make", [lambda: np.zeros(True), lambda: np.ones((2, True)),
                                  lambda: np.empty(np.True_), lambda: np.full((True,), 1.0),
                                  lambda: np.arange(6.0).reshape(2, np.True_)])
def test_a_bool_is_no_length(make):
    def build(_):
        return make()
    with pytest.raises(TypeError) as want:
        make()
    with pytest.raises(TypeError) as got:
        jit(build)(0.0)
    assert str(got.value).endswith(str(want.value))


def test_a_failed_check_raises_numpys_error_with_the_baked_values_back():
    f = _fresh(pick_row)
    x = np.arange(12.0)
    for i in (0, 2, -1, 1):
        np.testing.assert_array_equal(f(x, 3, i), pick_row(x, 3, i))
    assert type(_table(f)) is ByValue
    with pytest.raises(IndexError):
        f(x, 3, 4)
    with pytest.raises(IndexError):
        pick_row(x, 3, 4)
    np.testing.assert_array_equal(f(x, 3, 3), pick_row(x, 3, 3))


def test_two_baked_numbers_between_arrays():
    f = _fresh(windows)
    x = np.random.default_rng(0).normal(size=50)
    for m, step in ((3, 1), (2, 5), (3, 1), (4, 2), (2, 5)):
        np.testing.assert_array_equal(f(x, m, step), windows(x, m, step))
    assert len(_table(f).runners) == 3
