"""Advanced indexing vs NumPy: integer arrays (gather/scatter), boolean masks (select),
ufunc.at, np.take/put/*_along_axis/ix_ and the data-dependent refusals."""
import numpy as np
import pytest

from matrix import alternate
from differential import check, random_array
from hypothesis import given, settings, strategies as st

from npxla import jit
from npxla.transpiler.base.errors import DataDependentShapeError

RNG = np.random.default_rng(7)
VALUE_DTYPES = [np.int32, np.float64, np.complex64, np.bool_]
X3 = np.arange(60).reshape(3, 4, 5)


# --- reads -------------------------------------------------------------------------------

def reads_1d(x, i, i2):
    return x[i], x[i2], x[i[::-1]], x[i, None], x[None, i]


def reads_2d(x, i, j):
    return (x[i], x[i, 1], x[:, i], x[i[:, None], j], x[1:, i], x[i, ::-1], x[None, i],
            x[..., i], x[i, None, j[:3]], x[-1, i], x[i[:2], j[:2]])


@pytest.mark.parametrize("dt,it", alternate([(np.int32, np.int32), (np.float64, np.int64),
                                   (np.complex64, np.uint8), (np.bool_, np.int16)],
                                            multi=True))
def test_reads_over_dtypes(dt, it):
    x1 = random_array(RNG, (7,), dt)
    check(reads_1d, x1, np.array([0, 6, 2, 2], it), np.array([[1, 0], [5, 3]], it))
    x2 = random_array(RNG, (4, 6), dt)
    check(reads_2d, x2, np.array([3, 0, 1], it), np.array([5, 0, 2, 1], it))


def reads_3d(x, i, j):
    return (x[:, i, j], x[i, :, j], x[i, 1:3, 0], x[:, 0, i], x[..., i, :], x[i, ..., j],
            x[0, :, i], x[:, i, 2:], x[i[:, None], :, j[None, :]], x[i, j[:1]])


def test_reads_3d_adjacent_and_separated_advanced_axes():
    check(reads_3d, X3, np.array([2, 0, 1]), np.array([1, 3, 0]))


def test_negative_indices_wrap():
    check(reads_2d, np.arange(24.0).reshape(4, 6), np.array([-1, -4, 2]),
          np.array([-6, -1, 0, 3]))


def bool_scalars(x, i):
    return x[True], x[False], x[:, True], x[i, True], x[0, True], x[True, i], x[..., False]


def test_boolean_scalar_indices():
    check(bool_scalars, np.arange(12.0).reshape(3, 4), np.array([2, 0]))


def constant_indices(x):
    m = np.array([True, False, True])
    return (x[[0, 2]], x[[[0], [1]], [1, 2]], x[m], x[m, 1:], x[:, [3, 3, -1]],
            x[np.array([], dtype=np.int64)], x[:, []], x[[True, False, True], [0, 1]])


def test_constant_index_arrays_and_masks():
    check(constant_indices, np.arange(12.0).reshape(3, 4))


def empty_traced(x, i):
    return x[i], x[:, i], x[i, i]


def test_empty_index_arrays():
    check(empty_traced, np.arange(12.0).reshape(3, 4), np.zeros(0, np.int64))
    check(empty_traced, np.zeros((3, 0)), np.zeros((2, 0), np.int32))


def test_fancy_read_is_a_copy():
    def f(x, i):
        y = x[i]
        y[0] = -1.0
        return x, y
    check(f, np.arange(5.0), np.array([1, 1, 3]))


def list_of_traced(x, a, b):
    return x[[a, b]], x[[a, 1], [b, 0]]


def test_list_of_traced_scalars_is_an_index_array():
    check(list_of_traced, np.arange(12.0).reshape(3, 4), 2, -1)


def test_traced_out_of_bounds_raises_index_error():
    f = jit(reads_2d)
    x = np.arange(24.0).reshape(4, 6)
    f(x, np.array([0, 1, 2]), np.array([0, 1, 2, 3]))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 4"):
        f(x, np.array([0, 4, 2]), np.array([0, 1, 2, 3]))
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 6"):
        f(x, np.array([0, 1, 2]), np.array([0, 1, -7, 3]))
    g = jit(reads_1d)
    with pytest.raises(IndexError, match="axis 0 with size 3"):
        g(np.arange(3), np.array([0, 200, 1, 2], np.uint8), np.zeros((2, 2), np.uint8))


def test_static_errors_match_numpy():
    def oob(x):
        return x[[0, 5]]

    def mismatch(x):
        return x[[0, 1], [0, 1, 2]]

    def floats(x):
        return x[np.array([0.0])]

    def bad_mask(x):
        return x[np.array([True, False])]
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        jit(oob)(x)
    with pytest.raises(IndexError, match="could not be broadcast together with shapes"):
        jit(mismatch)(x)
    with pytest.raises(IndexError, match="integer .or boolean. type"):
        jit(floats)(x)
    with pytest.raises(IndexError, match="boolean index did not match"):
        jit(bad_mask)(x)


# --- writes ------------------------------------------------------------------------------

def writes(x, i, j, v):
    x[i] = v[0]
    x[i, j[:3]] = v[:3]
    x[:, j] = v[1]
    x[j[1:3] - 1, 0] = v[:2]
    x[[0, -1], 1:3] = v[2]
    return x


@pytest.mark.parametrize("dt", alternate(VALUE_DTYPES))
def test_writes_over_dtypes(dt):
    x = random_array(RNG, (4, 6), dt)
    v = random_array(RNG, (4,), dt)
    check(writes, x, np.array([2, 0, 3], np.int32), np.array([5, 1, 3, 1]), v)


def assign(x, i, v):
    x[i] = v
    return x


def test_repeated_indices_last_write_wins():
    i = np.array([0, 3, 0, 1, 3, 0])
    check(assign, np.zeros(5), i, np.arange(1.0, 7.0))
    check(assign, np.zeros((5, 2)), i, np.arange(12.0).reshape(6, 2))
    check(assign, np.zeros(5), np.zeros(50, np.int64), np.arange(50.0))


def test_assignment_casts_and_broadcasts_like_numpy():
    check(assign, np.zeros(5, np.int32), np.array([1, 2]), 2.7)
    check(assign, np.zeros((3, 4)), np.array([2, 0]), np.ones((1, 1, 4)))
    check(assign, np.zeros(5, np.float32), np.array([1, 2]), np.array([1.5, -2.5]))
    with pytest.raises(ValueError, match="shape mismatch"):
        jit(assign)(np.zeros(5), np.array([1, 2]), np.ones(3))


def aug(x, i, v):
    x[i] += v
    x[i[:2]] *= 2
    x[i, ...] -= 1
    return x


@pytest.mark.parametrize("dt", [np.int64, np.float32, np.complex128])
def test_augmented_assignment_is_buffered(dt):
    check(aug, np.ones(6, dt), np.array([0, 0, 2, 5, 0]), np.arange(5).astype(dt))


def test_mutated_argument_written_back():
    def f(a, i):
        a[i, 1] = -1
    a = np.zeros((3, 2))
    assert jit(f)(a, np.array([2, 0])) is None
    np.testing.assert_array_equal(a[:, 1], [-1, 0, -1])


def view_then_fancy(a, i):
    v = a[1:]
    v[i] = 9.0
    v[i, 0] += 1.0
    return a


def test_fancy_write_through_a_view_reaches_the_base():
    check(view_then_fancy, np.zeros((4, 3)), np.array([0, 2]))


# --- ufunc.at ---------------------------------------------------------------------------

def at_ops(x, i, v):
    np.add.at(x, i, v)
    np.multiply.at(x, i[:3], 2)
    np.maximum.at(x, i[::-1], v[0])
    return x


@pytest.mark.parametrize("dt", [np.int32, np.uint8, np.float64])
def test_ufunc_at_accumulates_repeated_indices(dt):
    check(at_ops, np.arange(6).astype(dt), np.array([0, 0, 3, 0, 5]),
          np.array([1, 2, 3, 4, 5]).astype(dt))


def at_more(x, i, v):
    np.subtract.at(x, i, v[:, None])
    np.minimum.at(x, (i, 0), -v)
    np.add.at(x, (slice(None), [1, 1]), 1.0)
    np.add.at(x, (0, 1), 10.0)
    return x


def test_ufunc_at_tuple_indices():
    check(at_more, np.ones((4, 2)), np.array([3, 3, 1]), np.array([0.5, 1.0, 2.0]))


def at_bool(x, i):
    np.add.at(x, i, True)
    np.logical_and.at(x, i[:1], False)
    return x


def test_ufunc_at_bool_and_complex():
    check(at_bool, np.zeros(4, bool), np.array([1, 1, 2]))

    def f(x, i):
        np.add.at(x, i, 1j)
        return x
    check(f, np.zeros(3, np.complex64), np.array([2, 2, 0]))


def test_ufunc_at_casts_unsafely_and_checks_shapes():
    def f(x, i):
        np.add.at(x, i, 1.5)
        return x
    check(f, np.zeros(3, np.int64), np.array([0, 2]))

    def g(x, i):
        np.add.at(x, i, np.ones(3))
    with pytest.raises(ValueError):
        jit(g)(np.zeros(3), np.array([0, 1]))


def at_masked(x):
    np.add.at(x, x > 2, 10)
    return x


def test_ufunc_at_with_traced_mask():
    check(at_masked, np.arange(6.0))


# --- boolean masks -------------------------------------------------------------------------

def masks_2d(x, y):
    x[x < 0] = 0
    x[y > 1] *= 2
    x[y[:, 0] > 0] = y[0]
    x[y[:, 0] > 1, 1] = -5
    x[:, y[0] > 0] += 1
    x[y[0, 0] > 0] = x[0] - 1
    return x


@pytest.mark.parametrize("dt", [np.float64, np.int16, np.complex64])
def test_masked_updates_keep_the_shape(dt):
    x = random_array(RNG, (4, 3), dt)
    y = random_array(RNG, (4, 3), np.float64)
    check(masks_2d, x, y)


def test_masks_over_leading_axes_of_3d():
    def f(x, m):
        x[m] = -1
        x[~m, 1:] += np.array([1, 2, 3, 4])
        x[m, 0] *= 3
        x[:, m[0, :]] = 7
        return x
    m = np.array([[True, False, True, False], [False, False, True, True],
                  [True, True, False, False]])
    check(f, X3.copy(), m)


def test_masked_assignment_of_bool_values():
    def f(x, m):
        x[m] = True
        x[~m] ^= True
        return x
    check(f, np.array([True, False, True]), np.array([False, True, False]))


def test_masked_read_is_refused_with_a_location():
    def f(x):
        return x[[0, 1], x[0] > 0]         # a mask with an index array
    with pytest.raises(DataDependentShapeError) as info:
        jit(f)(np.ones((2, 3)))
    assert info.value.line == f.__code__.co_firstlineno + 1


# --- functions -----------------------------------------------------------------------------

def takes(a, i, k):
    return (np.take(a, i), np.take(a, i, axis=0), np.take(a, i[:2], axis=-1),
            np.take(a, [[1, 0]], axis=1), np.take(a, k), a.take(k, axis=1),
            np.take(a, i + 10, mode="wrap"), np.take(a, i - 3, axis=1, mode="clip"),
            a.take(i, mode="clip"), np.take(a, 1))


@pytest.mark.parametrize("dt", [np.float32, np.int64, np.bool_])
def test_take(dt):
    check(takes, random_array(RNG, (3, 4), dt), np.array([2, -1, 0]), 1)


def test_take_out_of_bounds_and_empty_axis():
    f = jit(takes)
    with pytest.raises(IndexError, match="out of bounds"):
        f(np.ones((3, 4)), np.array([2, 5, 0]), 1)

    def g(a, i):
        return np.take(a, i, mode="wrap")
    with pytest.raises(IndexError, match="non-empty take from an empty axes"):
        jit(g)(np.zeros(0), np.array([0]))


def puts(a, i, v):
    np.put(a, i, v)
    np.put(a, [0, 1, 2], v[:1])
    a.put(i + 20, v[::-1], mode="wrap")
    np.put(a, i - 20, -v, mode="clip")
    return a


@pytest.mark.parametrize("dt", [np.float64, np.int8])
def test_put(dt):
    check(puts, np.zeros((3, 4), dt), np.array([5, -1, 5, 7]), np.array([1, 2, 3, 4], dt))


def along(a, i):
    return (np.take_along_axis(a, i, axis=1), np.take_along_axis(a, i[:1] - 1, 0),
            np.take_along_axis(a, i[:, :1], axis=-1), np.take_along_axis(a, i[0], None))


def test_take_along_axis():
    check(along, np.arange(12.0).reshape(3, 4) ** 2, np.array([[3, 0, 1, 1]] * 3))


def put_along(a, i, v):
    np.put_along_axis(a, i, v, axis=1)
    np.put_along_axis(a, i[:1] - 1, -1.0, axis=0)
    np.put_along_axis(a, i[0], 5.0, axis=None)
    return a


def test_put_along_axis():
    check(put_along, np.zeros((3, 4)), np.array([[3, 0, 1, 1]] * 3),
          np.arange(12.0).reshape(3, 4))


def ix(x, i, j):
    x[np.ix_(i, j)] += 1
    return x[np.ix_(i, j)], x[np.ix_([True, False, True], j)], x


def test_ix():
    check(ix, np.arange(12.0).reshape(3, 4), np.array([2, 0]), np.array([1, 3, 3]))


def compress_extract(a):
    m = np.array([True, False, True])
    return (np.compress(m, a, axis=0), np.compress([False, True], a, axis=1),
            np.compress(m, a), np.extract(np.array([[1, 0, 0, 1]] * 3), a))


def test_compress_and_extract_with_constant_conditions():
    check(compress_extract, np.arange(12.0).reshape(3, 4))


def nz(x):
    return np.nonzero(x)


def nz_method(x):
    return x.nonzero()


def flat_nz(x):
    return np.flatnonzero(x)


def arg_where(x):
    return np.argwhere(x > 0)


def uniq(x):
    return np.unique(x)


def extr(x):
    return np.extract(x > 0, x)


def compr(x):
    return np.compress(x > 0, x)


def ix_bool(x):
    return np.ix_(x > 0)


@pytest.mark.parametrize("fn", [nz, nz_method, flat_nz, arg_where, uniq, extr, compr])
def test_data_dependent_functions_give_numpys_arrays(fn):
    check(fn, np.array([0.0, 2.0, -1.0, 2.0, 0.0]))


@pytest.mark.parametrize("fn", [ix_bool])
def test_data_dependent_functions_are_refused(fn):
    with pytest.raises(DataDependentShapeError) as info:
        jit(fn)(np.arange(3.0))
    assert info.value.line == fn.__code__.co_firstlineno + 1
    assert info.value.hint


def test_refused_functions_still_fold_on_constants():
    def f(x):
        return x[np.nonzero(np.array([0, 1, 1]))], np.unique(np.array([3, 1, 3]))
    check(f, np.arange(3.0))


# --- control flow --------------------------------------------------------------------------

def loop_gather(x, table, n):
    total = np.zeros(x.shape[1])
    for k in range(n):
        total += x[table[k]].sum(axis=0)
        x[table[k], 0] += 1.0
    return total, x


def test_fancy_indexing_inside_a_staged_loop():
    table = np.array([[0, 2], [1, 1], [3, 0]])
    check(loop_gather, np.arange(12.0).reshape(4, 3), table, 3)
    with pytest.raises(IndexError):
        jit(loop_gather)(np.arange(12.0).reshape(4, 3), table + 2, 3)


def branch_scatter(x, i, c):
    if c > 0:
        x[i] = 0.0
    else:
        np.add.at(x, i, 1.0)
    return x


def test_fancy_updates_inside_a_staged_branch():
    for c in (1, -1):
        check(branch_scatter, np.arange(5.0), np.array([1, 1, 4]), c)


# --- property: random index tuples ---------------------------------------------------------

def _entry(draw, n):
    kind = draw(st.sampled_from(["slice", "int", "array", "none", "array"]))
    if kind == "slice":
        lo = draw(st.integers(-n, n))
        step = draw(st.sampled_from([1, 2, -1]))
        return slice(lo, None, step), 1
    if kind == "int":
        return draw(st.integers(-n, n - 1)), 1
    if kind == "none":
        return None, 0
    shape = draw(st.sampled_from([(2,), (1, 2), (2, 1)]))
    return np.array(draw(st.lists(st.integers(-n, n - 1), min_size=2, max_size=2))
                    ).reshape(shape), 1


@st.composite
def index_tuples(draw):
    out, axis = [], 0
    for _ in range(draw(st.integers(1, 4))):
        if axis == 3:
            break
        item, used = _entry(draw, X3.shape[axis])
        out.append(item)
        axis += used
    return tuple(out)


@settings(max_examples=15, deadline=None)
@given(index_tuples())
def test_random_mixed_index_reads_and_writes(index):
    arrays = [i for i in index if isinstance(i, np.ndarray)]

    def read_write(x, *arrs):
        it = iter(arrs)
        idx = tuple(next(it) if isinstance(i, np.ndarray) else i for i in index)
        y = x[idx] * 1
        x[idx] = -1
        return y, x
    check(read_write, X3.copy(), *arrays)


TABLE = np.array([10.0, 20.0, 30.0, 40.0])


def table_lookup(i, j):
    from npxla.runtime.operators.items import get_item
    return get_item(TABLE, i), get_item(TABLE, (j,)), get_item(TABLE, slice(1, None))


def test_numpy_table_indexed_with_traced_values():
    check(table_lookup, np.array([[3, 0], [-1, 1]]), 2)


def at_wider_loop(x, i):
    np.logical_or.at(x, i, 1)
    np.add.at(x, i[:1], 2)
    return x


def at_bitwise(x, i):
    np.bitwise_and.at(x, i, np.int64(6))
    np.bitwise_xor.at(x, i, 3)
    return x


def test_ufunc_at_leaves_unindexed_elements_alone_when_the_loop_dtype_differs():
    check(at_wider_loop, np.array([2.5, 0.0, -3.0, 4.0]), np.array([1, 1, 3]))
    check(at_bitwise, np.array([7, 5, 12, 9], np.int8), np.array([1, 1, 3]))


def list_value(x, i, a, b):
    x[i] = [a, b]
    x[:1] = [a]
    return x


def test_list_of_traced_values_assigned():
    check(list_value, np.zeros(4), np.array([1, 3]), 2.0, 3.5)


# --- x[mask] = values with one value per True entry ------------------------------------
def _mask_values(x, v):
    x[x > 0.5] = v
    return x


def _mask_values_add(x, v):
    x[x > 0.5] += v
    return x


def _mask_columns(x, v):
    x[:, x[0] > 0.5] = v
    return x


def _mask_rows(x, v):
    x[x[:, 0] > 0.5] = v
    return x


def _rows_by_mask(data, v):
    out = np.zeros_like(data)
    for k in range(data.shape[0]):
        out[k][data[k] > 0.5] = v[k]
    return out


def _picked(n, size=12, seed=None):
    """An array with exactly n of its entries above 0.5, at mixed places."""
    x = np.full(size, 0.25)
    x[np.random.default_rng(n if seed is None else seed).permutation(size)[:n]] = 0.75
    return x


def _grid(shape, hot, axis):
    """0.25 everywhere, 0.75 at positions `hot` of row 0 (axis 1) or column 0 (axis 0)."""
    x = np.full(shape, 0.25)
    if axis == 0:
        x[hot, 0] = 0.75
    else:
        x[0, hot] = 0.75
    return x


@pytest.mark.parametrize("fn, x, v", [
    (_mask_values, _picked(5), np.arange(5.0)),
    (_mask_values, _picked(5), np.arange(5)),                  # cast int -> float
    (_mask_values, _picked(1), np.arange(1.0)),
    (_mask_values_add, _picked(4), np.arange(4.0)),
    (_mask_columns, _grid((2, 6), [1, 2, 4], 1), np.arange(6.0).reshape(2, 3)),
    (_mask_rows, _grid((6, 2), [0, 2, 5], 0), np.arange(6.0).reshape(3, 2)),
    (_mask_rows, _grid((6, 2), [0, 2, 5], 0), np.arange(3.0).reshape(3, 1)),
])
def test_masked_assignment_of_one_value_per_true_entry(fn, x, v):
    check(fn, x, v)


def test_masked_assignment_of_one_value_per_true_entry_in_a_staged_loop():
    data = np.stack([_picked(5, 30, seed=k) for k in range(20)])
    v = np.arange(100.0).reshape(20, 5)
    check(_rows_by_mask, data, v)
    data[7] = _picked(4, 30)                       # one row selects 4: NumPy raises
    with pytest.raises(ValueError) as want:
        _rows_by_mask(data, v)
    with pytest.raises(ValueError) as got:
        jit(_rows_by_mask)(data, v)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("fn, x, v, message", [
    (_mask_values, _picked(3), np.arange(5.0),
     r"cannot assign 5 input values to the 3 output values where the mask is true"),
    (_mask_values_add, _picked(3), np.arange(5.0),
     r"operands could not be broadcast together with shapes \(3,\) \(5,\) \(3,\)"),
    (_mask_rows, _picked(6).reshape(6, 2), np.arange(8.0).reshape(4, 2),
     r"shape mismatch: value array of shape \(4,2\) could not be broadcast to indexing "
     r"result of shape \(\d,2\)"),
])
def test_masked_assignment_with_the_wrong_count_raises_numpys_error(fn, x, v, message):
    with pytest.raises(ValueError) as want:
        fn(x.copy(), v)
    with pytest.raises(ValueError, match=message) as got:
        jit(fn)(x.copy(), v)
    if fn is not _mask_rows:
        assert str(got.value) == str(want.value)


# --- np.unique(axis=0): distinct rows as a result of run-time length --------------------
def unique_rows(a):
    return np.unique(a, axis=0)


def unique_rows_all(a):
    return np.unique(a, axis=0, return_index=True, return_inverse=True, return_counts=True)


def unique_1d_axis(a):
    return np.unique(a, axis=-1, return_counts=True)


def unique_rows_in_loop(a):
    total = 0.0
    for k in range(20):
        rows = np.unique(np.floor(a * (k % 3 + 1)), axis=0)
        total += rows.sum() + rows.shape[0]
    return total


def unique_columns(a):
    return np.unique(a, axis=1), np.unique(a, axis=-1, return_counts=True)[1]


def unique_any_axis(a):
    return tuple(np.unique(a, axis=k, return_index=True, return_inverse=True,
                           return_counts=True) for k in range(a.ndim))


def unique_slabs_in_loop(a):
    total = 0.0
    for k in range(10):
        slabs = np.unique(np.floor(a * (k % 3 + 1)), axis=1)
        total += slabs.sum() * 0.5 + slabs.shape[1] + slabs[:, -1].sum()
    return total


_RNG3 = np.random.default_rng(3)


_ROWS = np.array([[np.nan, 1.0], [np.nan, 1.0], [0.0, -0.0], [-0.0, 0.0], [1, 2], [0, 1]])


@pytest.mark.parametrize("fn, a", [
    (unique_rows, _ROWS),                   # NaN rows stay apart, -0.0 == 0.0: NumPy's rule
    (unique_rows_all, _ROWS),
    (unique_rows, np.random.default_rng(0).integers(0, 3, (40, 3))),
    (unique_rows_all, np.random.default_rng(1).integers(-2, 2, (50, 2)).astype(np.int8)),
    (unique_rows_all, np.zeros((0, 3))),
    (unique_1d_axis, np.array([3.0, np.nan, 1.0, np.nan, 3.0])),   # 1-d: NaNs collapse
    (unique_rows_in_loop, np.random.default_rng(2).random((30, 2))),
    (unique_columns, _ROWS.T.copy()),
    (unique_any_axis, _RNG3.integers(0, 2, (4, 3, 2))),
    (unique_any_axis, _RNG3.integers(0, 2, (3, 5)).astype(np.float32)),
    (unique_any_axis, np.zeros((2, 0, 3))),
    (unique_any_axis, np.zeros((3, 0))),
    (unique_slabs_in_loop, _RNG3.random((3, 6, 2))),
])
def test_unique_rows_give_numpys_arrays(fn, a):
    check(fn, a)
