"""One value written over a strided selection of run-time length (`x[i * i::i] = False`,
`A[:, j::k] = 0`) as a loop of scatters of `CHUNK` positions
(runtime/numpy/indexing/bounded_strided.py, `fill`), and `if`s that update an array on one
path staged with the pass-through branch first (runtime/lowering/branch_order.py).
Compared with NumPy: values, dtypes and the caller's arrays; the sieve's loop body holds
no copy of its array after XLA's optimisation."""
import re

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.lowering import branch_order
from npxla.runtime.numpy.indexing import bounded_strided
from tests.differential import check

CHUNK = bounded_strided.CHUNK
RNG = np.random.default_rng(41)


def fill_1d(x, p):
    start, stop, step = p[0], p[1], p[2]
    x[start::step] = -1.0
    x[:stop:step] = 7
    x[start:stop:step] = np.float64(2.5)
    return x


@pytest.mark.parametrize("p", [(0, 3000, 1), (3, -1, 2), (-700, 10, -1), (5, 2999, 7),
                               (0, 0, 600), (2, 5000, -3), (-1, -3000, -513),
                               (100, 3000, 2999), (-5000, 5000, 1)])
def test_fills_of_one_axis_match_numpy(p):
    check(fill_1d, RNG.random(3000), np.array(p))


def fill_values(x, b, k):
    step = k[0]
    x[1::step] = np.array([3])          # one element, shape (1,)
    x[::step] = np.array(9.7)           # 0-d, cast to the int array's dtype
    b[step::step] = True
    b[::-step] = b[0]
    return x, b


@pytest.mark.parametrize("k", [1, 2, 5, CHUNK, CHUNK + 1, 2 * CHUNK + 3])
def test_fills_cast_like_numpy(k):
    check(fill_values, np.arange(2 * CHUNK + 7), np.zeros(2 * CHUNK + 7, bool), np.array([k]))


def fill_2d(A, j):
    A[:, j[0]::j[1]] = 0.0
    A[j[0]::j[1]] = -A[0, 0]
    A[..., ::-j[1]] += 1                # not one value: the general write
    return A


@pytest.mark.parametrize("j", [(0, 1), (1, 2), (700, 3), (-3, 1), (2, 1000)])
def test_fills_along_either_axis_of_a_matrix(j):
    check(fill_2d, RNG.random((1200, 1100)), np.array(j))


def test_a_zero_step_still_raises():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        jit(fill_1d)(RNG.random(3000), np.array([0, 10, 0]))


def test_short_selections_keep_the_one_scatter(monkeypatch):
    calls = []
    chunked = bounded_strided._chunked_fill
    monkeypatch.setattr(bounded_strided, "_chunked_fill",
                        lambda *a: calls.append(1) or chunked(*a))
    check(fill_1d, RNG.random(CHUNK), np.array([1, 5, 2]))
    assert not calls
    check(fill_1d, RNG.random(CHUNK + 1), np.array([1, 5, 2]))
    assert len(calls) == 3


def sieve(is_p):
    n = is_p.shape[0] - 1
    is_p[:2] = False
    for i in range(2, int(np.sqrt(n)) + 1):
        if is_p[i]:
            is_p[i * i::i] = False
    return np.flatnonzero(is_p)


def sieve_while(n):
    is_p = np.ones(n + 1, dtype=bool)
    is_p[:2] = False
    i = 2
    while i * i <= n:
        if is_p[i]:
            is_p[i * i::i] = False
        i += 1
    return is_p


@pytest.mark.parametrize("n", [2, 100, CHUNK, 5000, 65_537])
def test_sieves_match_numpy(n):
    check(sieve, np.ones(n + 1, bool))
    check(sieve_while, n)


def _copies_in_loops(text, shape):
    pattern = re.escape(f"[{','.join(map(str, shape))}]") + r"\{[\d,]*\} copy\("
    bodies = [c for c in re.split(r"\n(?=\S)", text) if not c.startswith("ENTRY")]
    return sum(len(re.findall(pattern, c)) for c in bodies)


def test_the_sieve_copies_nothing_per_trip(monkeypatch):
    x = np.ones(20_001, bool)
    assert _copies_in_loops(jit(sieve).lower(x).as_text("hlo"), x.shape) == 0
    # as staged, the update first: XLA copied the array three times per trip
    monkeypatch.setattr(branch_order, "MIN_ELEMENTS", 1 << 62)
    assert _copies_in_loops(jit(sieve).lower(x).as_text("hlo"), x.shape) > 0


def update_some_rows(A, flags):
    for i in range(A.shape[0]):
        if flags[i]:
            j = 0
            while j < i and A[i, j] > 0.0:      # a loop in the branch: not a select
                A[i, j] -= 0.5
                j += 1
    return A


def test_branches_around_loops_match_numpy_and_copy_nothing(monkeypatch):
    A, flags = RNG.random((64, 64)), RNG.random(64) > 0.5
    check(update_some_rows, A, flags)
    assert _copies_in_loops(jit(update_some_rows).lower(A, flags).as_text("hlo"),
                            A.shape) == 0
    monkeypatch.setattr(branch_order, "MIN_ELEMENTS", 1 << 62)   # three per trip before
    assert _copies_in_loops(jit(update_some_rows).lower(A, flags).as_text("hlo"),
                            A.shape) == 3


def one_array_per_branch(A, B, flags):
    for i in range(A.shape[0]):
        if flags[i]:
            for j in range(i):
                A[i, j] += B[j, i]
        else:
            k = 0
            while k < i and B[i, k] > 0.1:
                B[i, k] *= 0.5
                k += 1
    return A, B


@pytest.mark.parametrize("n", [8, 40])
def test_branches_that_update_different_arrays_match_numpy(n):
    check(one_array_per_branch, RNG.random((n, n)), RNG.random((n, n)),
          RNG.random(n) > 0.4)
