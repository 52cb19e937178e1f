"""`**` of NumPy and Python scalars against NumPy, bit for bit: NumPy's scalar math and
Python call the C library's pow (`np.float64 ** 2` is not always `x * x`), while NumPy's
array power and `np.power` take the squaring shortcut. Inputs are the values whose C
`pow(x, 2)` differs from `x * x` in the last bit (74 in 100,000 random doubles)."""
import math

import numpy as np
import pytest

from differential import check
from npxla import jit

_RNG = np.random.default_rng(2026)
_POOL = _RNG.standard_normal(100_000) * 100
HARD = np.array([v for v in _POOL.tolist() if math.pow(v, 2) != v * v][:24])
_POOL32 = _POOL.astype(np.float32)
HARD32 = np.array([v for v in _POOL32[:50_000] if v ** np.float32(2) != v * v][:12],
                  np.float32)


def squares_in_a_loop(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = (x[i] - 0.0) ** 2
    return out


def scalar_powers(x):
    out = np.empty((x.shape[0], 8))
    for i in range(x.shape[0]):
        v = x[i]
        s = v
        s **= 2
        out[i] = [v ** 2, v ** 3, abs(v) ** 0.5, 2.0 ** (v / 100), float(v) ** 2,
                  math.pow(v, 2), s, v ** -2]
    return out


def array_powers(x):
    # arrays (0-d included) and the ufunc take NumPy's squaring shortcut
    return x ** 2, np.array(x[0]) ** 2, np.power(x[1], 2), np.square(x[2])


def cost_table(a, b):
    D = np.full((a.shape[0] + 1, b.shape[0] + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            d = (a[i] - b[j]) ** 2
            D[i + 1, j + 1] = d + min(D[i, j], D[i, j + 1], D[i + 1, j])
    return D


def test_hard_values_are_hard():
    assert len(HARD) == 24 and len(HARD32) >= 4


def test_scalar_square_is_the_c_librarys_pow():
    check(squares_in_a_loop, HARD, rtol=0, atol=0)
    check(squares_in_a_loop, HARD32, rtol=0, atol=0)


def test_scalar_powers_of_every_form():
    check(scalar_powers, HARD, rtol=0, atol=0)


def test_array_powers_keep_the_squaring_shortcut():
    check(array_powers, HARD, rtol=0, atol=0)


@pytest.mark.parametrize("seed", [0, 1])
def test_dtw_cost_table_bit_for_bit(seed):
    # the table a DTW fills: 20 of its 36,381 cells were 1 ulp off before
    r = np.random.default_rng(seed)
    a, b = np.cumsum(r.standard_normal(200)), np.cumsum(r.standard_normal(180))
    check(cost_table, a, b, rtol=0, atol=0)
