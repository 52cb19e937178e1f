"""Products with a large argument that is not 64-byte aligned read it in place
(`runtime/xla/superset_dot.py`): the program takes the aligned matrix that starts up to
7 elements before it plus its last elements, and rebuilds each product. Checked against
NumPy at every misalignment, with non-finite values where the rebuild multiplies by
zero, and for uses it cannot rebuild."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.xla import superset


def at_offset(values, k):
    """A copy of `values` whose data starts k float64 elements past a 64-byte line (an
    executable keeps at most 4 offsets: `superset._MAX_VARIANTS`)."""
    raw = np.empty(values.size + 16)
    start = (-raw.ctypes.data % 64) // 8 + k
    out = raw[start:start + values.size].reshape(values.shape)
    out[...] = values
    assert out.ctypes.data % 64 == 8 * k
    return out


def matvec(A, x):
    return A @ x


def normal(A, x):
    return A.T @ (A @ x)


def vecmat(A, y):
    return y @ A


def right_transposed(A, B):
    return B @ A.T + 1.0


def thin_product(A, B):
    return A @ B, A.T @ (A @ B)


def mixed(A, x):
    return A @ x + A.sum(axis=1)


def _variants(f):
    """The split parameters of every variant the function's executables built."""
    out = []
    for variants in f._cache.values():
        for variant in variants:
            shifter = getattr(variant.entry, "_shift", None)
            if shifter is not None:
                out += [s for key, s in shifter._splits.items()
                        if shifter._variants.get(key)]
    return out


def _check(fn, args, rtol=1e-12):
    f = jit(fn)
    want = fn(*args)
    for _ in range(3):                  # the variant is compiled at the second call
        got = f(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-9)
            assert np.shape(g) == np.shape(w)
    return f


needs_superset = pytest.mark.skipif(not superset._ENABLED, reason="x86-64 only")


@needs_superset
@pytest.mark.parametrize("k", [1, 2, 4, 6])    # NumPy's heap: 16, 32, 48 bytes past a line
def test_products_read_the_matrix_in_place_at_every_offset(k):
    rng = np.random.default_rng(k)
    A = at_offset(rng.normal(size=(300, 250)), k)
    x, y = rng.normal(size=250), rng.normal(size=300)
    B = rng.normal(size=(250, 3))
    for fn, args in ((matvec, (A, x)), (normal, (A, x)), (vecmat, (A, y)),
                     (right_transposed, (A, rng.normal(size=(4, 250)))),
                     (thin_product, (A, B))):
        f = _check(fn, args)
        assert {0: k} in _variants(f), fn.__name__


@needs_superset
def test_non_finite_row_ends_take_the_copy_and_stay_exact():
    rng = np.random.default_rng(9)
    values = rng.normal(size=(300, 250))
    values[5, -1] = np.inf            # A @ x multiplies it by zero in the next row
    values[7, -2] = np.nan
    A = at_offset(values, 2)
    x = rng.normal(size=250)
    f = jit(matvec)
    for _ in range(3):
        got = f(A, x)
        want = A @ x
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12)
    # A.T @ y never multiplies them by zero: it keeps the in-place variant
    y = rng.normal(size=300)
    g = _check(vecmat, (A, y))
    assert {0: 2} in _variants(g)


@needs_superset
def test_other_uses_keep_the_slice_or_the_copy():
    rng = np.random.default_rng(11)
    A = at_offset(rng.normal(size=(300, 250)), 2)
    f = _check(mixed, (A, rng.normal(size=250)))
    assert _variants(f) in ([], [{}])
    g = _check(lambda A: A.T @ A, (A,), rtol=1e-10)      # A twice: not rebuilt
    assert _variants(g) in ([], [{}])
