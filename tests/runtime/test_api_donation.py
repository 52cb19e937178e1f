"""`donate_argnums`/`donate_argnames` (issue 38): validated as `jax.jit` validates them;
a donated DeviceArray or jax Array is consumed by the call (later uses raise), unless
the function updates it in place or returns it; a donated NumPy array is unaffected.
Every result is NumPy's."""
import numpy as np
import pytest

import npxla
from npxla import jit


def axpy(a, x, y):
    return a * x + y


def bump(x, step):
    x += step
    return x.sum()


def pair_sum(pair, scale):
    a, b = pair
    return (a + b) * scale


def identity(x):
    return x


# --- validation, as jax.jit ----------------------------------------------------------------
@pytest.mark.parametrize("options", [
    dict(donate_argnums=3), dict(donate_argnums=-4), dict(donate_argnums=(0, 7)),
    dict(donate_argnames="z"), dict(donate_argnames=("x", "w")),
])
def test_donated_arguments_that_name_no_parameter_raise(options):
    with pytest.raises(ValueError, match="donate_argn"):
        jit(axpy, **options)
    with pytest.raises(ValueError):
        jit(**options)(axpy)


@pytest.mark.parametrize("options", [
    dict(donate_argnums=1, static_argnums=1), dict(donate_argnames="x", static_argnums=1),
    dict(donate_argnums=-2, static_argnames="x"), dict(donate_argnames="a",
                                                       static_argnames="a"),
])
def test_an_argument_both_static_and_donated_raises(options):
    with pytest.raises(ValueError, match="both static and donated"):
        jit(axpy, **options)


def test_donation_option_types_are_checked():
    with pytest.raises(TypeError):
        jit(axpy, donate_argnums="x")
    with pytest.raises(TypeError):
        jit(axpy, donate_argnames=1)


def test_varargs_take_any_donated_index_and_name():
    def g(x, *rest, **options):
        return x
    jit(g, donate_argnums=5)
    jit(g, donate_argnames="anything")


# --- semantics -------------------------------------------------------------------------------
def test_a_donated_numpy_array_is_unaffected():
    f = jit(axpy, donate_argnums=1)
    x, y = np.arange(5.0), np.ones(5)
    for _ in range(3):             # the general path, then the fast path
        np.testing.assert_array_equal(f(2.0, x, y), axpy(2.0, x, y))
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("output", ["numpy", "device"])
def test_a_donated_device_array_is_consumed(output):
    f = jit(axpy, donate_argnames="x", output=output)
    host = np.arange(6.0).reshape(2, 3)
    x, y = npxla.asarray(host), npxla.asarray(np.ones((2, 3)))
    got = f(1.5, x, y)
    np.testing.assert_array_equal(np.asarray(got), axpy(1.5, host, np.ones((2, 3))))
    assert x.is_deleted() and not y.is_deleted()
    assert "deleted" in repr(x)
    for use in (lambda: x.shape, lambda: np.asarray(x), lambda: x + 1, lambda: x.value,
                lambda: f(1.5, x, y), lambda: jit(axpy)(1.0, x, y)):
        with pytest.raises(RuntimeError, match="donated to a call of axpy"):
            use()
    # a fresh array each call: every call consumes its own
    for k in range(3):
        x = npxla.asarray(host + k)
        np.testing.assert_array_equal(np.asarray(f(2.0, x, y)),
                                      axpy(2.0, host + k, np.ones((2, 3))))
        assert x.is_deleted()


def test_the_donated_buffer_takes_the_result_on_the_device():
    f = jit(axpy, donate_argnums=1, output="device")
    x = npxla.asarray(np.arange(4.0))
    buffer = x._value
    out = f(3.0, x, npxla.asarray(np.ones(4)))
    assert buffer.is_deleted() and x.is_deleted()      # XLA took it for the result
    np.testing.assert_array_equal(np.asarray(out), axpy(3.0, np.arange(4.0), np.ones(4)))


def test_a_donated_array_updated_in_place_keeps_its_new_value():
    f = jit(bump, donate_argnums=0)
    host = np.arange(4.0)
    x = npxla.asarray(host)
    total = f(x, 2.0)
    want = host.copy()
    want_total = bump(want, 2.0)
    assert not x.is_deleted() and float(total) == want_total
    np.testing.assert_array_equal(np.asarray(x), want)


def test_a_donated_array_returned_as_itself_stays_valid():
    f = jit(identity, donate_argnums=0)
    x = npxla.asarray(np.arange(3.0))
    f(x)
    assert not x.is_deleted() and np.asarray(x).tolist() == [0.0, 1.0, 2.0]


def test_a_donated_array_shared_with_a_jax_array_leaves_that_array_alone():
    import jax
    with jax.enable_x64(True):
        value = jax.device_put(np.arange(3.0))
    x = npxla.asarray(value)          # shares the buffer
    f = jit(axpy, donate_argnums=1)
    np.testing.assert_array_equal(f(2.0, x, np.ones(3)), axpy(2.0, np.arange(3.0), 1.0))
    assert x.is_deleted() and not value.is_deleted()
    assert np.asarray(value).tolist() == [0.0, 1.0, 2.0]


def test_a_donated_jax_array_is_deleted_as_jax_does():
    import jax
    with jax.enable_x64(True):
        value = jax.device_put(np.arange(3.0))
    out = jit(axpy, donate_argnames=("x",))(2.0, value, np.ones(3))
    np.testing.assert_array_equal(out, axpy(2.0, np.arange(3.0), np.ones(3)))
    assert value.is_deleted()


def test_containers_donate_every_device_leaf():
    f = jit(pair_sum, donate_argnums=0)
    a, b = npxla.asarray(np.ones(3)), npxla.asarray(np.arange(3.0))
    np.testing.assert_array_equal(f((a, b), 2.0), pair_sum((np.ones(3), np.arange(3.0)),
                                                           2.0))
    assert a.is_deleted() and b.is_deleted()


def test_an_array_passed_twice_is_consumed_once():
    f = jit(axpy, donate_argnums=(1, 2))
    x = npxla.asarray(np.arange(3.0))
    np.testing.assert_array_equal(f(2.0, x, x), axpy(2.0, np.arange(3.0), np.arange(3.0)))
    assert x.is_deleted()


def test_a_failing_run_time_check_leaves_the_donated_array_alone():
    def safe_log(x):
        if np.any(x < 0):
            raise ValueError("negative")
        return np.log(x)
    f = jit(safe_log, donate_argnums=0)
    x = npxla.asarray(np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="negative"):
        f(x)
    assert not x.is_deleted() and np.asarray(x).tolist() == [1.0, -1.0]
    y = npxla.asarray(np.array([1.0, np.e]))
    np.testing.assert_allclose(f(y), np.log([1.0, np.e]))
    assert y.is_deleted()


def test_lowered_and_compiled_calls_donate_too():
    f = jit(axpy, donate_argnums=1)
    compiled = f.lower(2.0, np.ones(4), np.ones(4)).compile()
    assert callable(compiled)
    x = npxla.asarray(np.arange(4.0))
    np.testing.assert_array_equal(compiled(2.0, x, np.ones(4)),
                                  axpy(2.0, np.arange(4.0), np.ones(4)))
    assert x.is_deleted()


def test_donation_is_part_of_the_jitted_identity():
    assert jit(axpy) is not jit(axpy, donate_argnums=1)
    assert jit(axpy, donate_argnums=1) is jit(axpy, donate_argnums=1)


def test_donation_with_shard_is_accepted():
    """Sharded functions take donation too (see test_runpath.py)."""
    f = jit(axpy, donate_argnums=1, shard={"x": 0}, device="cpu")
    x = npxla.asarray(np.arange(4.0))
    np.testing.assert_array_equal(f(2.0, x, np.ones(4)), axpy(2.0, np.arange(4.0), 1.0))
    assert x.is_deleted()
