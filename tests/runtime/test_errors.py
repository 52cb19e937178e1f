"""Every refusal is a located TranspileError; no raw MLIR/XLA error reaches users."""
import numpy as np
import pytest

from npxla import TranspileError, jit
from tests.differential import check
from npxla.transpiler.base.errors import (DataDependentShapeError, InternalCompilerError,
                                          Location, UnsupportedOperationError,
                                          UnsupportedSyntaxError)


def _first_line(fn):
    return fn.__code__.co_firstlineno


def test_error_message_has_file_line_col_caret_and_hint():
    def f(x):
        y = x + 1
        return y[y[:, 0] > 2, [0, 1]]      # a mask with an index array: refused
    with pytest.raises(DataDependentShapeError) as info:
        jit(f)(np.arange(8.0).reshape(4, 2))
    text = str(info.value)
    assert f"test_errors.py:{_first_line(f) + 2}:16" in text
    assert "return y[y[:, 0] > 2, [0, 1]]" in text
    assert "^^^^^^^^" in text
    assert "hint:" in text
    assert "XLA needs every shape" in text


def test_unsupported_function_is_located():
    def f(x):
        return np.union1d(x, x)
    with pytest.raises(TranspileError) as info:
        jit(f)(np.ones(3))
    assert info.value.line == _first_line(f) + 1


def test_a_bit_generator_made_inside_is_refused_with_a_hint():
    """np.random itself is called when the program runs (test_random_calls.py); a bit
    generator made inside is not."""
    def f(x):
        rng = np.random.Generator(np.random.MT19937(3))
        return x + rng.random(3)
    with pytest.raises(UnsupportedOperationError) as info:
        jit(f)(np.ones(3))
    assert "np.random.MT19937 creates a NumPy random generator" in str(info.value)
    assert "pass them in" in str(info.value)
    assert info.value.line == _first_line(f) + 1


def _python_random(x):
    import random
    return x + random.random()


def test_pythons_random_module_is_refused_with_a_hint():
    with pytest.raises(UnsupportedOperationError) as info:
        jit(_python_random)(np.ones(3))
    msg = str(info.value)
    assert "draws from Python's random module" in msg and "pass them in" in msg
    assert f"{__file__}:" in msg


def test_generators_are_refused_at_conversion():
    def f(x):
        yield x
    with pytest.raises(UnsupportedSyntaxError) as info:
        jit(f)(np.ones(3))
    assert info.value.line == _first_line(f) + 1


def test_mutating_a_class_attribute_array_with_traced_values_is_refused():
    # a closure or global array is an implicit input and is written back
    # (tests/runtime/test_guards.py); a class attribute cannot be substituted
    class Holder:
        G = np.zeros(3)

    def f(x):
        Holder.G[0] = x[0]
        return x
    with pytest.raises(UnsupportedOperationError, match="not created inside"):
        jit(f)(np.ones(3))


def test_xla_compile_failures_are_wrapped():
    from npxla.runtime.xla.compile import compile_module
    from npxla.runtime.xla.devices import resolve
    with pytest.raises(InternalCompilerError) as info:
        compile_module("this is not MLIR", resolve("cpu"))
    assert "XLA failed to compile" in str(info.value)


def test_location_render_without_source():
    loc = Location("/nonexistent.py", 3, 4)
    assert loc.render() == "/nonexistent.py:3:5"


def test_user_errors_keep_their_numpy_type_and_get_the_line():
    def f(x, y):
        return x + y
    with pytest.raises(ValueError) as info:
        jit(f)(np.ones(3), np.ones(4))
    assert "broadcast" in str(info.value)


def _raised_in_branch(x):
    y = x * 1.0
    n = 0
    try:
        if x.shape[0] > 1:
            n = x.shape[0] + 1
            y = y + n
            raise ValueError("boom")
    except ValueError:
        return y, n + 3
    return y, n


def _raised_in_loop(x):
    n = 0
    try:
        for i in range(3):
            n = i
            if i == 1:
                raise ValueError("boom")
    except ValueError:
        return x * n
    return x


def _removed_name_in_branch(x):
    b = x.mean()
    if b == 1 or b == 0:
        c = np.NaN          # removed in NumPy 2: raises when the line runs
    else:
        c = -b * np.log(b)
    return c


def test_a_removed_numpy_name_in_an_untaken_branch_raises_only_when_taken():
    """EntropyHub's CoSiEn: NumPy runs the other path; npxla traces both, and the
    AttributeError of NumPy's module `__getattr__` is the program's own behaviour on
    the path that looks the name up."""
    check(_removed_name_in_branch, np.array([0.2, 0.5]))
    for x in (np.zeros(3), np.ones(2)):
        with pytest.raises(AttributeError, match="np.NaN"):
            jit(_removed_name_in_branch)(x)


def test_assignments_before_a_caught_raise_in_a_branch_are_kept():
    check(_raised_in_branch, np.ones(2))


def _raised_in_while_after_break_test(x):
    y = x * 1.0
    k = 0
    try:
        while k < 5:
            y = y + k
            k += 1
            for j in range(4):
                if j == 3:
                    break
                y = y * 2.0
                if k == 3 and j == 1:
                    raise ValueError("boom")
    except ValueError:
        return y, k
    return y, k


def _data_dependent_loop_in_try(x):
    try:
        for i in range(int(x.shape[0])):
            if x[i] > 0:
                break
    except ValueError:
        pass
    return x


def test_assignments_before_a_caught_raise_in_a_loop_are_kept():
    check(_raised_in_loop, np.ones(2))
    check(_raised_in_while_after_break_test, np.arange(3.0))


def _data_dependent_while_in_try(x):
    k = 0
    try:
        while x[k] < 1:
            k += 1
    except IndexError:
        k = -1
    return k


def test_data_dependent_flow_inside_try_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="data-dependent break inside try"):
        jit(_data_dependent_loop_in_try)(np.arange(3.0))
    with pytest.raises(UnsupportedSyntaxError, match="data-dependent while loop inside try"):
        jit(_data_dependent_while_in_try)(np.arange(3.0))
