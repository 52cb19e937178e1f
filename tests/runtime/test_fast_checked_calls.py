"""Programs with run-time checks on the fast path (`runpath._checked`): a call whose
checks pass returns from JAX's C++ dispatch; one whose check fails is run again on the
general path, which raises NumPy's exception (or widens a speculative window and
returns the right result), and the calls after it take the fast path again."""
import numpy as np
import pytest

from npxla import jit


def gather_sum(x, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        s += x[idx[k]]
    return s


def csr_rows(indptr, indices, data, x):
    """Slices with data-dependent bounds: speculative windows (`bounded_window`)."""
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        y[i] = np.dot(data[indptr[i]:indptr[i + 1]], x[indices[indptr[i]:indptr[i + 1]]])
    return y


def _runner_installed(f):
    return bool(f._fast)


def test_checked_program_takes_the_fast_path_and_still_raises():
    f = jit(gather_sum)
    x = np.arange(10.0)
    good = np.array([1, 2, 3, 9, -10])
    assert f(x, good) == gather_sum(x, good)
    assert f(x, good) == gather_sum(x, good)
    assert _runner_installed(f)
    hits = f._hits
    bad = np.array([1, 2, 10, 3, 4])
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        gather_sum(x, bad)
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10") \
            as raised:
        f(x, bad)
    assert f._hits > hits                     # the failed call came in on the fast path
    # raised by the general path's run, outside the fast path's handler: the user sees
    # NumPy's error alone, not "During handling of _ChecksFailed, another exception..."
    assert raised.value.__context__ is None and raised.value.__cause__ is None
    for _ in range(3):
        assert f(x, good) == gather_sum(x, good)
    assert _runner_installed(f)


def test_a_window_that_overflows_on_the_fast_path_is_widened():
    rng = np.random.default_rng(8)

    def matrix(counts):                 # 1,000 nonzeros over 100 rows either way
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        return indptr, rng.integers(0, 300, 1000), rng.normal(size=1000), \
            rng.normal(size=300)

    f = jit(csr_rows)
    short = matrix(np.full(100, 10))
    np.testing.assert_allclose(f(*short), csr_rows(*short), rtol=1e-12)
    np.testing.assert_allclose(f(*short), csr_rows(*short), rtol=1e-12)
    assert _runner_installed(f)
    hits = f._hits
    long = matrix(np.array([0] * 90 + [100] * 10))     # rows longer than the window
    np.testing.assert_allclose(f(*long), csr_rows(*long), rtol=1e-12)
    assert f._hits > hits
    np.testing.assert_allclose(f(*short), csr_rows(*short), rtol=1e-12)
    np.testing.assert_allclose(f(*long), csr_rows(*long), rtol=1e-12)


def test_an_error_after_a_widened_window_is_the_users_alone():
    # the first run overflows its window (the rows are longer), the rerun with a wider
    # one finds an index out of bounds: NumPy's IndexError, not raised inside the
    # handler of npxla's rerun signal (no `During handling of WindowOverflow`)
    rng = np.random.default_rng(9)
    f = jit(csr_rows)

    def matrix(counts, top=300):
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        return indptr, rng.integers(0, top, 1000), rng.normal(size=1000), \
            rng.normal(size=300)

    short = matrix(np.full(100, 10))
    np.testing.assert_allclose(f(*short), csr_rows(*short), rtol=1e-12)
    indptr, indices, data, x = matrix(np.array([0] * 90 + [100] * 10))
    indices[-1] = 300
    with pytest.raises(IndexError) as want:
        csr_rows(indptr, indices, data, x)
    with pytest.raises(IndexError) as got:
        f(indptr, indices, data, x)
    assert str(got.value) == str(want.value)
    assert got.value.__context__ is None


def fill_sums(a, out):
    """Fills the caller's `out` (NumPy write-back) with bounds-checked reads."""
    for i in range(out.shape[0]):
        out[i] = a[i] + a[i - 1]


def fill_head(a, big):
    """Writes a small region of a large argument (`writeback.Plan`'s regions)."""
    for i in range(8):
        big[i + 3] = a[i] * 2.0


def _same_call(fn, *args):
    want = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    expected = fn(*want)
    got = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    result = jit(fn)(*got)
    assert (result is None and expected is None) or np.array_equal(result, expected)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def _fast_after_calls(fn, *args):
    """`jit(fn)` after three calls agreeing with NumPy, its fast runner installed."""
    for _ in range(3):
        _same_call(fn, *args)
    f = jit(fn)
    assert _runner_installed(f)
    return f


def test_numpy_write_back_on_the_fast_path():
    a = np.arange(12.0)
    f = _fast_after_calls(fill_sums, a, np.zeros(10))
    hits = f._hits
    out = np.zeros(10)
    f(a * 3, out)
    np.testing.assert_array_equal(out, (a * 3)[:10] + np.roll(a * 3, 1)[:10])
    assert f._hits > hits


def test_arguments_that_share_memory_leave_the_fast_path():
    f = jit(fill_sums)
    a = np.arange(12.0)
    f(a, np.zeros(12))
    f(a, np.zeros(12))
    assert _runner_installed(f)
    x = np.arange(12.0)
    y = x.copy()
    fill_sums(y, y)                 # writes read back in later iterations
    f(x, x)
    np.testing.assert_array_equal(x, y)


def scatter(idx, vals, out):
    for k in range(idx.shape[0]):
        out[idx[k]] = vals[k]


def test_a_failed_check_with_write_back_raises_as_on_the_general_path():
    vals = np.arange(1.0, 6.0)
    good = np.array([4, 0, 2, 1, 3])
    f = _fast_after_calls(scatter, good, vals, np.zeros(5))
    hits = f._hits
    out = np.full(5, -1.0)
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 5"):
        f(np.array([4, 0, 7, 1, 3]), vals, out)
    assert f._hits > hits
    # as on the general path, a call that raises writes nothing back
    np.testing.assert_array_equal(out, np.full(5, -1.0))
    _same_call(scatter, good, vals, np.zeros(5))


def test_region_write_back_on_the_fast_path():
    f = _fast_after_calls(fill_head, np.arange(8.0), np.zeros(100_000))
    hits = f._hits
    _same_call(fill_head, np.arange(8.0) + 1, np.ones(100_000))
    assert f._hits > hits


# --- results that are the caller's own arrays ------------------------------------------
def scale_in_place(A, s):
    A *= s
    return A


def unchanged(x):
    return x


def row_and_total(A, v):
    A[0] += v.sum()
    return A, A[0] * 2.0, A


def test_a_returned_argument_is_the_callers_array_on_the_fast_path():
    f = _fast_after_calls(scale_in_place, np.arange(6.0), 2.0)
    hits = f._hits
    A = np.arange(6.0)
    assert f(A, 3.0) is A
    np.testing.assert_array_equal(A, np.arange(6.0) * 3)
    assert f._hits > hits
    g = _fast_after_calls(unchanged, np.ones(3))
    x = np.ones(3)
    assert g(x) is x
    h = jit(row_and_total)
    B = np.zeros(4)
    for k in range(1, 4):             # the first call stages, the later ones are fast
        first, total, again = h(B, np.ones(2))
        assert first is B and again is B and B[0] == 2.0 * k and total == 4.0 * k
    assert _runner_installed(h) and h._hits >= 2


def test_a_returned_argument_passed_twice_leaves_the_fast_path():
    def add_into(A, B):
        A += B
        return A
    f = _fast_after_calls(add_into, np.arange(4.0), np.ones(4))
    D = np.arange(4.0)
    assert f(D, D) is D
    np.testing.assert_array_equal(D, np.arange(4.0) * 2)
