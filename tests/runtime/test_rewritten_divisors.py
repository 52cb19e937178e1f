"""Divisions XLA's algebraic simplifier would turn into products, bit for bit against
NumPy: `a / np.sqrt(b)` (XLA: `a * rsqrt(b)`, which is not correctly rounded; on an AMD
EPYC host `1.0 / np.sqrt(y)` differed from NumPy in a third of its elements),
`np.reciprocal(np.sqrt(b))`, `a / np.exp(b)`, `a / b ** c`, in float64 and float32,
with zeros, infinities and NaN in the divisor; and after XLA's optimisation no `rsqrt`
is left."""
import numpy as np
import pytest
from differential import check

from npxla import jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
RNG = np.random.default_rng(113)


def inverse_root(x, y):
    return 1.0 / np.sqrt(1.0 + (x - y) ** 2)


def over_root(x, y):
    return x / np.sqrt(y), 2.5 / np.sqrt(y) / 3.0, x * (1.0 / np.sqrt(y))


def reciprocal_root(y):
    return np.reciprocal(np.sqrt(y))


def over_exp_and_power(x, y):
    return x / np.exp(y), x / (y ** 1.5), x / np.sqrt(y * y)


def _data(dtype, n=4099):
    x = RNG.standard_normal(n).astype(dtype)
    y = (RNG.random(n) * 3.0 + 0.01).astype(dtype)
    y[[0, 5, 9, 17]] = [0.0, np.inf, np.nan, -1.0]
    x[[1, 5]] = [np.inf, 0.0]
    return x, y


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_divisions_by_roots_round_like_numpy(dtype):
    x, y = _data(dtype)
    check(inverse_root, x, y, rtol=0, atol=0)
    check(over_root, x, y, rtol=0, atol=0)
    check(reciprocal_root, y, rtol=0, atol=0)


def test_divisions_by_exp_and_power_keep_their_division():
    x, y = _data(np.float64)
    expected = over_exp_and_power(x, y)
    got = jit(over_exp_and_power)(x, y)
    # np.exp and the power are each within an ulp of NumPy's C library, not bit for bit
    # (`test_transcendental_accuracy`); the division after them must add nothing
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=4e-16, atol=0, equal_nan=True)
    np.testing.assert_array_equal(got[2], expected[2])


def test_no_rsqrt_after_optimisation():
    x, y = _data(np.float64)
    for fn, args in ((inverse_root, (x, y)), (over_root, (x, y)), (reciprocal_root, (y,))):
        text = jit(fn).lower(*args).as_text("hlo")
        assert " rsqrt(" not in text, fn.__name__
