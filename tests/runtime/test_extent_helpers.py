"""Differential tests: the helpers legacy programs need beside bounded extents (issue 12,
item 5): `np.ndarray(shape, dtype)` as a creation function, in-place reshape through
`a.shape = ...`, slice bounds from a static loop's index through `or`/ternaries,
`ufunc.outer`, and tuple keys where NumPy's index tricks expect slices."""
import warnings

import numpy as np
import pytest

from matrix import dtype_in, slow_except
from hypothesis import given, settings, strategies as st

from differential import check
from npxla import jit
from npxla.runtime.operators.loop_tokens import NpxlaPerformanceWarning
from npxla.transpiler.base.errors import TranspileError

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


# --- 1. np.ndarray(shape, dtype) --------------------------------------------------------

def ndarray_filled(x):
    a = np.ndarray((3, 2), np.float64)
    a[:] = x[:, None]
    return a


def ndarray_keywords(x):
    a = np.ndarray(shape=(3,), dtype=np.int32, order="C")
    a[...] = 7
    b = np.ndarray(4)
    b[:] = 1.5
    return a, b


def ndarray_traced_loop(x, n):
    a = np.ndarray((n,), dtype=np.int64)
    for i in range(n):
        a[i] = i * 2
    return a


def ndarray_loop_traced_trip(x, n):
    a = np.ndarray(x.shape)
    a[:] = 0.0
    for i in range(n):
        a[i % 3] += x[i % 3]
    return a


def ndarray_static_loop(x):
    a = np.ndarray(x.shape)
    for i in range(x.shape[0]):
        a[i] = x[i] * 2
    return a


def ndarray_branch(x):
    a = np.ndarray((4,))
    if x.sum() > 0:
        a[:] = 1.0
    else:
        a[:] = 2.0
    return a


def ndarray_while(x, n):
    a = np.ndarray((3,))
    a[:] = x
    i = 0
    while i < n:
        a[i % 3] *= 2.0
        i += 1
    return a


@pytest.mark.parametrize("fn, args", [
    (ndarray_filled, (np.arange(3.0),)),
    (ndarray_keywords, (np.arange(3.0),)),
    (ndarray_traced_loop, (np.arange(3.0), 4)),
    (ndarray_loop_traced_trip, (np.arange(3.0), 5)),
    (ndarray_static_loop, (np.arange(3.0),)),
    (ndarray_branch, (np.arange(3.0),)),
    (ndarray_branch, (-np.arange(1.0, 4.0),)),
    (ndarray_while, (np.arange(3.0), 4)),
])
def test_ndarray_is_a_fresh_local_array(fn, args):
    check(fn, *args)


def ndarray_buffer(x):
    return np.ndarray((2,), buffer=np.zeros(2))


def test_ndarray_with_buffer_is_refused():
    with pytest.raises(TranspileError, match="buffer"):
        jit(ndarray_buffer)(np.arange(3.0))


# --- 2. a.shape = ... ------------------------------------------------------------------

def shape_infer(x):
    a = x * 2
    a.shape = (2, -1)
    return a


def shape_int_and_alias(x):
    a = x + 1
    b = a
    a.shape = 6
    b[0] = 7.0
    return b, a.shape, b.shape


def shape_then_write(x):
    a = np.ndarray(6)
    a[:] = 0.0
    a.shape = (3, 2)
    a[0] = x[:2]
    return a


def shape_inside_loop(x):
    out = np.zeros((2, 3))
    for i in range(2):
        b = x[i] * 1
        b.shape = (3, 1)
        out[i] = b[:, 0] + i
    return out


def shape_bad_size(x):
    a = x * 1
    a.shape = (4, -1)
    return a


@pytest.mark.parametrize("fn, x", [
    (shape_infer, np.arange(6.0)),
    (shape_int_and_alias, np.arange(6.0).reshape(2, 3)),
    (shape_then_write, np.arange(6.0)),
    (shape_inside_loop, np.arange(6.0).reshape(2, 3)),
])
def test_shape_assignment_reshapes_in_place(fn, x):
    check(fn, x)


def test_shape_assignment_size_mismatch_is_numpys_error():
    with pytest.raises(ValueError, match="cannot reshape array of size 6"):
        shape_bad_size(np.arange(6.0))
    with pytest.raises(ValueError, match="cannot reshape array of size 6"):
        jit(shape_bad_size)(np.arange(6.0))


def shape_of_view(x):
    a = x[::2]
    a.shape = (1, -1)
    return a


def shape_under_branch(x):
    a = x + 1
    if x.sum() > 0:
        a.shape = (2, 3)
    return a


def shape_of_argument(x):
    x.shape = (2, -1)
    return x


def shape_of_updated_argument(x):
    x += 1
    x.shape = (2, -1)
    return x


class _Box:
    shape = None


def shape_of_object(x, box):
    box.shape = (2, 3)
    return x


@pytest.mark.parametrize("fn, args, words", [
    (shape_of_view, (np.arange(6.0),), "view"),
    (shape_under_branch, (np.arange(6.0),), "branch"),
    (shape_of_argument, (np.arange(6.0),), "argument"),
    (shape_of_updated_argument, (np.arange(6.0),), "argument"),
])
def test_shape_assignment_refusals_are_located(fn, args, words):
    with pytest.raises(TranspileError, match=words) as info:
        jit(fn)(*args)
    assert info.value.hint and info.value.location is not None
    assert "shape = " in str(info.value)


def test_shape_of_a_python_object_is_an_ordinary_attribute():
    box = _Box()
    jit(shape_of_object)(np.arange(6.0), box)
    assert box.shape == (2, 3)


def shape_of_copy_of_argument(x):
    a = x.copy()
    a.shape = (2, -1)
    return a


def shape_after_filling_from_argument(x):
    a = np.ndarray(6)
    a[:] = x
    a.shape = (2, 3)
    return a



@pytest.mark.parametrize("fn", [shape_of_copy_of_argument, shape_after_filling_from_argument])
def test_shape_assignment_on_local_copies_of_arguments(fn):
    check(fn, np.arange(6.0))


def test_other_attribute_stores_are_replayed_side_effects():
    def sets_value(x, box):
        box.value = x
        return x
    box, x = _Box(), np.arange(3.0)
    jit(sets_value)(x, box)
    assert box.value is x


# --- 3. slice bounds from a static loop's index through or / ternaries -----------------

def or_bound_range2(a):
    s = np.zeros((3, 3))
    for kr in range(2):
        s += a[:, kr:-1 + kr or None]
    return s


def or_bound_range3(a):
    s = np.zeros((3, 2))
    for kr in range(3):
        s = s + a[:, kr:-2 + kr or None]
    return s


def ternary_bound(a):
    s = np.zeros((3, 2))
    for kr in range(3):
        s = s + a[:, kr:(kr - 2) if kr < 2 else None]
    return s


def nested_bounds(a):
    s = np.zeros((2, 2))
    for kr in range(2):
        for kc in range(3):
            s = s + a[kr:-1 + kr or None, kc:-2 + kc or None]
    return s


def if_on_index(a):
    s = np.zeros((3, 3))
    for kr in range(2):
        if kr == 0:
            stop = -1
        else:
            stop = None
        s = s + a[:, kr:stop]
    return s


def data_or(x, y):
    out = np.zeros(3)
    for i in range(3):
        out[i] = x[i] or y[i]
    return out, (x.sum() > 100) or y.max()


def data_ternary_in_loop(x):
    acc = 0.0
    for i in range(4):
        acc = acc + (x[i] if x[i] > 1 else -x[i])
    return acc


@pytest.mark.parametrize("fn", [or_bound_range2, or_bound_range3, ternary_bound,
                                nested_bounds, if_on_index])
def test_static_loop_index_bounds_unroll(fn):
    a = np.arange(12.0).reshape(3, 4)
    with pytest.warns(UserWarning, match="unrolled"):
        check(fn, a)


def test_data_dependent_or_and_ternaries_still_stage():
    x = np.array([0.0, 2.0, 0.0, 3.0])
    check(data_or, x[:3], np.array([5.0, 6.0, 7.0]))
    check(data_ternary_in_loop, x)
    assert "stablehlo.while" in jit(data_ternary_in_loop).lower(x).as_text()


def data_bound(a, x):
    return a[:, x[0] or None]


def test_or_on_array_data_as_bound_is_still_refused():
    with pytest.raises(TranspileError):
        jit(data_bound)(np.ones((2, 3)), np.array([1]))


# --- 4. ufunc.outer ----------------------------------------------------------------------

OUTER = [np.add, np.subtract, np.multiply, np.true_divide, np.minimum, np.maximum,
         np.power, np.less, np.greater_equal, np.equal, np.logical_and, np.arctan2,
         np.hypot, np.floor_divide, np.bitwise_and]


def outer_of(ufunc):
    def outer(a, b):
        return ufunc.outer(a, b)
    return outer


@pytest.mark.parametrize("ufunc", slow_except(
    OUTER, lambda u: u in (np.add, np.true_divide, np.maximum, np.power, np.less,
                           np.logical_and, np.floor_divide), ids=lambda u: u.__name__))
@pytest.mark.parametrize("a, b", [
    (np.arange(3.0), np.arange(1, 5)),
    (np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(1, 3, dtype=np.int8)),
    (np.arange(4.0), 2),
    (np.float32([1.5, 2.5]), 2.0),
    (np.arange(3), np.arange(4.0).reshape(2, 2)),
])
def test_ufunc_outer(ufunc, a, b):
    if ufunc is np.bitwise_and and (np.asarray(a).dtype.kind == "f" or
                                    np.asarray(b).dtype.kind == "f" or isinstance(b, float)):
        pytest.skip("no float loop")
    check(outer_of(ufunc), a, b)


def outer_keywords(a, b):
    out = np.zeros((3, 2))
    r = np.add.outer(a, b, out=out)
    return out, r is out, np.multiply.outer(a, b, dtype=np.float32)


def outer_scalars(a):
    return np.add.outer(2, 3), np.less.outer(1.0, a[0]), np.divmod.outer(a, a[:2])


def test_ufunc_outer_keywords_and_scalars():
    check(outer_keywords, np.arange(3.0), np.arange(2.0))
    check(outer_scalars, np.arange(1.0, 4.0))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2), st.integers(0, 2), st.sampled_from([np.int8, np.int64, np.float32,
                                                              np.float64]))
def test_ufunc_outer_shapes_and_dtypes(na, nb, dt):
    a = (np.arange(2 ** na * 2) % 5).reshape((2,) * na + (2,) if na else (2,)).astype(dt)
    b = (np.arange(3 ** nb) % 4).reshape((3,) * nb).astype(np.int16)
    check(outer_of(np.subtract), a, b)


# --- 5. tuple keys where NumPy expects slices --------------------------------------------

def mgrid_traced_bound(x, i):
    return np.mgrid[0:i, 0:3] + x[0]


def mgrid_tuple_of_slices(x, i):
    return np.mgrid[(slice(0, 2), slice(0, i))] + x[0]


def ogrid_traced_bound(x, i):
    return np.ogrid[0:i, 0:3][0] + x[0]


def mgrid_in_static_loop(x, i):
    s = x[0]
    for k in range(1, 3):
        s = s + np.mgrid[0:k, 0:2].sum()
    return s



@pytest.mark.parametrize("fn", [mgrid_traced_bound, mgrid_tuple_of_slices,
                                ogrid_traced_bound, mgrid_in_static_loop])
def test_grid_tuple_keys_with_traced_bounds(fn):
    check(fn, np.arange(3), 2)


def tuple_keys(x, i, j):
    t = (i, j)
    s = (slice(i, None), slice(None, j))
    return (x[t], x[(i, j)], x[tuple([i, slice(None)])], x[s], x[np.s_[i:, :j]],
            x[..., (0, 1)], x[..., (i, j)], x[slice(i, j)], x[(i, j), ::2],
            x[np.index_exp[i:j]], x[((i, j),)])


def tuple_key_writes(x, i, j):
    x[(i, j)] = 5.0
    y = x.copy()
    y[(slice(i, None), j)] += 1
    s = (slice(0, i), slice(j, None))
    x[s] = -1.0
    return y


@pytest.mark.slow     # heavy: CI's slow run covers it (tests/matrix.py)
@given(st.integers(-4, 3), st.integers(-4, 3))
@settings(max_examples=20, deadline=None)
def test_tuple_keys_mixing_traced_ints_and_slices(i, j):
    x = np.arange(24.0).reshape(4, 6)
    check(tuple_keys, x, i, j)
    check(tuple_key_writes, x, i, j)


def slice_with_tuple_bound(x, i, j):
    return x[(i, j):]


def test_tuple_as_slice_bound_is_a_type_error():
    with pytest.raises(TypeError):
        jit(slice_with_tuple_bound)(np.arange(6.0), 1, 2)


def _path_length(x, y):
    seg = np.zeros(x.shape[0])
    for i in range(x.shape[0] - 1):
        seg[i + 1] = np.hypot(x[i + 1] - x[i], y[i + 1] - y[i])
    return seg, seg.sum()


def longer_path_first(x1, y1, x2, y2):
    """A branch after two loops on what they computed, whose paths give arrays of
    different lengths: unrolling the loops cannot decide it (it is array data), so they
    stay loops and the branch is assumed and checked at run time."""
    seg1, total1 = _path_length(x1, y1)
    seg2, total2 = _path_length(x2, y2)
    if total2 > total1:
        seg1, seg2 = seg2, seg1
    return np.cumsum(seg1)[-1] - seg2.max(), seg1.shape[0]


def test_a_branch_after_loops_on_their_results_keeps_them_loops():
    rng = np.random.default_rng(8)
    x1, y1 = np.linspace(0, 1, 40), rng.standard_normal(40)
    x2, y2 = np.linspace(0, 1, 25), rng.standard_normal(25) * 5
    with warnings.catch_warnings():
        warnings.simplefilter("error", NpxlaPerformanceWarning)
        check(longer_path_first, x1, y1, x2, y2)
        check(longer_path_first, x2, y2, x1, y1)
        f = jit(longer_path_first)
        for args in ((x1, y1, x2, y2), (x2, y2, x1, y1), (x1, y1 * 9, x2, y2)):
            got, want = f(*args), longer_path_first(*args)
            assert got[1] == want[1] and np.isclose(got[0], want[0], rtol=1e-13)
