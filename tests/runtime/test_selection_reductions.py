"""Reductions of a mask selection (`x[mask].sum()`, `.mean()`, `.var()`, elementwise
expressions of it) read the selected elements in place instead of compacting them
(`BoundedArray.selection`); anything that needs their order, or a write into the
selection, uses the compacted buffer. Compared with NumPy, values and the caller's
arrays."""
import numpy as np
import pytest

from npxla import jit


def ring_means(image, r, nbins):
    out = np.zeros(nbins)
    for b in range(nbins):
        mask = (r >= b) & (r < b + 1)
        out[b] = image[mask].mean()
    return out


def stats(x, t):
    v = x[x > t]
    return v.sum(), v.mean(), v.var(), v.std(), np.abs(v).max(), ((v - t) ** 2).sum(), \
        np.count_nonzero(v > 0.5), v.min(), (v > 2).any(), np.extract(x > t, x).prod()


def rows_selected(X, t):
    m = X[:, 0] > t
    return X[m].sum(axis=0), X[m].max(axis=0), X[m].sum(axis=1), X[m].sum()


def ordered(x, t):
    v = x[x > t]
    return v.argmax(), v.cumsum()[-1], v[0] - v[-1]


def written_then_summed(x, t):
    v = x[x > t]
    v[0] = 100.0
    return v.sum()


def written_through_a_view(x, t):
    v = x[x > t]
    w = v[1:]
    w[0] = -50.0
    return v.sum(), w.sum()


def source_written_after(x, t):
    v = x[x > t]
    x[:] = 0.0
    return v.sum(), x.sum()


def _check(fn, *args, rtol=1e-12):
    want_args = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    got_args = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*want_args)
    got = jit(fn)(*got_args)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12)
        assert np.asarray(g).dtype == np.asarray(w).dtype
    for g, w in zip(got_args, want_args):
        if isinstance(g, np.ndarray):
            np.testing.assert_array_equal(g, w)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_ring_means_compile_without_a_scatter():
    rng = np.random.default_rng(0)
    y, x = np.indices((40, 40))
    r = np.hypot(y - 13.2, x - 22.7)
    image = rng.normal(size=(40, 40))
    _check(ring_means, image, r, 40)        # the last rings are empty: NaN, as NumPy
    hlo = jit(ring_means).lower(image, r, 40).as_text("hlo")
    assert " scatter(" not in hlo and "scatter" in jit(ring_means).lower(
        image, r, 40).as_text()          # staged, then dropped by XLA: nothing reads it


@pytest.mark.parametrize("t", [-0.5, 0.3, 1.2])
def test_reductions_of_a_selection(t):
    x = np.random.default_rng(1).normal(size=500)
    _check(stats, x, t, rtol=1e-10)


def test_rows_selected_by_a_mask():
    X = np.random.default_rng(2).normal(size=(200, 4))
    _check(rows_selected, X, 0.1)


def test_order_dependent_uses_keep_the_compacted_buffer():
    x = np.random.default_rng(3).normal(size=300)
    _check(ordered, x, 0.2)


@pytest.mark.parametrize("fn", [written_then_summed, written_through_a_view,
                                source_written_after])
def test_writes_void_the_shortcut(fn):
    x = np.random.default_rng(4).normal(size=300)
    _check(fn, x, 0.2)


def test_empty_selections_follow_numpy():
    x = np.random.default_rng(5).normal(size=100)
    f = jit(lambda x, t: x[x > t].sum())
    assert f(x, 10.0) == 0.0
    with pytest.raises(ValueError, match="zero-size array"):
        jit(lambda x, t: x[x > t].max())(x, 10.0)


def with_where(x, A, t, k):
    """`where=` on selections and on slices whose length is the loop index."""
    v = x[x > t]
    out = np.zeros((k, 5))
    rows = np.zeros((k, 3))
    cols = np.zeros((k, A.shape[0]))
    for i in range(k):
        w, u = x[i:], x[:i]
        m = w > 0.1
        out[i] = (np.sum(w, where=m), w.max(where=m, initial=-1.0),
                  np.prod(u, where=u < 0.5), v.sum(where=v < 1.0),
                  np.min(u, where=u > 0, initial=9.0))
        B = A[:i]
        rows[i] = np.sum(B, axis=0, where=B > 0)
        cols[i, :i] = np.sum(B, axis=1, where=np.array([True, False, True]))
    return out, rows, cols


@pytest.mark.parametrize("t, k", [(0.2, 12), (10.0, 5)])
def test_where_on_bounded_reductions(t, k):
    """Refused before (`np.sum with where=`); the mask is broadcast like NumPy's against
    the run-time length, and the padding stays out whatever the mask says there."""
    rng = np.random.default_rng(7)
    _check(with_where, rng.normal(size=40), rng.normal(size=(12, 3)), t, k)


def with_initial(x, t, k):
    v = x[x > t]
    w = x[k:]
    return v.max(initial=-1.0), v.min(initial=5.0), v.sum(initial=2.5), \
        np.prod(v, initial=0.5), np.max(w, initial=0.25), w.min(initial=-7.0)


@pytest.mark.parametrize("t, k", [(0.2, 3), (10.0, 100)])
def test_initial_joins_a_bounded_reduction_and_covers_an_empty_one(t, k):
    """`initial=` on a selection or a slice with a run-time length: the empty case
    (nothing above `t`, `k` past the end) gives `initial` instead of NumPy's
    zero-size error."""
    x = np.random.default_rng(6).normal(size=100)
    _check(with_initial, x, t, k)
