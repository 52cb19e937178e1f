"""np.ravel_multi_index / np.unravel_index against NumPy, traced and static, with the
run-time checks of out-of-range coordinates and indices."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from differential import check
from npxla import jit


def ravel(i, j):
    return np.ravel_multi_index((i, j), (3, 4))


def ravel_modes(i, j):
    return np.ravel_multi_index((i, j), (3, 4), mode=("clip", "wrap"), order="F")


def unravel(k):
    return np.unravel_index(k, (3, 4))


def unravel_f(k):
    return np.unravel_index(k, (2, 3, 4), order="F")


def argmin_per_column(errors):
    # numdifftools' _Limit._get_arg_min, in short
    arg_mins = np.nanargmin(errors, axis=0)
    return np.ravel_multi_index((arg_mins, np.arange(errors.shape[1])), errors.shape)


@pytest.mark.parametrize("fn, args", [
    (ravel, (np.array([0, 2]), np.array([1, 3]))),
    (ravel, (np.int64(1), np.int64(2))),
    (ravel, (np.array([[0], [2]], np.int32), np.array([1, 3], np.uint8))),
    (ravel_modes, (np.array([0, 5, -7]), np.array([1, -1, 9]))),
    (unravel, (np.array([[3, 11]]),)),
    (unravel, (np.int64(7),)),
    (unravel_f, (np.array([0, 5, 23]),)),
    (argmin_per_column, (np.arange(15.0)[::-1].reshape(5, 3),)),
])
def test_against_numpy(fn, args):
    check(fn, *args)


@pytest.mark.parametrize("fn, args", [
    (ravel, (np.array([0, 3]), np.array([1, 3]))),
    (ravel, (np.array([0, -1]), np.array([1, 3]))),
    (unravel, (np.array([3, 12]),)),
    (unravel, (np.int64(-1),)),
])
def test_out_of_range_raises_numpys_value_error(fn, args):
    with pytest.raises(ValueError) as expected:
        fn(*args)
    with pytest.raises(ValueError) as got:
        jit(fn)(*args)
    assert str(got.value) == str(expected.value)


def test_float_coordinates_are_refused_like_numpy():
    with pytest.raises(TypeError, match="only int indices permitted"):
        jit(ravel)(np.array([0.0, 1.0]), np.array([1, 2]))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_round_trip_property(dims, data):
    size = int(np.prod(dims))
    flat = np.array(data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=6)))
    order = data.draw(st.sampled_from("CF"))

    def round_trip(k):
        return np.ravel_multi_index(np.unravel_index(k, dims, order=order), dims,
                                    order=order)
    check(round_trip, flat)


def flat_read(a, idx):
    return a.flat[idx] * 2, a.flat[3], a.flat[1:4], a.T.flat[idx]


def flat_write(a, idx):
    a.flat[idx] = -1.0
    a.flat[::5] += 1.0
    return a


def flat_write_through_view(a):
    b = a.T
    b.flat[[0, 1]] = 7.0
    b[1:, :].flat[(b[1:, :] > 5).ravel()] = 0.5
    return a.sum()


def flat_iterated(a):
    s = 0.0
    for v in a[:, 1:].flat:
        s = s * 0.5 + v
    return s


@pytest.mark.parametrize("fn, args", [
    (flat_read, (np.arange(12.0).reshape(3, 4), np.array([5, 0]))),
    (flat_write, (np.arange(12.0).reshape(3, 4), np.array([5, 0]))),
    (flat_write_through_view, (np.arange(12.0).reshape(3, 4),)),
    (flat_iterated, (np.arange(12.0).reshape(3, 4),)),
])
def test_flat_reads_and_writes_through(fn, args):
    check(fn, *args)
