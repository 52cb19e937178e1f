"""Reductions of a large unaligned argument read it in place: the argument goes in as
its part from the first 64-byte line on and a copy of the few elements before it
(`runtime/xla/superset_heads.py`). Checked against NumPy at each misalignment NumPy's
heap gives, with NaN bytes before the array (they must never reach a result), with the
extreme values and NaNs placed in the head, at window edges and at the end, and for
programs that still need a copy (those keep it)."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.xla import superset
from test_superset_windows import after_nans

needs_superset = pytest.mark.skipif(not superset._ENABLED, reason="x86-64 only")

N = 100_000          # 800 KB of float64: above the size where supersets are tried


def summary(x):
    return x.mean(), x.std(), x.min(), x.max(), np.argmax(x), np.argmin(x)


def energy(x):
    return np.sum(np.where(x > 0.5, x * x, -x)), np.abs(x - 1.0).max()


def centred(x):
    d = x - 0.5
    return x.sum(), d[2], d[-1], np.argmax(d), np.abs(d).min(), (d * d).sum()


def matrix_statistics(A):
    D = A - 0.5
    return A.std(), D[3, 7], D[-1, -1], (D * D).sum(), np.abs(D).max(), A.mean(), \
        (D * 2.0).sum(axis=0)


def column_totals(x):
    return x.reshape(-1, 500).sum(axis=0)


def _heads(f):
    """{parameter: head length} of the variant the calls took, or None."""
    (variant,) = [v for vs in f._cache.values() for v in vs]
    taken = variant.entry._shift._heads
    return next(iter(taken.values())) if len(taken) == 1 else None


def _check(fn, x, exact=(), rtol=1e-12):
    """`fn(x)` under jit equals NumPy's on three calls (the variant is compiled at the
    second); the results at positions `exact` bit for bit."""
    f = jit(fn)
    f.clear_cache()
    want = fn(x)
    for _ in range(3):
        got = f(x)
        for i, (g, w) in enumerate(zip(got, want)):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            if i in exact:
                np.testing.assert_array_equal(g, w)
            else:
                np.testing.assert_allclose(g, w, rtol=rtol)
    return f


@needs_superset
@pytest.mark.parametrize("offset", [16, 32, 48])
def test_statistics_read_the_array_in_place(offset):
    x = after_nans(np.random.default_rng(offset).normal(size=N), offset)
    f = _check(summary, x, exact=(2, 3, 4, 5))
    assert _heads(f) == {0: (64 - offset) // 8}, "every pass should read x in place"


@needs_superset
@pytest.mark.parametrize("where", [0, 5, 6, 64, N - 1] + [
    pytest.param(w, marks=pytest.mark.slow) for w in (1, 7, 63, 70, 127, 128, N // 2)])
def test_extremes_in_the_head_at_window_edges_and_at_the_end(where):
    """The head is the first 6 elements here (16 bytes past a line); the blocked
    argmax's first window combines the head's and the rest's."""
    values = np.random.default_rng(where).random(N)
    values[where] = 7.0
    values[(where + 3) % N] = -7.0
    x = after_nans(values, 16)
    f = _check(summary, x, exact=(2, 3, 4, 5))
    assert _heads(f)


@needs_superset
@pytest.mark.parametrize("where", [0, 6, N - 1] + [
    pytest.param(w, marks=pytest.mark.slow) for w in (3, 200)])
def test_nans_and_infinities_anywhere(where):
    values = np.random.default_rng(1).random(N)
    values[where] = np.nan
    x = after_nans(values, 16)
    _check(summary, x, exact=(0, 1, 2, 3, 4, 5))
    values[where] = np.inf
    values[(where + 1) % N] = -np.inf          # the sum is NaN, no element is
    _check(summary, after_nans(values, 16), exact=(0, 1, 2, 3, 4, 5))


@needs_superset
@pytest.mark.parametrize("dtype, offset", [(np.float32, 4), (np.float32, 60),
                                           (np.int64, 40), (np.int32, 12)])
def test_other_dtypes_and_offsets(dtype, offset):
    values = (np.random.default_rng(offset).random(N) * 1000).astype(dtype)
    x = after_nans(values, offset)
    f = _check(lambda x: (x.sum(), x.min(), x.max(), np.argmax(x)), x,
               exact=(1, 2, 3) if dtype == np.float32 else (0, 1, 2, 3), rtol=1e-5)
    assert _heads(f) == {0: (64 - offset) // np.dtype(dtype).itemsize}


@needs_superset
def test_elementwise_work_before_a_reduction():
    """Reductions of elementwise work on x: in place, either sliced from the superset
    (XLA fuses the work into its own reduction loop) or headless (the work applies to
    the two pieces apart: `std`'s second pass)."""
    x = after_nans(np.random.default_rng(3).random(N), 32)
    f = _check(energy, x, exact=(1,))
    (variant,) = [v for vs in f._cache.values() for v in vs]
    assert variant.entry._shift._variants[(4,)]
    f = _check(lambda x: (x.var(ddof=1), np.sqrt(np.mean((x - 0.5) ** 2))), x)
    assert _heads(f) == {0: 4}
    values = np.random.default_rng(5).random(N)
    values[1] = 2.0                  # the maximum of d in the head
    f = _check(centred, after_nans(values, 16), exact=(1, 2, 3, 4))
    assert _heads(f) == {0: 6}


@needs_superset
def test_axis_reductions_keep_the_copy():
    """A column sum of the reshaped argument would read a rebuilt copy: not kept."""
    x = after_nans(np.random.default_rng(4).random(N), 16)
    f = jit(column_totals)
    f.clear_cache()
    for _ in range(3):
        np.testing.assert_allclose(f(x), column_totals(x), rtol=1e-12)
    (variant,) = [v for vs in f._cache.values() for v in vs]
    assert variant.entry._shift._variants == {(2,): False}


@needs_superset
@pytest.mark.parametrize("offset", [16, 48])
def test_whole_reductions_of_a_matrix(offset):
    """An n-d argument is the reshaped concatenation; elementwise work applies to the
    flat pieces and is reshaped after, so whole reductions read the matrix in place and
    elements of the result keep their places."""
    A = after_nans(np.random.default_rng(offset).random((300, 250)), offset)
    _check(matrix_statistics, A, exact=(1, 2, 4))     # with column sums of D too
    f = _check(lambda A: matrix_statistics(A)[:6], A, exact=(1, 2, 4))
    assert _heads(f) == {0: (64 - offset) // 8}


def integer_sums(x):
    return x.sum(), (x * x).sum(), x.max()


@needs_superset
@pytest.mark.parametrize("offset", [16, 48])
def test_integer_reductions_split_in_blocks(offset):
    """Whole integer reductions are staged as blocks of the flat array combined
    elementwise (`lowering/split_reductions`), which read the argument in place: from
    the aligned superset sliced back (XLA fuses each block's slice into the loop that
    combines them), or, where the superset is refused, from the rebuilt argument (the
    first block joins the head to the part it needs); for a vector and a matrix."""
    x = after_nans(np.random.default_rng(offset).integers(-1000, 1000, N), offset)
    for arg in (x, x.reshape(-1, 500)):
        f = _check(integer_sums, arg, exact=(0, 1, 2))
        (variant,) = [v for vs in f._cache.values() for v in vs]
        shifter = variant.entry._shift
        assert shifter._heads or any(v not in (None, False) for v in
                                     shifter._variants.values()), "x should not be copied"
