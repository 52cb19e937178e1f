"""Differential tests: np.cov and np.corrcoef (runtime/numpy/reductions/covariance.py): rowvar,
bias, ddof, y, fweights/aweights (constant and traced), dtypes and degenerate shapes."""
import numpy as np
import pytest

from differential import check, tolerance
from npxla import jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(3)
M = RNG.normal(size=(3, 7))


def forms(m):
    return (np.cov(m), np.cov(m, rowvar=False), np.cov(m, bias=True), np.cov(m, ddof=0),
            np.cov(m, ddof=3), np.corrcoef(m), np.corrcoef(m, rowvar=False))


@pytest.mark.parametrize("m", [
    M, M.astype(np.float32), (M * 10).astype(np.int16), (M > 0),
    M + 1j * RNG.normal(size=M.shape), M.astype(np.complex64),
], ids=["float64", "float32", "int16", "bool", "complex128", "complex64"])
def test_cov_corrcoef_dtypes(m):
    check(forms, m, **tolerance(m.dtype, single=(1e-5, 1e-6), double=(1e-7, 1e-12)))


def with_y(x, y):
    return np.cov(x, y), np.corrcoef(x, y), np.cov(x, y, bias=True)


def with_y_columns(x, y):
    return np.cov(x, y, rowvar=False), np.corrcoef(x, y, rowvar=False)


@pytest.mark.parametrize("x,y", [
    (RNG.normal(size=(2, 5)), RNG.normal(size=5)),
    (RNG.normal(size=5), RNG.normal(size=5).astype(np.float32)),
    (RNG.normal(size=(5, 2)).T.copy(), RNG.normal(size=(1, 5))),
])
def test_cov_with_y(x, y):
    check(with_y, x, y)
    check(with_y_columns, x.T.copy(), y.T.copy())


def weighted(m, fw, aw):
    return (np.cov(m, fweights=fw), np.cov(m, aweights=aw), np.cov(m, fweights=fw, aweights=aw),
            np.cov(m, fweights=fw, aweights=aw, ddof=0), np.cov(m, aweights=aw, bias=True),
            np.cov(m, fweights=fw, ddof=2), np.cov(m, rowvar=False, fweights=fw[:3]))


def test_cov_traced_weights():
    check(weighted, M, np.array([1, 2, 1, 3, 1, 1, 4]), RNG.random(7))
    check(weighted, M + 0.5j * M[::-1], np.array([1, 2, 1, 3, 1, 1, 4]), RNG.random(7))


FW = np.array([1, 2, 1, 3, 1, 1, 4])


def constant_weights(m):
    return np.cov(m, fweights=FW, aweights=FW * 0.5)


def test_cov_constant_weights():
    check(constant_weights, M)


def scalar_results(x):
    # a 1-d variable gives a 0-d array in NumPy (a NumPy scalar here): reshape to compare
    return np.cov(x).reshape(1), np.corrcoef(x).reshape(1), np.cov(x, aweights=x * x).reshape(1)


def test_one_variable():
    check(scalar_results, RNG.normal(size=6))


def degenerate(m):
    return np.cov(m), np.corrcoef(m)


@pytest.mark.parametrize("m", [np.zeros((0, 3)), RNG.normal(size=(4, 1)),
                               np.ones((2, 4))],
                         ids=["no-variables", "one-observation", "constant"])
def test_degenerate_shapes(m):
    check(degenerate, m)


def cov_bad(m, ddof):
    return np.cov(m, ddof=ddof)


def cov_bad_weights(m, fw):
    return np.cov(m, fweights=fw)


@pytest.mark.parametrize("fn,args,exc", [
    (cov_bad, (np.ones((2, 2, 2)), None), ValueError),
    (cov_bad, (np.ones((2, 3)), 1.5), ValueError),
    (cov_bad_weights, (np.ones((2, 3)), np.ones((3, 1))), RuntimeError),
    (cov_bad_weights, (np.ones((2, 3)), np.ones(4)), RuntimeError),
])
def test_cov_errors_match_numpy(fn, args, exc):
    with pytest.raises(exc) as expected:
        fn(*args)
    with pytest.raises(exc) as got:
        jit(fn, static_argnums=1 if fn is cov_bad else ())(*args)
    assert str(expected.value) in str(got.value)


# made inside the function, the weights are constants (a global array would be an
# implicit input of the program, read at each call, so its values are not checked)
def bad_constant_weights(m):
    return np.cov(m, fweights=np.array([1.5, 1.0, 1.0]))


def negative_constant_weights(m):
    return np.cov(m, aweights=np.array([1.0, -1.0, 1.0]))


def test_constant_weight_values_are_checked():
    with pytest.raises(TypeError, match="fweights must be integer"):
        jit(bad_constant_weights)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="aweights cannot be negative"):
        jit(negative_constant_weights)(np.ones((2, 3)))
