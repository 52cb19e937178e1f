"""Whether `ravel`/`reshape`/`flatten` give a view or a copy depends on the array's
memory layout: NumPy copies a transposed, Fortran-ordered or strided array where it
views a C-contiguous one, and a write into the result reaches the caller's array only
through a view. Every function writes into what it got and is compared with NumPy:
results, and the caller's array afterwards, for arguments of every layout."""
import numpy as np
import pytest

from npxla import jit

from differential import _compare, check


def ravel_write(a):
    r = a.ravel()
    r[0] = 100.0
    return r.sum()


def reshape_write(a):
    r = a.reshape(-1)
    r[1] = 200.0
    return r.sum()


def reshape_2d_write(a):
    r = a.reshape(a.shape[1], a.shape[0])
    r[0, 0] = 300.0
    return r


def flatten_write(a):
    r = a.flatten()
    r[0] = 400.0
    return r


def transposed_ravel_write(a):
    r = a.T.ravel()
    r[2] = 500.0
    return r


def strided_view_reshape_write(a):
    r = a[:, ::2].reshape(-1)
    r[0] = 600.0
    return r


def row_view_ravel_write(a):
    r = a[1].ravel()
    r[0] = 700.0
    return r


def strided_1d_ravel_write(a):
    y = a.reshape(-1)[::2]
    r = y.ravel()
    r[0] = 800.0
    return r


LAYOUTS = {
    "c": lambda: np.arange(12.0).reshape(3, 4),
    "transposed": lambda: np.arange(12.0).reshape(4, 3).T,
    "fortran": lambda: np.asfortranarray(np.arange(12.0).reshape(3, 4)),
    "strided": lambda: np.arange(24.0).reshape(3, 8)[:, ::2],
}
FUNCTIONS = [ravel_write, reshape_write, reshape_2d_write, flatten_write,
             transposed_ravel_write, strided_view_reshape_write, row_view_ravel_write,
             strided_1d_ravel_write]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_views_and_copies_follow_the_layout(fn, layout):
    run = jit(fn)
    for _ in range(2):          # the second call is served from the cache
        want_arg, got_arg = LAYOUTS[layout](), LAYOUTS[layout]()
        _compare(fn(want_arg), run(got_arg), 0, 0)
        _compare(want_arg, got_arg, 0, 0, "argument after the call")


def test_layouts_do_not_share_a_program():
    """A program compiled for a C-contiguous argument must not serve a transposed one
    of the same shape and dtype (the fast path keys by shape and dtype only)."""
    run = jit(ravel_write)
    for layout in ("c", "transposed", "c", "transposed"):
        want_arg, got_arg = LAYOUTS[layout](), LAYOUTS[layout]()
        assert run(got_arg) == ravel_write(want_arg)
        np.testing.assert_array_equal(got_arg, want_arg)


def contiguous_copies(y):
    u2 = np.ascontiguousarray(y)
    u3 = np.asarray(y, order="C")
    u4 = np.asarray(y, order="F")
    y *= 2
    return u2, u3, u4


@pytest.mark.parametrize("make", [lambda a: a[::-1, ::-1], lambda a: a.T,
                                  lambda a: a[:, ::2], np.asfortranarray, lambda a: a],
                         ids=["reversed", "transposed", "strided", "fortran", "c"])
def test_contiguous_conversions_copy_where_numpy_copies(make):
    """np.ascontiguousarray / asarray(order=...) of an argument in another order are
    copies (fuzz seed 40042: they were views, so `y *= 2` showed through them)."""
    a = np.arange(12.0).reshape(3, 4)
    check(contiguous_copies, make(a.copy()))
