"""Arrays of run-time length in the ways published packages use them (issue 34):
np.polyfit / np.linalg.lstsq on selected data points (nolds), np.zeros(len(x[idx])) and
index arrays into such arrays (skfuzzy's trimf/trapmf), `for` statements over them, and
keeping them in a variable across a staged branch or loop. Differential against NumPy
(values, dtypes, shapes, arguments after the call), with run-time lengths from 0 to the
whole bound."""
import warnings

import numpy as np
import pytest

from npxla import TranspileError, jit
from tests.differential import check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(34)
X = np.linspace(0.5, 4.0, 12)
Y = 2.0 * X - 1.0 + 0.1 * RNG.standard_normal(12)
Y2 = np.stack([Y, np.sin(X)], axis=1)
CUTS = [-1.0, 1.0, 2.2, 3.5, 10.0]      # selects 12, 10, ~7, ~2, 0 points


def _both(fn, *args):
    """NumPy's outcome and ours: both results, or both exception types."""
    outcomes = []
    for run in (fn, jit(fn)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                outcomes.append(run(*[np.copy(a) for a in args]))
        except Exception as e:          # noqa: BLE001  (compared below)
            outcomes.append(type(e))
    return outcomes


# --- np.polyfit and np.linalg.lstsq on rows of run-time length --------------------------
def fit_line(x, y, t):
    m = x > t
    return np.polyfit(x[m], y[m], 1)


def fit_full(x, y, k):
    return np.polyfit(x[:k[0]], y[:k[0]], 2, full=True)


def fit_weighted(x, y, t):
    m = x < t
    return np.polyfit(x[m], y[m], 1, w=np.sqrt(x[m]))


def fit_columns(x, y2, t):
    m = x > t
    return np.polyfit(x[m], y2[m], 1)


def fit_logs(n, f, t):       # nolds' poly_fit(np.log(nvals), np.log(fluctuations), 1)
    nonzero = np.where(f > t)
    return np.polyfit(np.log(n[nonzero]), np.log(f[nonzero]), 1)[0]


@pytest.mark.parametrize("t", CUTS[:4])
def test_polyfit_of_selected_points(t):
    check(fit_line, X, Y, t)
    check(fit_weighted, X, Y, t + 2.0)
    check(fit_columns, X, Y2, t)
    check(fit_logs, X + 1.0, np.abs(Y) + 0.1, t)


@pytest.mark.parametrize("k", [3, 4, 7, 12])
def test_polyfit_full_has_numpys_residuals_and_singular_values(k):
    check(fit_full, X, Y, np.array([k]))
    check(fit_full, X.astype(np.float32), Y.astype(np.float32), np.array([k]),
          rtol=1e-4, atol=1e-5)


def test_polyfit_of_no_points_raises_numpys_type_error():
    assert _both(fit_line, X, Y, 10.0) == [TypeError, TypeError]
    assert _both(fit_full, X, Y, np.array([0])) == [TypeError, TypeError]


def fit_unequal(x, y, t):
    return np.polyfit(x[x > t], y, 1)


def test_polyfit_of_unequal_lengths_raises_at_run_time():
    assert _both(fit_unequal, X, Y, 1.0) == [TypeError, TypeError]
    check(fit_unequal, X, Y, -1.0)         # all selected: the lengths agree


def solve_rows(a, b, k):
    return np.linalg.lstsq(a[:k[0]], b[:k[0]], rcond=None)


def solve_selected(a, b, t):
    m = b > t
    return np.linalg.lstsq(a[m], b[m], rcond=-1)


A = RNG.standard_normal((8, 3))
B = RNG.standard_normal(8)


@pytest.mark.parametrize("k", [0, 1, 3, 4, 8])
def test_lstsq_of_rows_of_run_time_length(k):
    check(solve_rows, A, B, np.array([k]))
    check(solve_rows, A, np.stack([B, B * 2], axis=1), np.array([k]))


@pytest.mark.parametrize("t", [-5.0, -0.5, 0.5, 5.0])
def test_lstsq_of_selected_rows(t):
    check(solve_selected, A, B, t)


def test_lstsq_of_rank_deficient_rows_has_no_residuals():
    a = np.concatenate([A[:, :2], A[:, :1]], axis=1)      # two equal columns: rank 2
    check(solve_rows, a, B, np.array([6]))


# --- np.zeros(len(b)) and index arrays into arrays of run-time length (skfuzzy) ---------
def trimf(x, abc):
    a, b, c = abc
    y = np.zeros(len(x))
    idx = np.nonzero(np.logical_and(a < x, x < b))[0]
    y[idx] = (x[idx] - a) / float(b - a)
    idx = np.nonzero(np.logical_and(b < x, x < c))[0]
    y[idx] = (c - x[idx]) / float(c - b)
    idx = np.nonzero(x == b)
    y[idx] = 1
    return y


def trapmf(x, abcd):
    a, b, c, d = abcd
    y = np.ones(len(x))
    idx = np.nonzero(x <= b)[0]
    y[idx] = trimf(x[idx], np.r_[a, b, b])
    idx = np.nonzero(x >= c)[0]
    y[idx] = trimf(x[idx], np.r_[c, c, d])
    idx = np.nonzero(x < a)[0]
    y[idx] = np.zeros(len(idx))
    return y


U = np.linspace(0.0, 10.0, 41)


@pytest.mark.parametrize("abcd", [[1.0, 3.0, 6.0, 8.0], [-3.0, -2.0, 12.0, 13.0],
                                  [11.0, 12.0, 13.0, 14.0], [-4.0, -3.0, -2.0, -1.0],
                                  [0.0, 5.0, 5.0, 10.0]])
def test_membership_functions_built_on_arrays_of_run_time_length(abcd):
    check(trapmf, U, np.array(abcd))


def created(x, t):
    y = x[x > t]
    z = np.zeros(len(y))
    z[:2] = 1.0
    return (z, np.ones(len(y), dtype=np.int32), np.full(len(y), 2.5),
            np.empty((len(y), 2)).shape, np.zeros_like(y), len(z), np.ones(len(y) + 1))


@pytest.mark.parametrize("t", CUTS)
def test_creation_with_a_run_time_length(t):
    check(created, X, t)


def negative_length(x, t):
    return np.ones(len(x[x > t]) - 1)


def test_creation_with_a_negative_run_time_length_raises():
    check(negative_length, X, 1.0)
    assert _both(negative_length, X, 10.0) == [ValueError, ValueError]


def positions(x, t):
    y = x[x > t]
    i = np.nonzero(y > 3.0)[0]
    w = y.copy()
    w[i] = -w[i]
    w[np.nonzero(w < 2.0)[0]] = 100.0
    return (i, np.where(y < 2.0), np.argwhere(y > 1.0), np.flatnonzero(y < 3.0),
            (y > 2.0).nonzero(), y[i], w)


@pytest.mark.parametrize("t", CUTS)
def test_positions_in_arrays_of_run_time_length(t):
    check(positions, X, t)


def index_out_of_bounds(x, t):
    y = x[x > t]
    return y[np.nonzero(x > 0)[0]]


def test_index_array_checked_against_the_run_time_length():
    check(index_out_of_bounds, X, -1.0)
    assert _both(index_out_of_bounds, X, 2.0) == [IndexError, IndexError]


# --- `for` statements over arrays of run-time length ------------------------------------
def fill_loop(x, t):
    y = x[x > t]
    out = np.zeros(len(y))
    acc = x[0] * 0.0
    for i, v in enumerate(y):
        out[i] = v * v + acc
        acc += v
    return out, acc


def zipped_loop(x, t):
    y = x[x > t]
    z = x[x > t] * 2.0
    total = np.zeros(2)
    for a, b in zip(y, z):
        total += np.array([a, b])
    return total


def break_loop(x, t):
    y = x[x > t]
    last = np.zeros(1)
    for v in y:
        if v > 3.0:
            break
        last[0] = v
    return last


def rows_loop(a, t):
    rows = a[a[:, 0] > t]
    acc = np.zeros(a.shape[1])
    for r in rows:
        acc = acc + r * r
    return acc


@pytest.mark.parametrize("t", CUTS)
def test_for_over_an_array_of_run_time_length(t):
    check(fill_loop, X, t)
    check(zipped_loop, X, t)
    check(break_loop, X, t)
    check(rows_loop, np.stack([X, X[::-1]], axis=1), t)


def comprehension(x, t):
    return np.log([v + 1.0 for v in x[x > t]])


def test_a_comprehension_over_one_is_refused_with_what_to_write():
    with pytest.raises(TranspileError) as info:
        jit(comprehension)(X, 1.0)
    text = str(info.value)
    assert "comprehension" in text and "for i, e in enumerate(v)" in text
    assert "test_bounded_realcode.py" in text


# --- across staged branches and loops ---------------------------------------------------
def branch_both(x, t, c):
    if c > 0:
        y = x[x > t]
    else:
        y = x[x < t]
    return y, y.sum(), len(y)


def branch_one(x, t, c):
    y = x
    if c > 0:
        y = x[x > t]
    return y * 2


def branch_static_first(x, t, c):
    if c > 0:
        y = x * 1
    else:
        y = x[x < t]
    return y * 2


def loop_shrinks(x, t, c):
    y = x[x > t]
    while c > 0:
        y = y[1:]
        c = c - 1
    return y


def loop_branch(x, t, c):
    y = x[x > t]
    for i in range(3):
        if c > i:
            y = y[1:]
    return y


def ternary(x, t, c):
    y = x[x > t] if c > 0 else x[x < t]
    return y, len(y)


def early_return(x, t, c):
    if c > 0:
        return x[x > t]
    return x[x < t] * 2


def nested_branches(x, t, c):
    y = x[x > t]
    if c > 0:
        if c > 1:
            y = y[1:]
        else:
            y = y * 3
    return y


CASES = [(2.5, 1), (2.5, -1), (10.0, 1), (10.0, 0), (-1.0, 2)]


@pytest.mark.parametrize("t, c", CASES)
@pytest.mark.parametrize("fn", [branch_both, branch_one, branch_static_first, loop_shrinks,
                                loop_branch, ternary, early_return, nested_branches])
def test_kept_in_a_variable_across_branches_and_loops(fn, t, c):
    check(fn, X, t, np.array(c))     # an array: the branch is data-dependent


def write_through_branch(x, k, c):
    if c > 0:
        y = x[:k]
    else:
        y = x[k:]
    y[0] = 100.0
    return y


def add_through_branch(x, k, c):
    y = x[:k]
    if c > 0:
        y = x[k:]
    y += 1
    return x


def write_in_loop(x, k, c):
    y = x[:k]
    while c > 0:
        y = y[1:]
        y[0] = -1.0
        c -= 1
    return y


@pytest.mark.parametrize("k, c", [(3, 1), (3, -1), (5, 2), (12, 1), (0, -1)])
def test_views_kept_across_branches_write_into_their_base(k, c):
    check(write_through_branch, X, np.array(k), np.array(c))
    check(add_through_branch, X, np.array(k), np.array(c))


def test_a_view_written_then_replaced_in_a_loop_is_refused_by_name():
    with pytest.raises(TranspileError) as info:
        jit(write_in_loop)(X, np.array(3), np.array(1))
    assert "'y' is updated in place and then replaced" in str(info.value)


def other_ndim(x, t, c):
    if c > 0:
        y = x[x > t]
    else:
        y = np.zeros((2, 2))
    return y


def test_different_numbers_of_axes_on_two_paths_are_refused_with_the_variable():
    with pytest.raises(TranspileError) as info:
        jit(other_ndim)(X, 1.0, np.array(1))
    assert "'y'" in str(info.value) and "another bound" in str(info.value)
    check(other_ndim, X, 1.0, 1)        # a Python int: specialised, each path static


# --- different bounds on the paths of a branch, growth in a loop with `break` ------------
def branch_other_bound(x, t, c):
    if c > 0:
        y = x[x > t]
    else:
        y = x[:2]
    return y, len(y)


def branch_appends(x, t, c):
    y = x[x > t]
    if c > 0:
        y = np.hstack((y, c * 1.0))
    return y


@pytest.mark.parametrize("t, c", CASES)
def test_branches_giving_different_bounds_take_the_largest(t, c):
    check(branch_other_bound, X, t, np.array(c))
    check(branch_appends, X, t, np.array(c))


def written_after_padding(x, t, c):
    if c > 0:
        y = x[x > t]
    else:
        y = x[:2]
    y[0] = 1.0
    return y


def test_writing_through_a_padded_copy_is_refused():
    with pytest.raises(TranspileError):
        jit(written_after_padding)(X, 1.0, np.array(1))


def fuzzy_op(x, a, y, b):        # skfuzzy.fuzzymath.fuzzy_ops.fuzzy_op with np.add
    yy, xx = np.meshgrid(y, x, sparse=True)
    bb, aa = np.meshgrid(b, a, sparse=True)
    zz = np.add(xx, yy).ravel()
    zz_index = np.argsort(zz)
    zz = np.sort(zz)
    c = np.fmin(aa, bb).ravel()
    c = c[zz_index]
    z, mfz = np.zeros(0), np.zeros(0)
    idx = 0
    for _ in range(len(c)):
        index = np.nonzero(zz == zz[idx])[0]
        z = np.hstack((z, zz[idx]))
        mfz = np.hstack((mfz, c[index].max()))
        idx = index[-1] + 1
        if idx >= len(zz):
            break
    return z, mfz


@pytest.mark.parametrize("n", [1, 3, 5])
def test_arrays_grown_in_a_loop_with_break(n):
    x, y = np.linspace(0.0, 4.0, n), np.linspace(1.0, 5.0, 4)
    a, b = np.minimum(x, 4.0 - x) / 2.0, np.array([0.0, 1.0, 1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # staged, not unrolled
        check(fuzzy_op, x, a, y, b)


def history(x, tol):
    jm = np.zeros(0)
    for p in range(12):
        x = 0.5 * (x + 2.0 / x)
        jm = np.hstack((jm, x, x * 2.0))
        if abs(x * x - 2.0) < tol:
            break
    return jm, np.array(p)


@pytest.mark.parametrize("tol", [1.0, 1e-3, 1e-12, -1.0])
def test_history_grown_by_two_per_iteration(tol):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # staged, not unrolled
        check(history, np.array(3.0), np.array(tol))


def while_history(x, tol, maxiter):     # skfuzzy's cmeans: a counter and a break
    jm = np.zeros(0)
    p = 0
    while p < maxiter:
        x = 0.5 * (x + 2.0 / x)
        jm = np.hstack((jm, x))
        p += 1
        if abs(x * x - 2.0) < tol:
            break
    return jm, p


def countdown_history(x, tol, n):
    jm = np.zeros(0)
    k = n
    while 1 <= k:
        x = 0.5 * (x + 2.0 / x)
        jm = np.hstack((jm, x, x * k))
        k -= 2
        if abs(x * x - 2.0) < tol:
            break
    return jm, k


@pytest.mark.parametrize("tol", [1.0, 1e-6, -1.0])
@pytest.mark.parametrize("maxiter", [0, 3, 12])
def test_growth_in_a_counted_while_loop(tol, maxiter):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # staged, not unrolled
        check(while_history, np.array(3.0), np.array(tol), maxiter)
        check(countdown_history, np.array(3.0), np.array(tol), maxiter)


def test_a_counted_while_loop_is_not_recompiled_per_limit_unless_something_grows():
    def halve(x, maxiter):
        p = 0
        while p < maxiter:
            x = x * 0.5
            p += 1
            if x.sum() < 1.0:
                break
        return x, p
    f = jit(halve)
    for n in (3, 4, 5):
        check(halve, np.ones(3) * 8, n)
        f(np.ones(3) * 8, n)
    assert f.cache_info().in_memory == 1


def uncounted_history(x, tol):
    jm = np.zeros(0)
    p = 0
    while p < 12:
        x = 0.5 * (x + 2.0 / x)
        jm = np.hstack((jm, x))
        if abs(x * x - 2.0) < tol:
            continue                # the counter may stand still: no bound
        p += 1
    return jm


def growing_until_converged(x, tol):
    jm = np.zeros(0)
    while abs(x * x - 2.0) > tol:
        x = 0.5 * (x + 2.0 / x)
        jm = np.hstack((jm, x))
    return jm


@pytest.mark.parametrize("fn", [uncounted_history, growing_until_converged])
def test_growth_in_an_unbounded_while_loop_says_how_to_bound_it(fn):
    with pytest.raises(TranspileError) as info:
        jit(fn)(np.array(3.0), np.array(1e-6))
    assert "for i in range(n_max)" in str(info.value)


def grow_selection(x, t, tol):
    y = x[x > t]
    for i in range(10):
        y = np.hstack((y, y.sum() * 0.5))
        if y.sum() > tol:
            break
    return y


@pytest.mark.parametrize("t, tol", [(2.5, 40.0), (10.0, 1.0), (-1.0, 1e9), (2.5, 0.0)])
def test_an_array_of_run_time_length_grown_in_a_loop_with_break(t, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # staged, not unrolled
        check(grow_selection, X, np.array(t), np.array(tol))


def masked_update_of_run_time_length(x, z):
    # pymap3d's ecef2geodetic: a selection updated in place by a value computed on it
    beta = np.empty_like(x)
    bad = np.isclose(x, 0)
    beta[~bad] = np.arctan(z[~bad] / x[~bad])
    beta[~bad] += (x[~bad] * np.sin(beta[~bad])) / (2.0 / np.cos(beta[~bad]) - 1.0)
    beta[~bad] *= 2
    beta[bad] = 0
    return beta


@pytest.mark.parametrize("x", [np.array([1.0, 0.0, 2.0]), np.zeros(3), np.ones(3)])
def test_a_selection_updated_in_place_by_a_value_of_run_time_length(x):
    check(masked_update_of_run_time_length, x, np.array([0.5, 1.0, -1.0]))


def int_selection_plus_float(k, y):
    k[k > 0] += y[k > 0]
    return k


def test_a_selection_update_keeps_numpys_casting_rule():
    with pytest.raises(TypeError) as expected:
        int_selection_plus_float(np.array([1, -1]), np.array([0.5, 0.5]))
    with pytest.raises(TypeError) as got:
        jit(int_selection_plus_float)(np.array([1, -1]), np.array([0.5, 0.5]))
    assert str(expected.value) in str(got.value)     # NumPy's words, located


# --- writes through index arrays of run-time length (EntropyHub's ApEn / SampEn:
# `Counter[n, ix] += 1` with `ix = np.where(Counter[n, :] == 1)[0]`, which raised NumPy's
# "only integers, slices ..." IndexError at run time) ------------------------------------

def _add_where_positive(x):
    c = np.zeros(x.shape[0])
    ix = np.where(x > 0)[0]
    c[ix] += 1
    c[ix] -= x[ix]
    return c


def _rows_counted(x):
    counter = np.zeros((4, x.shape[0]), np.int64)
    for n in range(4):
        ix = np.where(x + n > 2.0)[0]
        counter[n, ix] += 1
        counter[n, ix[ix > 3]] = -1
    return counter, counter[2, np.flatnonzero(x > 1.0)].sum()


def _rows_of_a_matrix(x):
    m = np.arange(3.0 * x.shape[0]).reshape(x.shape[0], 3)
    ix = np.flatnonzero(x > 1.5)
    m[ix] *= np.array([1.0, 2.0, 3.0])
    m[ix - 1] += 0.5                     # -1 for a first row selected: the last row
    return m


def _out_of_bounds(x):
    c = np.zeros(x.shape[0])
    c[np.where(x > 2.0)[0] + 4] += 1
    return c


@pytest.mark.parametrize("t", CUTS)
@pytest.mark.parametrize("fn", [_add_where_positive, _rows_counted, _rows_of_a_matrix])
def test_writes_through_index_arrays_of_run_time_length(fn, t):
    check(fn, X - t + 2.0)


def test_a_write_out_of_bounds_raises_numpys_index_error():
    with pytest.raises(IndexError, match="out of bounds"):
        jit(_out_of_bounds)(X)
    check(_out_of_bounds, X - 10.0)        # nothing selected: nothing written
