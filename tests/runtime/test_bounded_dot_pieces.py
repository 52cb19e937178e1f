"""Dot products of long vectors of run-time length over a piece of the buffer sized to
the window (`linalg/bounded_buckets.py`), against NumPy: windows of every piece length,
at the start, middle and end of the buffer; rows and columns of a matrix, plain
vectors; values outside the window that must not leak in; and that a `case` picks the
piece."""
import numpy as np
import pytest

from benchmarks.loop_kernels import back_subst_dot
from differential import check
from loop_ops import count_ops
from npxla import jit
from npxla.runtime.numpy.linalg import bounded_buckets

RNG = np.random.default_rng(38)
N = 700
LENGTHS = bounded_buckets.piece_lengths(N)


# the window bounds are read from an index array, so they are known only at run time
def row_prefix(A, ij):
    i, j = ij[0], ij[1]
    return np.dot(A[i, :j], A[j, :j])


def row_suffix(U, x, at):
    i = at[0]
    return np.dot(U[i, i + 1:], x[i + 1:])


def column_window(A, bounds, j):
    lo, hi = bounds[0], bounds[1]
    return A[lo:hi, j] @ A[lo:hi, j + 1]


def vector_window(x, y, bounds):
    lo, hi = bounds[0], bounds[1]
    return np.inner(x[lo:hi], y[lo:hi])


def loop_of_prefixes(A):
    n = A.shape[0]
    out = np.zeros(n)
    for j in range(n):
        out[j] = np.dot(A[j, :j], A[(j + 7) % n, :j])
    return out


def middle_windows(x, y):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = x[k // 3:k] @ y[k // 3:k]
    return out


def column_suffixes(A):
    n = A.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = A[k:, 0] @ A[k:, 1]
    return out


def _cuts():
    """Window lengths at and around each piece length."""
    return sorted({max(0, min(N, n + d)) for n in LENGTHS for d in (-1, 0, 1)} | {0, 1})


@pytest.mark.parametrize("j", _cuts())
def test_prefixes_of_rows(j):
    A = RNG.standard_normal((N + 1, N))
    check(row_prefix, A, np.array([N, min(j, N)]), rtol=1e-12)


@pytest.mark.parametrize("i", [0, 5, 300, N - 300, N - 70, N - 2, N - 1])
def test_suffixes(i):
    U = RNG.standard_normal((N, N))
    check(row_suffix, U, RNG.standard_normal(N), np.array([i]), rtol=1e-12)


@pytest.mark.parametrize("lo,hi", [(0, N), (1, N - 1), (100, 200), (350, 351),
                                   (600, 700), (10, 600), (N - 64, N), (300, 300)])
def test_windows_of_columns_and_vectors(lo, hi):
    A = RNG.standard_normal((N, 4))
    check(column_window, A, np.array([lo, hi]), 1, rtol=1e-12)
    check(vector_window, RNG.standard_normal(N), RNG.standard_normal(N),
          np.array([lo, hi]), rtol=1e-12)


def test_values_outside_the_window_do_not_leak():
    x, y = RNG.standard_normal(N), RNG.standard_normal(N)
    x[:100] = np.inf
    y[500:] = np.nan
    check(vector_window, x, y, np.array([100, 500]), rtol=1e-12)


def test_complex_vectors():
    x = RNG.standard_normal(N) + 1j * RNG.standard_normal(N)
    y = RNG.standard_normal(N) - 2j * RNG.standard_normal(N)
    check(vector_window, x, y, np.array([33, 555]), rtol=1e-12)


def test_windows_of_every_length_in_loops():
    A = RNG.standard_normal((N, N))
    check(loop_of_prefixes, A, rtol=1e-12)
    check(back_subst_dot, np.triu(A) + N * np.eye(N), RNG.standard_normal(N),
          rtol=1e-12)
    x, y = RNG.standard_normal(N), RNG.standard_normal(N)
    x[::97] = np.inf                 # only inside windows that hold them
    check(middle_windows, x, y, rtol=1e-12)
    check(column_suffixes, RNG.standard_normal((N, 2)), rtol=1e-12)


def test_a_case_picks_the_piece():
    A, x = RNG.standard_normal((N, N)), RNG.standard_normal(N)
    for fn, args in [(loop_of_prefixes, (A,)), (back_subst_dot, (A, x)),
                     (column_suffixes, (A[:, :2],))]:
        assert "stablehlo.case" in jit(fn).lower(*args).as_text(), fn.__name__
    short = jit(loop_of_prefixes).lower(RNG.standard_normal((64, 64))).as_text()
    assert "stablehlo.case" not in short


def test_piece_lengths():
    assert LENGTHS[0] == N
    assert all(a > b for a, b in zip(LENGTHS, LENGTHS[1:]))
    assert LENGTHS[-1] >= bounded_buckets.SHORTEST


def levinson_like(a, r):
    """A static slice and a reversed window of run-time length, as Levinson-Durbin dots
    them: `a[1:i]` and `r[i - 1:0:-1]`."""
    n = r.shape[0] - 1
    out = np.zeros(n)
    for i in range(1, n + 1):
        out[i - 1] = np.dot(a[1:i], r[i - 1:0:-1])
    return out


def test_windows_of_slices_and_reversed_windows():
    a, r = RNG.standard_normal(N + 1), RNG.standard_normal(N + 1)
    check(levinson_like, a, r, rtol=1e-12)
    a[0] = np.inf                          # outside every window of a[1:i]
    r[0] = np.nan                          # outside every window of r[i - 1:0:-1]
    check(levinson_like, a, r, rtol=1e-12)


def _in_case(op):
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "stablehlo.case":
            return True
        parent = parent.parent
    return False


def test_pieces_are_read_from_the_sliced_vector():
    """The case's branches read their pieces from `a` and the padded reversed `r`: no
    whole window of N elements is sliced out before the case on every trip."""
    a, r = RNG.standard_normal(N + 1), RNG.standard_normal(N + 1)
    whole = count_ops(levinson_like, (a, r), lambda op, depth: depth > 0 and op.name in (
        "stablehlo.slice", "stablehlo.dynamic_slice") and
        str(op.results[0].type) == f"tensor<{N}xf64>" and list(op.results[0].uses)
        and not _in_case(op))
    assert whole == 0
