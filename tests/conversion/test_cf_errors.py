"""Refusals: each is a located TranspileError (file:line, the source line with a caret,
a hint, the variable's name), and the same construct on a Python path still works.

Where an error points: one about a converted `if` / `while` / `for` as a whole (values
that cannot be unified across its paths, an `else:` or `try` it cannot have, an error in
its staged condition) points at the statement's header line, with the caret under the
header; one raised by a statement inside a branch or loop body points at that statement.
"""
import inspect
import re
import traceback

import numpy as np
import pytest

from npxla.runtime.operators.loops import NpxlaPerformanceWarning
from differential import check

from npxla import jit, to_source
from npxla.transpiler.base.errors import (ShapeMismatchError, TranspileError,
                                          UndefinedVariableError,
                                          UnsupportedOperationError,
                                          UnsupportedSyntaxError)

X = np.array([1.5, -2.0, 3.25, 0.5, 4.0])


def line_of(fn, text):
    """The absolute line number of the first line of `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return start + k
    raise AssertionError(f"{text!r} not in {fn.__name__}")


def raises_located(cls, fn, *args, line, name=None, words=()):
    """Call jit(fn)(*args); the error must be `cls` and point at the line containing
    `line` in this file with a caret and a hint, and name `name`."""
    with pytest.raises(cls) as info:
        jit(fn)(*args)
    err = info.value
    msg = str(err)
    assert isinstance(err, TranspileError)
    lineno = line_of(fn, line)
    assert f"{__file__}:{lineno}:" in msg, msg
    assert err.file == __file__ and err.line == lineno
    rendered = msg.splitlines()
    k = next(i for i, s in enumerate(rendered) if line in s)
    assert re.fullmatch(r"\s*\^+", rendered[k + 1]), msg       # caret under the line,
    assert rendered[k + 1].index("^") == rendered[k].index(line), msg   # starting at it
    assert "hint: " in msg and err.hint
    if name is not None:
        assert f"'{name}'" in msg, msg
    for w in words:
        assert w in msg, msg
    return err


# --- shapes -----------------------------------------------------------------------------
def branch_shapes(x):
    if x.sum() > 0:
        y = x
    else:
        y = x[:2]
    return y


def branch_shapes_python(x):
    if x.ndim == 1:
        y = x
    else:
        y = x[:2]
    return y


def branch_shapes_in_loop(x):
    y = x
    while x.sum() > 1:
        x = x / 2
        if x[0] > 0.3:
            y = x
        else:
            y = x[:2]
    return y


def test_branches_giving_different_shapes_assume_their_condition():
    # outside staged loops the condition is assumed (checked when the program runs,
    # staged again when wrong) and the branch taken runs as Python: NumPy's shapes
    for x in (X, -X, X):
        check(branch_shapes, x)
    check(branch_shapes_python, X)


def test_branches_giving_different_shapes_inside_a_staged_loop():
    err = raises_located(ShapeMismatchError, branch_shapes_in_loop, X, line="if x[0] > 0.3:",
                         name="y", words=("(2,)", "(5,)", "data-dependent branch"))
    assert isinstance(err, ValueError)


def loop_shape_change(x):
    y = x
    while y.sum() < 100:
        y = y[1:] * 2
    return y


def loop_shape_change_python(x):
    y = x
    while y.shape[0] > 2:
        y = y[1:] * 2
    return y


def test_loop_carried_shape_change():
    raises_located(ShapeMismatchError, loop_shape_change, X, line="while y.sum() < 100:",
                   name="y", words=("(4,)", "(5,)", "data-dependent loop"))
    with pytest.warns(NpxlaPerformanceWarning, match="'y' has shape"):
        check(loop_shape_change_python, X)


def grow_in_for(x, n):
    y = x
    for i in range(n):
        y = np.concatenate([y, x])
    return y


def test_loop_carried_shape_change_in_for_over_traced_range():
    raises_located(ShapeMismatchError, grow_in_for, X, np.int64(2),
                   line="for i in range(n):", name="y", words=("(10,)", "(5,)"))



def multiline_if_header(x):
    y = x
    while x.sum() > 1:
        x = x / 2
        if (x.sum()
                > 0):
            y = x
        else:
            y = x[:2]
    return y


def multiline_while_header(x):
    y = x
    while (y.sum()
           < 100):
        y = y[1:] * 2
    return y


def multiline_for_header(x, n):
    y = x
    for i in range(
            n):
        y = np.concatenate([y, x])
    return y


@pytest.mark.parametrize("fn,args,header", [
    (multiline_if_header, (X,), "if (x.sum()"),
    (multiline_while_header, (X,), "while (y.sum()"),
    (multiline_for_header, (X, np.int64(2)), "for i in range("),
], ids=["if", "while", "for"])
def test_error_points_at_first_line_of_a_multiline_header(fn, args, header):
    raises_located(ShapeMismatchError, fn, *args, line=header, name="y")

# --- undefined on one path ------------------------------------------------------------
def one_path(x):
    if x.sum() > 0:
        y = x * 2
    return y


def one_path_not_used_after(x):
    r = x
    if x.sum() > 0:
        tmp = x * 2          # only used inside the branch: fine
        r = tmp + 1
    return r


def test_variable_defined_on_one_path_of_staged_if():
    err = raises_located(UndefinedVariableError, one_path, X, line="if x.sum() > 0:",
                         name="y", words=("only one path",))
    assert isinstance(err, NameError)
    check(one_path_not_used_after, X)
    check(one_path_not_used_after, -X)


def one_path_python(x):
    if x.ndim == 1:
        y = x * 2
    return y


def test_variable_defined_on_taken_python_path_works():
    check(one_path_python, X)


# --- Python values that cannot change in staged code -----------------------------------
def none_becomes_array(x):
    best = None
    for v in x:
        if best is None or v > best:
            best = v
    return best


def none_becomes_array_python(x):
    best = None
    for v in [1.0, 3.0, 2.0]:
        if best is None or v > best:
            best = v
    return x * best


def none_becomes_array_traced(x, n):
    best = None
    for i in range(n):
        if best is None or x[i] > best:
            best = x[i]
    return best


def test_none_that_becomes_an_array_in_staged_loop():
    raises_located(UnsupportedOperationError, none_becomes_array_traced, X, np.int64(3),
                   line="for i in range(n):", name="best",
                   words=("NoneType None", "data-dependent loop"))
    check(none_becomes_array_python, X)


def test_none_that_becomes_an_array_in_static_loop_unrolls():
    # a static trip count keeps Python semantics: the loop is unrolled, with a warning
    with pytest.warns(NpxlaPerformanceWarning, match="change shape or type"):
        check(none_becomes_array, X)


def string_per_branch(x):
    if x.sum() > 0:
        tag = "pos"
    else:
        tag = "neg"
    return x, tag


def string_same_in_both(x):
    if x.sum() > 0:
        tag = "same"
        x = x + 1
    else:
        tag = "same"
    return x, tag


def string_per_branch_in_loop(x):
    tag = "start"
    while x.sum() > 1:
        x = x / 2
        if x[0] > 0.3:
            tag = "pos"
        else:
            tag = "neg"
    return x, tag


def test_string_differing_between_staged_branches():
    for x in (X, -X):
        check(string_per_branch, x)          # the condition assumed and checked
    raises_located(UnsupportedOperationError, string_per_branch_in_loop, X,
                   line="if x[0] > 0.3:", name="tag", words=("str 'pos'", "str 'neg'"))
    check(string_same_in_both, X)


# --- statically refused syntax --------------------------------------------------------
G = 0


def mutate_nonlocal(x):
    g = 0

    def inner(y):
        nonlocal g
        g = y.sum()
        return y
    return inner(x)


class Box:
    pass


def delete_attribute(x, box):
    box.value = x
    del box.value
    return x


def generator(x):
    for v in x:
        yield v


def test_nonlocal_statement():
    raises_located(UnsupportedSyntaxError, mutate_nonlocal, X, line="nonlocal g", name=None,
                   words=("nonlocal g",))


def test_attribute_deletion():
    raises_located(UnsupportedSyntaxError, delete_attribute, X, Box(), line="del box.value",
                   words=(".value",))


def test_yield():
    raises_located(UnsupportedSyntaxError, generator, X, line="yield v",
                   words=("generator",))


# --- try / else clauses ----------------------------------------------------------------
def try_around_staged_if(x):
    try:
        if x.sum() > 0:
            x = x * 2
    finally:
        pass
    return x


def try_except_around_staged_if(x):
    try:
        if x.sum() > 0:
            x = x * 2
    except ValueError:
        pass
    return x


def try_around_python_cf(x):
    try:
        if x.ndim == 1:
            y = x[10]
        else:
            y = x
    except IndexError:
        y = x[0]
    for i in range(2):
        try:
            y = y + x[i]
        finally:
            y = y * 2
    return y


def test_data_dependent_if_inside_try_is_staged():
    # try/finally: nothing catches; try/except ValueError: neither branch raises, so
    # the handler never runs in NumPy either (the staged `if` cannot be swallowed)
    check(try_around_staged_if, X)
    check(try_around_staged_if, -X)
    check(try_except_around_staged_if, X)
    check(try_except_around_staged_if, -X)


def test_try_around_python_control_flow_works():
    check(try_around_python_cf, X)


def while_else(x):
    while x.sum() < 10:
        x = x * 2
    else:
        x = x + 1
    return x


def for_else(x, n):
    for i in range(n):
        x = x * 2
    else:
        x = x + 1
    return x


def while_else_python(x):
    n = 0
    while n < x.shape[0]:
        if n > 10:
            break
        n += 1
    else:
        x = x + n
    return x


def for_else_python(x):
    for k in [1, 2]:
        x = x * k
    else:
        x = x - 1
    return x


def test_while_else_on_staged_loop():
    # located at the loop header, not at the else clause
    raises_located(UnsupportedSyntaxError, while_else, X, line="while x.sum() < 10:",
                   words=("else clause of a data-dependent while loop",))


def test_for_else_on_staged_loop():
    raises_located(UnsupportedSyntaxError, for_else, X, np.int64(3),
                   line="for i in range(n):",
                   words=("else clause of a data-dependent for loop",))


def test_loop_else_on_python_loops_works():
    check(while_else_python, X)
    check(for_else_python, X)


# --- containers -----------------------------------------------------------------------
def append_in_staged_while(x):
    out = []
    i = 0
    while i < x.sum():
        out.append(i)
        i += 1
    return out


def append_in_staged_for(x, n):
    out = []
    for i in range(n):
        out.append(x[i])
    return out


def append_in_python_loop(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * 2)
    return out


def test_list_append_inside_staged_loop():
    err = raises_located(UnsupportedOperationError, append_in_staged_while, X,
                         line="out.append(i)", words=("list.append",))
    assert "preallocate" in err.hint
    raises_located(UnsupportedOperationError, append_in_staged_for, X, np.int64(3),
                   line="out.append(x[i])")


def test_list_append_in_python_loop_works():
    check(append_in_python_loop, X)


# --- to_source and tracebacks ----------------------------------------------------------
def readable(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y


def test_to_source_shows_converted_code():
    src = to_source(readable)
    assert "ag__.if_stmt" in src and "def if_true" in src and "def if_false" in src
    assert "('y',)" in src
    compile(src, "<converted>", "exec")


def oob_in_branch(x):
    if x.sum() > 0:
        y = x[7]
    else:
        y = x[0]
    return y


def test_numpy_error_in_converted_branch_points_at_user_line():
    with pytest.raises(IndexError) as info:
        jit(oob_in_branch)(X)
    err = info.value
    lineno = line_of(oob_in_branch, "y = x[7]")
    notes = "\n".join(getattr(err, "__notes__", []))
    assert f"{__file__}:{lineno}:" in notes and "y = x[7]" in notes and "^" in notes
    # the branch is data-dependent, so the error is a run-time check: it fires after the
    # program ran, and only the note (not a traceback frame) can point at the line


def falls_off_on_one_path(x):
    if x.sum() > 0:
        return x


def test_return_on_some_staged_paths_only():
    # whether it falls off its end is assumed, checked when the program runs, and
    # staged again when wrong: None on that path, as in NumPy
    for x in (X, -X, X):
        check(falls_off_on_one_path, x)


def _fill_or_stop(x, out):
    # a Numba-style kernel: bare returns under conditions on data, no final return
    if x[0] < 0:
        out[0] = -1.0
        return
    for i in range(x.shape[0]):
        if x[i] > 2.0:
            return
        out[i] = x[i] * 2.0


def _kernel_caller(x):
    out = np.zeros_like(x)
    for k in range(3):
        _fill_or_stop(x + k, out)      # inside a staged loop too: None on every path
    r = _fill_or_stop(x, out)
    return out, r is None


def test_bare_returns_under_staged_conditions_give_none_on_every_path():
    for x in (X, -X, np.array([0.5, 1.0, 3.0]), np.array([0.1, 0.2, 0.3])):
        check(_kernel_caller, x)


def ambiguous_truth(x):
    if x > 0:
        return x
    return -x


def test_ambiguous_truth_value_of_array_condition_is_numpys_error():
    with pytest.raises(ValueError, match="truth value of an array"):
        jit(ambiguous_truth)(X)
    check(ambiguous_truth, X[:1])          # a one-element array is a valid condition


def test_error_in_staged_condition_points_at_the_if_line():
    with pytest.raises(ValueError, match="truth value of an array") as info:
        jit(ambiguous_truth)(X)
    lineno = line_of(ambiguous_truth, "if x > 0:")
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert f"{__file__}:{lineno}:5\n        if x > 0:\n        ^^^^^^^^" in notes, notes
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename == __file__ and f.lineno == lineno for f in frames)


def test_constant_out_of_bounds_index_on_the_branch_not_taken():
    # NumPy takes the else branch and returns x[0]; npxla traces both branches, and the
    # branch whose constant index is out of bounds becomes a check that fires only when
    # that branch is taken at run time.
    assert oob_in_branch(-X) == -X[0]
    assert jit(oob_in_branch)(-X) == -X[0]


def try_except_exception_around_staged_while(x):
    try:
        while x.sum() < 100:
            x = x * 2
    except Exception:
        pass
    return x


def test_refusal_is_not_swallowed_by_except_exception():
    raises_located(UnsupportedSyntaxError, try_except_exception_around_staged_while, X,
                   line="while x.sum() < 100:", words=("try/except",))


def scalar_args_augmented(x, s, tol):
    s += 1
    tol *= 2
    return x * s + tol


@pytest.mark.parametrize("s, tol", [(3, 0.5), (np.float64(3), np.float32(0.5))])
def test_augmented_assignment_to_scalar_arguments_rebinds(s, tol):
    check(scalar_args_augmented, X, s, tol)
