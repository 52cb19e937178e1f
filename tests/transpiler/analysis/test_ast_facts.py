"""The analyses asked about stdlib `ast` nodes (what the linter reads) through a gast copy:
the node correspondence, and the answers in `ast` nodes."""

import ast
import textwrap

import gast

from npxla.transpiler.analysis.ast_facts import FunctionFacts


def parse(src):
    fn = ast.parse(textwrap.dedent(src)).body[0]
    return fn, FunctionFacts(fn)


def loads(fn, name):
    """The reads of `name` in `fn`, in source order."""
    found = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name
             and isinstance(n.ctx, ast.Load)]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def kinds(defs, fn):
    return sorted("param" if d is fn.args else "unbound" if d is None else
                  f"{type(d).__name__}@{d.lineno}" for d in defs)


def test_every_ast_node_has_its_gast_counterpart():
    fn, facts = parse('''
        def f(x, *args, k=1, **kw):
            try:
                y = [v for v in x if v > k]
            except ValueError as e:
                y = lambda z: z + 1
            return y
    ''')
    for node in ast.walk(fn):
        if isinstance(node, (ast.expr_context, ast.operator, ast.cmpop, ast.boolop,
                             ast.unaryop)):
            continue
        g = facts.gast_of(node)
        assert facts.ast_of(g) is node
        # a parameter is a gast Name; everything else keeps its class name
        expected = "Name" if isinstance(node, ast.arg) else type(node).__name__
        assert type(g).__name__ == expected
    assert facts.covers(fn.body[0].handlers[0].body[0].value)       # the lambda
    assert {type(f).__name__ for f in facts.functions} == {"FunctionDef", "Lambda"}


def test_modified_and_local_names_are_the_activity_analysis():
    fn, facts = parse('''
        def f(x, n):
            if n:
                x = x + 1
                out[0] = x
            else:
                y = 2
            for i in range(n):
                z = i
            return x
    ''')
    branch, loop = fn.body[0], fn.body[1]
    assert facts.modified(branch, ("body",)) == {"x", "out"}
    assert facts.modified(branch, ("body", "orelse")) == {"x", "out", "y"}
    assert facts.modified(loop, ("body",)) == {"z"}
    assert facts.modified(loop, ("target",)) == {"i"}
    # `out[0] = x` changes a value read from outside: `out` is not a local
    assert facts.local_names(fn) == {"x", "n", "y", "i", "z"}


def test_reaching_definitions_of_a_use():
    fn, facts = parse('''
        def f(q, c):
            if c:
                q = -q
            a = q
            while a.sum() > 0:
                a = a - 1
            del q
            return a, q
    ''')
    a_in_while_test, q_in_assign, q_in_return = (
        loads(fn, "a")[0], loads(fn, "q")[1], loads(fn, "q")[2])
    assert kinds(facts.reaching(fn, "q", q_in_assign), fn) == ["Assign@4", "param"]
    # a `while` test is read again after each iteration: the back edge counts
    assert kinds(facts.reaching(fn, "a", a_in_while_test), fn) == ["Assign@5", "Assign@7"]
    assert kinds(facts.reaching(fn, "q", q_in_return), fn) == ["unbound"]
    assert facts.reaching(fn, "np", q_in_return) == []        # not a local


def test_a_store_into_an_item_does_not_rebind():
    fn, facts = parse('''
        def f(x, c):
            x[0] = 1.0
            if c:
                x = x.copy()
                x[1] = 2.0
            return x
    ''')
    (in_return,) = [n for n in loads(fn, "x") if n.lineno == 7]
    # the argument itself (changed in place) or the copy: not the item stores
    assert kinds(facts.reaching(fn, "x", in_return), fn) == ["Assign@5", "param"]


def test_a_nested_function_reads_what_reaches_its_definition():
    fn, facts = parse('''
        def f(x):
            g = lambda: x * 2
            def h():
                return x + 1
            x = 0
            return g() + h()
    ''')
    in_lambda, in_h = loads(fn, "x")
    assert kinds(facts.reaching(fn, "x", in_lambda), fn) == ["param"]
    assert kinds(facts.reaching(fn, "x", in_h), fn) == ["param"]


def test_falling_off_the_end_and_returns_from_the_cfg():
    fn, facts = parse('''
        def f(x):
            if x:
                return 1
            while True:
                if x > 2:
                    return x
                x = x + 1
    ''')
    assert facts.fallthrough(fn) == []          # `while True` is left only by return
    assert [r.lineno for r in facts.returns_within(fn)] == [4, 7]
    assert [r.lineno for r in facts.returns_within(fn, fn.body[0])] == [4]
    fn, facts = parse('''
        def f(x):
            try:
                return x[0]
            except IndexError:
                pass
            def g():
                return 1
    ''')
    assert [type(s).__name__ for s in facts.fallthrough(fn)] == ["FunctionDef"]
    assert [r.lineno for r in facts.returns_within(fn)] == [4]


def test_the_copy_is_gast():
    fn, facts = parse('def f(x):\n    return x\n')
    assert isinstance(facts.gast_of(fn), gast.FunctionDef)
