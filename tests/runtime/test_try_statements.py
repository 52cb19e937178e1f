"""Data-dependent code inside a user `try`: an `if` with a traced test is staged, and a
run-time check whose exception a handler would catch refuses, located, when it fires
(the compiled program cannot run the handler), instead of raising past it."""
import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.transpiler.base.errors import TranspileError, UnsupportedOperationError


def outliers(der):
    # numdifftools' _add_error_to_outliers, in short
    try:
        if np.any(np.isnan(der)):
            p25, median, p75 = np.nanpercentile(der, [25, 50, 75], axis=0)
        else:
            p25, median, p75 = np.percentile(der, [25, 50, 75], axis=0)
        iqr = np.abs(p75 - p25)
    except ValueError:
        return 0 * der
    return (der < p25 - 1.5 * iqr) + (p75 + 1.5 * iqr < der) + median


def nested(x):
    y = x.copy()
    try:
        if x.sum() > 0:
            if x[0] > 1:
                y = y * 2
            elif x[1] > 0:
                y[1:] = 0.0
            else:
                y -= 1
        else:
            y = -y
    finally:
        y[0] += 1
    return y


def branch_raises(x):
    try:
        if x[0] > 0:
            raise ValueError("positive")
        y = x + 1
    except ValueError:
        y = x - 1
    return y


def index_in_try(x, i):
    try:
        v = x[i]
    except (KeyError, IndexError):
        v = -1.0
    return v


def index_in_other_try(x, i):
    try:
        v = x[i]
    except ValueError:
        v = -1.0
    return v


def bare_except(x, i):
    try:
        v = x[i] * 2
    except:  # noqa: E722 (legacy code does this)
        v = 0.0
    return v


def static_test_keeps_assignments(x):
    n = 0
    try:
        if x.ndim == 1:
            n = x.shape[0]
            raise ValueError
    except ValueError:
        return x * n
    return x


@pytest.mark.parametrize("der", [np.array([1.0, 2.0, 30.0, 4.0]),
                                 np.array([1.0, np.nan, 3.0, 400.0]),
                                 np.arange(12.0).reshape(4, 3)])
def test_data_dependent_if_inside_try(der):
    check(outliers, der)


@pytest.mark.parametrize("x", [np.array([2.0, 1.0, 3.0]), np.array([0.5, 1.0, 3.0]),
                               np.array([0.5, -1.0, 3.0]), np.array([-2.0, -1.0, 0.0])])
def test_nested_data_dependent_ifs_inside_try(x):
    check(nested, x)


def test_static_test_inside_try_keeps_assignments_before_a_raise():
    check(static_test_keeps_assignments, np.arange(3.0))


def test_branch_that_raises_inside_try():
    check(branch_raises, np.array([-1.0, 2.0]))          # not taken: as NumPy
    with pytest.raises(UnsupportedOperationError, match="ValueError") as info:
        jit(branch_raises)(np.array([1.0, 2.0]))       # NumPy runs the handler
    assert "except clause cannot run" in str(info.value)
    assert info.value.location.line == branch_raises.__code__.co_firstlineno + 2


@pytest.mark.parametrize("fn", [index_in_try, bare_except])
def test_run_time_check_caught_by_a_handler(fn):
    x = np.arange(5.0)
    check(fn, x, np.int64(3))
    check(fn, x, np.int64(-2))
    with pytest.raises(TranspileError, match="IndexError") as info:
        jit(fn)(x, np.int64(7))
    err = info.value
    assert err.location is not None
    assert err.location.line == fn.__code__.co_firstlineno + 2
    assert "except clause cannot run" in str(err) and err.hint
    assert isinstance(err.__cause__, IndexError)


def test_run_time_check_not_caught_raises_as_numpy():
    x = np.arange(5.0)
    check(index_in_other_try, x, np.int64(1))
    with pytest.raises(IndexError, match="out of bounds"):
        jit(index_in_other_try)(x, np.int64(7))
