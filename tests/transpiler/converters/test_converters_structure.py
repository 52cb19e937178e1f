"""The shape of converted code: the generated forms of the control-flow contract,
positions kept from the user's source, and static refusals."""
import inspect
import textwrap
import traceback

import gast
import pytest

import cf_fake_runtime as fake
import test_converters_semantics as examples
from npxla.transpiler.conversion import convert_ast, converted_source, refuse_generator
from npxla.transpiler.converters.common import functions, walk_scope
from npxla.transpiler.base.errors import UnsupportedSyntaxError


def src(fn):
    return converted_source(fn) + "\n"


def simple_if(x):
    if x > 0:
        y = 1
    else:
        y = 2
    return y


def simple_while(n):
    i = 0
    while i < n:
        i += 1
    return i


def for_with_break(xs):
    s = 0
    for x in xs:
        if x < 0:
            break
        s += x
    return s


def maybe_defined(a, b):
    if a:
        y = 1
    if b:
        y = 2
    return y


def only_final_return(x):
    y = x + 1
    return y


def test_if_form():
    # `y` is assigned on both paths: an output, not an input.
    assert src(simple_if) == textwrap.dedent('''\
        def simple_if(x):

            def if_true__0():
                y = 1
                return (y,)

            def if_false__0():
                y = 2
                return (y,)
            y, = ag__.if_stmt(x > 0, if_true__0, if_false__0, (), ('y',))
            return y
        ''')


def if_without_else(x):
    if x > 0:
        y = 1
    return y


def test_if_without_else_form():
    # `y` flows through the missing else branch: an input, unbound before the if.
    assert src(if_without_else) == textwrap.dedent('''\
        def if_without_else(x):
            y = ag__.Undefined('y')

            def if_true__0(y):
                y = 1
                return (y,)

            def if_false__0(y):
                return (y,)
            y, = ag__.if_stmt(x > 0, if_true__0, if_false__0, (y,), ('y',))
            return y
        ''')


def test_while_form():
    assert src(simple_while) == textwrap.dedent('''\
        def simple_while(n):
            i = 0

            def loop_test__0(i):
                return i < n

            def loop_body__0(i):
                i += 1
                return (i,)
            i, = ag__.while_stmt(loop_test__0, loop_body__0, (i,), ('i',), trips=ag__.trip_bound(lambda: (i, n), 1, False, 1))
            return i
        ''')


def test_for_with_break_form():
    assert src(for_with_break) == textwrap.dedent('''\
        def for_with_break(xs):
            s = 0
            brk__0 = False

            def loop_body__3(itr__3, brk__0, s):
                x = itr__3

                def if_true__1(brk__0):
                    brk__0 = True
                    return (brk__0,)

                def if_false__1(brk__0):
                    return (brk__0,)
                brk__0, = ag__.if_stmt(x < 0, if_true__1, if_false__1, (brk__0,), ('brk__0',))

                def if_true__2(s):
                    s += x
                    return (s,)

                def if_false__2(s):
                    return (s,)
                s, = ag__.if_stmt(ag__.not_(brk__0), if_true__2, if_false__2, (s,), ('s',))
                return (brk__0, s)

            def extra_test__3(brk__0, s):
                return ag__.not_(brk__0)
            brk__0, s = ag__.for_stmt(xs, extra_test__3, loop_body__3, (brk__0, s), ('brk__0', 's'))
            return s
        ''')


def test_maybe_defined_name_is_probed():
    text = src(maybe_defined)
    assert "y = ag__.Undefined('y')" in text
    assert "try:\n        y\n    except NameError:\n        y = ag__.Undefined('y')" in text


def test_lone_final_return_is_left_alone():
    assert src(only_final_return) == textwrap.dedent('''\
        def only_final_return(x):
            y = x + 1
            return y
        ''')


def test_return_value_only_when_the_function_may_fall_off_its_end():
    assert "return ag__.return_value(do_return__" in src(examples.return_may_fall_off)
    for fn in (examples.early_return, examples.return_in_both_branches,
               examples.return_raise_paths, examples.return_while_true):
        assert src(fn).rstrip().splitlines()[-1].strip().startswith("return retval__"), fn


def test_expression_forms():
    def exprs(a, b, c):
        return (a if b else c, a and b and c, a or b, not a, a < b <= c, a < b)
    assert src(exprs).splitlines()[1].strip() == (
        "return (ag__.if_exp(b, lambda: a, lambda: c), "
        "ag__.and_(lambda: a, lambda: b, lambda: c), ag__.or_(lambda: a, lambda: b), "
        "ag__.not_(a), ag__.compare_chain((lambda: a, lambda: b, lambda: c), ('<', '<=')), "
        "a < b)")


def _functions(module):
    return [v for v in vars(module).values()
            if callable(v) and getattr(v, "__module__", None) == module.__name__
            and not v.__name__.startswith(("test_", "_")) and v.__name__ not in (
                "outcome", "same", "log")]


_WALRUS = {"walrus_kept"}


@pytest.mark.parametrize("fn", _functions(examples), ids=lambda f: f.__name__)
def test_no_python_control_flow_left(fn):
    node, _ = convert_ast(fn)
    for child in functions(node):  # class bodies stay Python
        _assert_converted(fn, child)
    compile(converted_source(fn), "<converted>", "exec")


def _operator_call(node, name):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == name


def _kept_in_try(node):
    """Control flow inside a user `try` stays Python: an `if`/`while` test goes through
    `ag__.test_in_try`, a `for` loop's items through `ag__.items_in_try`; an `if`
    without jumps is the choice between its staged form and the Python `if`
    (`ag__.staged_in_try`, whose `else` is that Python `if`)."""
    if isinstance(node, gast.If) and _operator_call(node.test, "staged_in_try"):
        return True
    if isinstance(node, gast.If) and isinstance(node.test, gast.Name) and \
            node.test.id.startswith("if_test"):
        return True
    if isinstance(node, (gast.If, gast.While)):
        return _operator_call(node.test, "test_in_try")
    return isinstance(node, gast.For) and _operator_call(node.iter, "items_in_try")


def _assert_converted(fn, node):
    for child in walk_scope(node):
        if _kept_in_try(child):
            continue
        assert not isinstance(child, (gast.If, gast.While, gast.For, gast.Break,
                                      gast.Continue)), gast.dump(child)[:80]
        if fn.__name__ in _WALRUS:
            continue
        assert not isinstance(child, (gast.BoolOp, gast.IfExp))
        assert not (isinstance(child, gast.UnaryOp) and isinstance(child.op, gast.Not))
        assert not (isinstance(child, gast.Compare) and len(child.ops) > 1)


@pytest.mark.parametrize("fn", _functions(examples), ids=lambda f: f.__name__)
def test_positions_stay_inside_the_users_function(fn):
    node, _ = convert_ast(fn)
    lines, first = inspect.getsourcelines(fn)
    last = first + len(lines)
    for child in gast.walk(node):
        if "lineno" in getattr(child, "_attributes", ()) and hasattr(child, "lineno"):
            assert first <= child.lineno < last, (gast.dump(child)[:60], child.lineno)


def raises_in_branch(x):
    total = 0
    for i in range(x):
        if i == 2:
            raise ValueError("two")
        total += i
    return total


def test_traceback_points_at_the_users_line():
    converted = fake.convert(raises_in_branch)
    with pytest.raises(ValueError) as info:
        converted(5)
    frame = traceback.extract_tb(info.tb)[-1]
    raise_line = raises_in_branch.__code__.co_firstlineno + 4
    assert (frame.filename, frame.lineno) == (__file__, raise_line)
    assert frame.line.strip() == 'raise ValueError("two")'


def test_test_expression_keeps_its_position():
    def bad(x):
        if x.missing_attribute > 0:
            return 1
        return 0
    with pytest.raises(AttributeError) as info:
        fake.convert(bad)(1)
    frame = traceback.extract_tb(info.tb)[-1]
    assert frame.lineno == bad.__code__.co_firstlineno + 1


# -- refusals ---------------------------------------------------------------------------

COUNTER = 0


def uses_global():
    global COUNTER
    COUNTER += 1


def uses_nonlocal():
    n = 0

    def bump():
        nonlocal n
        n += 1
    bump()
    return n


class Box:
    value = 0


def deletes_attribute(box):
    del box.value


def for_attribute_target(box, xs):
    for box.value in xs:
        pass


def yields(x):
    yield x


@pytest.mark.parametrize("fn, line, words", [
    (uses_nonlocal, 4, "nonlocal n"),
    (deletes_attribute, 1, "attribute"),
    (for_attribute_target, 1, "attribute"),
    (yields, 1, "makes a generator"),
])
def test_refusals_are_located_and_hinted(fn, line, words):
    """(`global` and attribute assignments are converted: tests/runtime/test_effects.py;
    a generator is converted as a helper and refused as the jitted function)"""
    if fn is yields:
        error = refuse_generator(fn)
    else:
        with pytest.raises(UnsupportedSyntaxError) as info:
            converted_source(fn)
        error = info.value
    assert words in error.message
    assert error.hint
    assert error.location.file == __file__
    assert error.line == fn.__code__.co_firstlineno + line
    assert "^" in str(error)


def test_print_is_routed_through_converted_call():
    def p(x):
        print(x)
    assert "ag__.converted_call(print, (x,), None)" in src(p)


def test_generated_names_are_unique():
    text = src(examples.nested_loops)
    defs = [line.strip().split("(")[0] for line in text.splitlines()
            if line.strip().startswith("def ")]
    assert len(defs) == len(set(defs)) > 5


def uses_match(x):
    match x:
        case 1:
            return 1
    return 0


def walrus_while(xs):
    while (n := len(xs)) > 2:
        xs = xs[1:]
    return n


@pytest.mark.parametrize("fn, line, words", [
    (uses_match, 1, "match"),
    (walrus_while, 1, ":="),
])
def test_constructs_not_converted_yet_are_refused(fn, line, words):
    with pytest.raises(UnsupportedSyntaxError) as info:
        converted_source(fn)
    assert words in info.value.message and info.value.hint
    assert info.value.line == fn.__code__.co_firstlineno + line


def return_in_finally(x):
    try:
        x = 1 / x
    finally:
        if x:
            return 0
    return x


def test_jump_out_of_finally_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="finally") as info:
        converted_source(return_in_finally)
    assert info.value.line == return_in_finally.__code__.co_firstlineno + 5


def loop_inside_finally(xs):
    try:
        pass
    finally:
        for x in xs:
            if x:
                break
    return 1


def class_level_logic(a):
    class K:
        b = 1
        c = b and 2

        def m(self):
            return self.c and a
    return K().m()


def test_class_level_expressions_stay_python():
    text = src(class_level_logic)
    assert "c = b and 2" in text and "ag__.and_(lambda: self.c, lambda: a)" in text
    assert fake.convert(class_level_logic)(5) == 5
    assert fake.convert(loop_inside_finally)([0, 1]) == 1


def comprehension_forms(x, pairs):
    a = [v * 2 for v in x]
    b = [p + q for p, q in pairs]
    c = [v for v in x if v]
    return a, b, c


def test_list_comprehensions_become_list_comp_calls():
    text = src(comprehension_forms)
    assert "ag__.list_comp(x, lambda v: v * 2, False)" in text
    assert "ag__.list_comp(pairs, lambda p, q: p + q, True)" in text
    assert "[v for v in x if v]" in text          # filtered: Python's own


def append_only(x, given):
    out = []
    seen = []
    for v in x:
        out.append(v * 2)
        seen.append(v)
        given.append(v)              # a parameter: the caller may read it meanwhile
    first = seen[0]                  # after the loop: any use
    return out, first


def append_and_read(x):
    out = [0]
    for v in x:
        out.append(out[0] + len(out) + v)   # read while filling: stays Python
    return out


def append_recurrence(x):
    out = [0]
    for v in x:
        out.append(out[-1] + v)      # only the last item: served by the runtime
    return out


def append_seen_by_lambda(x):
    out = []
    last = lambda: out[-1]           # noqa: E731 - a nested scope could read it
    for v in x:
        out.append(v + last())
    return out


def test_loops_that_only_append_pass_the_lists():
    assert "appends=lambda: (out, seen)" in src(append_only)
    assert "appends=" not in src(append_and_read)
    assert "appends=lambda: (out,)" in src(append_recurrence)
    assert "appends=" not in src(append_seen_by_lambda)


def bit_count(v):
    c = 0
    while v:
        v &= v - 1
        c += 1
    return c


def not_bit_count(v):
    c = 0
    while v > 0:                     # not the same loop for a negative v
        v &= v - 1
        c += 1
    while v:
        v &= v - 1
        c += 0.5                     # a float step
    return c


def test_bit_count_loops_become_a_guarded_count():
    assert "ag__.bit_count_applies(v, c)" in src(bit_count)
    assert "ag__.bit_count(v, c, 1)" in src(bit_count)
    assert "ag__.bit_count" not in src(not_bit_count)


def list_item_loop(xs):
    counts = [0, 0]
    for x in xs:
        counts[-1] += x
    return counts


def list_item_escapes(xs, sink):
    counts = [0]
    sink(counts)                     # passed away before the loop: left as written
    for x in xs:
        counts[0] += x
    return counts


def test_list_items_get_variables_for_the_loop():
    text = src(list_item_loop)
    assert "ag__.list_items_distinct(counts, (-1,))" in text
    assert "ag__.list_items_distinct" not in src(list_item_escapes)
