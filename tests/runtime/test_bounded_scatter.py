"""Writes of a run-time-length window through a view of a larger array, staged as a
scatter of the valid elements (runtime/numpy/indexing/bounded_scatter.py): NumPy's values for
every kind of region (flipped, strided, with inserted axes, 2-D), the caller's array
written back, aliases seeing the writes, and no whole-array copy per loop iteration
(the reason for the scatter)."""
import re

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.numpy.indexing import bounded_scatter
from tests.benchmarks.kernels import load_example


# the example's textbook loop: the diagonal entry written, then the column below it
_cholesky = load_example("cholesky").EXAMPLE.fn.__wrapped__


def _spd(n, seed=0):
    B = np.random.default_rng(seed).normal(size=(n, n))
    return B @ B.T / n + np.eye(n)


def _copies_in_loops(text, shape):
    """Copies of a `shape` array outside the entry computation (in loop bodies)."""
    pattern = re.escape(f"[{','.join(map(str, shape))}]") + r"\{[\d,]*\} copy\("
    bodies = [c for c in re.split(r"\n(?=\S)", text) if not c.startswith("ENTRY")]
    return sum(len(re.findall(pattern, c)) for c in bodies)


def test_cholesky_matches_numpy_and_copies_nothing_per_iteration():
    A = _spd(96)
    f = jit(_cholesky)
    np.testing.assert_allclose(f(A), _cholesky(A), rtol=1e-10, atol=1e-12)
    assert _copies_in_loops(f.lower(A).as_text("hlo"), A.shape) == 0


def _regions(x, k):
    y = x.copy()
    for i in range(k):
        y[::-1, i][i + 1:] = i                  # a view of a view: the plain write
        y[i, ::-1][:i] = -i
        y[::4, i:] = 100 + i                    # strided rows
        y[i, 1::3][i:] = y[i, 1::3][i:] - 1     # a view of a strided view
        y[i, i:] += 1.0                         # read-modify-write of a suffix
        y[None, i + 1, :i] = y[i, :i] * 2       # an inserted axis
        y[i:i + 3, :i] = 7.5                    # 2-D window (rows static, columns traced)
    return y


@pytest.mark.parametrize("k", [0, 1, 5, 9])
def test_region_kinds_match_numpy(k):
    x = np.arange(24 * 40, dtype=np.float64).reshape(24, 40)
    np.testing.assert_array_equal(jit(_regions)(x, k), _regions(x, k))


def _flipped(x, k):
    for i in range(k):
        x[::-1, 1][:i] = i                      # reversed rows of one column
        x[3, ::-1][i:] = -i
    return x


def test_flipped_regions_write_the_callers_array():
    x0 = np.zeros((10, 10))
    x, want = x0.copy(), _flipped(x0.copy(), 6)
    jit(_flipped)(x, 6)
    np.testing.assert_array_equal(x, want)


def _through_alias(a, k):
    v = a.T                                     # an alias made before the loop
    for i in range(k):
        a[i + 1:, i] = a[i, i] + i
    return v.sum(axis=0), v[0]


def test_aliases_see_the_scattered_writes():
    a = np.arange(100.0).reshape(10, 10)
    got, want = jit(_through_alias)(a.copy(), 7), _through_alias(a.copy(), 7)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def _cast(x, k):
    out = np.zeros((k + 2, 20), dtype=np.int32)
    for i in range(k):
        out[i, i:] = x[i:] * 1.7                # float values truncated into int32
    return out


def test_values_cast_like_setitem():
    x = np.linspace(-3, 3, 20)
    got, want = jit(_cast)(x, 8), _cast(x, 8)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def _fill(y, k):
    for i in range(k):
        y[i:] += 1.0
    return y


def test_only_small_windows_are_scattered():
    """A window about as large as its base keeps the select (one pass over the base
    anyway); a column of a matrix is scattered. Both give NumPy's values."""
    y = np.zeros(50)
    f = jit(_fill)
    np.testing.assert_array_equal(f(y.copy(), 9), _fill(y.copy(), 9))
    assert "stablehlo.scatter" not in f.lower(y, 9).as_text()
    A = _spd(bounded_scatter.SHARE + 2)
    assert "stablehlo.scatter" in jit(_cholesky).lower(A).as_text()


def _strided_rows(x, k):
    for i in range(k):
        x[i, ::3] = x[i, ::3] * 2 + i           # strided, at a traced row
        x[::-2, i] = -x[::-2, i]                # reversed and strided, at a traced column
    return x


def test_strided_writes_at_a_traced_index():
    """Refused before ("assigning to a strided slice together with a traced integer
    index"): each element is scattered to its place."""
    x = np.arange(9 * 11, dtype=np.float64).reshape(9, 11)
    got = x.copy()
    jit(_strided_rows)(got, 7)
    np.testing.assert_array_equal(got, _strided_rows(x.copy(), 7))
