"""scipy.spatial.distance.cdist under @jit: SciPy's values bit for bit (the features
summed in order), its errors, and a located refusal for other metrics."""
import numpy as np
import pytest

from npxla import jit
from npxla.transpiler.base.errors import UnsupportedFunctionError

distance = pytest.importorskip("scipy.spatial.distance")


def distances(a, b):
    return (distance.cdist(a, b), distance.cdist(a, b, "sqeuclidean"),
            distance.cdist(a, b, metric="cityblock"))


def minkowski(a, b):
    return (distance.cdist(a, b, "minkowski"), distance.cdist(a, b, "minkowski", p=1),
            distance.cdist(a, b, metric="minkowski", p=np.inf),
            distance.cdist(a, b, "chebyshev"))


def minkowski_p(a, b, p):
    return distance.cdist(a, b, "minkowski", p=p)


def in_branch(a, b):
    if a.sum() > 0:
        return distance.cdist(a, b).min(axis=1)
    return np.zeros(a.shape[0])


def other_metric(a, b):
    return distance.cdist(a, b, "cosine")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("shapes", [((50, 3), (7, 3)), ((1, 1), (4, 1)), ((5, 9), (5, 9))])
def test_cdist_is_scipys(dtype, shapes):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(shapes[0]) * 4).astype(dtype)
    b = (rng.standard_normal(shapes[1]) * 4).astype(dtype)
    for e, g in zip(distances(a, b), jit(distances)(a, b)):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_minkowski_and_chebyshev_are_scipys(dtype):
    """p = 2 (the default), 1 and inf run SciPy's Euclidean, city-block and Chebyshev
    loops: bit for bit."""
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((40, 3)) * 4).astype(dtype)
    b = (rng.standard_normal((9, 3)) * 4).astype(dtype)
    for e, g in zip(minkowski(a, b), jit(minkowski)(a, b)):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("p", [0.5, 1.5, 3])
def test_minkowski_of_other_p(p):
    """Other p: |u - v| ** p summed in SciPy's order, then the 1/p power; SciPy's C pow
    and NumPy's may differ in the last bit."""
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((20, 4)), rng.standard_normal((7, 4))
    np.testing.assert_allclose(jit(minkowski_p, static_argnums=2)(a, b, p),
                               distance.cdist(a, b, "minkowski", p=p), rtol=1e-14, atol=0)
    with pytest.raises(ValueError, match="greater than 0"):
        jit(minkowski_p, static_argnums=2)(a, b, -1.0)


def test_cdist_in_a_branch_and_errors():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((6, 2)), rng.standard_normal((3, 2))
    for x in (np.abs(a), -np.abs(a)):
        np.testing.assert_array_equal(jit(in_branch)(x, b), in_branch(x, b))
    with pytest.raises(ValueError, match="same number of columns"):
        jit(distances)(a, rng.standard_normal((3, 4)))
    with pytest.raises(UnsupportedFunctionError, match="cosine"):
        jit(other_metric)(a, b)
