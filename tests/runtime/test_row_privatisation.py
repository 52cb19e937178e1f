"""A loop that writes one row of a carried array carries that row alone
(`lowering/rows.py`): results bit for bit those of the loop staged without the rewrite
and equal to NumPy's (caller's arrays included), the inner loops no longer carrying
the table, and no rewrite where the rows cannot be proved distinct."""
import contextlib

import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.runtime.driver import staging
from tests.runtime.loop_ops import count_ops, maps_off

RNG = np.random.default_rng(41)


@contextlib.contextmanager
def rows_off():
    saved = staging.privatise_rows
    staging.privatise_rows = lambda module: 0
    try:
        yield
    finally:
        staging.privatise_rows = saved


def exact(fn, *args):
    """Against NumPy (exactly), and bit for bit against the loop staged as written."""
    got = check(fn, *args, rtol=0, atol=0)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with rows_off():
        plain = jit(fn)(*copies)
    np.testing.assert_array_equal(got, plain)


def lcs_table(a, b):
    """Longest common subsequences of prefixes, with the table's first row and column
    filled by a loop too."""
    n, m = a.shape[0], b.shape[0]
    L = np.empty((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        L[i, 0] = 0
    L[0, :] = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                L[i, j] = L[i - 1, j - 1] + 1
            else:
                L[i, j] = max(L[i - 1, j], L[i, j - 1])
    return L


def alignment_scores(a, b, gap):
    n, m = a.shape[0], b.shape[0]
    S = np.zeros((n + 1, m + 1))
    S[:, 0] = np.arange(n + 1) * gap
    S[0, :] = np.arange(m + 1) * gap
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                diag = S[i - 1, j - 1] + 1.5
            else:
                diag = S[i - 1, j - 1] - 0.25
            S[i, j] = max(diag, S[i - 1, j] + gap, S[i, j - 1] + gap)
    return S


def gauss_seidel(u, f, sweeps):
    """In place on the caller's array: rows above and below are other rows."""
    n, m = u.shape
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                                  + f[i, j])


def rows_from_the_end(a):
    """Reads the row above through a negative index: `i - 1` is -1 on the first trip
    (the last row, written later), so nothing may be assumed about it."""
    n, m = a.shape
    for i in range(n):
        for j in range(1, m):
            a[i, j] = a[i - 1, j] + a[i, j - 1]
    return a


def row_past_the_end(a):
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            a[i, j] = a[i + 1, j] * 0.5
    return a


def row_from_data(a, k):
    n, m = a.shape
    for i in range(1, n):
        for j in range(m):
            a[i, j] = a[k[i], j] + 1.0
    return a


def test_longest_common_subsequence_table():
    s, t = RNG.integers(0, 4, 60), RNG.integers(0, 4, 75)
    exact(lcs_table, s, t)
    exact(lcs_table, s[:1], t)
    exact(lcs_table, s, t[:1])


def test_the_table_leaves_the_inner_loop():
    """The carried row has shape (1, m + 1), the table (n + 1, m + 1): compare sizes."""
    s, t = RNG.integers(0, 4, 30), RNG.integers(0, 4, 40)
    text = jit(lcs_table).lower(s, t).as_text()
    inner = [line for line in text.splitlines() if "stablehlo.while" in line]
    assert any("tensor<1x41xi64>" in line for line in inner)
    assert sum("tensor<31x41xi64>" in line for line in inner) == 1     # the outer loop
    with rows_off():
        text = jit(lcs_table).lower(s, t).as_text()
    inner = [line for line in text.splitlines() if "stablehlo.while" in line]
    assert sum("tensor<31x41xi64>" in line for line in inner) == 2


def test_alignment_scores_with_a_branch():
    a, b = RNG.integers(0, 4, 50), RNG.integers(0, 4, 61)
    exact(alignment_scores, a, b, -0.75)


@pytest.mark.parametrize("shape", [(3, 3), (12, 17)])
def test_in_place_sweeps_written_back(shape):
    u = RNG.standard_normal(shape)
    exact(gauss_seidel, u, RNG.standard_normal(shape), 3)


def test_a_negative_row_index_is_not_assumed_other():
    exact(rows_from_the_end, RNG.standard_normal((6, 9)))


def test_a_row_past_the_end_still_raises():
    a = RNG.standard_normal((5, 4))
    with pytest.raises(IndexError) as expected:
        row_past_the_end(a.copy())
    with pytest.raises(IndexError) as got:
        jit(row_past_the_end)(a.copy())
    assert str(got.value).splitlines()[0] == str(expected.value)


@pytest.mark.parametrize("same", [False, True])
def test_a_row_chosen_by_data(same):
    k = np.arange(8) if same else np.maximum(np.arange(8) - 1, 0)
    exact(row_from_data, RNG.standard_normal((8, 5)), k)


def two_back(a):
    """Reads two columns back: not the previous trip's write, so it stays a read."""
    n, m = a.shape
    for i in range(1, n):
        for j in range(2, m):
            a[i, j] = a[i, j - 2] * 0.5 + a[i - 1, j]
    return a


def test_a_read_two_columns_back():
    exact(two_back, RNG.standard_normal((7, 11)))


def nested_loop_ops(fn, *args):
    """{op name: count} of the ops inside `while` loops nested in another `while`."""
    names = {}

    def keep(op, depth):
        if depth >= 2:
            names[op.name] = names.get(op.name, 0) + 1

    count_ops(fn, args, keep)
    return names


def test_the_previous_write_is_forwarded_and_the_copies_run_in_turn():
    """The inner loop reads no element of its row (`D[i, j - 1]` is the value the trip
    before wrote, carried) and runs its body four times per trip (`unroll`)."""
    s, t = RNG.integers(0, 4, 30), RNG.integers(0, 4, 40)
    with rows_off(), maps_off():
        before = nested_loop_ops(lcs_table, s, t)
    with maps_off():     # (with it, the reads of the row above leave the loop)
        after = nested_loop_ops(lcs_table, s, t)
    assert before["stablehlo.dynamic_update_slice"] == 3       # one per branch, merged
    assert after["stablehlo.dynamic_update_slice"] >= 4          # one per copy
    # per copy: a[i - 1], b[j - 1] and the two reads of the row above; before, the
    # same four and L[i, j - 1]
    assert before["stablehlo.dynamic_slice"] == 5
    assert after["stablehlo.dynamic_slice"] == 4 * after["stablehlo.dynamic_update_slice"]


def test_a_sweep_reads_ahead_from_the_row_before_the_loop():
    """`u[i, j + 1]` and `u[i, j]` are not written yet when the trip reads them: they
    come from the row before the inner loop, `u[i, j - 1]` is forwarded, and the row
    is only written, so the copies of `unroll` run (one write each)."""
    u, f = RNG.standard_normal((12, 17)), RNG.standard_normal((12, 17))
    with rows_off():
        before = nested_loop_ops(gauss_seidel, u, f, 2)
    after = nested_loop_ops(gauss_seidel, u, f, 2)
    assert before["stablehlo.dynamic_update_slice"] == 1
    assert after["stablehlo.dynamic_update_slice"] >= 4
