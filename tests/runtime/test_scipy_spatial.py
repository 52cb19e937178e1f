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


def test_cdist_in_a_branch_and_errors():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((6, 2)), rng.standard_normal((3, 2))
    for x in (np.abs(a), -np.abs(a)):
        np.testing.assert_array_equal(jit(in_branch)(x, b), in_branch(x, b))
    with pytest.raises(ValueError, match="same number of columns"):
        jit(distances)(a, rng.standard_normal((3, 4)))
    with pytest.raises(UnsupportedFunctionError, match="cosine"):
        jit(other_metric)(a, b)
