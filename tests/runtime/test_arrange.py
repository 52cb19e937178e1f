"""roll, flip/fliplr/flipud/rot90, tile, repeat, pad, tril/triu, diag/diagonal/trace,
meshgrid, indices, mgrid/ogrid vs NumPy: dtypes, shapes, axes, views, traced arguments."""
import numpy as np
import pytest

from matrix import alternate
from hypothesis import given, settings, strategies as st

from differential import check, random_array
from npxla import jit
from npxla.transpiler.base.errors import (ConcretizationError, DataDependentShapeError,
                                          UnsupportedOperationError)

RNG = np.random.default_rng(7)
DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def data(shape, dt=np.float64):
    return random_array(RNG, shape, dt)


# --- every function over every dtype -------------------------------------------------------

def arrange_all(x):
    return (np.flip(x), np.fliplr(x), np.rot90(x, 3, axes=(2, 0)), np.roll(x, 2),
            np.roll(x, (1, 5), (0, 2)), np.tile(x, (2, 1, 1, 2)), np.repeat(x, 2),
            np.repeat(x, [1, 0, 3], axis=1), np.pad(x, ((1, 0), (0, 2), (2, 1)),
                                                    constant_values=1),
            np.pad(x, (2, 3), mode="edge"), np.tril(x), np.triu(x, 1), x.diagonal(1, 2, 0),
            np.diag(x[0, 0], -1), np.meshgrid(x[0, 0], x[1, :, 0]))


@pytest.mark.parametrize("dt", alternate(DTYPES))
def test_dtypes(dt):
    check(arrange_all, data((2, 3, 4), dt))


def reflections(x):
    return (np.pad(x, (2, 5), mode="reflect"), np.pad(x, (4, 1), mode="symmetric"),
            np.pad(x, (3, 7), mode="wrap"))


@pytest.mark.parametrize("dt", [np.bool_, np.int16, np.uint64, np.float16, np.complex64])
def test_pad_reflections(dt):
    check(reflections, data((3, 4), dt))


def odd_reflection(x):
    return (np.pad(x, (2, 7), mode="reflect", reflect_type="odd"),
            np.pad(x, (5, 1), mode="symmetric", reflect_type="odd"))


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint8, np.float32, np.complex128])
def test_pad_odd_reflection(dt):
    check(odd_reflection, data((3, 4), dt))


def traces(x):
    out = np.zeros((), np.complex128)
    np.trace(x[:, :2], out=out)
    return (np.trace(x), x.trace(1), np.trace(x, -1, dtype=np.float32),
            np.trace(x, axis1=1, axis2=0), out[None], np.trace(x[None], 0, 1, 2))


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint32, np.int64, np.float16,
                                np.float32, np.complex64])
@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_trace_dtypes(dt):
    check(traces, data((4, 3), dt), rtol=1e-2 if dt == np.float16 else 1e-6)


# --- shapes: 0-d, 1-d .. 3-d, empty ------------------------------------------------------

def any_ndim(x):
    return (np.flip(x)[None], np.roll(x, 3)[None], np.tile(x, 2), np.tile(x, (2, 1)),
            np.repeat(x, 2), np.pad(x, 1)[None], np.pad(x, 2, mode="empty")[None].shape,
            np.meshgrid(x, x, indexing="ij"), np.meshgrid(x, sparse=True))


def at_least_1d(x):
    return (np.flipud(x), np.roll(x, -2, 0), np.repeat(x, 2, axis=0),
            np.repeat(x, 3, axis=-1), np.tril(x), np.triu(x, -1),
            np.pad(x, (1, 2), mode="edge"), np.pad(x, 2, mode="symmetric"),
            np.pad(x, 3, mode="wrap"))


def at_least_2d(x):
    return (np.fliplr(x), np.rot90(x), np.rot90(x, 2), np.rot90(x, -3), np.diagonal(x),
            np.diagonal(x, -1), np.diag(x[0] if x.ndim == 3 else x),
            np.trace(x), np.tril(x, 2))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (5,), (3, 4), (2, 3, 4), (0, 3),
                                   (2, 0, 3)])
def test_shapes(shape):
    x = data(shape, np.int32)
    check(any_ndim, x)
    if x.ndim >= 1 and x.size:
        check(at_least_1d, x)
    if x.ndim >= 2:
        check(at_least_2d, x)


def empty_pads(x):
    return (np.pad(x, ((0, 0), (1, 2))), np.pad(x, ((0, 0), (1, 2)), mode="edge"),
            np.pad(x, ((0, 0), (2, 2)), mode="reflect"),
            np.pad(x, ((0, 0), (3, 0)), mode="wrap"))


def empty_mode(x):
    return np.pad(x, 1, mode="empty")


def test_empty_pads():
    check(empty_pads, np.zeros((0, 3), np.float32))
    # NumPy leaves mode="empty" pads uninitialised, so only shape and dtype are NumPy's.
    x = np.zeros((0, 3), np.float32)
    got, want = jit(empty_mode)(x), empty_mode(x)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    with pytest.raises(ValueError, match="can't extend empty axis 0"):
        jit(lambda_pad_edge)(np.zeros((0, 3)))


def lambda_pad_edge(x):
    return np.pad(x, 1, mode="edge")


# --- axes: negative, tuples, repeated ----------------------------------------------------

def axes_forms(x):
    return (np.flip(x, -1), np.flip(x, (0, -1)), np.flip(x, ()), np.roll(x, 1, -2),
            np.roll(x, (2, -3), (-1, 0)), np.roll(x, 1, (0, 1, 0)), np.roll(x, (1, 2, 3)),
            np.roll(x, [4], (1, 2)), np.rot90(x, 1, (-1, -2)), np.repeat(x, 2, axis=-2),
            np.diagonal(x, 1, -1, -3), np.trace(x, 0, -1, -2), np.flip(x, axis=None))


def test_axes():
    check(axes_forms, data((2, 3, 4)))


def bad_flip(x):
    return np.flip(x, 3)


def bad_roll(x):
    return np.roll(x, (1, 2), (0, 1, 0))


def bad_rot(x):
    return np.rot90(x, 1, (0, 0))


def bad_diagonal(x):
    return np.diagonal(x, 0, 1, 1)


def bad_diag(x):
    return np.diag(x)


def bad_fliplr(x):
    return np.fliplr(x[0, 0])


@pytest.mark.parametrize("fn,exc,msg", [
    (bad_flip, np.exceptions.AxisError, "axis 3 is out of bounds"),
    (bad_roll, ValueError, "shape mismatch"),
    (bad_rot, ValueError, "Axes must be different"),
    (bad_diagonal, ValueError, "axis1 and axis2 cannot be the same"),
    (bad_diag, ValueError, "Input must be 1- or 2-d"),
    (bad_fliplr, ValueError, "Input must be >= 2-d"),
])
def test_errors(fn, exc, msg):
    x = data((2, 3, 4))
    with pytest.raises(exc, match=msg):
        fn(x)
    with pytest.raises(exc, match=msg):
        jit(fn)(x)


# --- Python scalars, traced counts ------------------------------------------------------

def python_scalars(x, s, k, f):
    return (np.tile(f, 3), np.repeat(k, 2), np.roll(x, k), np.roll(x, s, 0),
            np.pad(x, 1, constant_values=f), np.pad(x, (1, 2), constant_values=(f, s)),
            np.tril(x, k), np.triu(x, s), np.meshgrid(f, x[0]), np.flip(f))


def test_python_scalars():
    check(python_scalars, data((3, 4)), 2, -1, 2.5)
    check(python_scalars, data((3, 4), np.int16), -7, 5, 1.5)


def traced_shift(x, s, v):
    return (np.roll(x, s), np.roll(x, s, 1), np.roll(x, v, (0, 1)), np.roll(x, (s, 2), (2, 0)),
            np.roll(x, s, (0, 2, 0)), np.tril(x[0], s), np.triu(x[0], s))


@pytest.mark.parametrize("s", [0, 1, -1, 5, -13, 100])
def test_traced_shift(s):
    check(traced_shift, data((2, 3, 4)), np.array(s), np.array([s, -s]))


def traced_pad_values(x, v, w):
    return (np.pad(x, 2, constant_values=v), np.pad(x, ((1, 0), (2, 1)), constant_values=w),
            np.pad(x, 1, constant_values=(v, w[0, 0])))


def test_traced_pad_values():
    check(traced_pad_values, data((3, 4), np.float32), np.float64(7.5),
          np.array([[1.0, 2.0], [3.0, 4.0]]))
    check(traced_pad_values, data((3, 4), np.int8), np.int64(3), np.array([[1, 2], [3, 4]]))


def roll_loop(x, n):
    for i in range(n):
        x = np.roll(x, i, 0)
    return x


def roll_while(x, s):
    k = 0
    while k < 3:
        x = np.roll(x, s + k)
        k += 1
    return x


def test_roll_in_loops():
    check(roll_loop, data((5, 2)), 4)
    check(roll_while, data((5, 2)), np.array(2))


def repeat_counts(x, r):
    return np.repeat(x, r, axis=0)


def repeat_arg(x, n):
    return np.repeat(x, n), np.repeat(x, [n, 1, 2], axis=0), np.tile(x, n)


def test_repeat_counts():
    with pytest.raises(DataDependentShapeError, match="repeat") as info:
        jit(repeat_counts)(data((3,)), np.array([1, 2, 3]))
    assert info.value.hint
    check(repeat_arg, data((3,)), 2)          # Python ints are specialised
    check(repeat_arg, data((3,)), 0)
    with pytest.raises(ValueError, match="negative"):
        jit(repeat_counts)(data((3,)), -1)
    with pytest.raises(ValueError, match="broadcast"):
        jit(repeat_counts)(data((3,)), [1, 2])


def repeat_static(x):
    return (np.repeat(x, np.array([2, 2, 0, 1, 1, 3]), axis=1), np.repeat(x, [3], axis=0),
            np.repeat(x, np.int64(2)), x.repeat([0] * 6, 1), np.repeat(x, 1, axis=0))


def repeat_many_runs(x):
    return (np.repeat(x, np.arange(20) % 3, axis=0), np.repeat(x, np.arange(40) % 4),
            np.repeat(x[:0], []), np.repeat(x, np.zeros(20, np.int64), axis=0))


def test_repeat_static_counts():
    check(repeat_static, data((2, 6), np.complex64))
    check(repeat_many_runs, data((20, 2), np.int8))


def shape_from_array(x, n):
    return np.pad(x, n)


def test_static_arguments_must_be_known():
    with pytest.raises(ConcretizationError):
        jit(shape_from_array)(data((3,)), np.array(2))
    check(shape_from_array, data((3,)), 2)


# --- pad modes: hypothesis over widths ------------------------------------------------------

MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


def pad_mode(x, widths, mode):
    return np.pad(x, widths, mode=mode)


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       data_=st.data(), mode=st.sampled_from(MODES))
def test_pad_widths_property(shape, data_, mode):
    widths = tuple((data_.draw(st.integers(0, 9)), data_.draw(st.integers(0, 9)))
                   for _ in shape)
    x = data(tuple(shape), np.int32)
    expected = np.pad(x, widths, mode=mode)
    got = jit(pad_mode, static_argnums=(1, 2))(x, widths, mode)
    np.testing.assert_array_equal(got, expected)


def pad_forms(x):
    return (np.pad(x, 3), np.pad(x, (1,)), np.pad(x, [[1, 2]]), np.pad(x, ((1,), (2,))),
            np.pad(x, {0: 2, 1: (0, 3)}), np.pad(x, 1, "constant", constant_values=[[1], [2]]),
            np.pad(x, np.array([[0, 1], [2, 0]])))


def test_pad_width_forms():
    check(pad_forms, data((3, 4)))


def pad_bad_mode(x):
    return np.pad(x, 1, mode="foo")


def pad_bad_kw(x):
    return np.pad(x, 1, mode="edge", constant_values=1)


def pad_negative(x):
    return np.pad(x, -1)


def pad_float(x):
    return np.pad(x, 1.5)


def pad_stat(x):
    return np.pad(x, 1, mode="mean")


@pytest.mark.parametrize("fn,exc,msg", [
    (pad_bad_mode, ValueError, "mode 'foo' is not supported"),
    (pad_bad_kw, ValueError, "unsupported keyword arguments for mode 'edge'"),
    (pad_negative, ValueError, "index can't contain negative values"),
    (pad_float, TypeError, "must be of integral type"),
    (pad_stat, TypeError, "not supported in compiled code"),
])
def test_pad_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        jit(fn)(data((3,)))


# --- views ----------------------------------------------------------------------------------

def write_through_flips(x):
    v = np.flip(x, 0)
    v[0, 0] = 100
    r = np.rot90(x)
    r[0, :] = -1
    lr = np.fliplr(x)
    lr[:, 0] += 5
    ud = np.flipud(x)
    ud[-1] *= 2
    return v, r.sum(), x


def test_flip_views_write_through():
    check(write_through_flips, data((3, 4)))


def write_diagonal(x):
    d = np.diagonal(x)
    d[0] = 1.0
    return d


def write_diag(x):
    d = np.diag(x)
    d += 1
    return d


def read_diagonal_after_write(x):
    d = x.diagonal()
    x[1, 1] = 42.0
    return d, np.diag(x, 1)


def test_diagonal_is_read_only_view():
    for fn in (write_diagonal, write_diag):
        with pytest.raises(ValueError, match="read-only"):
            fn(data((3, 3)))
        with pytest.raises(ValueError, match="read-only"):
            jit(fn)(data((3, 3)))
    check(read_diagonal_after_write, data((3, 3)))


def meshgrid_views(x, y):
    xv, yv = np.meshgrid(x, y, sparse=True, copy=False)
    xv[0, 0] = 9.0
    xs, ys = np.meshgrid(x, y, copy=False)
    return xs, ys, x


def test_meshgrid_views():
    check(meshgrid_views, data((3,)), data((2,)))


# --- tril / triu / diag / diagonal details ---------------------------------------------------

def triangles(x, k):
    return (np.tril(x, k), np.triu(x, k), np.tril(x[0], k), np.triu(x, 10), np.tril(x, -10))


@pytest.mark.parametrize("k", [0, 2, -1])
def test_triangles_traced_k(k):
    check(triangles, data((2, 3, 4), np.uint16), np.array(k))


def diagonals(x, v):
    return (np.diag(v), np.diag(v, 2), np.diag(v, -3), np.diag(x, 5), np.diag(x, -5),
            np.diagonal(x, 3), np.diagonal(x, -2), np.diag(x, 1), np.diag(v[:0]),
            np.diag(v[:0], 2), np.diagflat(x), np.diagflat(x[:2, :2], -1), np.diagflat(v, 1))


def test_diag_offsets():
    check(diagonals, data((3, 4), np.float16), data((4,), np.float16))


# --- meshgrid / indices / mgrid / ogrid --------------------------------------------------------

def meshgrids(x, y, z):
    return (np.meshgrid(x, y), np.meshgrid(x, y, z), np.meshgrid(x, y, indexing="ij"),
            np.meshgrid(x, y, z, sparse=True), np.meshgrid(x, [1, 2]), np.meshgrid(x),
            np.meshgrid(x, y[:0]), np.meshgrid(x.reshape(1, 3), y))


@pytest.mark.parametrize("dt", [np.bool_, np.int64, np.uint8, np.float32, np.complex128])
def test_meshgrid(dt):
    check(meshgrids, data((3,), dt), data((4,), dt), data((2,), np.float64))


def bad_indexing(x):
    return np.meshgrid(x, indexing="xx")


def test_meshgrid_indexing_error():
    with pytest.raises(ValueError, match="Valid values for `indexing`"):
        jit(bad_indexing)(data((3,)))


def grids(x):
    return (np.mgrid[0:5, 0:3] + x, np.ogrid[0:1:5j, 0:3], np.mgrid[0:1:4j] * x,
            np.ogrid[-1:1:0.5], np.mgrid[1:2:3j, 0:4:2] * x, np.indices((2, 3)) * x)


def test_grids_in_jitted_code():
    check(grids, 1.5)
    check(grids, data((1, 1)))


def indices_arg(x, n):
    return np.indices((n, 3)) + x, np.indices((n, 2), sparse=True), np.indices((n,), np.int8)


def test_indices_specialised():
    check(indices_arg, 1, 3)


def grid_traced(a, b):
    from npxla.runtime.numpy.arrays.grids import grid_item
    return (grid_item(np.mgrid, slice(a, b, 5j)), grid_item(np.mgrid, (slice(a, b, 3j),
                                                                        slice(0, 4))),
            grid_item(np.ogrid, (slice(0, b, 4j), slice(a, 2.0, 2j))),
            grid_item(np.mgrid, (slice(0, 3),)))


def grid_reference(a, b):
    return (np.mgrid[a:b:5j], np.mgrid[a:b:3j, 0:4], np.ogrid[0:b:4j, a:2.0:2j],
            np.mgrid[0:3, ])


def grid_traced_natively(a, b):
    return (np.mgrid[a:b:5j], np.ogrid[a:b:3j],
            np.mgrid[a:b:1j].astype(np.result_type(a, np.float32)))


def grid_traced_2d(a, b):
    return np.mgrid[a:b:5j, 0:1:2j]


def test_grid_traced_bounds_in_jitted_code():
    check(grid_traced_natively, 0.5, 2.0)
    check(grid_traced_natively, np.float32(-1.0), 3)
    with pytest.raises(UnsupportedOperationError, match="np.mgrid") as info:
        jit(grid_traced_2d)(0.5, 2.0)
    assert "meshgrid" in info.value.hint


def test_grid_item_traced_bounds():
    for a, b in [(0.0, 1.0), (-2.5, 3.0)]:
        expected = grid_reference(a, b)
        got = jit(grid_traced)(a, b)
        for e, g in zip(expected, got):
            if isinstance(e, tuple):
                for ee, gg in zip(e, g):
                    np.testing.assert_allclose(gg, ee)
                    assert gg.dtype == ee.dtype and gg.shape == ee.shape
            else:
                np.testing.assert_allclose(g, e)
                assert g.dtype == e.dtype and g.shape == e.shape
