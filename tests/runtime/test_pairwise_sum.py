"""Float sums of 8 to 256 elements along NumPy's inner loop are NumPy's pairwise sums to
the bit (`runtime/numpy/reductions/pairwise.py`); were XLA's tree, off in the last bits
for most lengths. Differential against NumPy with rtol=0: every dtype NumPy sums that
way, lengths around the block and split points, special values, the reductions built on
the sum (mean, var, std, nansum), batches of rows, and sums inside a staged loop."""
import numpy as np
import pytest

from npxla import jit

FLOATS = [np.float64, np.float32, np.float16]
LENGTHS = [8, 9, 15, 16, 17, 63, 64, 100, 127, 128, 129, 136, 200, 255, 256]


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.uniform(-3, 3, shape)
    if np.dtype(dtype) == np.float16:
        scale = 10.0 ** rng.uniform(-1, 1, shape)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def sums(x):
    return np.sum(x), x.mean(), np.var(x), x.std(), np.nansum(x), x.sum(keepdims=True)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_vector_sums_are_numpys_bits(n, dtype):
    x = _data(n, dtype, n)
    with np.errstate(all="ignore"):
        want = sums(x)
    for w, g in zip(want, jit(sums)(x)):
        _same(g, w)


def rows(x):
    return x.sum(axis=1), x.mean(axis=-1), x.std(axis=1, keepdims=True), np.sum(x)


@pytest.mark.parametrize("shape", [(5, 9), (7, 100), (3, 4, 65), (2, 128), (1, 256)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_row_sums_and_whole_sums_are_numpys_bits(shape, dtype):
    x = _data(shape, dtype, sum(shape))
    want, got = rows(x), jit(rows)(x)
    for w, g in zip(want, got):
        if g.size == 1 and x.size > 256:          # a whole sum past 256: XLA's tree
            np.testing.assert_allclose(g, w, rtol=1e-6)
        else:
            _same(g, w)


def products(a, b):
    # the products are rounded before they are added, as NumPy's are (no fused
    # multiply-add): a difference of near-equal products shows it
    return (a * b).sum(), np.sum(a * b - b * a + a * 0.1)


def test_summed_products_are_rounded_first():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(200)
    b = a * (1 + 1e-9 * rng.standard_normal(200))
    want, got = products(a, b), jit(products)(a, b)
    for w, g in zip(want, got):
        _same(g, w)


def test_special_values():
    x = np.zeros(40)
    x[3] = -0.0
    cases = [np.full(20, -0.0), x, np.r_[np.ones(30), np.inf, -np.ones(9)],
             np.r_[np.ones(30), np.nan, np.ones(9)], np.r_[np.inf, np.ones(15), -np.inf],
             np.r_[1e308, np.full(15, 1e308)], np.r_[1.0, np.full(40, 1e-16)]]
    f = jit(lambda v: np.sum(v))
    with np.errstate(all="ignore"):
        for c in cases:
            _same(f(c), np.sum(c))


def converge(x):
    # data-dependent loop: the sums run inside a staged `while`
    s = np.sum(x)
    k = 0
    while abs(s) > 1e-3 and k < 50:
        x = x - x.mean()
        x = x * 1.0000001 + 1e-7
        s = np.sum(x)
        k += 1
    return s, k, x.std()


@pytest.mark.parametrize("n", [24, 100, 250])
def test_sums_in_a_staged_loop(n):
    x = _data(n, np.float64, n) + 5.0
    want, got = converge(x), jit(converge)(x)
    for w, g in zip(want, got):
        _same(g, w)


def test_longer_sums_keep_the_reduce():
    # past 256 elements the sum is XLA's `reduce` (docs/semantics.md): within rounding
    x = _data(1000, np.float64, 1)
    got = jit(lambda v: np.sum(v)).lower(x).as_text()
    assert "stablehlo.reduce" in got
    np.testing.assert_allclose(jit(lambda v: np.sum(v))(x), np.sum(x), rtol=1e-12)


def columns(x):
    return (x.sum(axis=0), x.mean(axis=0), np.std(x, axis=0), x.prod(axis=0),
            x.prod(axis=-1), np.nansum(x, axis=0))


@pytest.mark.parametrize("shape", [(8, 5), (40, 3), (64, 50), (40, 1), (9, 1, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_column_sums_and_products_are_numpys_bits(shape, dtype):
    # NumPy adds whole rows one after another along an axis its inner loop does not run
    # along ((40, 1): the axis of length 1 dropped, a pairwise sum), and multiplies
    # element after element along any axis (up to 64 staged slices)
    rng = np.random.default_rng(sum(shape))
    x = (rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)).astype(dtype)
    want, got = columns(x), jit(columns)(x)
    for w, g in zip(want, got):
        _same(g, w)


def middle(x):
    return x.sum(axis=1), x.prod(axis=1)


def test_a_middle_axis_is_added_row_by_row():
    x = _data((3, 30, 4), np.float64, 7)
    want, got = middle(x), jit(middle)(x)
    for w, g in zip(want, got):
        _same(g, w)
