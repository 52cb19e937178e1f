"""while / for loops, break / continue / return inside loops, in-place updates.

A loop whose condition or trip count is a Python value runs as Python; one whose
condition or trip count comes from array values is one staged `stablehlo.while`.
Loops over a static range whose body computes with arrays are staged too (the
program does not grow with the trip count).
"""
import inspect
import warnings

import numpy as np
import pytest
from differential import check

from npxla.runtime.operators.loops import NpxlaPerformanceWarning
from npxla import jit
from npxla.runtime.driver import staging
from npxla.transpiler.base.errors import ConcretizationError, UnsupportedOperationError


def stablehlo(fn, *args, **kwargs):
    """The module as staged: the lanes rewrite (runtime/lowering/lanes.py, tested in
    tests/runtime/test_row_lanes.py) would turn some of these loops into array code."""
    saved = staging.vectorise_row_loops
    staging.vectorise_row_loops = lambda module: 0
    try:
        return jit(fn, **kwargs).lower(*args).as_text()
    finally:
        staging.vectorise_row_loops = saved


def staged(fn, *args, op="stablehlo.while"):
    assert op in stablehlo(fn, *args)
    return check(fn, *args)


def python(fn, *args, **jit_kwargs):
    text = stablehlo(fn, *args, **jit_kwargs)
    assert "stablehlo.while" not in text and "stablehlo.if" not in text
    return check(fn, *args, jit_kwargs=jit_kwargs)


X = np.array([1.5, -2.0, 3.25, 0.5, 4.0])
M = np.arange(12.0).reshape(4, 3) - 5.0


# --- while --------------------------------------------------------------------------
def while_two_carried(x, tol):
    s = x.sum()
    k = 0
    acc = np.zeros_like(x)
    while abs(s) > tol:
        s = s / 2
        k = k + 1
        acc = acc + s
    return s, k, acc


def test_while_with_several_carried_variables():
    r = staged(while_two_carried, X, 0.01)
    assert r[1] > 0
    staged(while_two_carried, X, 100.0)       # zero iterations


def while_python(x):
    n = x.shape[0]
    k = 0
    while n > 1:
        n = n // 2
        k += 1
        x = x[::2]
    return x, k


def test_while_python_condition_may_change_shapes():
    with pytest.warns(NpxlaPerformanceWarning, match="change shape or type"):
        python(while_python, np.arange(16.0))
    python(while_python, np.arange(1.0))


def while_else_python(x):
    n = 0
    while n < x.ndim:
        n += 1
    else:
        x = x + n
    return x


def test_while_else_with_python_condition_works():
    python(while_else_python, M)


# --- for over range -------------------------------------------------------------------
def range_sum(x, n):
    s = x[0] * 0.0
    for i in range(n):
        s = s + x[i % x.shape[0]] * i
    return s


def test_for_range_traced_python_int():
    staged(range_sum, X, 7)          # Python int arguments are traced by default
    check(range_sum, X, 0)           # n == 0


def python_zero_init(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i]
    return s


def test_zero_trip_staged_loop_keeps_the_loop_type():
    # NumPy returns the Python float 0.0 when the loop does not run; a staged loop has
    # one result type, the fixed point of 0.0 (weak) and float64: np.float64(0.0).
    r = jit(python_zero_init)(X, 0)
    assert r == 0.0 and type(r) is np.float64
    assert jit(python_zero_init)(X, 3) == X[:3].sum()


def test_for_range_traced_numpy_int():
    staged(range_sum, X, np.int64(7))
    staged(range_sum, X, np.int64(0))
    staged(range_sum, X, np.int64(-3))


def range_start_stop_step(x, a, b, c):
    s = x[0] * 0
    for i in range(a, b, c):
        s = s + x[i]
    return s


@pytest.mark.parametrize("a,b,c", [(0, 5, 2), (4, -1, -1), (3, 3, 1), (4, 0, -3)])
def test_for_range_traced_start_stop_step(a, b, c):
    check(range_start_stop_step, X, np.int64(a), np.int64(b), np.int64(c))


def range_static(x):
    out = x.copy()
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] + x[i]          # prefix sum: out[i] from out[i-1]
    return out


def range_traced_prefix(x, n):
    out = np.zeros_like(x)
    out[0] = x[0]
    for i in range(1, n):
        out[i] = out[i - 1] * 0.5 + x[i]
    return out


def test_prefix_loop_over_static_range():
    staged(range_static, X)
    staged(range_static, M)


def test_prefix_loop_over_traced_range():
    staged(range_traced_prefix, X, np.int64(4))
    staged(range_traced_prefix, X, 5)
    check(range_traced_prefix, X, 1)


def static_range_body(x, n):
    s = x * 0
    for i in range(n):
        s = s + x * i
    return s


def test_static_range_is_one_xla_loop_whose_size_does_not_grow():
    static = {"static_argnums": 1}
    small = stablehlo(static_range_body, X, 10, **static)
    large = stablehlo(static_range_body, X, 1000, **static)
    assert "stablehlo.while" in small and "stablehlo.while" in large
    assert len(large) <= len(small) + 16       # only the trip-count constant differs
    check(static_range_body, X, 1000, jit_kwargs=static)


def python_only_body(x):
    # the body only computes Python values: runs as a Python loop (no XLA loop)
    k = 1
    for i in range(6):
        k = k * 2 + i
    return x + k


def test_static_range_with_python_only_body_stays_python():
    python(python_only_body, X)


def prefix_slices(x):
    s = 0.0
    for i in range(1, x.shape[0]):
        s = s + x[:i].sum()
    return s


def row_prefix(A):
    s = 0.0
    for i in range(A.shape[0]):
        s = s + A[i, :i].sum()
    return s


def test_index_used_as_slice_bound_stays_one_loop():
    # x[:i] has a run-time length bounded by x's (runtime/numpy/*/bounded*.py)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NpxlaPerformanceWarning)
        check(prefix_slices, X)
        check(row_prefix, np.arange(16.0).reshape(4, 4))
    assert stablehlo(prefix_slices, X).count("stablehlo.while") == 1


def test_index_warning_points_at_the_loop():
    def loop(x):
        s = 0.0
        for i in range(3):
            s = s + np.correlate(x[:i + 1], [1.0])[0]    # no bounded np.correlate: unrolled
        return s
    with pytest.warns(NpxlaPerformanceWarning) as record:
        check(loop, X)
    w = record[0]
    assert w.filename == __file__
    assert open(__file__).read().splitlines()[w.lineno - 1].strip() == "for i in range(3):"


def prefix_traced_count(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[:i].sum()
    return s


def correlate_traced_count(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.correlate(x[:i + 1], [1.0])[0]
    return s


def line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, s in enumerate(lines) if text in s)


def test_index_as_slice_bound_with_traced_trip_count_is_one_loop():
    check(prefix_traced_count, X, np.int64(3))
    assert "stablehlo.while" in stablehlo(prefix_traced_count, X, np.int64(3))


def test_index_dependent_length_a_function_cannot_take_is_a_located_error():
    # the call that needs the length as a Python int, caret under it
    with pytest.raises(ConcretizationError) as info:
        jit(correlate_traced_count)(X, np.int64(3))
    msg = str(info.value)
    lineno = line_of(correlate_traced_count, "s = s + np.correlate(x[:i + 1], [1.0])[0]")
    assert msg.startswith(f"{__file__}:{lineno}:17\n"), msg
    assert "np.correlate" in msg and "only known at run time" in msg
    assert "hint: " in msg


def test_index_as_slice_bound_with_traced_trip_count_hint_names_the_loop():
    with pytest.raises(ConcretizationError) as info:
        jit(correlate_traced_count)(X, np.int64(3))
    hint = info.value.hint
    where = f"{__file__}:{line_of(correlate_traced_count, 'for i in range(n):')}"
    assert f"the value depends on the index of the loop at {where}, whose trip count is " \
        "only known at run time" in hint, hint
    assert "np.where" in hint, hint


def test_index_as_slice_bound_with_python_int_trip_count_specialises():
    # the Python int n is specialised on its value, then the loop is unrolled (np.correlate
    # has no bounded implementation); x[:i].sum() alone stays one loop
    check(prefix_traced_count, X, 3)
    assert "stablehlo.while" in stablehlo(prefix_traced_count, X, 3)
    with pytest.warns(NpxlaPerformanceWarning, match="loop is unrolled") as record:
        check(correlate_traced_count, X, 3)
        assert "stablehlo.while" not in stablehlo(correlate_traced_count, X, 3)
    w = record[0]
    assert w.filename == __file__
    assert open(__file__).read().splitlines()[w.lineno - 1].strip() == "for i in range(n):"


# --- for over arrays, enumerate, zip --------------------------------------------------
def over_rows(A):
    s = np.zeros(A.shape[1])
    for row in A:
        s = s + row * row
    return s


def over_elements(x):
    best = x[0]
    for v in x:
        if v > best:
            best = v
    return best


def test_loop_over_rows_and_elements():
    staged(over_rows, M)
    staged(over_elements, X)


def with_enumerate(x):
    s = 0.0
    for i, v in enumerate(x):
        s = s + i * v
    return s


def with_enumerate_start(A):
    out = np.zeros(A.shape[0])
    for i, row in enumerate(A, 1):
        out[i - 1] = row.max() * i
    return out


def test_enumerate():
    staged(with_enumerate, X)
    staged(with_enumerate_start, M)


def with_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b
    return s


def with_zip_rows(A, x):
    out = np.zeros(A.shape[0])
    k = 0
    for row, v in zip(A, x):
        out[k] = row.sum() * v
        k += 1
    return out


def test_zip_of_arrays():
    staged(with_zip, X, X[::-1] * 2)
    staged(with_zip, X, X[:3])           # zip stops at the shortest
    staged(with_zip_rows, M, X)


def enumerate_zip_traced_range(x, n):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, range(n))):
        s = s + a * b + i
    return s


def test_enumerate_zip_of_range_with_traced_length():
    check(enumerate_zip_traced_range, X, np.int64(3))
    check(enumerate_zip_traced_range, X, np.int64(9))


# --- Python iterables stay Python -------------------------------------------------------
def over_list(x):
    out = []
    for w in [1.0, 2.0, 3.0]:
        out.append(x * w)
    total = 0
    for a in out:
        total = total + a.sum()
    return out, total


def over_tuple_of_arrays(a, b):
    s = 0.0
    for arr in (a, b, a):
        if arr.sum() > 0:         # traced condition inside a Python loop: staged if
            s = s + arr.max()
    return s


def list_built_in_python_loop(x):
    parts = []
    for i in range(x.shape[0]):
        parts.append(x[i] * i)
    return np.stack(parts), len(parts)


def dict_in_python_loop(x):
    d = {}
    for name, k in (("a", 1), ("b", 2)):
        d[name] = x * k
    return d


def test_loops_over_python_lists_and_tuples_stay_python():
    python(over_list, X)
    check(over_tuple_of_arrays, X, -X)


def test_python_lists_built_in_python_loops():
    r = check(list_built_in_python_loop, X)
    assert r[1] == X.shape[0]
    check(dict_in_python_loop, X)


# --- break / continue ---------------------------------------------------------------
def first_above(x, t):
    idx = -1
    for i in range(x.shape[0]):
        if x[i] > t:
            idx = i
            break
    return idx


@pytest.mark.parametrize("t", [0.0, 3.5, 10.0])
def test_break_on_traced_condition(t):
    check(first_above, X, t)


def several_breaks_and_continues(x):
    s = x[0] * 0.0
    n = 0
    for v in x:
        if v < 0:
            continue
        if v > 100:
            break
        n += 1
        if v == 0.5:
            continue
        s = s + v
        if s > 5:
            break
    return s, n


@pytest.mark.parametrize("x", [X, np.array([0.5, 1.0, 200.0, 3.0]),
                               np.array([-1.0, -2.0]), np.array([0.5, 0.5, 6.0, 1.0])],
                         ids=str)
def test_several_breaks_and_continues_per_loop(x):
    check(several_breaks_and_continues, x)


def nested_break_continue(A, limit):
    count = 0
    total = 0.0
    for i in range(A.shape[0]):
        if A[i, 0] < -4:
            continue
        for j in range(A.shape[1]):
            if A[i, j] > limit:
                break
            if A[i, j] == 0:
                continue
            total = total + A[i, j]
            count += 1
        if total > 2 * limit:
            break
    return count, total


@pytest.mark.parametrize("limit", [0.0, 2.5, 100.0])
def test_nested_break_continue(limit):
    check(nested_break_continue, M, limit)


def while_break_continue(x):
    i = 0
    s = 0.0
    while i < x.shape[0]:
        v = x[i]
        i += 1
        if v < 0:
            continue
        s = s + v
        if s > 4:
            break
    return s, i


def test_while_with_break_and_continue():
    check(while_break_continue, X)
    check(while_break_continue, -X)


def break_python(x):
    out = x
    for k in range(10):
        if k == 3:
            break
        out = out + k
    return out


def test_break_on_index_of_static_range_is_staged():
    # range(10) is static but the body computes with arrays: one XLA loop, so the
    # index (and `k == 3`) is traced
    staged(break_python, X)


def break_continue_python_list(x):
    out = x
    for k in [1, -1, 2, 3, 4]:
        if k < 0:
            continue
        if k == 3:
            break
        out = out * k
    return out


def test_break_continue_on_python_values():
    python(break_continue_python_list, X)


def enumerate_zip_python(x):
    s = x * 0
    for i, (w, name) in enumerate(zip([1.0, 2.0, 3.0], ["a", "b", "c"])):
        if name != "b":
            s = s + x * w * i
    return s


def test_enumerate_zip_of_python_lists_stays_python():
    python(enumerate_zip_python, X)


def find_in_python_grid(x):
    grid = [[1, 2], [3, 4], [5, 6]]
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == 4:
                return x * (i * 10 + j)
    return x


def test_return_inside_nested_python_loops():
    python(find_in_python_grid, X)


# --- return inside loops --------------------------------------------------------------
def find_pair(A, target):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] == target:
                return i * 100 + j
    return -1


@pytest.mark.parametrize("target", [-5.0, 1.0, 6.0, 99.0])
def test_return_inside_nested_loops(target):
    check(find_pair, M, target)


def return_in_while(x, tol):
    k = 0
    while True:
        k += 1
        x = x / 2
        if np.abs(x).max() < tol:
            return x * k


def test_return_inside_while_true():
    check(return_in_while, X, 0.1)
    check(return_in_while, X, 1e-6)


def return_tuple_in_while(x, tol):
    k = 0
    while np.abs(x).max() >= tol:
        k += 1
        x = x / 2
        if k > 3:
            return x, -1
    return x, k


def test_return_tuple_inside_staged_loop():
    assert staged(return_tuple_in_while, X, 0.1)[1] == -1     # returned inside the loop
    assert staged(return_tuple_in_while, X, 1.0)[1] == 3      # after it


# --- nested loops with dependent bounds ------------------------------------------------
def triangular(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(i):
            s = s + A[i, j]
    return s


def triangular_traced(n):
    s = 0
    for i in range(n):
        for j in range(i):
            s = s + i * j
    return s


def lower_solve(L, b):
    x = np.zeros_like(b)
    for i in range(b.shape[0]):
        acc = b[i]
        for j in range(i):
            acc = acc - L[i, j] * x[j]
        x[i] = acc / L[i, i]
    return x


def test_nested_loops_with_dependent_bounds():
    check(triangular, np.arange(16.0).reshape(4, 4))
    check(triangular_traced, np.int64(6))
    check(triangular_traced, 0)
    # static n: the inner bound is the outer (traced) index, so both loops are staged;
    # the result is still the Python int NumPy gives
    assert type(check(triangular_traced, 6, jit_kwargs={"static_argnums": 0})) is int
    L = np.tril(np.arange(1.0, 17.0).reshape(4, 4))
    check(lower_solve, L, np.array([1.0, 2.0, 3.0, 4.0]))


# --- in-place updates inside staged loops ---------------------------------------------
def inplace_in_loop(a, n):
    b = a                       # alias: writes through b are writes to a
    for i in range(n):
        b[i % 3] = b[i % 3] + i
        a[1:3] += 0.5
    return a.sum()


def slice_augassign_in_while(a):
    i = 0
    while a.sum() < 50:
        a[1:3] += 3.0
        a[i] = a[i] * 0.5
        i = (i + 1) % a.shape[0]
    return i


def slice_augassign_in_static_range(a, v):
    for k in range(4):
        i = 2 * (k % 2)
        a[i:i + 2] += v          # i only depends on the index: the loop is unrolled
    return a


def test_inplace_updates_inside_staged_loops():
    check(inplace_in_loop, X.copy(), np.int64(5))
    check(inplace_in_loop, X.copy(), 0)
    check(slice_augassign_in_while, X.copy())


def test_slice_bounds_from_the_index_of_a_static_range():
    check(slice_augassign_in_static_range, X.copy(), 1.5)


# --- carried structures -------------------------------------------------------------
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def list_state(x, n):
    state = [x, x * 0]
    for i in range(n):
        state = [state[1] + 1, state[0] * 2]
    return state


def dict_state(x, n):
    d = {"a": x, "b": x[0]}
    i = 0
    while i < n:
        d = {"a": d["a"] * 2, "b": d["b"] + 1}
        i += 1
    return d


def unpack_rows(P):
    s = 0.0
    for (a, b) in P:
        s = s + a * b
    return s


def swap_until(x, y):
    while x.sum() < y.sum():
        x, y = y, x
        x = x * 1.0
    return x, y


def test_tuple_list_dict_carried_through_staged_loops():
    check(fib, np.int64(30))
    check(fib, 10)
    check(list_state, X, np.int64(3))
    check(dict_state, X, np.int64(3))
    check(unpack_rows, np.arange(6.0).reshape(3, 2))
    check(swap_until, X, X + 1)


# --- known difference: a variable first bound in a staged loop that ran zero times ----
def last_item(x, n):
    for i in range(n):
        last = x[i] * 2
    return last


def test_variable_first_assigned_in_zero_trip_staged_loop_reads_zeros():
    check(last_item, X, np.int64(3))
    with pytest.raises(NameError):         # NumPy: UnboundLocalError
        last_item(X, 0)
    r = jit(last_item)(X, np.int64(0))
    assert r == 0.0 and type(r) is np.float64


def loop_index_after_loop(x, n):
    i = -1
    for i in range(n):
        x = x + i
    return x, i


def test_loop_index_after_loop():
    check(loop_index_after_loop, X, np.int64(4))
    check(loop_index_after_loop, X, np.int64(0))


def alias_unless_loop_runs(x, n):
    y = x
    for i in range(n):
        y = y * 2          # a new array once the loop ran
    y[0] = 100.0           # NumPy: writes into x when n == 0
    return x


@pytest.mark.parametrize("n", [2, 0])
def test_alias_decided_by_staged_trip_count_matches_numpy(n):
    # with n == 0, `y` still is `x` in NumPy and y[0] = 100 writes into x: y is a
    # switch on "the loop ran", so the write reaches x exactly then
    staged(alias_unless_loop_runs, X.copy(), np.int64(n))


def view_made_in_loop(x, n):
    y = x * 1
    for i in range(n):
        y = x[::-1]        # a view of x made inside the loop
    y[0] = 100.0           # NumPy: writes into x when the loop ran
    return x


@pytest.mark.parametrize("n", [2, 0])
def test_view_made_in_staged_loop_then_written_is_a_located_refusal(n):
    from npxla.transpiler.base.errors import UnsupportedOperationError
    x = X.copy()
    with pytest.raises(UnsupportedOperationError) as info:
        jit(view_made_in_loop)(x, np.int64(n))
    msg = str(info.value)
    lineno = line_of(view_made_in_loop, "y[0] = 100.0")
    assert msg.startswith(f"{__file__}:{lineno}:5\n        y[0] = 100.0 ") and \
        "\n        ^^^^^^^^^^^^\n" in msg, msg
    assert "after the data-dependent loop, this array may be the same array as another " \
        "variable" in msg and "a view the loop made" in msg
    assert "y = y.copy()" in info.value.hint
    np.testing.assert_array_equal(x, X)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_alias_decided_by_static_trip_count_keeps_numpy_aliasing(n):
    check(alias_unless_loop_runs, X.copy(), n, jit_kwargs={"static_argnums": 1})


# --- static loops keep Python's else/try meaning --------------------------------------
def static_for_else(x):
    for i in range(3):
        x = x * 2
        if x.shape[0] > 10:
            break
    else:
        x = x + 1
    return x


def static_for_in_try(x):
    try:
        for i in range(3):
            x = x * 2
    except ValueError:
        x = x - 1
    return x


def test_static_range_with_else_or_try_runs_as_python():
    python(static_for_else, X)
    python(static_for_in_try, X)


# --- while loops with a Python condition ---------------------------------------------
def python_counter_while(x, iters):
    it = 0
    while it < iters:
        x = x * 0.5 + 1.0
        it += 1
    return x, it


def test_python_condition_while_computing_with_arrays_is_one_xla_loop():
    small = stablehlo(python_counter_while, X, 10, static_argnums=1)
    big = stablehlo(python_counter_while, X, 1000, static_argnums=1)
    assert small.count("stablehlo.while") == 1 and abs(len(big) - len(small)) < 10
    check(python_counter_while, X, 10, jit_kwargs={"static_argnums": 1})


def count_then_slice(x):
    k = 0
    for i in range(3):
        k += 1
        x = x + i
    return x[:k], np.zeros(k)


def test_value_computed_in_static_loop_needed_static_unrolls_the_loop():
    with pytest.warns(NpxlaPerformanceWarning, match="needed as a static value") as rec:
        check(count_then_slice, X)
    assert rec[0].lineno == inspect.getsourcelines(count_then_slice)[1] + 2


def append_in_while(n):
    i, acc = 0, []
    while i < n:
        acc.append(i * 2)
        i += 1
    return acc


def test_list_built_in_while_on_python_int_specialises():
    assert jit(append_in_while)(3) == [0, 2, 4]
    assert jit(append_in_while)(0) == []


def horner_loop(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def test_short_static_loop_over_large_arrays_is_unrolled_so_xla_fuses_it():
    coeffs, small, large = np.arange(1.0, 6.0), np.linspace(-1, 1, 5), np.linspace(-1, 1, 70000)
    assert "stablehlo.while" in stablehlo(horner_loop, coeffs, small)
    assert "stablehlo.while" not in stablehlo(horner_loop, coeffs, large)
    check(horner_loop, coeffs, large)


# --- short static loops over large arrays are unrolled (XLA fuses the iterations) ---------
def masked_means(X, labels, k):
    out = np.zeros((k, X.shape[1]))
    for j in range(k):
        mask = labels == j
        out[j] = (X * mask[:, np.newaxis]).sum(axis=0) / max(mask.sum(), 1)
    return out


def masked_means_of_4(X, labels):
    return masked_means(X, labels, 4)


def test_short_loop_over_large_arrays_is_unrolled():
    from npxla.runtime.operators.loops import FUSE_MAX_TRIPS, FUSE_MIN_ELEMENTS
    rng = np.random.default_rng(3)
    n = FUSE_MIN_ELEMENTS            # X * mask has 2n elements: above the threshold
    X, labels = rng.normal(size=(n, 2)), rng.integers(0, 4, n)
    text = stablehlo(masked_means, X, labels, 4, static_argnums=2)
    assert "stablehlo.while" not in text
    check(masked_means, X, labels, 4, jit_kwargs={"static_argnums": 2})
    coeffs = rng.normal(size=FUSE_MAX_TRIPS)
    assert "stablehlo.while" not in stablehlo(horner_loop, coeffs, rng.normal(size=n))
    check(horner_loop, coeffs, rng.normal(size=n))


def test_short_loop_over_small_arrays_and_long_loop_stay_one_while():
    from npxla.runtime.operators.loops import FUSE_MAX_TRIPS, FUSE_MIN_ELEMENTS
    rng = np.random.default_rng(4)
    small = FUSE_MIN_ELEMENTS // 8
    X, labels = rng.normal(size=(small, 2)), rng.integers(0, 4, small)
    staged(masked_means_of_4, X, labels)
    coeffs = rng.normal(size=FUSE_MAX_TRIPS + 1)      # one trip too many
    staged(horner_loop, coeffs, rng.normal(size=FUSE_MIN_ELEMENTS))


def nest_of_short_loops(x):
    for i in range(4):
        for j in range(i):
            for k in range(3):
                for m in range(3):
                    t = x + j
                    t[t > 1.0] += 2.0
                    for p in range(2):
                        for q in range(4):
                            t[q] = 1.0
                            if np.sum(t) <= 3 and q < 0:
                                x[0, 0] = 5.0
                    x[1] += t[2] * 0.001
    return x


def test_nest_of_short_loops_over_large_arrays_unrolls_only_a_few_copies():
    """Fused unrolling stops once the copies of the innermost body would exceed
    FUSE_MAX_TRIPS, and a loop found short and large is not staged again just to be
    unrolled again (found by the fuzzer: nine such loops over a 90x90 array staged for
    minutes and made 55,000 operations)."""
    from npxla.runtime.operators.loops import FUSE_MAX_TRIPS, FUSE_MIN_ELEMENTS
    side = int(np.ceil(np.sqrt(FUSE_MIN_ELEMENTS))) + 2
    x = np.random.default_rng(5).normal(size=(side, side))
    text = stablehlo(nest_of_short_loops, x)
    assert text.count("stablehlo.dynamic_update_slice") < 40 * FUSE_MAX_TRIPS
    check(nest_of_short_loops, x)


def break_in_unrolled_triangle(x, y):
    for i in range(4):
        for j in range(i, 4):
            if y[-16, 5] < 1.5:
                break
            x = (x - y.mean()).astype(np.int64)
    return x


def test_data_dependent_break_in_unrolled_loops_selects_each_array_once():
    """Each remaining iteration after a data-dependent `break` is a conditional whose
    result is the old array on one path: a chain of switch handles sharing options.
    Reading it selected along every path of that chain (found by the fuzzer: 700,000
    operations and 45 s of staging for this function on 100x100 arrays)."""
    rng = np.random.default_rng(6)
    x, y = (rng.integers(-5, 6, (100, 100)) for _ in range(2))
    text = stablehlo(break_in_unrolled_triangle, x, y)
    assert text.count("stablehlo.select") < 2000
    check(break_in_unrolled_triangle, x, y)
    y[-16, 5] = 0        # breaks at once
    check(break_in_unrolled_triangle, x, y)


def square_then_update(x, n):
    for i in range(n):
        for j in range(i):
            x = x * x
        x[np.arange(len(x))] -= 1
    return x


def test_short_static_loop_that_updates_then_maybe_replaces_an_argument_unrolls():
    """The first iteration updates the caller's array, later ones a new one: a short
    static loop runs unrolled (each iteration's aliasing exact) instead of being
    refused (found by the fuzzer); a long one is still refused, located."""
    from npxla.runtime.operators.loops import FUSE_MAX_TRIPS
    x = np.arange(6, dtype=np.int64) % 3
    check(square_then_update, x, 4, jit_kwargs={"static_argnums": 1})
    with pytest.raises(UnsupportedOperationError, match="replaced by a new array"):
        jit(square_then_update, static_argnums=1)(x.copy(), FUSE_MAX_TRIPS + 4)


def raise_in_staged_loop(y, lim):
    k = 0
    while k < 4 and np.mean(y) > lim:
        k += 1
        raise ValueError("too big")
    return y * 2


def test_raise_in_staged_loop_body_fires_only_when_the_loop_runs():
    y = np.arange(4.0)
    np.testing.assert_array_equal(jit(raise_in_staged_loop)(y, 5.0), y * 2)
    with pytest.raises(ValueError, match="too big") as info:
        jit(raise_in_staged_loop)(y, 0.0)
    lineno = line_of(raise_in_staged_loop, 'raise ValueError("too big")')
    assert f"{__file__}:{lineno}:" in "\n".join(info.value.__notes__)


def scan_until_large(x):
    i = 0
    while x[i] < 100:      # reads past the end: NumPy raises IndexError
        i += 1
    return i


def test_out_of_bounds_read_ends_a_staged_loop_with_numpys_index_error():
    # XLA clamps the index, so without ending the loop at the failing iteration the
    # program would never return; the message names the index, as NumPy's does
    x = np.arange(5.0)
    with pytest.raises(IndexError) as want:
        scan_until_large(x)
    with pytest.raises(IndexError) as got:
        jit(scan_until_large)(x)
    assert str(got.value) == str(want.value) == "index 5 is out of bounds for axis 0 with size 5"
    assert jit(scan_until_large)(np.array([1.0, 200.0, 3.0])) == 1


def fancy_then_loop(x, idx, n):
    s = 0.0
    for j in range(n):
        s += x[idx].sum() * j
    return s


def test_first_bad_fancy_index_is_named():
    x = np.arange(5.0)
    for idx in (np.array([1, 9, -8]), np.array([-8, 1])):
        with pytest.raises(IndexError) as want:
            fancy_then_loop(x, idx, 3)
        with pytest.raises(IndexError) as got:
            jit(fancy_then_loop)(x, idx, np.int64(3))
        assert str(got.value) == str(want.value)


def view_read_after_its_base_is_written(x, m):
    u = x[1:]
    for i in range(m):
        x[1:] += 1.0       # writes the base of u ...
        u = u * 2          # ... so the first u * 2 reads the updated view
    return x, u


@pytest.mark.parametrize("m", [np.int64(3), np.int64(1), np.int64(0)])
def test_view_made_before_loop_sees_writes_to_its_base_in_the_first_iteration(m):
    check(view_read_after_its_base_is_written, np.arange(4.0), m)
