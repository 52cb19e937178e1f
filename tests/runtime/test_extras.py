"""Differential tests for runtime/numpy/arrays/extras.py: select, nan_to_num, append, the split
family, dstack, rollaxis, tri, vander, digitize, trapezoid, isin, insert, delete,
piecewise."""
import numpy as np
import pytest

from differential import check, random_array
from npxla import jit
from npxla.transpiler.base.errors import ConcretizationError

RNG = np.random.default_rng(0)
DTYPES = [np.bool_, np.int8, np.int64, np.uint32, np.float16, np.float32, np.float64,
          np.complex128]
NUM = [np.int32, np.uint8, np.float32, np.float64]


def tol(dt):
    return 1e-3 if np.dtype(dt) in (np.float16,) else (
        1e-5 if np.dtype(dt) in (np.float32, np.complex64) else 1e-7)


# --- select / piecewise ------------------------------------------------------------------

def f_select(x, y):
    return np.select([x > 1, x < -1], [x, y], default=7)


def f_select_scalar_choice(x):
    return np.select([x > 0, x < -2], [x * 2, 3.5])


@pytest.mark.parametrize("dt", [np.int8, np.int64, np.float32, np.complex128])
def test_select(dt):
    x = random_array(RNG, (3, 4), dt)
    check(f_select, x, random_array(RNG, (4,), np.float32))
    check(f_select_scalar_choice, random_array(RNG, (5,), dt) if dt != np.complex128
          else random_array(RNG, (5,), np.float64))


def f_select_bad(x):
    return np.select([x], [x])


def test_select_errors():
    with pytest.raises(TypeError, match="invalid entry 0 in condlist"):
        jit(f_select_bad)(np.arange(3.0))


def f_piecewise(x):
    return np.piecewise(x, [x < 0, x > 2], [lambda v: -v, lambda v: v * v, 0.5])


def f_piecewise_one(x, k):
    return np.piecewise(x, x > k, [lambda v: v + 1, lambda v: v - 1])


@pytest.mark.parametrize("dt", [np.int32, np.float64])
def test_piecewise(dt):
    check(f_piecewise, random_array(RNG, (7,), dt))
    check(f_piecewise_one, random_array(RNG, (6,), dt), 0.5)
    check(f_piecewise, random_array(RNG, (2, 3), dt))


# --- nan_to_num ---------------------------------------------------------------------------

SPECIAL = np.array([np.nan, np.inf, -np.inf, 1.5, -2.0, 0.0])


def f_nan_to_num(x):
    return np.nan_to_num(x)


def f_nan_to_num_fill(x, v):
    return np.nan_to_num(x, nan=v, posinf=1e3, neginf=-9.0)


def f_nan_to_num_inplace(x):
    y = np.nan_to_num(x, copy=False)
    return y + 1


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.complex64,
                                np.complex128, np.int16, np.bool_])
def test_nan_to_num(dt):
    x = SPECIAL.astype(dt) if np.dtype(dt).kind in "fc" else random_array(RNG, (6,), dt)
    if np.dtype(dt).kind == "c":
        x = x.copy()
        x.imag = SPECIAL[::-1]
    check(f_nan_to_num, x)
    check(f_nan_to_num, x[0])
    if np.dtype(dt).kind != "b":
        check(f_nan_to_num_fill, x, -3.0)
    check(f_nan_to_num_inplace, x)


# --- append / dstack / rollaxis -----------------------------------------------------------

def f_append_flat(x, y):
    return np.append(x, y)


def f_append_axis(x, y):
    return np.append(x, y, axis=1)


def f_append_scalar(x, s):
    return np.append(x, s)


@pytest.mark.parametrize("dt", [np.int8, np.float32, np.complex128])
def test_append(dt):
    x, y = random_array(RNG, (2, 3), dt), random_array(RNG, (2, 2), np.float64)
    check(f_append_flat, x, y)
    check(f_append_axis, x, y)
    check(f_append_scalar, x, 3)
    check(f_append_flat, x[0], np.zeros(0, dt))


def f_dstack(x, y):
    return np.dstack((x, y))


def f_dstack3(x, y, z):
    return np.dstack([x, y, z])


def test_dstack():
    check(f_dstack, np.arange(3.0), np.arange(3))
    check(f_dstack, np.ones((2, 3), np.int8), np.zeros((2, 3), np.uint8))
    check(f_dstack3, np.ones((2, 3, 1)), np.ones((2, 3, 2)), np.ones((2, 3)))


def f_rollaxis(x):
    return np.rollaxis(x, 2), np.rollaxis(x, 0, 3), np.rollaxis(x, -1, 1), \
        np.rollaxis(x, 1, 2)


def test_rollaxis():
    check(f_rollaxis, RNG.normal(size=(2, 3, 4)))


# --- split family -------------------------------------------------------------------------

def f_splits(x):
    return (np.split(x, 2), np.split(x, [1, 3], axis=1), np.array_split(x, 3, axis=1),
            np.array_split(x, [-1, 10, 2]), np.hsplit(x, 2), np.vsplit(x, [1]))


def f_dsplit(x):
    return np.dsplit(x, 2), np.hsplit(x, [1])


def f_split_1d(x):
    parts = np.array_split(x, 4)
    return parts[0] + parts[1].sum()


@pytest.mark.parametrize("dt", [np.bool_, np.int64, np.float32])
def test_split(dt):
    check(f_splits, random_array(RNG, (4, 6), dt))
    check(f_dsplit, random_array(RNG, (2, 3, 4), dt))
    check(f_split_1d, random_array(RNG, (11,), dt))


def f_split_uneven(x):
    return np.split(x, 4)


def test_split_errors():
    with pytest.raises(ValueError, match="equal division"):
        jit(f_split_uneven)(np.arange(6.0))


# --- tri / vander -------------------------------------------------------------------------

def f_tri(k):
    return np.tri(3, 5, k), np.tri(4, k=k, dtype=np.int32)


def f_tri_const():
    return np.tri(3, 4, -1, dtype=bool)


def test_tri():
    for k in (0, 2, -1):
        check(f_tri, k)
    check(f_tri_const)


def f_vander(x):
    return np.vander(x), np.vander(x, 3, increasing=True), np.vander(x, 0), \
        np.vander(x, 1)


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint64, np.float32, np.float64,
                                np.complex64])
def test_vander(dt):
    check(f_vander, random_array(RNG, (4,), dt), rtol=tol(dt))


def f_polyfit(x, y):
    return np.polyfit(x, y, 2)


def f_polyfit_w(x, y, w):
    return np.polyfit(x, y, 1, w=w)


@pytest.mark.parametrize("dt", [np.int64, np.float32, np.float64])
def test_polyfit(dt):
    x = np.linspace(-2, 3, 9).astype(dt) if dt != np.int64 else np.arange(-4, 5)
    y = (3 * x * x - x + 0.5 + 0.1 * RNG.normal(size=9)).astype(np.float64)
    check(f_polyfit, x, y, rtol=1e-6, atol=1e-9)
    check(f_polyfit, x, np.stack([y, 2 * y], 1), rtol=1e-6, atol=1e-9)
    check(f_polyfit_w, x, y, RNG.random(9) + 0.5, rtol=1e-6, atol=1e-9)


# --- digitize / isin ----------------------------------------------------------------------

def f_digitize(x):
    return (np.digitize(x, np.array([-1.0, 0.0, 1.0])),
            np.digitize(x, np.array([1, 0, -1]), right=True),
            np.digitize(x, [-2.5, 0.5], right=True))


def f_digitize_traced(x, bins):
    return np.digitize(x, bins), np.digitize(x, bins, right=True)


@pytest.mark.parametrize("dt", [np.int16, np.float32, np.float64])
def test_digitize(dt):
    x = random_array(RNG, (3, 4), dt)
    check(f_digitize, x)
    check(f_digitize, x[0, 0])
    x[0, :3] = [-1, 0, 1]
    check(f_digitize_traced, x, np.array([-1.0, 0.0, 1.0, 3.0]))
    check(f_digitize_traced, x, np.array([3, 1, 0, -1]))


def f_isin(x, t):
    return np.isin(x, t), np.isin(x, t, invert=True), np.isin(x, t, assume_unique=True)


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint16, np.int64, np.float32,
                                np.complex128])
def test_isin(dt):
    x = random_array(RNG, (3, 5), dt)
    check(f_isin, x, random_array(RNG, (4,), dt))
    check(f_isin, x, random_array(RNG, (2, 2), np.int64))
    check(f_isin, x, np.zeros(0, dt))
    check(f_isin, x[0], [1, 2])


def test_isin_nan():
    check(f_isin, np.array([np.nan, 1.0, 2.0]), np.array([np.nan, 2.0]))


# --- trapezoid ----------------------------------------------------------------------------

def f_trap(y):
    return np.trapezoid(y), np.trapezoid(y, dx=0.5, axis=0)


def f_trap_x(y, x):
    return np.trapezoid(y, x), np.trapezoid(y, x=x, axis=-1)


def f_trap_x2(y, x):
    return np.trapezoid(y, x, axis=0)


@pytest.mark.parametrize("dt", [np.int32, np.float32, np.float64, np.complex128])
def test_trapezoid(dt):
    y = random_array(RNG, (3, 5), dt)
    check(f_trap, y, rtol=tol(dt))
    check(f_trap_x, y, np.sort(RNG.normal(size=5)), rtol=tol(dt))
    check(f_trap_x2, y, RNG.normal(size=(3, 5)), rtol=tol(dt))


def test_trapezoid_short():
    check(f_trap, np.ones((1, 1)))


# --- insert / delete ----------------------------------------------------------------------

def f_delete(x):
    return (np.delete(x, 1), np.delete(x, [0, 2], axis=1), np.delete(x, slice(0, 3, 2), 0),
            np.delete(x, -1, axis=1), np.delete(x, np.array([True, False, True]), 0))


def f_insert(x, v):
    return (np.insert(x, 1, v), np.insert(x, 1, v, axis=1), np.insert(x, [0, 2], v, axis=0),
            np.insert(x, 3, [v, v, v], axis=1), np.insert(x, slice(0, 2), 9, axis=0),
            np.insert(x, -1, 2.7, axis=0))


@pytest.mark.parametrize("dt", [np.bool_, np.int16, np.uint8, np.float32, np.complex64])
def test_insert_delete(dt):
    x = random_array(RNG, (3, 3), dt)
    check(f_delete, x)
    check(f_insert, x, random_array(RNG, (), dt)[()])
    check(f_insert, x, 5)


def f_insert_traced_obj(x, i):
    return np.insert(x, i, 0)


def test_insert_traced_index_refused():
    with pytest.raises(ConcretizationError):
        jit(f_insert_traced_obj)(np.arange(3.0), np.int64(1))


# --- inside a loop ------------------------------------------------------------------------

def f_loop(x):
    acc = np.zeros(3)
    for i in range(3):
        a, b = np.split(np.append(x, x[i]), 2)
        acc = acc + np.nan_to_num(a / b[:3])
    return acc


def test_in_loop():
    check(f_loop, np.array([0.0, 1.0, 2.0, 3.0, 0.0]))


# --- Python scalars, empty arrays ---------------------------------------------------------

def f_scalars(x, s, t):
    return (np.select([x > s], [x], default=t), np.nan_to_num(s), np.append(x, [s, t]),
            np.isin(x, [s, t]), np.digitize(s, [0.0, 1.0]),
            np.trapezoid(x, dx=t))


def test_python_scalars():
    check(f_scalars, np.array([0.5, 1.5, -2.0], np.float32), 1.0, 3)
    check(f_scalars, np.array([1, 5, 3], np.int8), 2, 4.5)


def f_empty(x):
    return (np.array_split(x, 3), np.append(x, x), np.isin(x, [1.0]), np.vander(x),
            np.trapezoid(x), np.delete(x, []), np.insert(x, 0, 1.0), np.nan_to_num(x))


def test_empty():
    check(f_empty, np.zeros(0))
