"""The seed documents' jax.jit examples, written as plain NumPy and compiled by npxla."""
import numpy as np
import pytest
from differential import check

from npxla import jit

log2_calls = []


def log2(x):
    log2_calls.append(1)       # a Python side effect: replayed after every compiled run
    ln_x = np.log(x)
    ln_2 = np.log(2.0)
    return ln_x / ln_2


def test_log2_with_global_side_effect_list():
    log2_calls.clear()
    check(log2, np.array([1.0, 2.0, 8.0]))
    assert len(log2_calls) == 2          # once under NumPy, once replayed (as NumPy)
    jit(log2)(np.array([4.0]))
    assert log2_calls == [1, 1, 1]       # jax.jit would append only while tracing


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)


def test_selu_on_a_million_elements():
    check(selu, np.arange(1_000_000, dtype=np.float64) / 1e5 - 5)


def norm(X):
    X = X - X.mean(0)
    return X / X.std(0)


def test_row_standardisation():
    check(norm, np.random.default_rng(0).normal(size=(100, 5)))


def f_dot(x, y):
    return np.dot(x + 1, y + 1)


def test_dot_of_shifted_arguments():
    rng = np.random.default_rng(1)
    check(f_dot, rng.normal(size=(4, 3)), rng.normal(size=(3, 5)))


def reshape_by_shape_product(x):
    return x.reshape(np.array(x.shape).prod())


def test_reshape_with_numpy_computed_static_shape():
    check(reshape_by_shape_product, np.ones((2, 3)))


def set_first():
    x = np.arange(10)
    x[0] = 10
    return x


def test_in_place_update_inside_jitted_function():
    check(set_first)


def g_static(x, n):
    i = 0
    while i < n:           # Python loop on a static argument: stays Python
        i += 1
    return x + i


def test_static_argnums_and_argnames_variants():
    np.testing.assert_array_equal(jit(g_static, static_argnums=1)(np.ones(2), 3), [4, 4])
    np.testing.assert_array_equal(jit(g_static, static_argnames="n")(np.ones(2), n=5), [6, 6])
    np.testing.assert_array_equal(jit(g_static, static_argnames=["n"])(np.ones(2), 2), [3, 3])


def test_while_on_python_int_is_specialised_automatically():
    np.testing.assert_array_equal(jit(g_static)(np.ones(2), 3), [4, 4])


@jit
def loop_body(prev_i):
    return prev_i + 1


def test_jitted_loop_body_called_from_python_loop():
    i = 0
    while i < 10:
        i = loop_body(i)
    assert i == 10 and type(i) is int


@pytest.mark.parametrize("x", [10, -3])
def test_python_branch_on_python_scalar_is_specialised(x):
    def f(x):
        if x > 0:
            return x
        else:
            return 2 * x
    assert jit(f)(x) == f(x)
