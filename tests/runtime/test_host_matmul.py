"""Large matrix products on the CPU run NumPy's own BLAS call (syrk for `X.T @ X` and
`X @ X.T`, gemm for others) through a host callback (`runtime/numpy/linalg/host_matmul.py`) that
reads XLA's buffers and writes the result's in place: the result is NumPy's, bit for
bit, in every spelling and inside loops; a centred Gram product (`X = data - mean`)
hands the data and the mean over and NumPy centres them; matrix-vector products of a
large matrix are NumPy's gemv, transposed matrices read untransposed; small products,
small mat-vecs and integer products stay in XLA."""
import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.runtime.lowering.callbacks import CPU_BUFFER_CALLBACK_TARGET as CPU_CALLBACK_TARGET

ROWS, COLS = 3000, 120           # 43 M multiply-adds: above host_matmul.GRAM_MIN_MACS


def xtx(X):
    return X.T @ X


def xxt(X):
    return X @ X.T


def spelled(X):
    return np.dot(X.T, X) + X.T.dot(X) + np.matmul(X.T, X)


def centred(data):
    X = data - data.mean(axis=0)
    return (X.T @ X) / (data.shape[0] - 1)


def in_loop(X, steps):
    out = np.zeros((X.shape[1], X.shape[1]))
    for k in range(steps):
        Y = X * (k + 1)
        out += Y.T @ Y
    return out


def covariance(X):
    return np.cov(X, rowvar=False)


def not_gram(X, Y):
    return X.T @ Y


def _calls_back(fn, *args):
    return CPU_CALLBACK_TARGET in jit(fn).lower(*args).as_text()


@pytest.fixture(scope="module")
def data():
    return np.random.default_rng(7).normal(size=(ROWS, COLS))


@pytest.mark.parametrize("fn", [xtx, spelled])
def test_gram_products_equal_numpy_bit_for_bit(fn, data):
    assert _calls_back(fn, data)
    np.testing.assert_array_equal(jit(fn)(data), fn(data))


def test_centred_data(data):
    """The mean is XLA's (its last bit may differ from NumPy's), the product NumPy's."""
    assert _calls_back(centred, data)
    check(centred, data, rtol=1e-12, atol=1e-12)


def centred_rows(data):
    X = data - data.mean(axis=0, keepdims=True)      # a (1, n) row; X @ X.T
    return X @ X.T


def centred_kept(data):
    X = data - data.mean(axis=0)
    return X.T @ X, X


def _callback_operands(fn, *args):
    text = jit(fn).lower(*args).as_text()
    line = next(ln for ln in text.splitlines() if CPU_CALLBACK_TARGET in ln)
    return line.split("custom_call", 1)[1].split("(", 1)[1].split(")")[0].count("%")


def test_the_centring_is_numpys_too(data):
    """The callback takes the data and the mean, not the 80 MB-class centred copy."""
    assert _callback_operands(centred, data) == 2
    check(centred_kept, data, rtol=1e-12, atol=1e-12)
    assert _callback_operands(centred_rows, data.T.copy()) == 2
    check(centred_rows, data.T.copy(), rtol=1e-12, atol=1e-12)
    shifted = data + 1e6                               # cancellation: NumPy's own rounding
    mean = jit(lambda d: d.mean(axis=0))(shifted)
    np.testing.assert_array_equal(jit(centred)(shifted),
                                  ((shifted - mean).T @ (shifted - mean)) / (ROWS - 1))


def test_the_other_side(data):
    X = np.ascontiguousarray(data.T)               # 120 x 3000: X @ X.T is 120 x 120
    assert _calls_back(xxt, X)
    np.testing.assert_array_equal(jit(xxt)(X), xxt(X))


def test_float32(data):
    X = data.astype(np.float32)
    assert _calls_back(xtx, X)
    got = jit(xtx)(X)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, xtx(X))


def test_inside_a_staged_loop(data):
    assert _calls_back(in_loop, data, 20)
    np.testing.assert_allclose(jit(in_loop)(data, 20), in_loop(data, 20), rtol=1e-13)


def test_np_cov(data):
    check(covariance, data, rtol=1e-12)


def gemm(A, B, alpha):
    T = alpha * (A @ B)
    return T @ B.T + np.dot(A.T, B)


def test_general_products_equal_numpy_bit_for_bit():
    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(700, 700)), rng.normal(size=(700, 700))
    assert _calls_back(gemm, A, B, 0.5)
    np.testing.assert_array_equal(jit(gemm)(A, B, 0.5), gemm(A, B, 0.5))


def test_small_and_other_products_stay_in_xla(data):
    small = data[:100, :20].copy()
    assert not _calls_back(xtx, small)
    assert not _calls_back(not_gram, small, small * 2)        # 20 x 100 x 20: small
    assert not _calls_back(xtx, data.astype(np.int64))
    square = np.ones((400, 400))          # a mat-vec below MATVEC_LIMITS
    assert not _calls_back(lambda A, x: A @ x, square, np.ones((400, 1)))
    np.testing.assert_array_equal(jit(xtx)(small.astype(np.int64)), xtx(small.astype(np.int64)))
    np.testing.assert_allclose(jit(not_gram)(small, small * 2), not_gram(small, small * 2),
                               rtol=1e-12, atol=1e-9)


def scaled_product(R, M):
    return (R @ M) * 2.0


def loop_of_products(X, W, tol):
    while np.abs(X).max() > tol:          # a staged loop: its trip count is data's
        X = (X @ W) * 0.5
    return X


def test_mid_sized_products_are_numpys_in_the_body_only():
    """From 2^22 multiply-adds a product in the function's body is NumPy's (here 120 x
    3000 x 120, 20 x 1024 x 1024); inside a loop it must be far larger. (`X.T @ Y` is a
    dot contracting both first axes, which stays XLA's.)"""
    rng = np.random.default_rng(5)
    A, B = rng.normal(size=(120, 3000)), rng.normal(size=(3000, 120))
    assert _calls_back(scaled_product, A, B)
    np.testing.assert_array_equal(jit(scaled_product)(A, B), scaled_product(A, B))
    R, M = rng.normal(size=(20, 1024)), rng.normal(size=(1024, 1024))
    assert _calls_back(scaled_product, R, M)
    np.testing.assert_array_equal(jit(scaled_product)(R, M), scaled_product(R, M))
    X, W = rng.normal(size=(256, 256)), rng.normal(size=(256, 256)) / 256
    assert not _calls_back(loop_of_products, X, W, 1e-3)      # 2^24 in a loop: XLA's
    np.testing.assert_allclose(jit(loop_of_products)(X, W, 1e-3),
                               loop_of_products(X, W, 1e-3), rtol=1e-9, atol=1e-15)


def test_functions_split_over_devices_keep_xlas_dot(data):
    """An SPMD program cannot call back into Python: the product stays a dot there."""
    f = jit(xtx, shard={"X": 0}, device="cpu")
    assert CPU_CALLBACK_TARGET not in f.lower(data).as_text()
    np.testing.assert_allclose(f(data), xtx(data), rtol=1e-12, atol=1e-9)


def matvecs(A, x, y):
    """Every spelling of a product with a vector, on both sides, transposed too."""
    return A @ x, A.T @ y, y @ A, x @ A.T, np.dot(A, x), A.dot(x[:, None])


def matvec_steps(A, x, steps):
    for _ in range(steps):
        x = A.T @ (A @ x)
        x = x / np.abs(x).max()
    return x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matrix_vector_products_of_a_large_matrix_equal_numpy_bit_for_bit(dtype):
    rng = np.random.default_rng(9)
    A = rng.normal(size=(1100, 1000)).astype(dtype)      # above MATVEC_LIMITS
    x, y = rng.normal(size=1000).astype(dtype), rng.normal(size=1100).astype(dtype)
    text = jit(matvecs).lower(A, x, y).as_text()
    assert text.count(CPU_CALLBACK_TARGET) == 6 and "stablehlo.dot" not in text
    for got, want in zip(jit(matvecs)(A, x, y), matvecs(A, x, y)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    check(matvec_steps, A.astype(np.float64), x.astype(np.float64), 4, rtol=0, atol=0)


def matvec_in_body_and_loop(A, x, steps):
    y = A @ x
    for _ in range(steps):
        x = A @ x
        x = x / np.abs(x).max()
    return y, x


@pytest.mark.parametrize("side, body, loop", [(400, 0, 0), (600, 1, 0), (1030, 1, 1)])
def test_mid_sized_matrix_vector_products_by_where_they_are_staged(side, body, loop):
    """From 2**18 elements in the function's body, from 2**20 in a loop (whose trips
    each pay the callback's fixed cost): NumPy's `gemv`, bit for bit."""
    rng = np.random.default_rng(11)
    A, x = rng.normal(size=(side, side)), rng.normal(size=side)
    text = jit(matvec_in_body_and_loop).lower(A, x, 3).as_text()
    assert text.count(CPU_CALLBACK_TARGET) == body + loop
    assert text.count("stablehlo.dot") == 2 - body - loop
    if body and loop:
        check(matvec_in_body_and_loop, A, x, 3, rtol=0, atol=0)
