"""`ndarray.fill`, indexing with np.where/np.nonzero tuples and index arrays (reads and
writes), and `np.roots`: differential against NumPy (values, dtypes, shapes, the
caller's arrays afterwards), with located refusals where NumPy's answer depends on the
data in a way a compiled program cannot follow."""
import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.base.errors import DataDependentShapeError, TranspileError


def _copy(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _equal(w, r, exact=True):
    if isinstance(w, tuple):
        assert isinstance(r, tuple) and len(w) == len(r)
        for a, b in zip(w, r):
            _equal(a, b, exact)
        return
    if w is None:
        assert r is None
        return
    r = np.asarray(r)
    assert r.dtype == np.asarray(w).dtype and r.shape == np.shape(w)
    if exact:
        np.testing.assert_array_equal(r, w)
    else:
        np.testing.assert_allclose(r, w, rtol=1e-12, atol=1e-12)


def same(fn, *args, exact=True):
    want_args, got_args = _copy(args), _copy(args)
    try:
        want = fn(*want_args)
    except Exception as e:          # noqa: BLE001 - compared below
        with pytest.raises(type(e)):
            jit(fn)(*got_args)
        return
    got = jit(fn)(*got_args)
    _equal(want, got, exact)
    for w, r in zip(want_args, got_args):
        _equal(w, r)


# --- 3. ndarray.fill ------------------------------------------------------------------------
def fill_through_view(x, v):
    y = x[1:]
    z = x
    x.fill(v)
    return y, z.sum()


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.bool_, np.complex128])
@pytest.mark.parametrize("v", [7, 1.7, True, 0])
def test_fill(dtype, v):
    same(fill_through_view, np.arange(5).astype(dtype), v)


def test_fill_with_traced_value_and_view():
    def f(x, w):
        x[:2].fill(w.max())
        return x
    same(f, np.arange(5.0), np.array([3.0, 9.0]))

    def g(x, s):
        x.fill(s)               # a Python float argument (traced)
        return None
    same(g, np.zeros((2, 3)), 2.5)


@pytest.mark.parametrize("v", [300, -1, np.nan, None, np.array([1.0, 2.0]), [1, 2],
                               np.array([4.0])])
def test_fill_errors_are_numpys(v):
    same(lambda x: x.fill(v), np.zeros(3, np.uint8))
    same(lambda x: x.fill(v), np.zeros(3, np.float64))


# --- 4. np.where / np.nonzero tuples and index arrays -------------------------------------
def read_where(r):
    return r[np.where(r != 0)]


def read_nonzero_2d(m):
    return m[np.nonzero(m > 4)], m[np.where(m[:, 0] > 3)]


def write_index(y):
    idx = np.nonzero(y > 0)[0]
    y[idx] = 1.0
    return y[idx], y


def write_tuple(m):
    m[np.nonzero(m > 5)] = -1
    return m


def write_rows(m):
    m[np.where(m[:, 0] > 3)] = np.array([1, 2, 3, 4])
    return m


def write_bounded_value(y):
    idx = np.nonzero(y > 0)[0]
    y[idx] = y[idx] * 10
    return y


def write_negative(y):
    idx = np.nonzero(y > 0)[0]
    y[idx - 1] = 9.0
    return y


def write_out_of_bounds(y):
    idx = np.nonzero(y > 0)[0]
    y[idx + 1] = 9.0
    return y


def write_counted_value(y):
    idx = np.nonzero(y > 0)[0]
    y[idx] = np.array([5.0, 6.0])
    return y


def write_through_view(y):
    z = y[1:]
    z[np.nonzero(z > 1)] = 0.5
    return z


@pytest.mark.parametrize("fn, arg", [
    (read_where, np.array([0.0, 1, 0, 2])),
    (read_where, np.zeros(4)),
    (read_nonzero_2d, np.arange(12.0).reshape(3, 4)),
    (write_index, np.array([0.0, 3, 0, 2])),
    (write_index, np.array([-1.0, -3])),
    (write_tuple, np.arange(12.0).reshape(3, 4)),
    (write_rows, np.arange(12).reshape(3, 4)),
    (write_bounded_value, np.array([0.0, 3, 0, 2])),
    (write_negative, np.array([3.0, 0, 0, 2])),
    (write_out_of_bounds, np.array([3.0, 0, 0, 2])),
    (write_counted_value, np.array([0.0, 3, 0, 2])),
    (write_counted_value, np.array([0.0, 3, 1, 2])),
    (write_through_view, np.array([0.0, 3, 0, 2])),
])
def test_where_nonzero_indexing(fn, arg):
    same(fn, arg)


def test_integers_before_an_index_array_select_from_the_view():
    """`y[0, idx]` is `y[0][idx]` (refused before; EntropyHub's `Counter[n, ix] += 1`)."""
    def f(y):
        idx = np.nonzero(y[0] > 0)[0]
        return y[0, idx]
    same(f, np.arange(6.0).reshape(2, 3))


def test_index_arrays_mixed_with_other_indices_are_refused_located():
    def f(y):
        idx = np.nonzero(y[0] > 0)[0]
        return y[idx, 0]
    with pytest.raises(TranspileError) as info:
        jit(f)(np.arange(6.0).reshape(2, 3))
    assert "return y[idx, 0]" in str(info.value)


# --- 5. np.roots --------------------------------------------------------------------------
def roots(p):
    return np.roots(p)


@pytest.mark.parametrize("p", [
    np.array([1, -3, 2], complex), np.array([1, 2, 3, 4j]), np.array([2.0, 3.0]),
    np.array([2.0, 0.0]), np.array([2, 3]), np.array([2.0]), np.array([0.0]),
    np.array([], complex), np.array([1, -3, 2], np.complex64),
    np.array([1.0, np.nan]), np.ones((2, 2)), np.array([1j, 2, 3, 4, 5, 6, 7]),
])
def test_roots(p):
    same(roots, p, exact=False)


def test_roots_of_real_polynomials_follow_numpys_dtype():
    """Real roots, complex ones, real again: assumed and checked when the program runs
    (numpy_financial's irr)."""
    g = jit(roots)
    g.clear_cache()
    for p in (np.array([1.0, -3.0, 2.0]), np.array([1.0, 0.0, 1.0]),
              np.array([2.0, -1.0, -7.0, 3.0]), np.array([1.0, -3.0, 2.0])):
        _equal(np.sort_complex(np.roots(p)), np.sort_complex(g(p)), exact=False)
        assert g(p).dtype == np.roots(p).dtype


def test_roots_of_real_polynomials_with_a_zero_last_coefficient_refused_at_run_time():
    with pytest.raises(DataDependentShapeError, match="coefficient is 0"):
        jit(roots)(np.array([1.0, -3.0, 0.0]))


@pytest.mark.parametrize("p", [np.array([0, 1, -3, 2], complex),
                               np.array([1, -3, 0], complex), np.array([0.0, 3.0])])
def test_roots_zero_end_coefficients_refused_at_run_time(p):
    g = jit(roots)
    with pytest.raises(DataDependentShapeError, match="coefficient is 0"):
        g(p)
    q = p.copy()
    q[q == 0] = 0.5
    _equal(np.roots(q), g(q), exact=False)
