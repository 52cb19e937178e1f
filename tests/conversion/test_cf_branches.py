"""if / elif / else, early returns, ternaries, and/or/not and chained comparisons.

Every construct runs twice: with a Python condition (plain Python: no `stablehlo.if`
in the program) and with a condition computed from array values (one staged
`stablehlo.if`). Results are compared with plain NumPy by `check`.
"""
import inspect

import numpy as np
import pytest
from differential import branches_as_if, check

from npxla import jit


def line_of(fn, text):
    """The absolute line number of the first line of `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, line in enumerate(lines) if text in line)


def stablehlo(fn, *args, **kwargs):
    return jit(fn, **kwargs).lower(*args).as_text()


def staged(fn, *args, op="stablehlo.if"):
    """check() and assert the condition was staged into `op`. Branches are checked
    both ways they can be staged: as `stablehlo.if`, and (the default for small
    branches) computed both and selected."""
    if op == "stablehlo.if":
        with branches_as_if():
            assert op in stablehlo(fn, *args)
            check(fn, *args)
    else:
        assert op in stablehlo(fn, *args)
    return check(fn, *args)


def python(fn, *args):
    """check() and assert no control-flow op was emitted (the condition stayed Python)."""
    text = stablehlo(fn, *args)
    assert "stablehlo.if" not in text and "stablehlo.while" not in text and \
        "stablehlo.case" not in text
    return check(fn, *args)


X = np.array([1.5, -2.0, 3.25, 0.5])
NEG = -X


# --- seed examples ------------------------------------------------------------------------
def seed_f(x):
    if x > 0:
        return x
    else:
        return 2 * x


def seed_g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i


def seed_h(x, neg):
    return -x if neg else x


def test_seed_if_on_python_int():
    assert jit(seed_f)(10) == 10
    assert jit(seed_f)(-3) == -6
    check(seed_f, 10)
    check(seed_f, -3)


def test_seed_if_on_array_scalar_is_staged():
    staged(seed_f, np.float64(2.5))
    staged(seed_f, np.float64(-2.5))


def test_seed_while_on_python_ints():
    assert jit(seed_g)(10, 20) == 30
    check(seed_g, 10, 20)


def test_seed_while_on_array_bound_is_staged():
    staged(seed_g, np.ones(3), np.int64(4), op="stablehlo.while")


def test_seed_ternary_traced_and_python():
    staged(seed_h, X, np.bool_(True))
    staged(seed_h, X, np.array(False))
    check(seed_h, X, True)     # a Python bool argument: traced (weak) or specialised
    check(seed_h, X, False)


# --- if / else ----------------------------------------------------------------------------
def if_else(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def if_else_on_shape(x):
    if x.shape[0] > 3:
        y = x * 2
    else:
        y = x[:2] - 1          # a different shape is fine on a Python path
    return y


def test_if_else_staged_both_ways():
    staged(if_else, X)
    staged(if_else, NEG)


def test_if_else_python_condition_may_change_shape():
    python(if_else_on_shape, X)
    python(if_else_on_shape, X[:3])


def if_without_else(x, t):
    y = x + 1.0
    if x.max() > t:
        y = y * 10.0
        z = y.sum()
        y = y - z
    return y


def if_without_else_python(x):
    y = x + 1.0
    if x.ndim == 1:
        y = y * 10.0
    return y


def test_if_without_else():
    staged(if_without_else, X, 2.0)
    staged(if_without_else, X, 5.0)
    python(if_without_else_python, X)
    python(if_without_else_python, X.reshape(2, 2))


def elif_chain(x, mode):
    # `mode` is a static string; the tests on `s` are data dependent
    s = x.sum()
    if mode == "double":
        r = x * 2.0
    elif s > 3:
        r = x + 100.0
    elif x.shape[0] == 4:
        r = x - s
    elif s < -3:
        r = -x
    else:
        r = x * 0.0
    return r


@pytest.mark.parametrize("x", [X, X - 1.0, NEG * 3.0, X[:3] - 10.0], ids=str)
def test_elif_chain_mixing_static_and_traced(x):
    check(elif_chain, x, "sum", jit_kwargs={"static_argnames": "mode"})


def test_elif_chain_first_python_test_true_stages_nothing():
    text = stablehlo(elif_chain, X, "double", static_argnames="mode")
    assert "stablehlo.if" not in text
    check(elif_chain, X, "double", jit_kwargs={"static_argnames": "mode"})


def nested_if(x, y):
    if x > 0:
        if y > 0:
            r = x + y
        else:
            r = x - y
    else:
        if y > x:
            r = y
        else:
            r = x * y
    return r


@pytest.mark.parametrize("a,b", [(1.0, 2.0), (1.0, -2.0), (-1.0, 2.0), (-3.0, -4.0)])
def test_nested_if_traced(a, b):
    staged(nested_if, np.float64(a), np.float64(b))


def test_nested_if_python_scalars():
    # weak Python floats are traced too: results stay Python floats
    assert type(check(nested_if, 1.0, -2.0)) is float
    check(nested_if, -3.0, -4.0)


# --- early return / returns in both branches ---------------------------------------------
def early_return(x):
    if x.min() < 0:
        return x * 0.0
    y = np.sqrt(x)
    return y + 1.0


def early_return_python(x):
    if x.size == 0:
        return x
    y = x / x.size
    return y * y.sum()


def returns_in_both(x):
    s = x.sum()
    if s > 0:
        t = s * 2
        return t + x
    else:
        return x - s


def return_inside_elif(x):
    if x[0] > 2:
        return x[0]
    elif x[1] > 0:
        return x[1] * 10
    s = x[2] + x[3]
    return s


def test_early_return():
    staged(early_return, X)
    staged(early_return, np.abs(X))
    python(early_return_python, X)
    python(early_return_python, np.zeros(0))


def test_returns_in_both_branches():
    staged(returns_in_both, X)
    staged(returns_in_both, NEG)


@pytest.mark.parametrize("x", [np.array([3.0, 0, 1, 1]), np.array([0.0, 1, 1, 1]),
                               np.array([0.0, -1, 1, 1])], ids=str)
def test_return_inside_elif(x):
    staged(return_inside_elif, x)


def returns_python_value_or_array(x):
    if x.ndim == 2:
        return "matrix"
    return x.sum()


def test_returns_different_kinds_on_python_paths():
    assert jit(returns_python_value_or_array)(np.ones((2, 2))) == "matrix"
    check(returns_python_value_or_array, X)


# --- conditional expressions ------------------------------------------------------------
def ternary_traced(x):
    return x * 2 if x.sum() > 0 else x / 2


def ternary_nested(x):
    s = x.sum()
    return 1.0 if s > 3 else (0.0 if s > -3 else -1.0)


def ternary_python(x):
    return x.T if x.ndim == 2 else x


def test_ternary():
    staged(ternary_traced, X)
    staged(ternary_traced, NEG)
    for v in (X, NEG, NEG * 3):
        staged(ternary_nested, v)
    python(ternary_python, X)
    python(ternary_python, X.reshape(2, 2))


def ternary_lazy(x, i):
    # only the chosen operand may be evaluated when the condition is Python
    return x[i] if i < x.shape[0] else 0.0


def test_ternary_python_condition_does_not_evaluate_other_side():
    static = {"static_argnums": 1}
    assert "stablehlo.if" not in stablehlo(ternary_lazy, X, 10, **static)
    check(ternary_lazy, X, 10, jit_kwargs=static)
    check(ternary_lazy, X, 1, jit_kwargs=static)


def test_ternary_traced_index_gives_one_promoted_type():
    # `i` traced: both operands are staged, the result has one type (float64), where
    # NumPy returns the Python float 0.0 on the out-of-range path.
    r = jit(ternary_lazy)(X, 10)
    assert r == 0.0 and type(r) is np.float64
    assert jit(ternary_lazy)(X, 2) == X[2]


# --- and / or / not / chained comparisons --------------------------------------------------
def bool_ops(x, lo, hi):
    s = x.sum()
    if s > lo and s < hi:
        r = 1
    elif not (s > lo) or s == hi:
        r = 2
    else:
        r = 3
    return r


@pytest.mark.parametrize("lo,hi", [(0.0, 5.0), (4.0, 5.0), (0.0, 3.25)])
def test_bool_ops_traced(lo, hi):
    staged(bool_ops, X, lo, hi)


def bool_ops_python(x):
    return x.ndim == 1 and x.shape[0] > 2 or x.size == 0


def test_bool_ops_python_values():
    assert jit(bool_ops_python)(X) is True
    check(bool_ops_python, X[:1])
    check(bool_ops_python, np.zeros(0))


def identity_with_bool_literals(x):
    """`bool(...)` gives Python's True or False, so `is True` / `is False` test the value
    (similaritymeasures' `makeQuad` swaps vertices under `if isQuad is False:`); a
    NumPy bool (`x.sum() > 0`, `np.True_`) is neither singleton."""
    ok = bool(x.sum() > 0)
    flag = x.max() > 1.0
    r = 0.0
    if ok is False:
        r += 1.0
    if ok is not True:
        r += 10.0
    if True is ok:
        r += 100.0
    if flag is True or flag is not False:    # always False, then always True
        r += 1000.0
    return r, ok is False, not ok is True


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_is_true_and_is_false_of_a_traced_bool(sign):
    check(identity_with_bool_literals, sign * np.abs(X))


def and_or_return_deciding_operand(a, b):
    return (a and b, a or b, not a)


@pytest.mark.parametrize("a,b", [(0, 5), (3, 0), (2, 7)])
def test_and_or_with_python_ints_return_operand(a, b):
    check(and_or_return_deciding_operand, a, b)


def test_and_or_with_traced_scalars():
    check(and_or_return_deciding_operand, np.int64(0), np.int64(5))
    check(and_or_return_deciding_operand, np.float64(2.5), np.float64(0.0))


def short_circuit_guards_index(x, i):
    # the right operand would be out of bounds: evaluated only when the left holds
    if i < x.shape[0] and x[i] > 0:
        return x[i]
    return -1.0


def test_short_circuit_python():
    static = {"static_argnums": 1}
    check(short_circuit_guards_index, X, 0, jit_kwargs=static)
    check(short_circuit_guards_index, X, 7, jit_kwargs=static)


def test_short_circuit_traced_index_out_of_range_is_not_an_error():
    # the guarded x[i] is staged but its bounds check only counts on the taken path
    assert jit(short_circuit_guards_index)(X, 7) == -1.0
    assert jit(short_circuit_guards_index)(X, 2) == X[2]


def chained(x, lo, hi):
    s = x.sum()
    if lo < s <= hi:
        return s
    return -s


@pytest.mark.parametrize("lo,hi", [(0.0, 4.0), (3.25, 4.0), (-1.0, 3.25)])
def test_chained_comparison_traced(lo, hi):
    staged(chained, X, np.float64(lo), np.float64(hi))


def chained_python(x):
    return 0 < x.ndim <= 2 < x.size


def test_chained_comparison_python():
    python(chained_python, X)
    check(chained_python, np.ones((1, 1)))
    check(chained_python, np.float64(1.0))


def chained_elementwise_in_where(x):
    # a chain on arrays is only valid for scalars in NumPy too; use & for arrays
    return np.where((0 < x) & (x < 2), x, 0.0)


def test_elementwise_mask_is_not_control_flow():
    python(chained_elementwise_in_where, X)


# --- helpers with their own control flow ----------------------------------------------
def clip_scalar(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


def sign_str(n):
    if n > 0:
        return "pos"
    return "neg"


def uses_helpers(x):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + clip_scalar(x[i], -1.0, 2.0)
    return total, sign_str(x.shape[0])


def test_helper_with_control_flow_called_from_jitted_function():
    check(uses_helpers, X)
    check(uses_helpers, NEG)


def test_helper_called_directly_traced_and_python():
    staged(clip_scalar, np.float64(5.0), np.float64(0.0), np.float64(1.0))
    check(clip_scalar, 0.5, 0.0, 1.0)


@jit
def jitted_helper(v):
    if v > 1:
        v = v - 1
    return v


def calls_jitted_helper(x):
    return jitted_helper(x.sum()) + jitted_helper(x[0])


def test_jitted_helper_inlined_into_caller():
    check(calls_jitted_helper, X)


# --- in-place updates inside staged branches -----------------------------------------
def inplace_in_branch(a, i, v):
    if a.sum() > 0:
        a[i] = v
    else:
        a[1:3] += v
    return a.sum()


def inplace_through_alias(a, v):
    b = a
    if a[0] > 0:
        b[0] = v
        b[2:] *= 2.0
    return a


def inplace_in_branch_python(a):
    if a.ndim == 1:
        a[0] = 100.0
    return a


def test_inplace_update_in_staged_branch_writes_back():
    staged(inplace_in_branch, X.copy(), 2, 9.0)
    staged(inplace_in_branch, NEG.copy(), 2, 9.0)
    staged(inplace_in_branch, X.copy(), np.int64(3), np.float64(-1.0))


def test_inplace_through_alias_in_staged_branch():
    staged(inplace_through_alias, X.copy(), 7.0)
    staged(inplace_through_alias, NEG.copy(), 7.0)


def test_inplace_in_python_branch():
    python(inplace_in_branch_python, X.copy())


def local_inplace_in_branch(x):
    out = np.zeros(3)
    if x.sum() > 0:
        out[0] = x[0]
        out[1:] = x[1:3] * 2
    return out


def test_local_array_filled_in_staged_branch():
    staged(local_inplace_in_branch, X)
    staged(local_inplace_in_branch, NEG)


def return_tuple_from_branch(x):
    if x.sum() > 0:
        return x, 1
    return x * 2, 2


def test_return_tuple_from_staged_branch():
    # `return x, 1` on one path of a staged if, `return x * 2, 2` after it
    r = staged(return_tuple_from_branch, X)
    assert type(r) is tuple and type(r[1]) is int and r[1] == 1
    r = staged(return_tuple_from_branch, NEG)
    assert type(r[1]) is int and r[1] == 2


def return_tuple_python(x):
    if x.ndim == 2:
        return x, 1
    return x * 2, 2


def test_return_tuple_from_python_branch():
    python(return_tuple_python, X)
    python(return_tuple_python, X.reshape(2, 2))


# --- nested defs, partial returns -----------------------------------------------------
def nested_def_with_control_flow(x):
    def inner(v):
        if v > 0:
            v = v * 2
        return v
    return inner(x.sum()) + inner(x[1])


def nested_def_python(x):
    def inner(v):
        return v * 2
    return inner(x)


def test_nested_def_with_control_flow():
    staged(nested_def_with_control_flow, X)       # inner's `if` is staged, both calls
    staged(nested_def_with_control_flow, NEG)


def test_nested_def_without_control_flow():
    check(nested_def_python, X)


def lambda_with_ternary(x):
    g = lambda v: v * 2 if v > 0 else v      # noqa: E731
    return g(x[0]) + g(x[1])


def test_lambda_with_ternary():
    check(lambda_with_ternary, X)


def comprehension_with_ternary(x):
    return np.stack([x[i] * 2 if x[i] > 0 else -x[i] for i in range(x.shape[0])])


def test_comprehension_with_traced_ternary():
    check(comprehension_with_ternary, X)


def maybe_falls_off(n):
    if n > 0:
        return n * 2


def prefix_sum_and_double(x, n):
    return x[:n].sum(), n * 2             # n is needed as a Python int: specialised


def test_partial_return_on_python_int_specialises():
    # the result computed from the specialised Python int is a Python int again
    r = check(maybe_falls_off, 5)
    assert type(r) is int and r == 10
    r = check(prefix_sum_and_double, X, 3)
    assert type(r[1]) is int and r[1] == 6


def test_partial_return_on_python_int_that_falls_off():
    assert jit(maybe_falls_off)(-5) is None


# --- aliasing decided by a staged condition -------------------------------------------
def alias_on_one_path(x, k):
    y = x
    if k > 0:
        y = y + 1          # y is a new array on this path, still x on the other
    y += 1                 # NumPy: modifies x when k <= 0
    return x, y


def alias_copied_before_update(x, k):
    y = x
    if k > 0:
        y = y + 1
    y = y.copy()
    y += 1
    return x, y


def alias_rebound_instead_of_update(x, k):
    y = x
    if k > 0:
        y = y + 1
    y = y + 1
    return x, y


def alias_replaced_on_both_paths(x, k):
    y = x
    if k > 0:
        y = y + 1
    else:
        y = y * 2
    y += 1                 # y is a new array on every path: x is never modified
    return x, y


def alias_only_read_after(x, k):
    y = x
    if k > 0:
        y = y + 1
    return y * 2


@pytest.mark.parametrize("k", [np.int64(1), np.int64(-1)])
def test_alias_decided_by_staged_condition_matches_numpy(k):
    # Whether `y += 1` reaches x depends on k at run time: y is a switch between x and
    # the new array, so the update reaches x exactly when NumPy's would.
    staged(alias_on_one_path, X.copy(), k)


def alias_on_one_path_read_after_update(x, y, k):
    z = x * 2
    if k > 0:
        z = y              # z is y on this path: it must see the update below
    y[0] += 10
    w = z[1:]
    w += 100               # ... and writes through a view of z reach y on that path
    return z, w


def return_alias_then_update(x, y):
    if np.all(x > 0):
        return y           # the early return is an alias of y
    y[1:3] -= 1.25
    return y


@pytest.mark.parametrize("k", [np.int64(1), np.int64(-1)])
def test_alias_on_one_path_sees_later_updates(k):
    staged(alias_on_one_path_read_after_update, X.copy(), X + 10, k)
    staged(return_alias_then_update, X * k, X + 10)


def view_made_on_one_path(x, k):
    y = x * 2
    if k > 0:
        y = x[::-1]        # a view made inside the branch: not nameable outside it
    y += 1
    return x, y


@pytest.mark.parametrize("k", [1, -1])
def test_view_made_in_staged_branch_then_updated_is_a_located_refusal(k):
    from npxla.transpiler.base.errors import UnsupportedOperationError
    x = X.copy()
    with pytest.raises(UnsupportedOperationError) as info:
        jit(view_made_on_one_path)(x, np.int64(k))
    msg = str(info.value)
    lines = msg.splitlines()
    lineno = line_of(view_made_on_one_path, "y += 1")
    assert lines[0] == f"{__file__}:{lineno}:5", msg
    assert lines[1].strip().startswith("y += 1") and lines[2] == "        ^^^^^^", msg
    assert "after the data-dependent branch, this array may be the same array as another " \
        "variable" in msg and "on some paths and a new array on others" in msg
    assert "y = y.copy()" in info.value.hint
    np.testing.assert_array_equal(x, X)


@pytest.mark.parametrize("k", [np.int64(1), np.int64(-1)])
def test_unambiguous_alias_after_staged_condition(k):
    staged(alias_copied_before_update, X.copy(), k)
    staged(alias_rebound_instead_of_update, X.copy(), k)
    staged(alias_replaced_on_both_paths, X.copy(), k)
    staged(alias_only_read_after, X.copy(), k)


def test_alias_decided_by_python_condition_keeps_numpy_aliasing():
    static = {"static_argnums": 1}
    assert "stablehlo.if" not in stablehlo(alias_on_one_path, X.copy(), -1, **static)
    check(alias_on_one_path, X.copy(), -1, jit_kwargs=static)    # x is modified
    check(alias_on_one_path, X.copy(), 1, jit_kwargs=static)


# --- small branches: computed both, then selected -------------------------------------------
def running_peak(x):
    peak = -np.inf
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        if x[i] > peak:
            peak = x[i]
        out[i] = peak
    return out


def big_branch(x, t):
    y = x.copy()
    if t > 0:
        y = y * 2.0
    return y


def guarded_read(x, k):
    v = x[0] * 0.0
    if k < 4:
        v = x[k]        # out of bounds only where the branch is not taken
    return v


def guarded_read_taken(x, k):
    v = x[0] * 0.0
    if k >= 0:
        v = x[k]
    return v


def printing_branch(x):
    if x.sum() > 0:
        print("positive")
    return x


def test_small_branch_is_a_select_and_matches_numpy():
    x = np.array([0.5, 2.0, -1.0, 3.0, 2.5, 7.0])
    text = stablehlo(running_peak, x)
    assert "stablehlo.if" not in text and "stablehlo.select" in text
    check(running_peak, x)
    with branches_as_if():
        assert "stablehlo.if" in stablehlo(running_peak, x)
        check(running_peak, x)


def test_branch_over_large_arrays_stays_an_if():
    x = np.arange(1000.0)
    assert "stablehlo.if" in stablehlo(big_branch, x, 1.0)
    check(big_branch, x, 1.0)
    check(big_branch, x, -1.0)


def test_selected_branch_checks_fire_only_when_taken():
    x = np.arange(4.0)
    assert "stablehlo.if" not in stablehlo(guarded_read, x, np.int64(9))
    check(guarded_read, x, np.int64(2))
    check(guarded_read, x, np.int64(9))     # branch not taken: no IndexError
    with pytest.raises(IndexError):
        jit(guarded_read_taken)(x, np.int64(9))


def test_branch_with_a_side_effect_stays_an_if(capfd):
    x = np.ones(3)
    assert "stablehlo.if" in stablehlo(printing_branch, x)
    jit(printing_branch)(x)
    jit(printing_branch)(-x)
    assert capfd.readouterr().out.count("positive") == 1
