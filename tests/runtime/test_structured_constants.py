"""Large constants (static `arange`, `linspace`, `eye`, `tri`, their broadcasts and
affine arithmetic on them) are emitted as the iota arithmetic that makes them, not as
dense attributes: the module stays small (a million float64 elements were 16 MB of
text and a 1-3 s first call) and every element keeps NumPy's bits. What has no such
structure is still written densely."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npxla import jit
from npxla.runtime.staging import structured_constants
from tests.differential import check

N = 20_000      # above structured_constants.MIN_ELEMENTS


def add_arange(x):
    return x + np.arange(x.shape[0])


def add_int_arange(k):
    return k + np.arange(k.shape[0])


def scaled_float_arange(x):
    return x + np.arange(0.5, x.shape[0] * 0.1 + 0.5, 0.1)[:x.shape[0]]


def backwards_arange(x):
    return x * np.arange(x.shape[0], 0, -1)


def float32_arange(x):
    return x + np.arange(-3, x.shape[0] - 3, dtype=np.float32) * np.float32(0.3)


def wrapped_uint8(k):
    return k + np.arange(k.shape[0]).astype(np.uint8)


def linspace_endpoint(x):
    return x * np.linspace(-1.0, 7.0, x.shape[0])


def linspace_open(x):
    return x * np.linspace(0.1, 0.7, x.shape[0], endpoint=False)


def linspace_descending(x):
    return x - np.linspace(3.0, -2.5, x.shape[0])


def negative_zeros(x):
    return x / (np.arange(x.shape[0]) * -0.5)       # -0.0 first: -inf, as in NumPy


def reshaped_arange(a):
    return a + np.arange(a.size * 1.0).reshape(a.shape)


def identity_plus(a):
    return a[:a.shape[1]] + 2.0 * np.eye(a.shape[1])


def off_diagonal(a):
    return a + np.eye(a.shape[0], a.shape[1], k=-3)


def lower_ones(a):
    return a * np.tri(a.shape[0], a.shape[1], 2)


def upper_ones(a):
    return a * np.triu(np.ones(a.shape), 1)


def grid(a):
    i, j = np.meshgrid(np.arange(a.shape[0]) * 0.5, np.linspace(0, 1, a.shape[1]),
                       indexing="ij")
    return a * i + j


def outer_rows(a):
    return a + np.ones((a.shape[0], 1)) * np.arange(a.shape[1])


def unstructured(x):
    return x + np.sin(np.arange(x.shape[0]) * 0.001)


def in_loop(x, steps):
    s = x.copy()
    for k in range(steps.shape[0]):
        if s.sum() > steps[k]:
            s = s * 0.5 + np.linspace(0.0, 1.0, x.shape[0])
        else:
            s = s - np.arange(x.shape[0]) * 1e-3
    return s


def while_eye(a, tol):
    while np.abs(a).max() > tol:
        a = a * 0.25 + np.eye(a.shape[0]) * 1e-3
    return a


VECTOR = [add_arange, scaled_float_arange, backwards_arange, linspace_endpoint,
          linspace_open, linspace_descending, negative_zeros, unstructured]
MATRIX = [reshaped_arange, identity_plus, off_diagonal, lower_ones, upper_ones, grid,
          outer_rows]


def _bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(f"u{a.dtype.itemsize}"),
                                  b.view(f"u{b.dtype.itemsize}"))


def _module_chars(fn, *args):
    return len(jit(fn, cache=False).lower(*args).as_text())


@pytest.mark.parametrize("fn", VECTOR, ids=lambda f: f.__name__)
def test_vector_constants_match_numpy_bitwise(fn):
    x = np.random.default_rng(0).random(N)
    out = check(fn, x, rtol=0, atol=0)
    with np.errstate(all="ignore"):
        _bits_equal(out, fn(x))


@pytest.mark.parametrize("fn", MATRIX, ids=lambda f: f.__name__)
def test_matrix_constants_match_numpy_bitwise(fn):
    a = np.random.default_rng(1).random((150, 140))
    _bits_equal(check(fn, a, rtol=0, atol=0), fn(a))


@pytest.mark.parametrize("fn", [add_int_arange, wrapped_uint8], ids=lambda f: f.__name__)
def test_integer_constants(fn):
    k = np.arange(N, dtype=np.int64) % 7
    check(fn, k)
    check(fn, k.astype(np.uint8))


def test_float32_arange():
    x = np.random.default_rng(2).random(N).astype(np.float32)
    _bits_equal(check(float32_arange, x, rtol=0, atol=0), float32_arange(x))


@pytest.mark.parametrize("fn", [add_arange, linspace_endpoint, linspace_open,
                                negative_zeros], ids=lambda f: f.__name__)
def test_module_does_not_grow_with_the_constant(fn):
    small = _module_chars(fn, np.zeros(N))
    large = _module_chars(fn, np.zeros(50 * N))
    assert large < 4000 and large <= small + 400


@pytest.mark.parametrize("fn", [identity_plus, off_diagonal, lower_ones, upper_ones,
                                grid, outer_rows, reshaped_arange],
                         ids=lambda f: f.__name__)
def test_matrix_module_is_small(fn):
    # (a broadcast row or column below MIN_ELEMENTS stays dense: 700 numbers)
    assert _module_chars(fn, np.zeros((700, 600))) < 30_000


def test_unstructured_constant_stays_dense():
    assert _module_chars(unstructured, np.zeros(N)) > 8 * N


def test_inside_staged_loops_and_branches():
    x = np.random.default_rng(3).random(N)
    steps = np.array([1e9, 0.0, 1e9, 5.0])
    _bits_equal(check(in_loop, x, steps, rtol=0, atol=0), in_loop(x, steps))
    a = np.random.default_rng(4).random((90, 90)) * 10
    _bits_equal(check(while_eye, a, 0.5, rtol=0, atol=0), while_eye(a, 0.5))


def linspace_of(x, start, stop, endpoint):
    return x + np.linspace(start, stop, x.shape[0], endpoint=endpoint)


def arange_of(x, start, step):
    return x + np.arange(start, start + step * (x.shape[0] + 0.5), step)[:x.shape[0]]


_finite = st.floats(-1e6, 1e6, allow_subnormal=False)


@settings(max_examples=12, deadline=None)
@given(start=_finite, stop=_finite, endpoint=st.booleans(),
       n=st.integers(structured_constants.MIN_ELEMENTS, 3 * structured_constants.MIN_ELEMENTS))
def test_linspace_property(start, stop, endpoint, n):
    x = np.zeros(n)
    out = jit(linspace_of, static_argnums=(1, 2, 3))(x, start, stop, endpoint)
    _bits_equal(out, linspace_of(x, start, stop, endpoint))


@settings(max_examples=12, deadline=None)
@given(start=_finite, step=st.floats(1e-3, 1e3).flatmap(
    lambda s: st.sampled_from([s, -s])))
def test_arange_property(start, step):
    x = np.zeros(structured_constants.MIN_ELEMENTS + 7)
    out = jit(arange_of, static_argnums=(1, 2))(x, start, step)
    _bits_equal(out, arange_of(x, start, step))


def tiny_steps(x):
    # a select moves the bits (arithmetic on subnormals is flushed by XLA:CPU anyway)
    return np.where(x > 2.0, x, np.linspace(0.0, 1e-305, x.shape[0]))


def test_subnormal_steps_stay_dense():
    """XLA:CPU flushes subnormals to zero: such a constant is written densely."""
    x = np.zeros(N)
    _bits_equal(check(tiny_steps, x, rtol=0, atol=0), tiny_steps(x))
    assert _module_chars(tiny_steps, x) > 8 * N


def lower_mask(a):
    return np.where(np.tri(a.shape[0], a.shape[1], dtype=bool), a, -a)


def column_mask(a):
    return a * (np.arange(a.shape[1]) % 3 == 0)


def test_boolean_masks():
    a = np.random.default_rng(5).random((300, 200))
    _bits_equal(check(lower_mask, a, rtol=0, atol=0), lower_mask(a))
    _bits_equal(check(column_mask, a, rtol=0, atol=0), column_mask(a))
    assert _module_chars(lower_mask, a) < 4000


def zeros_plus(x):
    return x + np.zeros(x.shape)


def test_splats_stay_one_element_constants():
    """A splat is already one element in the module (a `dense<0.0>` attribute), which
    the module's later rewrites recognise: it is not rebuilt by a broadcast."""
    text = jit(zeros_plus, cache=False).lower(np.ones((200, 300))).as_text()
    assert "dense<0.000000e+00> : tensor<200x300xf64>" in text
