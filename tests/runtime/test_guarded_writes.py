"""Writes under a data-dependent `if` in a loop, staged as guarded writes of every trip
(`lowering/branch_writes.py`; the
converter merges the simplest ones itself: `test_branch_writes.py`), against NumPy bit for bit: the array ends each trip as
the `if` would have left it, a branch that was not taken raises and warns nothing (an
index out of range, a division by zero), one that was taken still raises, and after
XLA's optimisation the loops hold no copy of the array they write (a row normalisation
copied the whole matrix per row, a bubble sort the whole vector per compare)."""
import warnings

import numpy as np
import pytest
from differential import check

from npxla import jit
from test_row_lanes import copies_in_loop_bodies

RNG = np.random.default_rng(52)


def normalise_rows(A):
    for i in range(A.shape[0]):
        s = A[i].sum()
        if s != 0:
            A[i] /= s
    return A


def bubble_sort(x):
    n = x.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if x[j] > x[j + 1]:
                t = x[j]
                x[j] = x[j + 1]
                x[j + 1] = t
    return x


def swap_rows(A, perm):
    for k in range(perm.shape[0]):
        p = perm[k]
        if p != k:
            tmp = A[k].copy()
            A[k] = A[p]
            A[p] = tmp
    return A


def either_end(x, out):
    n = x.shape[0]
    for i in range(n):
        if x[i] > 0:
            out[i] = x[i]
        else:
            out[n - 1 - i] = -x[i]
    return out


def clip_and_count(x):
    count = 0
    for i in range(x.shape[0]):
        if x[i] < 0:
            x[i] = 0.0
            count += 1
    return x, count


def nested(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0:
            if x[i] > 1:
                out[i] = 2.0
            else:
                out[i] = 1.0
    return out


def guarded_index(x, idx, flags):
    for k in range(idx.shape[0]):
        if flags[k]:
            x[idx[k]] = x[idx[k]] + 1.0
    return x


def guarded_divide(num, den, out):
    for i in range(num.shape[0]):
        if den[i] != 0:
            out[i] = num[i] // den[i]
    return out


def clamp(x, lo, hi):
    for i in range(x.shape[0]):
        if x[i] < lo:
            x[i] = lo
        elif x[i] > hi:
            x[i] = hi
    return x


def heapify(h):
    n = h.shape[0]
    for start in range(n // 2 - 1, -1, -1):
        i = start
        while True:                      # the trip runs under `if not broken`
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and h[c + 1] > h[c]:
                c += 1
            if h[c] <= h[i]:
                break
            h[i], h[c] = h[c], h[i]
            i = c
    return h


def union_find(parent, edges):
    for e in range(edges.shape[0]):
        a, b = edges[e, 0], edges[e, 1]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[a] = b
    return parent


def test_normalise_rows_matches_numpy():
    A = RNG.random((40, 40))
    A[3] = 0.0
    A[17, :20] = 1.0
    A[17, 20:] = -1.0                    # sums to zero: left alone
    check(normalise_rows, A, rtol=0, atol=0)


def test_normalise_rows_warns_nothing_for_zero_rows():
    A = RNG.random((40, 40))
    A[5] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = jit(normalise_rows)(A.copy())
    np.testing.assert_array_equal(got, normalise_rows(A.copy()))


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_bubble_sort_matches_numpy(dtype):
    x = (RNG.standard_normal(60) * 100).astype(dtype)
    check(bubble_sort, x, rtol=0, atol=0)


def test_bubble_sort_with_nans_and_ties():
    x = np.array([3.0, np.nan, 1.0, 1.0, -2.0, np.nan, 0.0, 5.0, -0.0] * 5)
    check(bubble_sort, x, rtol=0, atol=0)


def test_swap_rows_matches_numpy():
    A = RNG.standard_normal((50, 50))
    perm = RNG.permutation(50)
    perm[::7] = np.arange(50)[::7]       # some rows stay
    check(swap_rows, A, perm, rtol=0, atol=0)


def test_writes_of_both_branches_meet_in_the_middle():
    x = RNG.standard_normal(41)
    check(either_end, x, np.zeros(41), rtol=0, atol=0)
    check(either_end, np.full(41, -1.0), np.zeros(41), rtol=0, atol=0)


def test_a_counter_beside_the_write():
    x = RNG.standard_normal(300)
    check(clip_and_count, x, rtol=0, atol=0)


def test_nested_branches():
    x = RNG.standard_normal(200) * 2
    check(nested, x, np.zeros(200), rtol=0, atol=0)


def test_an_index_out_of_range_in_a_branch_not_taken_raises_nothing():
    x = RNG.standard_normal(64)
    idx = np.array([0, 5, 900, 63, -64, -900, 7])
    flags = np.array([True, True, False, True, True, False, True])
    check(guarded_index, x, idx, flags, rtol=0, atol=0)


def test_an_index_out_of_range_in_a_branch_taken_raises():
    x = RNG.standard_normal(64)
    idx = np.array([0, 5, 900, 63])
    flags = np.array([True, True, True, True])
    with pytest.raises(IndexError):
        guarded_index(x.copy(), idx, flags)
    before = x.copy()
    with pytest.raises(IndexError):
        jit(guarded_index)(x, idx, flags)
    np.testing.assert_array_equal(x[[1, 2, 3, 4]], before[[1, 2, 3, 4]])


def test_an_integer_division_by_zero_not_taken_warns_nothing():
    num = RNG.integers(-100, 100, 80)
    den = RNG.integers(-3, 4, 80)
    den[::5] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = jit(guarded_divide)(num, den, np.zeros(80, dtype=np.int64))
    np.testing.assert_array_equal(got, guarded_divide(num, den, np.zeros(80, np.int64)))


def test_clamp_heap_and_union_find_match_numpy():
    check(clamp, RNG.standard_normal(300), -0.5, 0.5, rtol=0, atol=0)
    check(heapify, RNG.standard_normal(500), rtol=0, atol=0)
    check(heapify, RNG.integers(0, 9, 301), rtol=0, atol=0)
    check(union_find, np.arange(400), RNG.integers(0, 400, (300, 2)), rtol=0, atol=0)


@pytest.mark.parametrize("fn,args,shape", [
    (clamp, lambda: (RNG.standard_normal(3000), -0.5, 0.5), (3000,)),
    (heapify, lambda: (RNG.standard_normal(3000),), (3000,)),
    (union_find, lambda: (np.arange(3000), RNG.integers(0, 3000, (200, 2))), (3000,)),
    (normalise_rows, lambda: (RNG.random((120, 120)),), (120, 120)),
    (bubble_sort, lambda: (RNG.standard_normal(100),), (100,)),
    (swap_rows, lambda: (RNG.standard_normal((120, 120)), RNG.permutation(120)), (120, 120)),
    (either_end, lambda: (RNG.standard_normal(100), np.zeros(100)), (100,)),
])
def test_the_loops_write_in_place(fn, args, shape):
    text = jit(fn).lower(*args()).as_text("hlo")
    assert copies_in_loop_bodies(text, shape) == 0
