"""Views of an array that a data-dependent `if` may have replaced by another one
(`if n: x = y`, then `x[:] -= 1`, `v = x[i:]`): each view must read the array the path
chose *as it is now*. A view made of such a handle copied the value it had when the
`if` ended, so every write after the first was lost, in straight-line code and in
staged loops alike (found by the fuzzer, seeds 2001192 and 2001873). Compared with
NumPy: values and the caller's arrays, for both outcomes of the `if`."""
import numpy as np
import pytest

from tests.differential import check


def twice_through_views(x, y, n):
    if n:
        x = y
    v = x[:]
    v -= 1.0
    w = x[1:]
    w *= 3.0
    return x[:] + 0


def whole_then_view(x, y, n):
    if n:
        x = y
    x -= 1.0
    x[:] -= 1.0
    return x[::2] * 1


def view_of_a_view(x, y, n):
    if n:
        x = y
    v = x[1:]
    w = v[::2]
    w -= 1.0
    v[0] *= 2.0
    w += x[0]
    return v.copy(), w.copy()


def staged_while(x, y, n):
    if n:
        x = y
    i = 0
    while i < n + 2:            # data-dependent trip count
        v = x[:]
        v -= 1.0
        i += 1


def traced_slice_in_loop(x, y, n):
    if n:
        x = y
    for i in range(1, x.shape[1]):
        x[i + 1:, i:] -= x[i + 1:, i:i + 1]


def copied_on_one_path(x):
    t = x
    if np.any(x > 0):
        x = x.copy()
    for i in range(1, t.shape[0]):
        x[x < 2] -= t[i - 1]
        x[i:] += t[:-i]
    return x


CASES = [twice_through_views, whole_then_view, view_of_a_view, staged_while, traced_slice_in_loop]


@pytest.mark.parametrize("n", [0, 1])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_views_of_a_switched_array(fn, n):
    rng = np.random.default_rng(3)
    shape = (4, 5) if fn is traced_slice_in_loop else (5,)
    check(fn, rng.normal(size=shape), rng.normal(size=shape), n)


@pytest.mark.parametrize("x", [[-5, 5, -3], [-5, -5, -3, 1]])
def test_array_copied_on_one_path_only(x):
    check(copied_on_one_path, np.array(x))
