"""Basic indexing and item assignment vs NumPy, static and traced indices."""
import numpy as np
import pytest
from differential import check

from npxla import jit
from npxla.runtime.lowering import unroll

X = np.arange(24.0).reshape(4, 6)


def read_many(x):
    return x[1], x[-1, 2], x[1:3], x[::-1], x[:, ::2], x[1::2, -2::-3], x[None, 0], \
        x[..., 0], x[2, ...], x[:0], x[-3:-1, None, 1:4]


@pytest.mark.parametrize("dt", [np.float64, np.int32, np.bool_, np.complex64, np.uint8])
def test_static_reads(dt):
    check(read_many, X.astype(dt))


def traced_read(x, i, j):
    return x[i], x[i, j], x[i, 1:4], x[:, j]


@pytest.mark.parametrize("i,j", [(0, 0), (3, 5), (-1, -6), (-4, 2)])
def test_traced_reads(i, j):
    check(traced_read, X, i, j)


def test_traced_index_out_of_bounds_raises_index_error():
    f = jit(traced_read)
    f(X, 1, 1)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 4"):
        f(X, 4, 0)
    with pytest.raises(IndexError):
        f(X, -5, 0)
    with pytest.raises(IndexError, match="axis 1 with size 6"):
        f(X, 0, 6)


def test_static_index_out_of_bounds_is_index_error():
    def f(x):
        return x[7]
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        jit(f)(X)


def writes(x, i):
    x[0] = 1.5
    x[1, 2:5] = -1
    x[2, ::2] = 7
    x[::-2, -1] = 3
    x[i, 0] = 42
    x[..., 1] *= 2
    x[i:i + 1] += 1
    x[-1, :] -= x[0, :]
    return x


@pytest.mark.parametrize("i", [0, 3, -2])
def test_writes(i):
    check(writes, X.copy(), i)


def test_write_int_array_truncates_like_numpy():
    def f(x):
        x[0] = 2.7
        x[1:3] = -1.9
        return x
    check(f, np.arange(5))


def view_writes(a):
    v = a[1:]
    v[0] = 5
    w = v[::2]
    w[-1] = -7
    s = a[2]          # a scalar copy: later writes must not change it
    a[2] = 100
    return a, v, w, s


def test_views_write_through_to_base():
    check(view_writes, np.arange(8.0))


def test_alias_sees_updates():
    def f(a):
        b = a
        a[0] = 9
        c = b * 1
        b[1] += 3
        return a, c
    check(f, np.zeros(3))


def test_masked_assignment_lowers_to_select():
    def f(x):
        x[x < 0] = 0
        x[x > 2] *= 2
        return x
    check(f, np.array([-1.0, 3.0, -2.0, 0.5]))


def test_boolean_mask_read_is_an_array_of_run_time_length():
    def f(x):
        return x[x < 0]
    x = np.array([1.0, -2.0, 3.0, -4.0])
    np.testing.assert_array_equal(jit(f)(x), f(x))


def test_boolean_mask_combined_with_other_indices_is_a_located_error():
    from npxla.transpiler.base.errors import DataDependentShapeError

    def f(x):
        return x[x < 0, None]            # a 2-D mask among other indices
    with pytest.raises(DataDependentShapeError) as info:
        jit(f)(np.arange(6.0).reshape(2, 3))
    err = info.value
    assert err.line == f.__code__.co_firstlineno + 1
    assert "np.where" in str(err) and "^" in str(err)
    assert err.file.endswith("test_indexing.py")


def test_mutated_argument_is_written_back():
    def fill(out, x):
        out[:] = x * 2
        out[0] = -1
    out = np.zeros(4)
    res = jit(fill)(out, np.arange(4.0))
    assert res is None
    np.testing.assert_array_equal(out, [-1, 2, 4, 6])


def test_inplace_operator_on_argument_written_back():
    def f(a, b):
        a += b
        np.multiply(a, 2, out=a)
    a = np.ones(3)
    jit(f)(a, np.arange(3.0))
    np.testing.assert_array_equal(a, [2, 4, 6])


def csr_rows(indptr, indices, data, x):
    y = np.zeros(indptr.shape[0] - 1)
    for i in range(indptr.shape[0] - 1):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        y[i] = s
    return y


def _bounds_checks(fn, *args):
    """How many index checks the staged program makes (one compare against the axis
    length each), before its loops are unrolled (each body copy has its own)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(unroll, "UNROLL", ())
        patch.setattr(unroll, "UNROLL_COUNTED", ())
        text = jit(fn).lower(*args).as_text()
    return text.count("stablehlo.compare GE,")


def test_one_index_checked_once_per_region_against_one_length():
    """`data[k]` then `indices[k]` over arrays of one length: one check, which names the
    index as NumPy does (it raises at `data[k]`, the first); `x[indices[k]]` keeps its
    own. Rows past the end raise with the first bad index."""
    indptr = np.array([0, 2, 5, 6])
    indices = np.array([1, 0, 2, 1, 0, 2])
    data = np.arange(6.0) + 1
    x = np.array([0.5, -1.0, 2.0])
    check(csr_rows, indptr, indices, data, x)
    assert _bounds_checks(csr_rows, indptr, indices, data, x) == 2
    bad = np.array([0, 2, 5, 8])          # the last row reads k = 6, 7: out of bounds
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        csr_rows(bad, indices, data, x)
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        jit(csr_rows)(bad, indices, data, x)
    far = np.array([1, 0, 7, 1, 0, 2])    # x[indices[2]]: the second check
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 3"):
        jit(csr_rows)(indptr, far, data, x)
