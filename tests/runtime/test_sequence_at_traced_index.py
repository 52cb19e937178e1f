"""A Python list or tuple of numbers indexed by a value computed from array data is read
like an array of them (skfuzzy's `defuzz(..., 'bisector')`: `accum_area[index - 1]` with
`index` from np.nonzero): negative indices count from the end, and an index out of range
raises IndexError when the program runs, as Python does. Lists of arrays, or of numbers
of mixed types (a Python int at one index, a float at another), are refused, located."""
import numpy as np
import pytest

from differential import check
from npxla import TranspileError, jit


def lookup(x):
    weights = [0.5, 1.0, 2.0]
    steps = (3, -1, 4)
    return x * weights[x.argmax()], weights[x.argmin() - 3], steps[int(x.argmax())]


def accumulated(x, y):            # skfuzzy's bisector: a list written in a staged loop
    acc = [0.0] * (len(x) - 1)
    total = 0.0
    for i in range(1, len(x)):
        if y[i] != y[i - 1]:
            total += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0
        acc[i - 1] = total
    index = np.nonzero(np.array(acc) >= total / 2.0)[0][0]
    return acc[index - 1] if index > 0 else 0.0


def out_of_range(x):
    return [1.0, 2.0][x.argmax() + 1]


@pytest.mark.parametrize("x", [np.array([2.0, 5.0, 7.0]), np.array([9.0, -1.0, 3.0]),
                               np.array([1.0, 4.0, 1.0])])
def test_numbers_at_a_traced_index(x):
    check(lookup, x)
    check(accumulated, np.linspace(0.0, 4.0, 5), np.abs(x[[0, 1, 2, 1, 0]]))


@pytest.mark.parametrize("x, raises", [(np.array([3.0, 1.0]), False),
                                       (np.array([1.0, 3.0]), True)])
def test_an_index_out_of_range_raises_index_error_when_the_program_runs(x, raises):
    if raises:
        with pytest.raises(IndexError):
            out_of_range(x)
        with pytest.raises(IndexError):
            jit(out_of_range)(x)
    else:
        check(out_of_range, x)


def arrays_at(x):
    return [x, 2.0 * x][x.argmax() % 2]


def mixed_at(x):
    return [1, 2.5][x.argmax() % 2]


@pytest.mark.parametrize("fn", [arrays_at, mixed_at])
def test_lists_that_are_not_numbers_of_one_type_are_refused_located(fn):
    with pytest.raises(TranspileError) as info:
        jit(fn)(np.array([2.0, 5.0, 7.0]))
    assert info.value.location is not None and "indexes a Python list" in str(info.value)


def mixed_in_static_loop(x):
    coef = [1, 2.5, 3]
    s = x[0] * 0
    for i in range(3):
        s = s + coef[i] * x[i]
    return s


def test_a_loop_index_into_mixed_numbers_still_unrolls():
    check(mixed_in_static_loop, np.array([2.0, 5.0, 7.0]))
