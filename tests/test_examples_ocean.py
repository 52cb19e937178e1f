"""examples/ocean_mixing.py: implicit vertical mixing with scipy.linalg.lapack.dgtsv per
water column, time-stepped in Python loops, agrees with SciPy under @jit (the grid
written back into the caller's array as NumPy leaves it), with a dense np.linalg.solve
reference, and keeps land columns untouched."""
import copy
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy.linalg")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))

import ocean_mixing as om  # noqa: E402


def _inputs(n=4):
    return om.make_inputs(n, np.random.default_rng(0))


def test_matches_scipy_and_writes_back():
    args = _inputs()
    plain, staged = copy.deepcopy(args), copy.deepcopy(args)
    want = om.vertical_mixing.__wrapped__(*plain)
    got = om.vertical_mixing(*staged)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    np.testing.assert_allclose(staged[0], plain[0], rtol=1e-12, atol=0)    # in place
    assert not np.allclose(want, args[0])                                   # it mixed


def test_land_columns_untouched_and_dense_reference():
    temp, dz, mask, flux, dt, nsteps = _inputs()
    mask[1, 2] = 0
    got = om.vertical_mixing(temp.copy(), dz, mask, flux, dt, nsteps)
    land = mask == 0
    np.testing.assert_array_equal(got[land], temp[land])
    np.testing.assert_allclose(got, om.reference(temp, dz, mask, flux, dt, nsteps),
                               rtol=1e-10, atol=1e-10)


def test_main_prints_both_checks(capsys):
    report = om.main(["--size", "small", "--budget", "0"])
    out = capsys.readouterr().out
    assert report["comparison"].ok
    assert "matches NumPy" in out and "dense np.linalg.solve reference" in out
