"""How converted code routes its calls (`runtime/operators/call.py`), differentially
against NumPy: values, dtypes, shapes, result types and the caller's arrays afterwards.

- type questions (`isinstance`, `type`, `hasattr`, `np.isscalar`, ...) answered for the
  value NumPy would hold: an ndarray, a NumPy scalar or a Python scalar;
- which helpers are converted: decided by where the module's file lives, not its name;
- `logging`/`warnings` at run time, on every call, only on the path taken;
- `map`/`filter`/`sorted(key=)`/`functools.reduce`/`partial`/callable objects.
"""
from __future__ import annotations

import functools
import importlib
import logging
import sys
import textwrap
import warnings

import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.transpiler.base.errors import TranspileError, UnsupportedOperationError

ARGS = [np.arange(3.0), np.arange(6).reshape(2, 3), np.array(2.0), np.array(7), 3.0, 4,
        True, 1 + 2j, np.float64(2.5), np.int32(4), np.float32(1.5)]
IDS = ["vec", "int-matrix", "0d-float", "0d-int", "py-float", "py-int", "py-bool",
       "py-complex", "np-float64", "np-int32", "np-float32"]


# --- A: type questions about arguments -------------------------------------------------
def isinstance_branch(x):
    if isinstance(x, np.ndarray):
        return x * 2
    return x + 10


def type_identity_questions(x):
    return (type(x) is np.ndarray, type(x) == np.ndarray, issubclass(type(x), np.generic),
            type(x).__name__, isinstance(x, np.generic), isinstance(x, (int, float)),
            isinstance(x, float), isinstance(x, bool), isinstance(x, complex))


def attribute_questions(x):
    return (hasattr(x, "shape"), hasattr(x, "dtype"), hasattr(x, "__len__"),
            getattr(x, "ndim", -1), callable(x), np.ndim(x), np.isscalar(x),
            np.shape(x), getattr(x, "no_such_attribute", "missing"))


def dtype_questions(x):
    return (x.dtype.kind, np.issubdtype(x.dtype, np.floating),
            np.issubdtype(x.dtype, np.integer), x.dtype.kind in "iu")


@pytest.mark.parametrize("arg", ARGS, ids=IDS)
@pytest.mark.parametrize("fn", [isinstance_branch, type_identity_questions,
                                attribute_questions])
def test_type_questions_about_arguments_match_numpy(fn, arg):
    check(fn, arg)


@pytest.mark.parametrize("arg", [a for a in ARGS if hasattr(a, "dtype")],
                         ids=[i for a, i in zip(ARGS, IDS) if hasattr(a, "dtype")])
def test_dtype_questions_match_numpy(arg):
    check(dtype_questions, arg)


def scalar_int_parameter(x, n):
    if isinstance(n, int) and not isinstance(n, bool):
        return x * n
    return x


def test_python_int_argument_is_an_int():
    check(scalar_int_parameter, np.arange(3.0), 3)
    check(scalar_int_parameter, np.arange(3.0), True)


# --- A: type questions about computed values ---------------------------------------------
def reduction_is_a_numpy_scalar(x):
    s = x.sum()
    return (isinstance(s, np.floating), isinstance(s, float), type(s) is np.float64,
            isinstance(s, np.ndarray), np.isscalar(s), hasattr(s, "shape"),
            isinstance(x.max(), np.ndarray), isinstance(x[0], np.generic),
            isinstance(np.sqrt(s), np.ndarray))


def asarray_makes_arrays(x):
    s = x.sum()
    a = np.asarray(s)
    b = np.array(s)
    return (isinstance(a, np.ndarray), isinstance(s, np.ndarray), isinstance(b, np.ndarray),
            np.isscalar(a), a is s, np.asarray(x) is x, isinstance(np.zeros(()), np.ndarray),
            isinstance(np.where(True, s, 0.0), np.ndarray))


def zero_d_argument_operations(x):
    return (isinstance(x, np.ndarray), isinstance(x.sum(), np.ndarray),
            isinstance(x.copy(), np.ndarray), isinstance(x + 1, np.ndarray),
            isinstance(x[()], np.ndarray), isinstance(x[...], np.ndarray),
            isinstance(np.reshape(x, ()), np.ndarray), isinstance(x, np.ndarray))


def constants_inside(x):
    c = np.array(2.0)
    d = np.float64(2.0)
    e = 2.0
    return (isinstance(c, np.ndarray), isinstance(d, np.floating), isinstance(d, np.ndarray),
            isinstance(e, float), type(np.arange(3)) is np.ndarray, x)


def scale_if_float_scalar(x):
    s = x.mean()
    if isinstance(s, np.floating) and np.issubdtype(x.dtype, np.floating):
        return x / s
    return x


def test_reductions_are_numpy_scalars():
    check(reduction_is_a_numpy_scalar, np.arange(1.0, 4.0))


def test_asarray_of_a_scalar_is_a_new_array():
    check(asarray_makes_arrays, np.arange(1.0, 4.0))


def test_zero_d_array_argument_through_operations():
    check(zero_d_argument_operations, np.array(3.0))


def test_constants_inside_the_function():
    check(constants_inside, np.arange(3.0))


def test_isinstance_on_a_reduction_decides_a_branch():
    check(scale_if_float_scalar, np.arange(1.0, 5.0))
    check(scale_if_float_scalar, np.arange(1, 5))


def test_numpy_scalar_and_zero_d_array_arguments_compile_separately():
    f = jit(type_identity_questions)
    assert f(np.array(2.5)) == type_identity_questions(np.array(2.5))
    assert f(np.float64(2.5)) == type_identity_questions(np.float64(2.5))
    assert f(np.array(2.5)) == type_identity_questions(np.array(2.5))


def text_of_traced(x):
    return str(x.sum())


def text_of_constant(x):
    return str(np.float64(1.5)) + repr(2.0), x


def test_str_of_a_traced_value_is_refused_and_of_a_constant_is_numpys():
    with pytest.raises(UnsupportedOperationError) as info:
        jit(text_of_traced)(np.arange(3.0))
    assert info.value.line is not None and "str()" in str(info.value)
    check(text_of_constant, np.arange(3.0))


# --- B: which helpers are converted -------------------------------------------------------
HELPER = """
import numpy as np

def sign_flip(x):
    if x.sum() > 0:
        return -x
    return x
"""


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """Import a user module named like a library (`numpy_utils`, `mathutils`)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []

    def make(name):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(HELPER))
        made.append(name)
        return importlib.import_module(name)
    yield make
    for name in made:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("name", ["numpy_utils", "mathutils", "scipy_helpers", "runtime_x"])
def test_user_modules_named_like_libraries_are_converted(user_module, name):
    module = user_module(name)

    def uses_helper(x):
        return module.sign_flip(x) + 1

    for x in (np.arange(3.0), -np.arange(3.0)):
        check(uses_helper, x)


def draws_python_random(x):
    import random
    return x * random.random()


def test_standard_library_random_is_refused_not_baked_in():
    with pytest.raises(UnsupportedOperationError) as info:
        jit(draws_python_random)(np.arange(3.0))
    assert "random" in str(info.value) and info.value.line is not None


# --- B: logging and warnings at run time --------------------------------------------------
LOG = logging.getLogger("npxla.tests.routing")


def logs_total(x):
    LOG.warning("total %.1f", x.sum())
    logging.warning("root %d items", x.size)
    return x * 2


def logs_only_when_positive(x):
    if x.sum() > 0:
        LOG.warning("positive %s", x.max())
    return x + 1


def test_logging_runs_at_run_time_with_values_on_every_call(caplog):
    f = jit(logs_total)
    with caplog.at_level(logging.WARNING):
        f(np.arange(3.0))
        f(np.arange(4.0))
    messages = [r.getMessage() for r in caplog.records]
    assert messages == ["total 3.0", "root 3 items", "total 6.0", "root 4 items"]
    rec = caplog.records[0]
    assert rec.pathname == __file__ and rec.funcName == "logs_total"
    assert rec.lineno == logs_total.__code__.co_firstlineno + 1


def test_logging_under_data_dependent_branch_runs_only_when_taken(caplog):
    f = jit(logs_only_when_positive)
    with caplog.at_level(logging.WARNING):
        check(logs_only_when_positive, -np.arange(3.0))
        assert caplog.records == []
        f(np.arange(3.0))
    assert [r.getMessage() for r in caplog.records] == ["positive 2.0"]


def test_logging_level_is_read_when_the_program_runs(caplog):
    f = jit(logs_total)
    with caplog.at_level(logging.ERROR):
        f(np.arange(3.0))
    assert caplog.records == []
    with caplog.at_level(logging.WARNING):
        f(np.arange(3.0))
    assert len(caplog.records) == 2


def logs_each_iteration(x):
    i = 0
    while x.sum() < 100:
        x = x * 2
        LOG.warning("iteration %d: %s", i, x.sum())
        i += 1
    return x


def test_logging_inside_a_data_dependent_loop_logs_every_iteration(caplog):
    with caplog.at_level(logging.WARNING):
        check(logs_each_iteration, np.ones(3))
    expected = [f"iteration {i}: {6.0 * 2 ** i}" for i in range(6)]
    got = [r.getMessage() for r in caplog.records]
    assert got == expected + expected      # NumPy's run, then the compiled one
    assert {r.funcName for r in caplog.records} == {"logs_each_iteration"}


def warns_when_negative(x):
    if x.min() < 0:
        warnings.warn(f"negative values ({x.size})", RuntimeWarning)
    return np.abs(x)


def test_warnings_run_at_run_time_at_the_users_line():
    f = jit(warns_when_negative)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(np.arange(3.0))
        assert caught == []
        f(-np.arange(3.0))
        f(-np.arange(3.0))
    assert [str(w.message) for w in caught] == ["negative values (3)"] * 2
    w = caught[0]
    assert w.category is RuntimeWarning and w.filename == __file__
    assert w.lineno == warns_when_negative.__code__.co_firstlineno + 2


def test_warning_filter_error_raises_from_the_call():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            jit(warns_when_negative)(-np.arange(3.0))


# --- E: functions called for the user ------------------------------------------------------
def map_asarray(a, b):
    a, b = map(np.asarray, (a, b))
    return a + b


def comprehension_asarray(a, b):
    a, b = [np.asarray(v) for v in (a, b)]
    return a + b


def flip_if_positive(v):
    if v.sum() > 0:
        return -v
    return v


def map_user_function(a, b):
    return list(map(flip_if_positive, [a, b]))


def reduce_and_filter(a, b, c):
    total = functools.reduce(np.add, [a, b, c])
    kept = list(filter(lambda v: v.shape[0] > 2, [a, b[:2], c]))
    return total, len(kept)


def sort_by_static_key(a, b, c):
    ordered = sorted([c, a, b], key=lambda v: v.shape[0])
    return ordered[0], max([3, 1, 2], key=lambda k: -k)


def scaled(x, factor=1.0):
    if x.sum() > 0:
        return x * factor
    return x


def partial_of_user_function(x):
    return functools.partial(scaled, factor=3.0)(x)


class Flipper:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        if x.sum() > 0:
            return -x * self.k
        return x * self.k


FLIP = Flipper(2.0)


def callable_object(x):
    return FLIP(x)


@pytest.mark.parametrize("fn", [map_asarray, comprehension_asarray])
def test_map_with_a_registry_function_works_like_the_comprehension(fn):
    check(fn, np.arange(3.0), np.ones(3))
    check(fn, np.arange(3), 2.5)


def test_map_converts_user_functions():
    check(map_user_function, np.arange(3.0), -np.arange(3.0))


def test_reduce_filter_sorted_partial_and_callable_objects():
    a, b, c = np.arange(3.0), np.ones(3), np.arange(4.0)
    check(reduce_and_filter, a, b, a)
    check(sort_by_static_key, a, b[:2], c)
    for x in (np.arange(3.0), -np.arange(3.0)):
        check(partial_of_user_function, x)
        check(callable_object, x)


def test_routing_refusals_are_transpile_errors():
    def bad(x):
        return list(map(str, [x.sum()]))
    with pytest.raises(TranspileError) as info:
        jit(bad)(np.arange(3.0))
    assert info.value.line is not None


# --- conversion of decorated functions and static scalars -----------------------------------
def doubles_its_input(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return fn(x * 2)
    return wrapper


@doubles_its_input
def decorated(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


def test_functools_wraps_decorator_is_converted_with_its_wrapper():
    # inspect follows __wrapped__: the wrapper itself must be converted, not `decorated`
    for x in (np.arange(3.0), -np.arange(3.0)):
        check(decorated, x)


def static_scalar_questions(x, s):
    return isinstance(s, np.floating), isinstance(s, np.ndarray), x * s


def test_static_numpy_scalar_argument_is_the_real_value():
    check(static_scalar_questions, np.arange(3.0), np.float64(2.0),
          jit_kwargs={"static_argnums": 1})
