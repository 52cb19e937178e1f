"""Property tests: binary ufuncs/operators promote (NEP 50, weak Python scalars) and
broadcast exactly like NumPy for random dtype pairs and broadcastable shapes."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from differential import check

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


@st.composite
def broadcastable_shapes(draw):
    """Two shapes that broadcast: drop leading axes and set some axes to 1."""
    full = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))
    shapes = []
    for _ in range(2):
        n = draw(st.integers(0, len(full)))
        dims = full[len(full) - n:]
        shapes.append(tuple(1 if draw(st.booleans()) else d for d in dims))
    return shapes


def array(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 5, size=shape)
    if np.dtype(dtype).kind == "c":
        return (values + 1j * rng.integers(0, 3, size=shape)).astype(dtype)
    return values.astype(dtype)


def ops(x, y):
    return x + y, x * y, np.maximum(x, y), x == y, np.add(y, x)


def tol(*dts):
    return 2e-3 if np.float16 in dts else 1e-6


def comparable(expected_fn, *args):
    """Skip combinations NumPy itself rejects (e.g. bool - bool): not a promotion case."""
    try:
        with np.errstate(all="ignore"):
            expected_fn(*args)
        return True
    except (TypeError, OverflowError):
        return False


@SETTINGS
@given(st.sampled_from(DTYPES), st.sampled_from(DTYPES), broadcastable_shapes(),
       st.integers(0, 1000))
def test_array_array_promotion_and_broadcasting(dx, dy, shapes, seed):
    x, y = array(shapes[0], dx, seed), array(shapes[1], dy, seed + 1)
    if comparable(ops, x, y):
        check(ops, x, y, rtol=tol(dx, dy))


def with_scalar(x, s):
    return x + s, s - x, x * s, x / s, x < s, np.maximum(s, x)


@SETTINGS
@given(st.sampled_from(DTYPES), st.sampled_from([1, 3, -2, 1.5, 2j, True]),
       st.sampled_from([(), (3,), (2, 1)]), st.booleans())
@pytest.mark.slow     # heavy: CI's slow run covers it (tests/matrix.py)
def test_weak_python_scalar_promotion(dx, scalar, shape, numpy_scalar):
    """Python scalars stay weak (NEP 50); NumPy scalars of the same value are strong."""
    s = np.asarray(scalar)[()] if numpy_scalar else scalar
    x = array(shape, dx, 0)
    if comparable(with_scalar, x, s):
        check(with_scalar, x, s, rtol=tol(dx))


@SETTINGS
@given(st.sampled_from(DTYPES), st.sampled_from(DTYPES))
def test_inplace_same_kind_casting(dx, dy):
    """`x += y` keeps x's dtype and raises TypeError exactly where NumPy does."""
    def f(x, y):
        x += y
        return x
    x, y = array((3,), dx, 0), array((3,), dy, 1)
    if comparable(f, x.copy(), y):
        check(f, x, y, rtol=tol(dx, dy))
    else:
        import pytest
        from npxla import jit
        with pytest.raises(TypeError):
            jit(f)(x, y)
