"""examples/random_drivers.py: legacy drivers that draw from np.random give NumPy's
results under @jit and leave the global random state where NumPy leaves it."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

import random_drivers as R  # noqa: E402



def test_monte_carlo_is_numpys_bit_for_bit():
    args = (500, 0.02, 40)
    expected, next_np = R.run(R.monte_carlo_pi.__wrapped__, args, 3)
    got, next_jit = R.run(R.monte_carlo_pi, args, 3)
    assert got == expected and next_jit == next_np


def test_kmeans_restarts_draw_numpys_initialisations():
    X = R.blobs(90, 3)
    expected, _ = R.run(R.kmeans_restarts.__wrapped__, (X, 3, 2, 5, 10), 0)
    got, _ = R.run(R.kmeans_restarts, (X, 3, 2, 5, 10), 0)
    np.testing.assert_array_equal(got[1], expected[1])          # labels: exact
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)  # sums: last bits
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-12)


def test_main_reports_agreement():
    assert R.main() == 0
