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
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        f(x, bad)
    assert f._hits > hits                     # the failed call came in on the fast path
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
