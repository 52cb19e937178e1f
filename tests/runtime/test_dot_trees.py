"""Vector dots in CPU loops as folded products (`lowering/dot_trees.py`), against NumPy:
lengths below, at and around the 64-element block, float64 and float32, windows of
run-time length, infinities and NaNs that must reach the result; and which dots the
rewrite takes."""
import numpy as np
import pytest

from benchmarks.loop_kernels import back_subst_dot, cholesky_inplace
from differential import check, tolerance
from loop_ops import count_ops
from npxla.runtime.lowering import dot_trees

RNG = np.random.default_rng(71)


def carried_dots(A, x):
    """One dot per trip with the vector the loop writes, so no trip can be hoisted."""
    s = A[0, 0] * 0
    for i in range(A.shape[0]):
        s = s * 0.5 + np.dot(A[i], x)
        x[i % x.shape[0]] = s
    return s


def prefix_dots(A, x):
    """Windows of run-time length (one per row, `i % 7` shorter than the row)."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        k = A.shape[1] - i % 7
        out[i] = np.dot(A[i, :k], x[:k])
    return out


def outside_a_loop(a, b):
    return np.dot(a, b)


def _dots_in_loops(fn, args):
    return count_ops(fn, args, lambda op, depth: op.name == "stablehlo.dot_general"
                     and depth > 0)


@pytest.mark.parametrize("length", [63, 64, 65, 127, 128, 200, 511, 512, 1000])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_product_is_summed_once(length, dtype):
    # positive terms: float32 sums of hundreds of terms that cancel differ in the
    # last digits between any two orders (BLAS `sdot` is a third)
    A = RNG.uniform(0.5, 1.0, (40, length)).astype(dtype)
    x = RNG.uniform(0.0, 1.0 / length, length).astype(dtype)
    check(carried_dots, A, x, **tolerance(dtype, single=1e-5))


@pytest.mark.parametrize("length", [64, 70, 130, 700])
def test_windows_of_run_time_length(length):
    check(prefix_dots, RNG.standard_normal((30, length)), RNG.standard_normal(length),
          rtol=1e-12)


def test_factorisations_and_solves_with_long_rows():
    n = 300
    B = RNG.standard_normal((n, n))
    check(cholesky_inplace, B @ B.T + n * np.eye(n), rtol=1e-10)
    check(back_subst_dot, np.triu(B) + n * np.eye(n), RNG.standard_normal(n), rtol=1e-12)


def test_infinities_and_nans_reach_the_result():
    A = RNG.standard_normal((12, 300))
    x = RNG.standard_normal(300)
    A[3, 150] = np.inf                   # one infinite product: the sum is infinite
    check(prefix_dots, A, x, rtol=1e-12)
    A[7, 299] = np.nan                   # in the last few products, reduced apart
    A[9, 10] = np.inf
    x[10] = 0.0                          # inf * 0
    check(prefix_dots, A, x, rtol=1e-12)


def test_which_dots_are_rewritten():
    x = RNG.standard_normal(128)
    assert _dots_in_loops(carried_dots, (RNG.standard_normal((8, 128)), x)) == 0
    short = RNG.standard_normal(dot_trees.MIN_LENGTH - 1)
    assert _dots_in_loops(carried_dots, (RNG.standard_normal((8, short.size)), short)) == 1
    ints = np.arange(128)
    assert _dots_in_loops(carried_dots, (np.ones((8, 128), np.int64), ints)) == 1
    top = count_ops(outside_a_loop, (x, x), lambda op, d: op.name == "stablehlo.dot_general")
    assert top == 1
