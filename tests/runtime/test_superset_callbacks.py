"""Host callbacks (NumPy's loops, sorts and products on XLA's buffers) read a large
unaligned argument from its aligned superset, cut out on the host
(`runtime/xla/superset_callbacks.py`), instead of XLA copying it first: bit for bit
NumPy's, at every misalignment NumPy's heap gives, with NaN bytes before the array
(they lie in the superset and must never reach a result), and beside XLA's own reads
of the same argument."""
import numpy as np
import pytest

from npxla import jit
from npxla.runtime.numpy.ufuncs import host_ufuncs
from npxla.runtime.xla import superset

from test_superset_windows import _shifter, after_nans

pytestmark = pytest.mark.skipif(not (superset._ENABLED and host_ufuncs.ENABLED),
                                reason="x86-64 with NumPy's AVX-512 loops only")


def exp_of(x):
    return np.exp(x)


def mixed(x, y):
    """The callback and XLA both read `x`; `y` is read by a sort."""
    return np.tanh(x) * 2.0 + x, np.sort(y, axis=-1)


def _bits(a):
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))


def _three_calls(fn, args):
    f = jit(fn)
    f.clear_cache()
    with np.errstate(all="ignore"):
        want = fn(*args)
    for _ in range(3):           # the variant is compiled at the second call
        got = f(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            _same(g, w)
    return f


@pytest.mark.parametrize("offset", [16, 32, 48])
def test_a_library_loop_reads_the_superset(offset):
    x = after_nans(np.random.default_rng(offset).normal(size=(300, 200)), offset)
    f = _three_calls(exp_of, (x,))
    assert _shifter(f)._variants[(offset // 8,)], "the callback should read x in place"


def test_beside_xla_reads_and_a_sort():
    rng = np.random.default_rng(4)
    x = after_nans(rng.normal(size=(256, 160)), 16)
    y = after_nans(rng.normal(size=(128, 640)).astype(np.float32), 48)
    f = _three_calls(mixed, (x, y))
    assert _shifter(f)._variants[(2, 12)]
