"""Wide writes in loops whose value reads the carried array at a run-time offset,
staged as `dynamic_update_slice` (`lowering/loop_writes.py`), against NumPy: the
Levinson-Durbin update over every order, writes that read a row or a gathered set of
the array they write, arrays below and above the wide-write size, writes under an `if`
and stencils (left as selects), and the optimised loop holding no copy of the array."""
import numpy as np
import pytest

from benchmarks import loop_kernels
from benchmarks.loop_kernels import levinson_durbin
from differential import check
from npxla import jit
from npxla.runtime.lowering import inplace
from tests.runtime.test_bounded_scatter import _copies_in_loops

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(11)
WIDE = inplace.WIDE_MIN_ELEMENTS


def _autocorrelation(n):
    return loop_kernels._autocorrelation(n - 1, RNG)[0]


def reversed_update(a, k):
    for i in range(1, a.shape[0]):
        a[1:i] = a[1:i] + k * a[i - 1:0:-1]
    return a


def reversed_update_to(a, k, m):
    for i in range(1, m):              # (a run-time bound: windows that grow, no wide write)
        a[1:i] = a[1:i] + k * a[i - 1:0:-1]
    return a


def row_elimination(A, m):
    for i in range(m):
        A[1:] = A[1:] - 0.5 * A[i]          # reads row i (a window at a run-time offset)
    return A


def gathered_update(x, perm, m):
    for t in range(m):
        x[1:] = x[1:] + 0.25 * x[perm[1:]]
        perm = np.roll(perm, 1)
    return x


def conditional_update(a, m):
    for i in range(1, m):
        if a[i] > 0.0:
            a[1:i] = a[1:i] - 0.5 * a[i - 1:0:-1]
    return a


def stencil_steps(u, steps, c):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def _window_writes(fn, args, n, m):
    """How many `dynamic_update_slice`s of an m-element window into an n-element array
    the staged module holds."""
    text = jit(fn).lower(*args).as_text()
    return text.count(f"(tensor<{n}xf64>, tensor<{m}xf64>, tensor<i64>) -> tensor<{n}xf64>")


@pytest.mark.parametrize("n", [2, 3, 9, WIDE // 2, WIDE + 1, 3 * WIDE])
def test_levinson_durbin_matches_numpy(n):
    check(levinson_durbin, _autocorrelation(n), rtol=1e-7, atol=1e-10)   # np.dot's order


@pytest.mark.parametrize("n", [1, 2, 3, WIDE // 2, WIDE, 3 * WIDE + 1])
def test_reversed_window_update_matches_numpy_bit_for_bit(n):
    check(reversed_update, RNG.standard_normal(n), 0.001, rtol=0, atol=0)


@pytest.mark.parametrize("m", [0, 1, 2, 700, WIDE + 5])
def test_reversed_window_update_to_a_run_time_bound(m):
    check(reversed_update_to, RNG.standard_normal(WIDE + 5), 0.001, m, rtol=0, atol=0)


@pytest.mark.parametrize("rows", [3, 40])
def test_update_reading_a_row_of_the_array_it_writes(rows):
    A = RNG.standard_normal((rows, WIDE))
    check(row_elimination, A, rows, rtol=0, atol=0)


def test_update_reading_a_gathered_set_of_the_array_it_writes():
    x = RNG.standard_normal(2 * WIDE)
    check(gathered_update, x, RNG.permutation(x.size), 5, rtol=0, atol=0)


@pytest.mark.parametrize("m", [1, 50, WIDE + 1])
def test_update_under_an_if_matches_numpy(m):
    check(conditional_update, RNG.standard_normal(WIDE + 2), m, rtol=0, atol=0)


def test_stencil_steps_keep_the_select_and_match_numpy():
    u = np.sin(np.linspace(0.0, 3.0, 4 * WIDE))
    check(stencil_steps, u, 25, 0.2, rtol=0, atol=0)
    assert _window_writes(stencil_steps, (u, 25, 0.2), u.size, u.size - 2) == 0


def test_the_writes_are_rewritten_and_the_loop_copies_nothing():
    """As a select of pads the Levinson update wrote a new buffer every trip and XLA
    copied it into the loop's own (issue 37, item 1)."""
    r = _autocorrelation(2 * WIDE + 1)
    assert _window_writes(levinson_durbin, (r,), r.size, r.size - 1) == 1
    assert _copies_in_loops(jit(levinson_durbin).lower(r).as_text("hlo"), r.shape) == 0
    a = RNG.standard_normal(2 * WIDE)
    assert _window_writes(reversed_update, (a, 0.1), a.size, a.size - 1) == 1
    assert _copies_in_loops(jit(reversed_update).lower(a, 0.1).as_text("hlo"),
                            a.shape) == 0
