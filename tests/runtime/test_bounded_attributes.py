"""Attributes, dtype queries and differences of arrays whose length is known only at
run time (`x[x > 0]`): `.itemsize`, `.nbytes`, `.imag`, `np.result_type`, `np.ediff1d`,
`np.diff(prepend=, append=)`, np.stack/vstack/column_stack, np.isin and np.array_equal were refused; NumPy's values and types (`.nbytes` a
Python int, ediff1d in the array's dtype, its `same_kind` TypeError)."""
import numpy as np
import pytest

from npxla import jit


def sizes(v):
    y = v[v > 0]
    z = y.astype(np.float32)
    return y.itemsize, y.nbytes, z.nbytes, z.itemsize, y.size * 2


def parts(v):
    y = v[v > 0]
    w = y * (1 + 2j)
    return y.imag.sum(), w.imag, w.real, y.imag.dtype == np.float64


def kinds(v):
    y = v[v > 0]
    return (np.result_type(y, 1.0) == np.float64, np.result_type(y.astype(np.int8), 1),
            np.result_type(y.astype(np.float32), np.int64))


def in_a_loop(v):
    total = 0
    k = 0
    while k < 3:                          # staged: the sizes are traced inside the loop
        y = v[v > k]
        total += y.nbytes // y.itemsize
        k += 1
    return total


@pytest.mark.parametrize("fn", [sizes, parts, kinds, in_a_loop], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [np.array([1.0, -2.0, 3.0, 2.0, 0.5]), np.array([-1.0, -2.0])])
def test_attributes_of_run_time_length_arrays(fn, v):
    want, got = fn(v), jit(fn)(v)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want, got):
        assert type(g) is type(w) or (isinstance(w, np.ndarray) and g.dtype == w.dtype)
        assert np.array_equal(g, w)


def differences(v):
    y = v[v > 0]
    k = (y * 10).astype(np.int64)
    return (np.ediff1d(y), np.ediff1d(y, to_begin=-1.0, to_end=[7.0, 8.0]),
            np.diff(y, prepend=0.0), np.diff(y, n=2, append=[1.0, 2.0], prepend=y[:1]),
            np.diff(k, prepend=0), np.ediff1d(k, to_begin=3))


@pytest.mark.parametrize("v", [np.array([1.0, -2.0, 3.0, 2.0, 0.5]), np.array([-1.0]),
                               np.array([4.0])])
def test_differences_of_run_time_length_arrays(v):
    want, got = differences(v), jit(differences)(v)
    for w, g in zip(want, got):
        assert g.dtype == w.dtype and np.array_equal(g, w)


def ediff1d_casting(v):
    return np.ediff1d((v[v > 0] * 10).astype(np.int64), to_begin=0.5)


def test_ediff1d_refuses_an_unsafe_cast_as_numpy_does():
    v = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match="same_kind"):
        ediff1d_casting(v)
    with pytest.raises(TypeError, match="same_kind"):
        jit(ediff1d_casting)(v)


def stacks(v):
    y = v[v > 0]
    return (np.stack([y, y * 2]), np.vstack([y, -y]).sum(axis=0),
            np.column_stack([y, y + 1.0, (y * 3).astype(np.int64)]),
            np.stack((y, y), axis=-1).sum(axis=0), np.vstack([y[:2], np.array([1.0, 2.0])]))


@pytest.mark.parametrize("v", [np.array([1.0, -2.0, 3.0, 2.0, 0.5]), np.array([4.0, 5.0])])
def test_stacks_of_run_time_length_arrays(v):
    want, got = stacks(v), jit(stacks)(v)
    for w, g in zip(want, got):
        assert g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w)


def unequal(v):
    return np.stack([v[v > 0], v[v > 1]])


def test_stacking_unequal_lengths_raises_numpys_error():
    v = np.array([1.0, 2.0, 0.5])
    with pytest.raises(ValueError, match="same shape"):
        unequal(v)
    with pytest.raises(ValueError, match="same shape"):
        jit(unequal)(v)
    assert jit(unequal)(np.array([3.0, 2.0])).shape == (2, 2)


def membership(v):
    y = v[v > 0]
    k = (y * 2).astype(np.int64)
    return np.isin(y, [1.0, 2.0]), np.isin(k, np.array([2, 4, 6]), invert=True).sum()


@pytest.mark.parametrize("v", [np.array([1.0, -2.0, 3.0, 2.0, 0.5]), np.array([-1.0])])
def test_isin_of_a_run_time_length_array(v):
    want, got = membership(v), jit(membership)(v)
    for w, g in zip(want, got):
        assert np.asarray(g).dtype == np.asarray(w).dtype and np.array_equal(g, w)


def equalities(v):
    y = v[v > 0]
    w = y.copy()
    w[0] = np.nan
    return (np.array_equal(y, y * 1.0), np.array_equal(y, v[v > 1]),
            np.array_equal(y, np.array([1.0, 3.0, 2.0, 0.5])), np.array_equal(w, w),
            np.array_equal(w, w, equal_nan=True), np.array_equal(y, y.astype(np.int64)),
            np.array_equal(y[1:], y[:-1]))


@pytest.mark.parametrize("v", [np.array([1.0, -2.0, 3.0, 2.0, 0.5]),
                               np.array([2.0, 2.0, 2.0]), np.array([-1.0, 5.0])])
def test_array_equal_of_run_time_length_arrays(v):
    want, got = equalities(v), jit(equalities)(v)
    assert [type(g) for g in got] == [type(w) for w in want] and got == want
