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


# --- ravel / reshape of a switched array: a view on some paths, a copy on others ------

def ravel_and_write(x, y):
    if np.max(x) < 0:
        y = x.astype(np.int32)
    u = np.ravel(y)
    u[:] = 4
    return u.sum()


def reshape_and_read(x, y):
    if np.max(x) < 0:
        y = x.astype(np.int32)
    u = y.reshape(-1)
    return u * 2, y.sum()


def _args(layout):
    base = np.array([[-11, -3, 2, 2, 3], [-55, -4, 0, -5, 1]], dtype=np.int32)
    y = base[:, 1:] if layout == "view" else np.ascontiguousarray(base[:, 1:])
    return y


@pytest.mark.parametrize("sign", [-1.0, 1.0])
def test_ravel_of_a_switched_contiguous_array_is_a_view_on_every_path(sign):
    # contiguous on both paths: a view of the argument on one (the caller's y is
    # written, as by NumPy), of the new array on the other
    x = sign * np.abs(np.random.default_rng(2).normal(size=(2, 4)))
    check(ravel_and_write, x, _args("contiguous"))


@pytest.mark.parametrize("sign", [-1.0, 1.0])
def test_reading_a_path_dependent_reshape_agrees(sign):
    x = sign * np.abs(np.random.default_rng(2).normal(size=(2, 4)))
    check(reshape_and_read, x, _args("view"))


def test_writing_a_path_dependent_ravel_is_refused():
    # `y[:, 1:]` of the caller: NumPy's ravel copies it on the path that keeps it and
    # is a view of the new array on the other, so the write never reaches the caller;
    # one program cannot be both (the fuzzer's seed 7301221 wrote the caller's y)
    from npxla import TranspileError, jit
    x = np.abs(np.random.default_rng(2).normal(size=(2, 4)))
    y = _args("view")
    before = y.copy()
    with pytest.raises(TranspileError, match="new array on others") as err:
        jit(ravel_and_write)(x, y)
    assert "test_switch_views.py" in str(err.value)
    np.testing.assert_array_equal(y, before)
