"""Python float arguments needed as Python values are specialised like Python ints.

A Python float argument is traced (a weak float64 scalar) so that calls with other
values share one program. Where the function needs its value as a Python value (a
list's length decided by a `while` on it, `int(np.log(x))` as a range bound, a branch
whose paths give different shapes), the driver compiles for the value instead of
refusing, as it does for ints; each value gets its own program, keyed by its bits
(-0.0 and 0.0 apart, NaN found again). Arithmetic on the specialised value is Python's
(`1.3 ** 7` is CPython's pow, which NumPy's power loop rounds differently).
"""
import math

import numpy as np
from differential import check

from npxla import jit


def geometric_list(lo, hi, factor):
    """nolds.logarithmic_r's shape: a list whose length comes from float arguments."""
    max_i = int(np.floor(np.log(1.0 * hi / lo) / np.log(factor)))
    return [lo * (factor ** i) for i in range(max_i + 1)]


def test_list_length_from_float_arguments():
    for args in [(1, 10, 1.3), (1.0, 100.0, 1.7), (2, 50, 1.05)]:
        r = check(geometric_list, *args)
        assert r == geometric_list(*args)          # exact: Python's pow, not NumPy's


def while_on_float(x, step):
    out = []
    t = 0.0
    while t < 1.0:
        out.append(t * x.sum())
        t += step
    return out


def test_while_on_float_argument_fills_a_list():
    x = np.arange(4.0)
    assert len(check(while_on_float, x, 0.25)) == 4
    assert len(check(while_on_float, x, 0.3)) == 4
    assert len(check(while_on_float, x, 0.5)) == 2


def shape_by_float(x, a):
    if a > 0.5:
        return x[:2]
    return x


def test_branch_on_float_argument_with_different_shapes():
    x = np.arange(4.0)
    f = jit(shape_by_float)
    for a in (0.7, 0.2, 0.7, 1.5):
        np.testing.assert_array_equal(f(x, a), shape_by_float(x, a))


def signed(x, a):
    if math.copysign(1.0, a) < 0:
        return x[:1]
    return x


def test_negative_zero_gets_its_own_program():
    x = np.arange(3.0)
    f = jit(signed)
    assert f(x, 0.0).shape == (3,)
    assert f(x, -0.0).shape == (1,)
    assert f(x, 0.0).shape == (3,)


def nan_branch(x, a):
    if a != a:
        return x[:1]
    return x


def test_nan_argument_is_found_again():
    x = np.arange(3.0)
    f = jit(nan_branch)
    assert f(x, float("nan")).shape == (1,)
    assert f(x, float("nan")).shape == (1,)
    assert f(x, 1.0).shape == (3,)


def float_scale(x, a):
    return x * a          # never needed as a Python value: one program for every a


def test_float_used_as_data_stays_traced():
    f = jit(float_scale)
    x = np.arange(3.0)
    for a in (0.5, 1.5, 2.5):
        np.testing.assert_array_equal(f(x, a), x * a)
    assert len(f.lower(x, 0.5).as_text()) > 0
    assert "2.5" not in f.lower(x, 0.5).as_text()


def explicit_power(a):
    return np.power(a, 7)


def test_explicit_np_power_keeps_numpys_rounding():
    # np.power is NumPy's loop, also on Python scalars; only `**` is Python's
    assert jit(explicit_power, static_argnums=0)(1.3) == np.power(1.3, 7)
