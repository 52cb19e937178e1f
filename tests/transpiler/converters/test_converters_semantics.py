"""Converted control flow behaves exactly like the Python it came from.

Each function runs as written and converted (against a pure-Python fake of the
runtime operators, `cf_fake_runtime`), over a sweep of arguments; results,
exceptions and side effects (call logs) must agree.
"""
import contextlib
import itertools

import pytest

import cf_fake_runtime as fake

LOG = []


def outcome(fn, *args):
    LOG.clear()
    try:
        value = fn(*args)
    except NameError:  # UnboundLocalError included
        return "NameError", None, list(LOG)
    except Exception as e:  # noqa: BLE001 - compared, not swallowed
        return type(e).__name__, str(e), list(LOG)
    if _has_undefined(value):  # the runtime raises when an Undefined is used
        return "NameError", None, list(LOG)
    return "value", value, list(LOG)


def _has_undefined(value):
    if isinstance(value, (tuple, list)):
        return any(_has_undefined(v) for v in value)
    return isinstance(value, fake.Undefined)


def same(fn, *argsets):
    converted = fake.convert(fn)
    for args in argsets:
        assert outcome(converted, *args) == outcome(fn, *args), args


def log(tag, value=True):
    LOG.append(tag)
    return value


# -- if / elif / else ---------------------------------------------------------------

def if_elif_chain(x):
    if x < 0:
        s = "neg"
    elif x == 0:
        s = "zero"
    elif x < 10:
        s = "small"
    else:
        s = "big"
    return s


def if_without_else(x):
    y = 1
    if x > 2:
        y = y + x
        z = y * 2
        y = z
    return y


def defined_in_one_branch(x):
    if x > 0:
        t = x
    return t


def defined_in_one_branch_not_used(x):
    if x > 0:
        t = x
        u = t + 1
    else:
        u = -x
    return u


def nested_ifs(a, b):
    r = []
    if a:
        if b:
            r.append(1)
            k = 1
        else:
            k = 2
        r.append(k)
    elif b:
        k = 3
    else:
        k = 4
    return r, k


def branch_reads_before_write(x):
    y = 10
    if x:
        y = y + 1
    else:
        w = y - 1
        y = w * 2
    return y


def branch_defines_function(x):
    if x:
        def h(v):
            return v + 1
    else:
        def h(v):
            return v - 1
    return h(10)


@pytest.mark.parametrize("fn", [if_elif_chain, if_without_else, defined_in_one_branch,
                                defined_in_one_branch_not_used, branch_reads_before_write,
                                branch_defines_function])
def test_if(fn):
    same(fn, *[(x,) for x in (-3, 0, 1, 5, 20)])


def test_nested_ifs():
    same(nested_ifs, *itertools.product([0, 1], [0, 1]))


# -- loops, break, continue ------------------------------------------------------------

def for_break_continue(n):
    s = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 10:
            break
        if i % 5 == 0:
            continue
        s += i
        if s > 30:
            break
        s += 1
    return s


def while_break_continue(n):
    i, s = 0, 0
    while i < n:
        i += 1
        if i % 2:
            continue
        s += i
        if s > 12:
            break
    return i, s


def nested_loops(n, m):
    out = []
    for i in range(n):
        for j in range(m):
            if j > i:
                break
            if (i + j) % 2:
                continue
            out.append((i, j))
        else:
            out.append("inner done")
        if len(out) > 6:
            break
        out.append(-i)
    else:
        out.append("outer done")
    return out


def while_else(n, stop):
    i = 0
    while i < n:
        if i == stop:
            log("break")
            break
        i += 1
    else:
        log("else")
        i = -i
    return i


def for_else(items, stop):
    found = None
    for x in items:
        if x == stop:
            found = x
            break
    else:
        found = "none"
    return found


def for_else_no_break(items):
    total = 0
    for x in items:
        total += x
    else:
        total *= 10
    return total


def loop_target_after_loop(n):
    for i in range(n):
        pass
    return i


def loop_target_tuple(pairs):
    acc = []
    for (a, b), c in pairs:
        if a > b:
            continue
        acc.append(a + b + c)
    return acc, a


def loop_enumerate_zip(xs, ys):
    best = -1
    for k, (x, y) in enumerate(zip(xs, ys)):
        if x * y > best:
            best = x * y
            where = k
    return best, where


def while_complex_test(n):
    i, j = 0, n
    while i < j and (i * j) % 7 != 3 or i == 0:
        i += 1
        j -= 1
    return i, j


def loop_local_temporary(n):
    s = 0
    for i in range(n):
        t = i * i
        s += t
    return s


def break_in_with(n):
    hits = []
    for i in range(n):
        with contextlib.suppress(ZeroDivisionError):
            hits.append(10 // (i - 2))
            if i == 4:
                break
    return hits


def several_breaks_per_loop(n):
    i = 0
    while True:
        i += 1
        if i == n:
            break
        if i > 5:
            log("second")
            break
        log(i)
    return i


def break_in_else_of_inner_loop(rows):
    out = 0
    for row in rows:
        for x in row:
            if x < 0:
                break
            out += x
        else:
            log("clean row")
            break
        log("dirty row")
    return out


@pytest.mark.parametrize("fn", [for_break_continue, while_break_continue,
                                loop_target_after_loop, while_complex_test,
                                loop_local_temporary, break_in_with, several_breaks_per_loop])
def test_loops_one_int(fn):
    same(fn, *[(n,) for n in (0, 1, 3, 7, 12, 40)])


def test_nested_loops():
    same(nested_loops, *itertools.product(range(5), range(4)))


def test_while_else():
    same(while_else, *itertools.product(range(4), range(-1, 4)))


def test_for_else():
    same(for_else, ([1, 2, 3], 2), ([1, 2, 3], 5), ([], 1))
    same(for_else_no_break, ([1, 2],), ([],))


def test_targets():
    same(loop_target_tuple, ([((1, 2), 3), ((5, 4), 1), ((0, 0), 0)],), ([],))
    same(loop_enumerate_zip, ([1, 5, 2], [3, 1, 9]), ([], []), ([-1], [1]))


def test_break_in_inner_else():
    same(break_in_else_of_inner_loop, ([[1, -1], [2, 3], [4]],), ([[1, -1]],), ([],))


def shared_iterator_after_break(items):
    it = iter(items)
    for x in it:
        if x == 2:
            break
    return list(it)


def test_break_leaves_iterator_where_python_does():
    same(shared_iterator_after_break, ([1, 2, 3, 4],), ([5],))


# -- return -------------------------------------------------------------------------------

def early_return(x):
    if x < 0:
        return "neg"
    y = x * 2
    if y > 10:
        return "big"
    return y


def return_in_both_branches(x):
    if x:
        return 1
    else:
        return 2


def return_may_fall_off(x):
    log("start")
    if x > 1:
        return x
    log("end")


def bare_return(x):
    if x:
        log("early")
        return
    log("late")
    return 5


def return_in_nested_loops(grid, target):
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == target:
                return i, j
            log(v)
        log("row")
    return None


def return_in_while(n):
    i = 0
    while i < 100:
        i += 3
        if i > n:
            return i
    else:
        log("exhausted")
    return -1


def return_in_for_else(xs):
    for x in xs:
        if x > 3:
            break
    else:
        return "no big"
    return "big"


def return_in_try(x):
    try:
        if x > 0:
            return 10 // x
        log("nonpositive")
    except ZeroDivisionError:
        return "div"
    finally:
        log("finally")
    return "end"


def return_while_true(n):
    i = 0
    while True:
        i += 1
        if i * i > n:
            return i


def docstring_kept(x):
    """Docstring."""
    if x:
        return 1
    return 0


def return_raise_paths(x):
    if x > 0:
        return x
    elif x < -5:
        raise ValueError("too small")
    else:
        return -x


@pytest.mark.parametrize("fn", [early_return, return_in_both_branches, return_may_fall_off,
                                bare_return, return_in_while, return_in_try,
                                return_while_true, docstring_kept, return_raise_paths])
def test_returns(fn):
    same(fn, *[(x,) for x in (-10, -1, 0, 1, 2, 3, 8, 50)])


def test_return_in_nested_loops():
    grid = [[1, 2], [3, 4, 5], [6]]
    same(return_in_nested_loops, *[(grid, t) for t in (1, 4, 6, 9)], ([], 1))


def test_return_in_for_else():
    same(return_in_for_else, ([1, 2],), ([1, 5],), ([],))


def test_docstring_survives():
    assert fake.convert(docstring_kept).__doc__ == "Docstring."


# -- expressions ------------------------------------------------------------------------

def and_or_order(a, b, c):
    r1 = log("a", a) and log("b", b) and log("c", c)
    r2 = log("a", a) or log("b", b) or log("c", c)
    r3 = log("a", a) and log("b", b) or log("c", c)
    r4 = not log("a", a)
    return r1, r2, r3, r4


def chained_compare(a, b, c):
    return log("a", a) < log("b", b) <= log("c", c), log("a", a) == log("b", b) != log("c", c)


def chain_in_is(x, xs):
    return x in xs not in [[0]], x is not None is not False


def ternaries(a, b):
    return (log("b1", 1) if log("t", a) else log("b2", 2),
            "x" if a else "y" if b else "z")


def comprehension_logic(xs):
    return ([x if x > 1 else -x for x in xs if x and not x == 3],
            {x: (x > 0 and x < 4) for x in xs},
            [y for x in xs for y in range(x) if 0 < y < 3])


def lambda_logic(xs):
    f = lambda v: v > 1 and v < 4 or v == 0  # noqa: E731
    return [f(x) for x in xs]


def walrus_kept(xs):
    return [y for x in xs if (y := x * 2) > 2 and y < 8], (z := 1) if xs else 0


def test_short_circuit_order():
    same(and_or_order, *itertools.product([0, 1], [0, ""], [[], [1]]))
    same(and_or_order, *itertools.product([0, 2], [3, ""], [None, 4]))


def test_chained_comparisons_evaluate_each_operand_once():
    same(chained_compare, *itertools.product([1, 2], [1, 2], [1, 2]))
    same(chain_in_is, (1, [1]), (0, [[0]]), (None, []))


def test_ternaries_and_comprehensions():
    same(ternaries, *itertools.product([0, 1], [0, 1]))
    same(comprehension_logic, ([0, 1, 2, 3, 4, -2],), ([],))
    same(lambda_logic, ([0, 1, 2, 3, 4],))
    same(walrus_kept, ([0, 1, 2, 3, 4],), ([],))


# -- nested user functions, try, side effects ---------------------------------------------

def nested_function(n):
    def helper(k):
        total = 0
        for i in range(k):
            if i % 2:
                continue
            total += i
        return total

    def early(k):
        if k > 3:
            return "big"
        return "small"
    return [helper(i) for i in range(n)], early(n)


def closure_reads(n):
    scale = 3

    def times(v):
        return v * scale if v > 0 else 0
    out = []
    for i in range(n):
        out.append(times(i - 1))
    return out


def if_inside_try(x):
    y = 0
    try:
        if x > 1:
            y = 10 // (x - 2)
        for i in range(x):
            y += i
    except ZeroDivisionError:
        if x:
            y = -1
    return y


def mutation_in_branches(n):
    acc = []
    d = {}
    for i in range(n):
        if i % 2:
            acc.append(i)
        else:
            d[i] = i * i
            acc[0:0] = [i]
    return acc, d


def print_in_loop(n):
    for i in range(n):
        if i == 1:
            print("one", i)
    return n


@pytest.mark.parametrize("fn", [nested_function, closure_reads, if_inside_try,
                                mutation_in_branches])
def test_nested_functions_try_and_mutation(fn):
    same(fn, *[(n,) for n in (0, 1, 2, 3, 5)])


def test_control_flow_inside_try_stays_python():
    fake.CALLS.clear()
    fake.convert(if_inside_try)(3)
    assert ("staged_in_try", {}) in fake.CALLS      # a Python test: the Python `if`
    assert ("items_in_try", {"extra_test": False}) in fake.CALLS
    assert not any(c[0] in ("if_stmt", "for_stmt") for c in fake.CALLS)
    fake.CALLS.clear()
    fake.convert(if_elif_chain)(3)
    assert fake.CALLS and not any(c[0].endswith("_in_try") for c in fake.CALLS)


def test_has_else_and_extra_test_flags():
    fake.CALLS.clear()
    fake.convert(for_else)([1, 2], 2)
    assert fake.CALLS[0] == ("for_stmt", {"has_else": True,
                                          "extra_test": True})
    fake.CALLS.clear()
    fake.convert(loop_local_temporary)(2)
    assert fake.CALLS[0] == ("for_stmt", {"has_else": False,
                                          "extra_test": False})


def test_print_goes_through_converted_call(capsys):
    same(print_in_loop, (3,))
    assert capsys.readouterr().out == "one 1\none 1\n"


def walrus_in_if_test(xs):
    out = []
    for x in xs:
        if (half := x // 2) > 1:
            out.append(half)
    return out, half


def class_inside_function(n):
    class Counter:
        def count(self, k):
            total = 0
            for i in range(k):
                if i > 3:
                    break
                total += i
            return total
    return Counter().count(n)


def try_star(x):
    r = 0
    for i in range(x):
        try:
            if i == 2:
                raise ValueError(i)
            r += i
        except* ValueError:
            r -= 100
        if r > 50:
            continue
        r += 1
    return r


def test_walrus_in_if_test():
    same(walrus_in_if_test, ([0, 4, 7],), ([],))


@pytest.mark.parametrize("fn", [class_inside_function, try_star])
def test_classes_and_except_star(fn):
    same(fn, *[(n,) for n in (0, 2, 3, 8)])


def assigned_then_raised(a, b):
    x = a
    try:
        if a > -1:
            x = b - a
            raise ValueError("boom")
    except ValueError:
        return x + 3
    return x


def test_assignments_before_a_raise_caught_in_the_function_are_kept():
    """Hypothesis seed 54687430 of the long random-program test: an `if` inside `try`
    made a branch function, and the assignments it made before the raise were lost."""
    same(assigned_then_raised, (1, 3), (-2, 3), (0, 0))
    fake.CALLS.clear()
    fake.convert(assigned_then_raised)(1, 3)
    assert ("staged_in_try", {}) in fake.CALLS   # the test is checked


# --- list comprehensions (`converters/comprehensions.py`) ---------------------------------

def comprehensions(n, pairs):
    squares = [i * i for i in range(n)]
    sums = [a + b for a, b in pairs]                  # a tuple target: unpacked parts
    nested = [[i * j for j in range(i)] for i in range(n)]
    filtered = [i for i in range(n) if i % 2]         # a filter: stays Python
    k = 10
    scaled = [k * i for i in squares]                 # the enclosing scope's names
    i = "outer"                                       # the target does not leak out
    both = [x * y for x in range(2) for y in range(n)]
    return squares, sums, nested, filtered, scaled, i, both


def comprehension_unpack_error(pairs):
    return [a + b for a, b in pairs]


def test_list_comprehensions():
    same(comprehensions, (0, []), (3, [(1, 2), (3, 4)]), (5, [[1, 1]]))
    same(comprehension_unpack_error, ([(1, 2, 3)],), ([(1,)],), ([5],), ([(1, 2)],))


def bit_counts(n):
    v, c = n, 0
    while v:
        v &= v - 1
        c += 3
    return v, c


def test_bit_count_loop_keeps_pythons_semantics():
    same(bit_counts, (0,), (1,), (255,), (2 ** 40 + 5,))


def list_item_totals(xs, k):
    counts = [0, 0]
    for x in xs:
        if x < 0:
            break
        counts[-1] += x
        counts[0] = counts[0] + 1
    acc = [5]
    for x in xs:
        acc[k] += x                  # k literal below; here a name: stays as written
    one = [1]
    for x in xs:
        one[0] += x
        one[-1] *= 2                 # one item under two names
    far = [0]
    for x in xs:
        far[2] += x                  # IndexError only if the loop runs
    return counts, acc, one, far


def test_list_items_keep_pythons_semantics():
    same(list_item_totals, ([], 0), ([1, 2, 3], 0), ([1, -2, 3], 0), ([4], 0))
