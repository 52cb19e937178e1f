"""Writes at constant indices that cover most of a large array (`out[1:-1, 1:-1] =
<stencil of out>`) are staged as a select of pads, not an in-place
`dynamic_update_slice` (runtime/lowering/inplace.py): XLA:CPU materialises every slice
of the operand such an update reads. Each case is compared with NumPy (values, the
caller's arrays), straight-line, through a view, written back into an argument and in a
staged loop; the compiled program is checked for the form."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.lowering.inplace import WIDE_MIN_ELEMENTS
from tests.differential import check


def blur(img):
    out = img.copy()
    out[1:-1, 1:-1] = (img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2] + img[1:-1, 2:]
                       + img[1:-1, 1:-1]) / 5.0
    return out


def shift_in_place(c, w):
    c[:, 3:] = c[:, 3:] - c[:, :-3] * w
    return c


def argument_interior(u):
    u[1:-1, 1:-1] += 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] - 2.0 * u[1:-1, 1:-1])


def through_view(a):
    v = a[2:]
    v[:-1] = v[1:] * 2.0          # an overlapping shift through a view of the argument
    return v.sum()


def staged_heat(u, n):
    k = 0
    while k < n[0]:                 # a trip count from data: a staged loop
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1]
                                               + u[1:-1, 2:] + u[1:-1, :-2]
                                               - 4.0 * u[1:-1, 1:-1])
        k += 1
    return u


def integer_columns(m):
    out = np.zeros_like(m)
    out[:, 1:] = m[:, :-1] + m[:, 1:]
    return out


def narrow(a):
    a[0:10] = a[5:15] + 1.0        # a small part: stays an in-place write
    return a


def _grid(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


@pytest.mark.parametrize("shape", [(40, 50), (3, 400), (64, 64)])
def test_stencil_into_a_copy(shape):
    check(blur, _grid(shape))


def test_overlapping_shift_of_an_argument():
    c = np.cumsum(_grid((20, 100)), axis=1)
    check(shift_in_place, c, 0.5)


def test_interior_of_an_argument_written_back():
    check(argument_interior, _grid((50, 60)))


def test_through_a_view():
    check(through_view, _grid(3000))


def test_in_a_staged_loop():
    u = _grid((40, 40))
    u[0], u[-1] = 1.0, -1.0
    check(staged_heat, u, np.array([7]))


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float32, np.complex128])
def test_other_dtypes(dtype):
    m = (np.arange(60 * 40) % 7).reshape(60, 40).astype(dtype)
    check(integer_columns, m)


def test_narrow_writes_stay_in_place():
    check(narrow, _grid(4000))


def test_the_wide_write_is_one_select_and_the_narrow_one_an_update():
    img = _grid((100, 100))
    assert img.size >= WIDE_MIN_ELEMENTS
    lowered = jit(blur).lower(img)
    assert "stablehlo.select" in lowered.as_text() and \
        "dynamic_update_slice" not in lowered.as_text()
    assert "dynamic-update-slice" not in lowered.as_text("hlo")
    assert "dynamic_update_slice" in jit(narrow).lower(_grid(4000)).as_text()


def test_an_argument_written_back_returns_only_the_region():
    f = jit(argument_interior)
    f.clear_cache()
    u = _grid((100, 120))            # 96 KB: regions come back alone from 64 KB
    expected = u.copy()
    argument_interior(expected)
    f(u)
    np.testing.assert_allclose(u, expected, rtol=1e-13)
    (variant,) = [v for vs in f._cache.values() for v in vs]
    plan = variant.entry._plan
    assert plan.writeback == [] and plan.regions == [(0, 0, (1, 1))]
