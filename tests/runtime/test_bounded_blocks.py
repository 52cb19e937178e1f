"""Products of big bounded operands by tiles (runtime/numpy/linalg/bounded_blocks.py): the
same values as NumPy's for every window, edge and orientation, and only the window's
values multiplied (infinities outside it do not leak in)."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.numpy.linalg import bounded_blocks


def _columns(M, v, lo, hi):
    out = np.zeros(M.shape[0])
    for j in range(lo, hi):
        out[j] = M[j, :j] @ v[:j] + (M[j + 1:, :j] @ v[:j]).sum()
    return out


def _rows(M, v, lo, hi):
    out = np.zeros(M.shape[1], dtype=M.dtype)
    for j in range(lo, hi):
        out[j] = (v[j:] @ M[j:, j:]).sum() + (M[:j, j] @ v[:j])
    return out


def _cholesky(A):
    """Column j at once, its diagonal included (the example's variant takes the
    diagonal first)."""
    L = np.zeros_like(A)
    for j in range(A.shape[0]):
        col = A[j:, j] - L[j:, :j] @ L[j, :j]
        L[j:, j] = col / np.sqrt(col[0])
    return L


@pytest.mark.parametrize("n", [bounded_blocks.MIN_LENGTH, bounded_blocks.MIN_LENGTH + 3])
def test_tiled_products_match_numpy(n):
    rng = np.random.default_rng(n)
    M, v = rng.normal(size=(n, n)), rng.normal(size=n)
    for fn in (_columns, _rows):
        for lo, hi in ((0, n), (n - 3, n), (0, 2)):
            np.testing.assert_allclose(jit(fn)(M, v, lo, hi), fn(M, v, lo, hi),
                                       rtol=1e-12, atol=1e-12)


def test_values_outside_the_window_are_never_multiplied():
    n = bounded_blocks.MIN_LENGTH + 10
    rng = np.random.default_rng(1)
    M, v = rng.normal(size=(n, n)), rng.normal(size=n)
    M[np.triu_indices(n)] = np.inf          # above and on the diagonal: outside every window
    v_full = v.copy()
    got, want = jit(_columns)(M, v_full, 0, n), _columns(M, v_full, 0, n)
    assert np.isfinite(want[1:-1]).all()
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("dt", [np.float32, np.complex128])
def test_other_float_dtypes(dt):
    n = bounded_blocks.MIN_LENGTH + 1
    rng = np.random.default_rng(2)
    M = rng.normal(size=(n, n)).astype(dt)
    v = rng.normal(size=n).astype(dt)
    got, want = jit(_rows)(M, v, 1, n), _rows(M, v, 1, n)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-4 if dt == np.float32 else 1e-12)


def test_the_cholesky_loop_uses_tiles():
    n = bounded_blocks.MIN_LENGTH + 8
    B = np.random.default_rng(3).normal(size=(n, n))
    A = B @ B.T / n + np.eye(n)
    np.testing.assert_allclose(jit(_cholesky)(A), np.linalg.cholesky(A), rtol=1e-10,
                               atol=1e-12)
    text = jit(_cholesky).lower(A).as_text()
    assert f"tensor<{bounded_blocks.ROWS}x{bounded_blocks.BLOCK}xf64>" in text
