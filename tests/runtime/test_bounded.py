"""Arrays whose extent is only known at run time (issue 12): slices with loop-index or
data bounds, boolean-mask selections, and data-dependent results. Every test compares
with NumPy (values, dtypes, shapes and the arguments after the call)."""
import warnings

import numpy as np
import pytest

from matrix import alternate
from hypothesis import given, settings, strategies as st

from npxla import jit
from npxla.transpiler.base.errors import DataDependentShapeError, TranspileError
from npxla.runtime.operators.loops import NpxlaPerformanceWarning
from tests.differential import check

RNG = np.random.default_rng(12)


def spd(n):
    a = RNG.random((n, n))
    return a @ a.T + n * np.eye(n)


# --- triangular loops: slices whose length follows the loop index -------------------------
def cholesky(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for i in range(n):
        for j in range(i + 1):
            s = np.dot(L[i, :j], L[j, :j])
            if i == j:
                L[i, j] = np.sqrt(A[i, i] - s)
            else:
                L[i, j] = (A[i, j] - s) / L[j, j]
    return L


def lu_inplace(A):
    n = A.shape[0]
    for i in range(1, n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[:j, j])
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[i, j] -= np.dot(A[i, :i], A[:i, j])


def forward_substitution(L, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def back_substitution(U, b):
    n = b.shape[0]
    x = np.zeros_like(b)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x


def gram_schmidt(A):
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for j in range(n):
        v = A[:, j].copy()
        R[:j, j] = Q[:, :j].T @ A[:, j]
        v -= Q[:, :j] @ R[:j, j]
        R[j, j] = np.linalg.norm(v)
        Q[:, j] = v / R[j, j]
    return Q, R


def correlation_loop(data):
    M = data.shape[1]
    corr = np.eye(M)
    for i in range(M - 1):
        corr[i + 1:M, i] = data[:, i] @ data[:, i + 1:M]
        corr[i, i + 1:M] = corr[i + 1:M, i]
    return corr


def levinson_durbin(r, order):
    """AR coefficients from autocorrelations: reversed prefixes a[:k][::-1]."""
    a = np.zeros(order + 1)
    a[0] = 1.0
    e = r[0]
    for k in range(1, order + 1):
        acc = r[k] + a[1:k] @ r[1:k][::-1]
        lam = -acc / e
        a[1:k + 1] = a[1:k + 1] + lam * a[:k][::-1]
        e *= 1 - lam * lam
    return a, e


def reversed_prefix_dot(r, x):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(1, n + 1):
        out[k - 1] = r[:k][::-1] @ x[:k]
    return out


def prefix_accumulate(x):
    y = np.zeros_like(x)
    for k in range(1, x.shape[0] + 1):
        y[:k] += x[k - 1]
    return y


def write_through_view(a):
    for j in range(1, a.shape[0]):
        v = a[:j]
        v *= 0.5
        a[j] += v.sum()
    return a


@pytest.mark.parametrize("n", [1, 2, 7])
def test_cholesky(n):
    check(cholesky, spd(n))


def test_lu_in_place_writes_the_argument_back():
    check(lu_inplace, spd(6))


@pytest.mark.parametrize("fn", [forward_substitution, back_substitution])
def test_triangular_solves(fn):
    A = np.tril(spd(6)) if fn is forward_substitution else np.triu(spd(6))
    check(fn, A, RNG.random(6))


def test_gram_schmidt():
    check(gram_schmidt, RNG.random((7, 5)), rtol=1e-9)


def test_correlation_loop():
    check(correlation_loop, RNG.random((6, 8)))


def test_reversed_prefixes():
    check(levinson_durbin, np.array([4.0, 1.0, 0.5, 0.25, 0.1]), 4)
    check(reversed_prefix_dot, RNG.random(6), RNG.random(6))


def test_prefix_update_in_place():
    check(prefix_accumulate, RNG.random(6))


def test_writes_through_a_bounded_view_reach_the_base():
    check(write_through_view, RNG.random(6))


def test_index_dependent_slices_stage_one_loop_without_unrolling():
    with warnings.catch_warnings():
        warnings.simplefilter("error", NpxlaPerformanceWarning)
        f = jit(cholesky)
        f(spd(5))
    text = f.lower(spd(5)).as_text()
    assert text.count("stablehlo.while") == 2, "two nested loops, not unrolled"
    assert jit(cholesky).lower(spd(40)).as_text().count("stablehlo.while") == 2


# --- data-dependent bounds: CSR rows -----------------------------------------------------
def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        cols = indices[indptr[i]:indptr[i + 1]]
        vals = data[indptr[i]:indptr[i + 1]]
        y[i] = vals @ x[cols]
    return y


def test_csr_matvec():
    dense = RNG.random((6, 5)) * (RNG.random((6, 5)) < 0.4)
    dense[2] = 0.0                                  # an empty row
    indptr = np.concatenate(([0], np.cumsum((dense != 0).sum(axis=1))))
    rows, cols = np.nonzero(dense)
    check(csr_matvec, indptr, cols, dense[rows, cols], RNG.random(5))


# --- masks inside the function ---------------------------------------------------------
def binning(data, edges):
    res = np.zeros(edges.shape[0] - 1)
    for i in range(edges.shape[0] - 1):
        values = data[(data >= edges[i]) & (data < edges[i + 1])]
        res[i] = values.mean()
    return res


def masked_power(a):
    a[a > 0] = a[a > 0] ** -1.5
    return a


def mandelbrot_step(Z, C):
    inside = np.abs(Z) < 2
    Z[inside] = Z[inside] ** 2 + C[inside]
    return Z


def selection_stats(x):
    sel = x[x > 0]
    return (sel.sum(), sel.mean(), sel.max(), sel.min(), sel.argmax(), sel.std(),
            sel.var(ddof=1), np.prod(sel), (sel > 1).any(), (sel > 0).all(),
            np.count_nonzero(sel > 1), len(sel), sel.shape[0] * 2, sel.size)


def test_binning_with_an_empty_bin_is_nan():
    data = RNG.random(50) * 0.5
    check(binning, data, np.linspace(0, 1, 6))


def test_masked_update_with_a_selected_right_hand_side():
    check(masked_power, RNG.standard_normal(12))


def test_masked_update_complex():
    Z = RNG.standard_normal(10) + 1j * RNG.standard_normal(10)
    check(mandelbrot_step, Z * 1.5, RNG.standard_normal(10) + 0j)


def test_reductions_over_a_selection():
    check(selection_stats, RNG.standard_normal(20))


def empty_max(x):
    return x[x > 100].max()


def test_max_of_an_empty_selection_raises_like_numpy():
    with pytest.raises(ValueError, match="zero-size array"):
        jit(empty_max)(RNG.random(5))


def mismatched(x, k):
    total = 0.0
    for i in range(x.shape[0]):
        total += (x[:i] * x[:i + k]).sum()
    return total


def test_mismatched_lengths_raise_numpy_broadcast_error():
    check(mismatched, RNG.random(4), 0)
    with pytest.raises(ValueError, match="broadcast"):
        jit(mismatched)(RNG.random(4), 1)


# --- data-dependent sizes as results ---------------------------------------------------
def negatives(x):
    return x[x < 0]


def rows_where(x):
    return x[x[:, 1] > 0]


def nonzero(x):
    return np.nonzero(x)


def where_one(x):
    return np.where(x > 0)


def flatnonzero(x):
    return np.flatnonzero(x)


def argwhere(x):
    return np.argwhere(x)


def unique(x):
    return np.unique(x)


def unique_counts(x):
    return np.unique(x, return_counts=True)


def unique_all(x):
    return np.unique(x, return_index=True, return_inverse=True, return_counts=True)


def unique_inverse_used(x):
    values, inverse = np.unique(x, return_inverse=True)
    return values[inverse] * 2, inverse


def unique_first_positions(x):
    values, first = np.unique(x, return_index=True)
    return x.ravel()[first] + values, first


def compress_cols(x):
    return np.compress(x[0] > 0, x, axis=1)


def compress_flat(x):
    return np.compress(x.ravel() > 0, x)


def extract(x):
    return np.extract(x > 1, x)


def selected_then_scaled(x):
    y = x[x > 0]
    return y * 2 + 1, y.mean()


RESULT_FNS = [negatives, rows_where, nonzero, where_one, flatnonzero, argwhere, unique,
              unique_counts, unique_all, unique_inverse_used, unique_first_positions,
              compress_cols, compress_flat, extract, selected_then_scaled]


@pytest.mark.parametrize("fn", RESULT_FNS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", alternate([np.float64, np.int64]))
def test_data_dependent_results(fn, dtype):
    x = RNG.integers(-3, 4, (4, 5)).astype(dtype)
    check(fn, x)


@pytest.mark.parametrize("fn", [negatives, nonzero, unique, unique_all, argwhere],
                         ids=lambda f: f.__name__)
def test_data_dependent_results_empty_and_full(fn):
    check(fn, np.ones((3, 2)))
    check(fn, -np.ones((3, 2)))
    check(fn, np.zeros((0,)))


def test_unique_counts_nan_once():
    check(unique_counts, np.array([1.0, np.nan, 2.0, np.nan, 1.0]))
    check(unique, np.array([np.nan, np.nan]))
    check(unique_all, np.array([[1.0, np.nan, 2.0], [np.nan, 1.0, -0.0]]))


def mask_then_column(x):
    return x[x[:, 0] > 0, 1]


def columns_where(x):
    return x[:, x[0] > 0].sum(axis=1), x[:, x[0] > 0]


def row_of_columns_where(x):
    return x[1, x[0] > 0]


def mask_with_ellipsis_and_newaxis(x):
    return x[..., x[0] > 0][1:, :], x[None, x[:, 1] > 0, 2]


def mask_rows_then_slice(x):
    return x[x[:, 0] > 0, 1:3].mean(axis=0)


@pytest.mark.parametrize("fn", [mask_then_column, columns_where, row_of_columns_where,
                                mask_with_ellipsis_and_newaxis, mask_rows_then_slice],
                         ids=lambda f: f.__name__)
def test_mask_among_basic_indices(fn):
    for x in (RNG.standard_normal((6, 5)), np.abs(RNG.standard_normal((6, 5))),
              -np.abs(RNG.standard_normal((6, 5)))):
        check(fn, x)


def test_mask_among_basic_indices_mismatch_is_numpys_error():
    def bad(x):
        return x[:, x[:, 0] > 0]
    x = RNG.standard_normal((6, 5))
    with pytest.raises(IndexError, match="boolean index did not match"):
        bad(x)
    with pytest.raises(IndexError, match="boolean index did not match"):
        jit(bad)(x)


def test_mask_apart_from_integers_is_still_refused():
    def apart(x):
        return x[0, :, x[0, 0] > 0]      # NumPy moves the selected axis first
    with pytest.raises(DataDependentShapeError):
        jit(apart)(RNG.standard_normal((3, 4, 5)))


def selected_at(x, idx):
    return x[x > 0][idx]


def test_index_array_into_a_selection_is_checked_like_numpy():
    x = np.array([3.0, -1.0, 2.0, 5.0])
    check(selected_at, x, np.array([0, -1, 2, 1]))
    with pytest.raises(IndexError, match="out of bounds"):
        selected_at(x, np.array([0, 3]))
    with pytest.raises(IndexError, match="out of bounds"):
        jit(selected_at)(x, np.array([0, 3]))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=12))
def test_unique_index_inverse_counts_property(values):
    """Ties are where return_index and return_inverse differ from a careless sort."""
    check(unique_all, np.array(values, dtype=np.int64))


def test_results_are_owned_contiguous_arrays():
    out = jit(negatives)(RNG.standard_normal(9))
    assert out.flags.owndata and out.flags.writeable


# --- what remains refused says why -----------------------------------------------------
def grows(x, n):
    acc = x[:0]
    for i in range(n):
        acc = np.concatenate((acc, x[i:i + 1]))
    return acc


def test_a_size_that_grows_every_iteration_has_no_bound():
    from npxla import TranspileError
    with pytest.warns(NpxlaPerformanceWarning):         # a Python int: unrolled
        check(grows, RNG.random(5), 3)
    with pytest.raises(TranspileError) as info:         # an array trip count: refused
        jit(grows)(RNG.random(5), np.int64(3))
    assert "across a staged branch or loop iteration" in str(info.value)
    assert "test_bounded.py" in str(info.value)


def solve_masked(A, b):
    m = b > 0
    return np.linalg.solve(A[m][:, m], b[m])


def test_unsupported_use_of_a_data_dependent_size_is_located():
    from npxla import TranspileError
    with pytest.raises(TranspileError) as info:
        jit(solve_masked)(spd(3), np.array([1.0, -1.0, 2.0]))
    assert "test_bounded.py" in str(info.value)


def index_dependent_unsupported(x):
    out = 0.0
    for i in range(1, x.shape[0]):
        out += np.correlate(x[:i], [1.0]).sum()
    return out


def test_unsupported_function_on_an_index_dependent_slice_unrolls_as_before():
    with pytest.warns(NpxlaPerformanceWarning):
        check(index_dependent_unsupported, RNG.random(5))


def _empty_unless(x, b):
    return x[x[2]:b].argmin() if x[x[2]:b].size else -1


def _always_empty(x):
    s = x[x[2]:0]
    if s.size:
        return s.argmin()
    return -1


def test_numpys_errors_in_a_branch_not_taken_do_not_raise():
    """`x[x[2]:0]` is empty whatever the data: its argmin fails while staging, inside a
    branch that only runs when the slice is not empty (fuzzer seed 3002506)."""
    x = np.array([-4, -2, 1, 4, 1])
    assert jit(_always_empty)(x) == -1
    assert jit(_empty_unless)(x, 4) == _empty_unless(x, 4) == 0
    assert jit(_empty_unless)(x, 1) == -1


def test_bounds_mixing_data_and_scalar_arguments_are_bounded():
    """`x[x[2]:b]` with b a Python int argument: specialising b would not fix the shape
    (it was refused with a ConcretizationError)."""
    x = np.array([-4, -2, 1, 4, 1])
    for b in (0, 3, 5, -1):
        assert jit(lambda x, b: x[x[2]:b].sum())(x, b) == x[x[2]:b].sum()


def _shannon_of_selection(x, t):
    sel = x[x > t]
    p = sel / sum(sel)                       # Python's builtin sum
    return -sum(p * np.log(p)), sum(sel, 10), sum(sel > 0.5)


@pytest.mark.parametrize("t", [0.3, 0.9])
def test_builtin_sum_of_a_selection(t):
    """`sum(x)` of an array of run-time length: the sum of its rows plus `start`."""
    check(_shannon_of_selection, np.random.default_rng(9).random(50), t, rtol=1e-13)


def test_builtin_sum_of_an_empty_selection_is_start_in_the_result_dtype():
    """Python returns `start` itself for an empty array; the compiled program's type
    cannot depend on the run-time length, so it is `start` in the dtype a non-empty
    sum has (documented in docs/semantics.md)."""
    got = jit(_shannon_of_selection)(np.random.default_rng(9).random(50), 1.5)
    assert got[1] == 10 and got[1].dtype == np.float64
    assert got[2] == 0 and got[2].dtype == np.int64


def _template_matches(sig, r):
    """Sample entropy's inner step (EntropyHub's SampEn/ApEn): the template tiled once
    per candidate of a selection, against the candidates' windows."""
    ix = np.where(np.abs(sig) > r)[0]
    ix = ix[ix + 2 < sig.shape[0]]
    p1 = np.tile(sig[0:3], (ix.shape[0], 1))
    p2 = sig[np.expand_dims(ix, axis=1) + np.arange(0, 3)]
    close = np.amax(abs(p1 - p2), axis=1) <= r
    return np.sum(close), p1.shape, np.expand_dims(ix, 0).shape


def _fuzzy_row_distances(sig):
    """FuzzEn's loop: a row tiled as many times as rows remain, a length that changes
    with the index, which no longer unrolls the loop."""
    out = 0.0
    for p in range(sig.shape[0] - 1):
        mu = np.max(np.abs(np.tile(sig[p], (sig.shape[0] - p - 1, 1)) - sig[p + 1:, None]),
                    axis=1)
        out += np.exp(-mu).sum()
    return out


@pytest.mark.parametrize("r", [0.5, 1.0, 5.0])          # 5.0: an empty selection
def test_tile_by_a_run_time_count_and_expand_dims(r):
    check(_template_matches, np.random.default_rng(10).normal(size=40), r)


def test_tile_by_a_loop_dependent_count_stays_one_loop():
    x = np.random.default_rng(11).normal(size=(30, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NpxlaPerformanceWarning)
        check(_fuzzy_row_distances, x, rtol=1e-12)
    assert jit(_fuzzy_row_distances).lower(x).as_text().count("stablehlo.while") >= 1


def _tiled_by_selection_length(x):
    return np.tile(x[:2], (len(x[x > 0]) - 2, 1)).sum()


def test_tile_by_a_negative_run_time_count_raises_numpys_error():
    check(_tiled_by_selection_length, np.array([1.0, 2.0, 3.0, -1.0]))
    x = np.array([1.0, -2.0, -3.0])
    with pytest.raises(ValueError, match="negative dimensions") as expected:
        _tiled_by_selection_length(x)
    with pytest.raises(ValueError, match="negative dimensions"):
        jit(_tiled_by_selection_length)(x)
    del expected


def _tiled_window(sig, r):
    """A window of run-time length (its end from a loop index) tiled once per selected
    candidate (EntropyHub's ApEn/SampEn template)."""
    total = 0
    for k in range(1, 4):
        ix = np.where(np.abs(sig) > r)[0]
        ix = ix[ix + k < sig.shape[0]]
        p1 = np.tile(sig[0:1 + k], (ix.shape[0], 1))
        total += p1.shape[0] * p1.shape[1] + p1.sum()
    return total


@pytest.mark.parametrize("r", [0.5, 5.0])
def test_tile_of_a_window_of_run_time_length(r):
    check(_tiled_window, np.random.default_rng(12).normal(size=30), r, rtol=1e-13)


def _index_of_a_huge_loop(x):
    s = 0.0
    for k in range(1, 2**40):
        s += np.arange(k).sum() * x[0]
        if s > 10:
            break
    return s


def test_a_loop_too_long_to_unroll_is_refused_not_unrolled():
    """A value decided by the index of a loop of 2**40 trips: refused with the loop's
    location (it was a MemoryError for a 2**40-element buffer, then an endless
    unrolling)."""
    with pytest.raises(TranspileError) as e:
        jit(_index_of_a_huge_loop)(np.ones(2))
    assert "too large to unroll" in str(e.value)


def _strides_by_outer_index(s):
    # the inner trip count comes from the outer index, and the inner index is a step:
    # nolds' `_genhurst` (`S[np.arange(tt, L, tt)]` for tt in range(1, Tmax + 1))
    n = len(s)
    out = np.zeros(4)
    for t_max in range(2, 6):
        acc = 0.0
        for tt in range(1, t_max + 1):
            d = s[np.arange(tt, n, tt)] - s[np.arange(tt, n, tt) - tt]
            acc += np.mean(d ** 2)
        out[t_max - 2] = acc
    return out


def test_an_inner_trip_count_from_an_outer_index_unrolls_both_loops():
    """Refused before ('whose trip count is only known at run time'): the inner loop's
    count was traced because the outer loop was staged. The outer loop, of static
    length, is unrolled (with a warning saying why), then the inner one."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(_strides_by_outer_index, np.cumsum(np.random.default_rng(3).normal(size=40)),
              rtol=1e-13)
    texts = [str(w.message) for w in caught if w.category is NpxlaPerformanceWarning]
    assert any("the trip count of a loop inside this one depends on its index" in t
               for t in texts)


def _inner_count_from_a_long_loop(s):
    total = 0.0
    for t_max in range(1, 2**20):
        for tt in range(1, t_max % 7 + 2):
            total += s[np.arange(tt, len(s), tt)].sum()
        if total > 50:
            break
    return total


def test_an_outer_loop_of_run_time_length_is_still_refused():
    # the outer count is data: nothing to unroll, so the refusal names the loop
    with pytest.raises(TranspileError) as e:
        jit(_inner_count_from_a_long_loop)(np.ones(8))
    assert "too large to unroll" in str(e.value) or "only known at run time" in str(e.value)
