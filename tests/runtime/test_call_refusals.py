"""What `jit` accepts besides plain functions, and what it refuses, with located errors:

- bound methods, NumPy functions, ufuncs, builtins and partials wrapped directly;
- functions without source (exec, the interactive interpreter) and exec'd lambdas;
- object/string arrays as arguments, recursion, arrays larger than the machine;
- calls into libraries npxla does not compile (`scipy.special.zeta`, `statistics`).
"""
from __future__ import annotations

import functools
import statistics

import numpy as np
import pytest

from matrix import alternate

from differential import check
from npxla import jit
from npxla.transpiler.base.errors import (DTypeError, LibraryCallError,
                                          RecursionDepthError, SourceUnavailableError,
                                          TranspileError, UnsupportedFunctionError)


def _line_of_call(err):
    return err.location is not None and err.location.file == __file__


# --- C: callables that are not plain functions ----------------------------------------------
class Model:
    def __init__(self, w):
        self.w = np.asarray(w, dtype=np.float64)

    def predict(self, x):
        if x.sum() > 0:
            return x * self.w
        return x - self.w


def test_bound_method_keeps_self_and_each_object_its_own():
    a, b = Model([1.0, 2.0, 3.0]), Model([10.0, 20.0, 30.0])
    x = np.arange(3.0)
    np.testing.assert_array_equal(jit(a.predict)(x), a.predict(x))
    np.testing.assert_array_equal(jit(b.predict)(x), b.predict(x))
    np.testing.assert_array_equal(jit(a.predict)(-x), a.predict(-x))
    assert jit(a.predict) is jit(a.predict) and jit(a.predict) is not jit(b.predict)


def test_bound_method_sees_later_changes_to_self():
    m = Model([1.0, 2.0, 3.0])
    f = jit(m.predict)
    x = np.arange(3.0)
    f(x)
    m.w = np.array([5.0, 5.0, 5.0])
    np.testing.assert_array_equal(f(x), m.predict(x))


@pytest.mark.parametrize("fn, args, kwargs", [
    (np.sum, (np.arange(6.0).reshape(2, 3),), {}),
    (np.sum, (np.arange(6.0).reshape(2, 3),), {"axis": 0}),
    (np.mean, (np.arange(6).reshape(2, 3),), {"axis": 1}),
    (np.add, (np.arange(3.0), 2), {}),
    (np.sqrt, (np.arange(4.0),), {}),
    (np.linalg.norm, (np.arange(3.0),), {}),
    (abs, (-np.arange(3),), {}),
    (functools.partial(np.clip, a_min=1.0, a_max=2.0), (np.arange(4.0),), {}),
], ids=["sum", "sum-axis", "mean-axis", "add", "sqrt", "norm", "abs", "partial"])
def test_registry_functions_and_ufuncs_wrapped_directly(fn, args, kwargs):
    check(fn, *args, **kwargs)
    assert jit(fn) is jit(fn)


def test_registry_function_given_bad_arguments_points_at_the_call():
    with pytest.raises(Exception) as info:
        jit(np.sum)(np.arange(3.0), axis=4)
    assert "axis" in str(info.value).lower()
    assert not isinstance(info.value, TranspileError) or _line_of_call(info.value)


def test_jit_of_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError):
        jit(3)


EXEC_DEF = """
def no_source(x):
    if x.sum() > 0:
        return x
    return -x
"""


def test_function_without_source_is_refused_by_name():
    namespace: dict = {}
    exec(EXEC_DEF, namespace)
    with pytest.raises(SourceUnavailableError) as info:
        jit(namespace["no_source"])(np.arange(3.0))
    message = str(info.value)
    assert "no_source" in message and "cannot be read" in message and ".py file" in message
    assert _line_of_call(info.value)


def test_helper_without_source_is_refused_at_the_users_call():
    namespace: dict = {}
    exec(EXEC_DEF, namespace)
    helper = namespace["no_source"]

    def caller(x):
        return helper(x) * 2

    with pytest.raises(SourceUnavailableError) as info:
        jit(caller)(np.arange(3.0))
    assert info.value.location.file == __file__
    assert "helper(x)" in info.value.location.source_line()


def test_exec_lambda_without_control_flow_runs_and_with_it_says_why():
    plain = eval("lambda x: x * 2 + 1")
    check(plain, np.arange(3.0))
    branchy = eval("lambda x: x if x.sum() > 0 else -x")
    with pytest.raises(TranspileError) as info:
        jit(branchy)(np.arange(3.0))
    assert "lambda" in info.value.hint and "def" in info.value.hint
    assert _line_of_call(info.value)


# --- D: object arrays, recursion, memory ------------------------------------------------------
def passthrough(x, y=None):
    return x


@pytest.mark.parametrize("value, kind", [
    (np.array([1, "a"], dtype=object), "object"),
    (np.array(["a", "b"]), "string"),
    (np.array(["2020-01-01"], dtype="datetime64[D]"), "datetime64"),
])
def test_unsupported_dtype_argument_is_refused_by_name(value, kind):
    with pytest.raises(DTypeError) as info:
        jit(passthrough)(value)
    message = str(info.value)
    assert "argument 'x'" in message and kind in message
    assert _line_of_call(info.value)


def test_object_array_inside_a_container_or_keyword_is_named():
    bad = np.array([None, 1.0], dtype=object)
    with pytest.raises(DTypeError, match=r"argument 'x' \(element \[1\]\)"):
        jit(passthrough)((np.ones(2), bad))
    with pytest.raises(DTypeError, match="argument 'y'"):
        jit(passthrough)(np.ones(2), y=bad)


def power_of_two(x, n):
    if n == 0:
        return x
    return power_of_two(x * 2, n - 1)


def grow_until(x):
    if x.sum() > 100:
        return x
    return grow_until(x * 2)


def test_recursion_with_static_depth_is_inlined():
    check(power_of_two, np.arange(3.0), 4)
    check(power_of_two, np.arange(3.0), 0)


def test_recursion_with_data_dependent_depth_is_refused_at_the_recursive_call():
    with pytest.raises(RecursionDepthError) as info:
        jit(grow_until)(np.arange(1.0, 4.0))
    err = info.value
    assert "grow_until" in str(err) and "recursi" in str(err)
    assert err.location.file == __file__
    assert "return grow_until(x * 2)" in err.location.source_line()


def huge_constant(x):
    return np.zeros((100000, 100000, 100)) + x


def huge_outer_product(x, y):
    return x[:, None] * y[None, :]


def test_arrays_larger_than_the_machine_are_a_memory_error_naming_the_size():
    with pytest.raises(MemoryError) as info:
        jit(huge_constant)(1.0)
    assert "7.28 TiB" in str(info.value) and "(100000, 100000, 100)" in str(info.value)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert __file__ in notes and "np.zeros((100000, 100000, 100))" in notes
    big = np.ones(3_000_000)
    with pytest.raises(MemoryError) as info:
        jit(huge_outer_product)(big, big)
    assert "(3000000, 3000000)" in str(info.value) and "TiB" in str(info.value)
    assert __file__ in "\n".join(getattr(info.value, "__notes__", []))


# --- E: calls into libraries npxla does not compile -------------------------------------------
def uses_scipy_zeta(x):
    import scipy.special
    return scipy.special.zeta(x + 2.0, 1.0) + 1


def uses_statistics(x):
    return statistics.median(list(x))


def uses_statistics_on_constants(x):
    return statistics.median([3.0, 1.0, 2.0]) + x


def test_library_call_on_traced_arrays_is_named_at_the_users_call():
    pytest.importorskip("scipy.special")
    with pytest.raises(UnsupportedFunctionError) as info:
        jit(uses_scipy_zeta)(np.arange(3.0))
    err = info.value
    assert isinstance(err, LibraryCallError)
    assert "scipy.special.zeta" in err.message and "does not compile" in err.message
    assert "static_argnums" not in str(err)
    assert "scipy.special.zeta(x + 2.0, 1.0)" in err.location.source_line()


def test_pure_python_library_on_traced_values_is_named():
    with pytest.raises(LibraryCallError) as info:
        jit(uses_statistics)(np.arange(3.0))
    assert "statistics.median" in info.value.message
    assert info.value.location.file == __file__


def windows_of(x):
    return np.lib.stride_tricks.sliding_window_view(x, 3).sum(axis=1)


def resized(x):
    return np.resize(x, 12)


def test_numpy_functions_without_a_lowering_are_named_as_numpy():
    # a function of a NumPy submodule was reported as "comes from numpy, which @jit
    # does not compile", with the hint for other libraries
    with pytest.raises(LibraryCallError) as info:
        jit(windows_of)(np.arange(10.0))
    err = info.value
    assert err.message.startswith("'np.lib.stride_tricks.sliding_window_view' is not "
                                  "supported on traced values")
    assert "comes from" not in err.message and "other libraries" not in str(err)
    # the suggestion is the linter's, and it compiles to NumPy's answer
    assert "np.arange(len(x) - w + 1)[:, None] + np.arange(w)" in err.message
    assert "docs/numpy-support.md" in err.hint
    with pytest.raises(LibraryCallError) as info:
        jit(resized)(np.arange(10))
    assert info.value.message.startswith("'np.resize' is not supported on traced values")
    assert "other libraries" not in str(info.value)


def windows_by_index(x):
    w = 3
    return x[np.arange(len(x) - w + 1)[:, None] + np.arange(w)].sum(axis=1)


def test_the_suggested_windows_compile():
    check(windows_by_index, np.arange(10.0))


def test_library_call_on_python_values_still_runs():
    check(uses_statistics_on_constants, np.arange(3.0))


# --- argument kinds with NumPy behaviour XLA arrays lack ------------------------------
def _double(x):
    return x * 2


def _bump(x):
    x += 1
    return x


def test_big_endian_arguments_are_converted_and_written_back():
    from npxla import jit
    for dt in (">f8", ">i4", ">c16"):
        x = np.arange(4, dtype=dt)
        got = jit(_double)(x)
        np.testing.assert_array_equal(got, x * 2)
        assert got.dtype == (x * 2).dtype
    x, y = np.arange(3.0).astype(">f8"), np.arange(3.0).astype(">f8")
    jit(_bump)(x)
    _bump(y)
    np.testing.assert_array_equal(x, y)
    assert x.dtype == np.dtype(">f8")


@pytest.mark.parametrize("make, what", [
    (lambda: np.ma.masked_array([1.0, 2.0], mask=[0, 1]), "masked array"),
    (lambda: np.matrix([[1.0, 2.0]]), "np.matrix"),
])
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_masked_arrays_and_matrices_are_refused_by_name(make, what):
    from npxla import jit
    from npxla.transpiler.base.errors import DTypeError
    value = make()
    with pytest.raises(DTypeError) as info:
        jit(_double)(value)
    assert "argument 'x'" in str(info.value) and what in str(info.value)


def test_zero_d_array_argument_is_updated_in_place_and_returned_as_array():
    from npxla import jit

    def f(x, s):
        x += 1          # a 0-d array: updated in place
        s += 1          # a NumPy scalar: rebound
        return x, s
    for fn in (f, jit(f)):
        x = np.array(2.0)
        out = fn(x, np.float64(3.0))
        assert x == 3.0 and type(out[0]) is np.ndarray and out[0].ndim == 0
        assert type(out[1]) is np.float64 and out[1] == 4.0


def _bump_first_read_second(x, y):
    x += 1
    return y * 1, x is y


def _shift_add(x, y):
    x[1:] += y[:-1]
    return x


def test_one_array_passed_twice_is_one_array_inside():
    from npxla import jit
    f = jit(_bump_first_read_second)
    for _ in range(2):                       # and the cached program is not reused
        a, b = np.zeros(3), np.zeros(3)
        got, want = f(a, a), _bump_first_read_second(b, b)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] is True and want[1] is True
        np.testing.assert_array_equal(a, b)
        c, d = np.zeros(3), np.zeros(3)       # separate arrays: their own program
        got = f(c, d)
        np.testing.assert_array_equal(got[0], np.zeros(3))
        assert got[1] is False


def test_overlapping_views_updated_in_place_are_refused():
    from npxla import jit
    from npxla.transpiler.base.errors import UnsupportedOperationError
    b = np.arange(4.0)
    with pytest.raises(UnsupportedOperationError, match="share memory"):
        jit(_shift_add)(b[1:], b[:-1])
    np.testing.assert_array_equal(b, np.arange(4.0))
    a, b = np.arange(4.0), np.arange(4.0)     # the same array twice: exact
    np.testing.assert_array_equal(jit(_shift_add)(a, a), _shift_add(b, b))
    np.testing.assert_array_equal(a, b)


def _store(a, v):
    a[0] = v
    return a


def _store_sum(a, x):
    a[1] = x.sum()
    return a


@pytest.mark.parametrize("fn, args", [
    (_store, (1000.7,)), (_store, (1000,)), (_store, (-129,)), (_store, (127.9,)),
    (_store, (float("nan"),)), (_store, (float("inf"),)), (_store, (-3.5,)),
    (_store_sum, (np.array([600.0, 400.7]),)), (_store_sum, (np.array([60.0, 40.7]),)),
])
@pytest.mark.parametrize("dtype", alternate([np.int8, np.uint8, np.int64]))
def test_scalar_stored_into_integer_array_overflows_like_numpy(fn, args, dtype):
    from npxla import jit
    if fn is _store_sum and dtype == np.uint8 and args[0].sum() > 255:
        pytest.skip("NumPy wraps an out-of-range NumPy float stored into uint8; XLA's "
                    "conversion saturates (a documented cast difference)")
    a, b = np.zeros(3, dtype), np.zeros(3, dtype)
    try:
        want = fn(a, *args)
    except (OverflowError, ValueError) as e:
        with pytest.raises(type(e)):
            jit(fn)(b, *args)
        return
    np.testing.assert_array_equal(jit(fn)(b, *args), want)
    np.testing.assert_array_equal(a, b)


def _signed_zeros(a, b):
    return (a + 0.0, 0.0 + a, np.maximum(a, b), np.minimum(a, b), np.fmax(a, b),
            np.fmin(a, b), np.cumsum(a))


def test_signed_zeros_follow_numpy():
    from npxla import jit
    a = np.array([-0.0, 0.0, np.nan, 1.0, -0.0, -2.0])
    b = np.array([0.0, -0.0, 1.0, np.nan, -0.0, -2.0])
    got_all, want_all = jit(_signed_zeros)(a, b), _signed_zeros(a, b)
    for k, (got, want) in enumerate(zip(got_all, want_all)):
        np.testing.assert_array_equal(got, want)
        if k not in (4, 5):
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # fmax/fmin of +0.0 and -0.0: NumPy's own answer depends on the length and the CPU
    # (docs/semantics.md); npxla returns the first operand, like C's fmax on x86
    np.testing.assert_array_equal(np.signbit(got_all[4][:2]), [True, False])
    np.testing.assert_array_equal(np.signbit(got_all[5][:2]), [True, False])


def _element_updates(x, i):
    x[1] *= 2.5        # one element: computed as a scalar and stored (no same_kind check)
    x[i] += 1.5
    x[-1] //= 2
    return x


def _slice_update(x):
    x[1:2] *= 2.0      # a view: NumPy's in-place ufunc refuses float64 -> int64
    return x


@pytest.mark.parametrize("x", [np.array([-2, 5, 5]), np.array([-2.0, 5.0, 5.0]),
                               np.array([3, 4, 5], dtype=np.int32)])
def test_augmented_assignment_to_one_element_casts_like_a_store(x):
    check(_element_updates, x, 0)
    check(_element_updates, x, np.int64(2))


def test_augmented_assignment_to_an_integer_slice_is_refused_like_numpy():
    with pytest.raises(TypeError):
        _slice_update(np.array([-2, 5, 5]))
    with pytest.raises(TypeError):
        jit(_slice_update)(np.array([-2, 5, 5]))


def _bump_n(x, n):
    for _ in range(n):
        x += 1
    return x


def test_big_endian_argument_with_a_static_argument():
    from npxla import jit
    a, b = np.arange(3.0).astype(">f8"), np.arange(3.0).astype(">f8")
    np.testing.assert_array_equal(jit(_bump_n, static_argnums=(1,))(a, 2), _bump_n(b, 2))
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.dtype(">f8")
