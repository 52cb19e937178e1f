"""Old elements that a trip's later writes need, read into one buffer before its first
write (`lowering/bundled_reads.py`), against NumPy bit for bit: swaps of elements, rows
and columns, rotations, swaps of an element with itself, and after XLA's optimisation
no copy of the swapped array in the loop (reversing 100,001 elements copied the vector
twice a trip: 2.3 s)."""
import numpy as np
import pytest
from differential import check

from npxla import jit
from npxla.runtime.lowering import bundled_reads
from test_row_lanes import copies_in_loop_bodies

RNG = np.random.default_rng(53)


def reverse(x):
    n = x.shape[0]
    for i in range(n // 2):
        x[i], x[n - 1 - i] = x[n - 1 - i], x[i]
    return x


def transpose(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            t = A[i, j]
            A[i, j] = A[j, i]
            A[j, i] = t
    return A


def swap_pairs(x, a, b):
    for k in range(a.shape[0]):
        i, j = a[k], b[k]
        x[i], x[j] = x[j], x[i]          # i == j for some k
    return x


def rotate_three(x):
    n = x.shape[0]
    for i in range(n - 2):
        x[i], x[i + 1], x[i + 2] = x[i + 1], x[i + 2], x[i]
    return x


def swap_row_pairs(A):
    for i in range(0, A.shape[0] - 1, 2):
        A[i], A[i + 1] = A[i + 1].copy(), A[i].copy()
    return A


def swap_columns(A, order):
    for k in range(order.shape[0]):
        j = order[k]
        t = A[:, k].copy()
        A[:, k] = A[:, j]
        A[:, j] = t
    return A


def carry_forward(x):
    for i in range(x.shape[0] - 1):
        t = x[i]
        x[i] = 0.0
        x[i + 1] += t
    return x


@pytest.mark.parametrize("n", [2, 7, 100, 101])
def test_reverse_matches_numpy(n):
    check(reverse, RNG.standard_normal(n), rtol=0, atol=0)


def test_reverse_of_integers():
    check(reverse, RNG.integers(-9, 9, 31), rtol=0, atol=0)


def test_transpose_matches_numpy():
    check(transpose, RNG.standard_normal((30, 30)), rtol=0, atol=0)


def test_swaps_of_an_element_with_itself():
    a = np.array([0, 3, 3, 9, 1, 5, 5])
    b = np.array([9, 3, 4, 0, 1, 2, 5])
    check(swap_pairs, np.arange(10.0), a, b, rtol=0, atol=0)


def test_rotation_of_three():
    check(rotate_three, RNG.standard_normal(40), rtol=0, atol=0)


def test_row_and_column_swaps():
    check(swap_row_pairs, RNG.standard_normal((40, 40)), rtol=0, atol=0)
    check(swap_columns, RNG.standard_normal((40, 40)), RNG.integers(0, 40, 40),
          rtol=0, atol=0)


def test_a_first_write_that_reads_nothing():
    check(carry_forward, RNG.standard_normal(200), rtol=0, atol=0)


@pytest.mark.parametrize("fn,args,shape", [
    (reverse, lambda: (RNG.standard_normal(1001),), (1001,)),
    (transpose, lambda: (RNG.standard_normal((120, 120)),), (120, 120)),
    (rotate_three, lambda: (RNG.standard_normal(500),), (500,)),
    (swap_row_pairs, lambda: (RNG.standard_normal((200, 200)),), (200, 200)),
    (carry_forward, lambda: (RNG.standard_normal(500),), (500,)),
])
def test_the_loops_write_in_place(fn, args, shape):
    text = jit(fn).lower(*args()).as_text("hlo")
    assert copies_in_loop_bodies(text, shape) == 0


def test_reads_past_the_share_are_left_alone(monkeypatch):
    # the same answer when the rewrite does not apply
    monkeypatch.setattr(bundled_reads, "MAX_SHARE", 0.0)
    check(reverse, RNG.standard_normal(51), rtol=0, atol=0)
