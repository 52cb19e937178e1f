"""`ravel`/`reshape`/`ascontiguousarray` are views or copies by NumPy's rules, which
depend on the layout NumPy gave the array. New arrays NumPy makes in order 'K' (ufunc
results, `np.copy`, `astype`, `np.array`, `*_like`) are laid out like their inputs:
`(y.T * 2).ravel()` is a copy, so a write through it does not reach the product. npxla
took every new array as C-contiguous, made a view, and the write reached it: a silent
difference. After a data-dependent `if` whose branches give differently laid out arrays
(`y = np.ones((4, 4)).T` on one path), a view-or-copy that differs between the paths is
refused with a located error; where they agree it is NumPy's choice. Compared with
NumPy: values and the caller's arrays, for both outcomes of the `if`."""
import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.base.errors import TranspileError
from tests.differential import check


def written_ravel(w, at=0):
    """Write through `w.ravel()`: it reaches `w` only where NumPy made a view."""
    z = w.ravel()
    z[at] = 5.0
    return z, w


def written_reshape(w, at):
    z = w.reshape(-1)
    z[at] = -1.0
    return z, w


def ufunc_of_transpose(y):
    return written_ravel(y.T * 2.0)


def unary_of_transpose(y):
    return written_reshape(np.exp(y.T), 0)


def mixed_operands(y):
    # F with a broadcast column: NumPy's iterator decides
    return written_reshape(y.T + y[:, :1], 1)


def copy_keeps_order(y):
    return written_ravel(np.copy(y.T))


def method_copy_is_c(y):
    return written_ravel(y.T.copy())


def zeros_like_transpose(y):
    return written_reshape(np.zeros_like(y.T), 2)


def astype_keeps_order(y):
    return written_ravel(y.T.astype(np.float32))


def array_keeps_order(y):
    return written_ravel(np.array(y[:, ::-1].T), at=3)


def contiguous_copy(y):
    w = np.ascontiguousarray(y.T * 1.0)
    w[0, 0] = 7.0
    return w


def double_transpose_is_c(y):
    return written_ravel((y.T * 2.0).T)      # F.T is C again: ravel is a view


def folded_constant_order(y):
    w = np.ones((4, 4)).T * 2.0        # NumPy computes it while staging: F-ordered
    z = w.ravel()
    z[0] = 5.0
    return z + y.ravel(), w


def argument_in_f_order(y):
    return written_ravel(y * 2.0)


KEEPS = [ufunc_of_transpose, unary_of_transpose, mixed_operands, copy_keeps_order,
         method_copy_is_c, zeros_like_transpose, astype_keeps_order, array_keeps_order,
         contiguous_copy, double_transpose_is_c, folded_constant_order]


@pytest.mark.parametrize("fn", KEEPS, ids=lambda f: f.__name__)
def test_k_order_results_view_or_copy_as_numpy(fn):
    check(fn, np.arange(16.0).reshape(4, 4))


def test_fortran_argument():
    check(argument_in_f_order, np.asfortranarray(np.arange(12.0).reshape(3, 4)))


# --- after a data-dependent `if` ----------------------------------------------------------

def same_layout_both_paths(y, t):
    if t.sum() > 0:
        w = np.ones((4, 4)).T * 3.0
    else:
        w = y.T * 2.0
    return written_ravel(w)


def c_on_both_paths(y, t):
    if t.sum() > 0:
        w = y * 3.0
    else:
        w = np.zeros((4, 4))
    return written_ravel(w)


def read_only_after_disagreeing_paths(y, t):
    if t.sum() > 0:
        y = np.ones((4, 4)).T
    return y.ravel() * 2.0, np.ascontiguousarray(y)


@pytest.mark.parametrize("fn", [same_layout_both_paths, c_on_both_paths,
                                read_only_after_disagreeing_paths],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("t", [1.0, -1.0])
def test_paths_that_agree_or_only_read(fn, t):
    check(fn, np.arange(16.0).reshape(4, 4), np.array([t]))


def rebound_to_transpose(y, t):
    if t.sum() > 0:
        y = np.ones((4, 4)).T
    return written_ravel(y)


def rebound_both_paths(y, t):
    if t.sum() > 0:
        y = np.ones((4, 4)).T
    else:
        y = np.zeros((4, 4))
    return written_ravel(y)


def view_of_rebound(y, t):
    if t.sum() > 0:
        y = np.ones((4, 4)).T
    return written_ravel(y[:2])


def product_in_branch(y, t):
    w = np.ones((4, 4))
    if t[0] > 0:
        w = w.T * 2.0
    return written_ravel(w)


@pytest.mark.parametrize("fn", [rebound_to_transpose, rebound_both_paths, view_of_rebound,
                                product_in_branch], ids=lambda f: f.__name__)
def test_write_through_a_path_dependent_view_is_refused(fn):
    y = np.arange(16.0).reshape(4, 4)
    with pytest.raises(TranspileError) as info:
        jit(fn)(y, np.array([1.0]))
    assert "test_layout_orders.py:" in str(info.value) and "z[at] = 5.0" in str(info.value)


# --- staged loops: a carried array's layout may change from trip to trip ----------------

def alternating_in_while(y, t):
    w = np.ones((4, 4))
    k = 0
    while k < t[0]:
        w = w.T * 2.0            # F after odd trip counts, C after even ones
        k += 1
    return written_ravel(w)


def steady_f_order(y, n):
    w = y.T * 1.0
    for k in range(n[0]):
        w = w + 1.0              # stays F: reshape copies on every trip count
    return written_reshape(w, 0)


def read_only_alternating(y, n):
    w = y * 1.0
    for k in range(n[0]):
        w = (w * 2.0).T
    return w.ravel() + 1.0


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("fn", [steady_f_order, read_only_alternating],
                         ids=lambda f: f.__name__)
def test_loop_layouts_as_numpy(fn, n):
    check(fn, np.arange(16.0).reshape(4, 4), np.array([n]))


def test_write_through_a_trip_dependent_view_is_refused():
    with pytest.raises(TranspileError) as info:
        jit(alternating_in_while)(np.zeros((4, 4)), np.array([3]))
    assert "z[at] = 5.0" in str(info.value)


def where_of_transposes(y):
    return written_ravel(np.where(y.T > 3.0, y.T, 0.0))


def round_of_transpose(y):
    return written_ravel(np.round(y.T * 0.3, 1))


def clip_of_transpose(y):
    return written_ravel(np.clip(y.T, 2.0, 9.0))


@pytest.mark.parametrize("fn", [where_of_transposes, round_of_transpose, clip_of_transpose],
                         ids=lambda f: f.__name__)
def test_other_k_order_functions(fn):
    check(fn, np.arange(16.0).reshape(4, 4))
