"""`np.r_[...]` / `np.c_[...]` of traced values (runtime/numpy/indexing/index_tricks.py): the
concatenation NumPy's `__getitem__` builds, compared with NumPy (values, dtypes, shapes)."""
import numpy as np
import pytest

from npxla import jit

from differential import _compare


def unpack_r(abc, x):
    a, b, c = np.r_[abc]                       # scikit-fuzzy's trimf
    return a + b * c


def scalars_r(x):
    return np.r_[x.min(), x.max(), 3.0]


def columns_c(x):
    return np.c_[x, x * 2, np.ones((3, 2))]


def mixed_r(x, i):
    return np.r_[x[:2], i, x]


def static_slice_r(x):
    return x[np.r_[0:2, 3]]


def fmin_of_r(a, b):
    return np.max(np.fmin(np.r_[a], np.r_[b]))   # scikit-fuzzy's inner_product


@pytest.mark.parametrize("fn, args", [
    (unpack_r, (np.array([1.0, 2.0, 3.0]), np.arange(4.0))),
    (scalars_r, (np.arange(4.0),)),
    (scalars_r, (np.arange(4, dtype=np.float32),)),
    (columns_c, (np.arange(3.0),)),
    (mixed_r, (np.arange(4, dtype=np.int32), 7)),
    (static_slice_r, (np.arange(5.0),)),
    (fmin_of_r, (np.arange(4.0), np.arange(4.0)[::-1])),
])
def test_index_tricks_match_numpy(fn, args):
    _compare(fn(*args), jit(fn)(*args), 0, 0)


def repeated_list(x, n):
    rows = [[1.0] * (n + 1)]                      # findiff: list repetition by an int argument
    rows.append([x[j] for j in range(n + 1)])
    return np.array(rows)


def step_sizes(base, n):
    for i in range(n):
        yield base * 0.5 ** i


def sum_over_generator(x):
    return sum(x * h for h in step_sizes(0.1, 3))   # numdifftools: a generator helper


@pytest.mark.parametrize("fn, args", [
    (repeated_list, (np.arange(4.0), 2)),
    (sum_over_generator, (np.arange(3.0),)),
])
def test_python_idioms_of_packages(fn, args):
    _compare(fn(*args), jit(fn)(*args), 1e-15, 0)
