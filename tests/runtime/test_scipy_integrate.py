"""scipy.integrate.simpson and trapezoid under @jit, against SciPy: odd and even sample
counts (the even rule's last-interval correction), 1-D and n-D `x`, `dx`, axes, integer
samples, and the errors SciPy raises for mismatched `x`."""
import numpy as np
import pytest
from differential import check

scipy_integrate = pytest.importorskip("scipy.integrate")

RNG = np.random.default_rng(7)


def simpson_x(y, x):
    return scipy_integrate.simpson(y, x=x)


def simpson_dx_axis0(y):
    return scipy_integrate.simpson(y, dx=0.25, axis=0)


def simpson_nd_x(y, x):
    return scipy_integrate.simpson(y, x=x, axis=1)


def trapezoid_x(y, x):
    return scipy_integrate.trapezoid(y, x)


def trapezoid_axis(y):
    return scipy_integrate.trapezoid(y, dx=0.5, axis=0)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 11])
def test_simpson_with_sample_points(n):
    check(simpson_x, RNG.random(n), np.sort(RNG.random(n)), rtol=1e-13)


@pytest.mark.parametrize("n", [2, 3, 6, 9])
def test_simpson_with_spacing_along_an_axis(n):
    check(simpson_dx_axis0, RNG.random((n, 3)), rtol=1e-13)


def test_simpson_with_sample_points_per_row():
    x = np.sort(RNG.random((3, 6)), axis=1)
    check(simpson_nd_x, RNG.random((3, 6)), x, rtol=1e-13)


def test_simpson_of_repeated_points_uses_scipys_guards():
    x = np.array([0.0, 1.0, 1.0, 2.0, 3.0])      # a zero spacing: guarded divisions
    check(simpson_x, RNG.random(5), x, rtol=1e-13)


@pytest.mark.parametrize("n", [2, 5])
def test_trapezoid(n):
    check(trapezoid_x, RNG.random(n), np.sort(RNG.random(n)), rtol=1e-13)
    check(trapezoid_axis, RNG.random((n, 2)), rtol=1e-13)
    check(trapezoid_axis, np.arange(2 * n).reshape(n, 2))          # integers: float64


def test_mismatched_x_raises_scipys_error():
    from npxla import jit
    with pytest.raises(ValueError, match="length of x"):
        jit(simpson_x)(np.ones(4), np.ones(5))
