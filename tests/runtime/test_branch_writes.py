"""Differential tests: a data-dependent `if` whose branches write a few elements of a
large array is staged as one write of the selected values, not as a conditional over
the whole array; writes the merge cannot prove equivalent keep the conditional. Also:
slice bounds computed from a static loop's index need no wrapping or clipping."""
import numpy as np
import pytest

from differential import branches_as_if, check
from npxla import jit
from npxla.runtime.numpy.core import extents as bounded_core
from npxla.runtime.lowering import branch_writes


def both_branches_write(x):
    out = np.zeros(200)
    for i in range(200):
        if x[i] > 0:
            out[i] = x[i] * 2
        else:
            out[i] = -x[i]
    return out


def one_branch_writes(x):
    out = np.zeros((10, 100))
    for i in range(10):
        for j in range(100):
            if x[i] > x[j]:
                out[i, j] = 1.0
    return out


def different_positions(x):
    out = np.zeros(200)
    for i in range(199):
        if x[i] > 0:
            out[i] = 1.0
        else:
            out[i + 1] = 2.0
    return out


def reads_what_it_wrote(x):
    out = x.copy()
    for i in range(1, len(x)):
        if out[i] < 0:
            out[i] = out[i - 1]
        else:
            out[i] = out[i] + 1
    return out


def mixed_dtypes(x):
    out = np.zeros(300, dtype=np.int32)
    for i in range(300):
        if x[i] > 0.5:
            out[i] = 7
        else:
            out[i] = x[i] * 10         # float into int32: cast as NumPy's setitem casts
    return out


def row_writes(x):
    out = np.zeros((40, 8))
    for i in range(40):
        if x[i] > 0:
            out[i, :] = x[i:i + 8] if i + 8 <= 40 else x[:8]
        else:
            out[i] = -1.0
    return out


def write_with_checked_index(x, idx):
    out = np.zeros(100)
    for i in range(100):
        if x[i] > 0:
            out[idx[i]] = x[i]        # a traced index: bounds-checked at run time
        else:
            out[idx[i]] = 0.5
    return out


def cholesky_with_if(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for i in range(n):
        for j in range(i + 1):
            s = L[i, :j] @ L[j, :j]
            if i == j:
                L[i, j] = np.sqrt(A[i, i] - s)
            else:
                L[i, j] = (A[i, j] - s) / L[j, j]
    return L


def _spd(n, seed=0):
    m = np.random.default_rng(seed).uniform(-1, 1, (n, n))
    return m @ m.T + n * np.eye(n)


RNG = np.random.default_rng(3)
X = RNG.standard_normal(300)
CASES = [(both_branches_write, (X[:200],)), (one_branch_writes, (X[:100],)),
         (different_positions, (X[:200],)), (reads_what_it_wrote, (X[:150],)),
         (mixed_dtypes, (RNG.uniform(0, 1, 300),)), (row_writes, (X[:48],)),
         (write_with_checked_index, (X[:100], RNG.integers(-100, 100, 100))),
         (cholesky_with_if, (_spd(24),))]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_branch_writes_match_numpy(fn, args):
    check(fn, *args, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_branch_writes_match_numpy_as_conditionals(fn, args):
    with branches_as_if():
        check(fn, *args, rtol=1e-10, atol=1e-12)


def _conditionals(fn, *args):
    return jit(fn).lower(*args).as_text().count("stablehlo.if")


@pytest.mark.parametrize("fn,args", [(both_branches_write, (X[:200],)),
                                     (one_branch_writes, (X[:100],)),
                                     (mixed_dtypes, (RNG.uniform(0, 1, 300),)),
                                     (cholesky_with_if, (_spd(24),))])
def test_small_writes_into_large_arrays_are_merged(fn, args):
    assert _conditionals(fn, *args) == 0


def test_writes_at_different_positions_become_guarded_writes(monkeypatch):
    # the converter keeps the conditional; the module rewrite makes each branch's
    # write a write of every trip (`lowering/branch_writes.py`)
    assert _conditionals(different_positions, X[:200]) == 0
    monkeypatch.setattr(branch_writes, "MIN_ELEMENTS", 10 ** 9)
    assert _conditionals(different_positions, X[:199]) == 1


def test_out_of_bounds_write_in_a_branch_raises_like_numpy():
    idx = np.zeros(100, dtype=np.int64)
    idx[37] = 100
    with pytest.raises(IndexError):
        write_with_checked_index(X[:100].copy(), idx)
    with pytest.raises(IndexError):
        jit(write_with_checked_index)(X[:100].copy(), idx)


# --- bounds from a loop index: no wrap and clip chains -------------------------------------

def lu_in_place(A):
    n = A.shape[0]
    for k in range(n - 1):
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A


def inner_prefix(A):
    n = A.shape[0]
    out = np.zeros(n)
    for i in range(n):
        for j in range(i):
            out[i] += A[i, :j] @ A[j, :j]
    return out


def _wraps(monkeypatch, fn, *args):
    """How many slice bounds staging had to wrap and clip (NumPy's negative-index and
    out-of-range rules) while staging `fn`."""
    calls = []
    real = bounded_core.clip
    monkeypatch.setattr(bounded_core, "clip", lambda *a: calls.append(a) or real(*a))
    jit(fn).lower(*args)
    return len(calls)


@pytest.mark.parametrize("fn", [lu_in_place, inner_prefix])
def test_index_bounds_need_no_wrapping(fn, monkeypatch):
    """`k + 1` for k in range(n - 1), and j in range(i) with i in range(n), lie inside
    the axis: the window's bounds are used as they are."""
    A = _spd(12)
    check(fn, A, rtol=1e-10, atol=1e-12)
    assert _wraps(monkeypatch, fn, A) == 0


def test_unknown_bounds_still_wrap_like_numpy(monkeypatch):
    def tail_sum(x, starts):
        out = np.zeros(len(starts))
        for i in range(len(starts)):
            out[i] = x[starts[i]:].sum()       # data: may be negative
        return out
    x = np.arange(10.0)
    starts = np.array([0, 3, -2, -20, 12, 9])
    check(tail_sum, x, starts)
    assert _wraps(monkeypatch, tail_sum, x, starts) > 0
