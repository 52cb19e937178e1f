"""Activity: names read / modified / deleted per statement and block."""

import textwrap

import gast
import pytest

from npxla.transpiler.analysis import activity
from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis import qual_names
from npxla.transpiler.analysis.anno import Static
from npxla.transpiler.analysis.qual_names import QN, Literal


def function(src):
    tree = gast.parse(textwrap.dedent(src))
    activity.resolve(tree)
    return tree.body[0]


def scope(node, key=Static.SCOPE):
    return anno.getanno(node, key)


def strs(qns):
    return {str(qn) for qn in qns}


def first_stmt(src):
    return function('def f():\n' + textwrap.indent(textwrap.dedent(src), '    ')).body[0]


def test_assignment_reads_value_and_modifies_target():
    s = scope(first_stmt('x = y + z'))
    assert s.read_names == {'y', 'z'}
    assert s.modified_names == {'x'}


def test_aug_assign_reads_and_modifies():
    s = scope(first_stmt('x += y'))
    assert s.read_names == {'x', 'y'}
    assert s.modified_names == {'x'}


def test_item_assignment_modifies_the_array_and_reads_everything():
    s = scope(first_stmt('a[i] = v'))
    assert strs(s.modified) == {'a', 'a[i]'}
    assert s.modified_names == {'a'}
    assert s.read_names == {'a', 'i', 'v'}


def test_slice_aug_assignment_modifies_the_array():
    s = scope(first_stmt('a[i:j] += v'))
    assert s.modified_names == {'a'}
    assert s.read_names == {'a', 'i', 'j', 'v'}


def test_attribute_assignment_modifies_owner():
    s = scope(first_stmt('self.x.y = v'))
    assert strs(s.modified) == {'self', 'self.x.y'}
    assert strs(s.read) == {'self', 'self.x', 'v'}


def test_tuple_unpacking_and_starred_targets():
    s = scope(first_stmt('a, (b, *c), d[0] = t'))
    assert s.modified_names == {'a', 'b', 'c', 'd'}
    assert strs(s.modified) >= {"d[0]"}


def test_del():
    s = scope(first_stmt('del x, a[i]'))
    assert s.deleted_names == {'x'}
    assert s.modified_names == {'a'}
    assert s.read_names == {'a', 'i'}


def test_annotated_assignment():
    fn = function('''
        def f():
            x: int = y
            z: float
    ''')
    assert scope(fn.body[0]).modified_names == {'x'}
    assert scope(fn.body[0]).read_names == {'y'}   # local annotations never run
    assert scope(fn.body[1]).modified_names == frozenset()


def test_if_scopes():
    stmt = first_stmt('''
        if c > 0:
            x = a
        else:
            y = b
    ''')
    assert scope(stmt, Static.HEADER_SCOPE).read_names == {'c'}
    assert scope(stmt, Static.BODY_SCOPE).modified_names == {'x'}
    assert scope(stmt, Static.ORELSE_SCOPE).modified_names == {'y'}
    assert scope(stmt).modified_names == {'x', 'y'}
    assert scope(stmt).read_names == {'a', 'b', 'c'}
    assert scope(stmt.body[0]).modified_names == {'x'}


def test_while_condition_reads():
    stmt = first_stmt('''
        while i < n:
            i = i + 1
        else:
            done = True
    ''')
    assert scope(stmt, Static.HEADER_SCOPE).read_names == {'i', 'n'}
    assert scope(stmt, Static.BODY_SCOPE).modified_names == {'i'}
    assert scope(stmt, Static.ORELSE_SCOPE).modified_names == {'done'}


def test_for_target_has_its_own_scope():
    stmt = first_stmt('''
        for i, x in enumerate(xs):
            s = s + x
    ''')
    assert scope(stmt.iter).read_names == {'enumerate', 'xs'}
    assert scope(stmt, Static.HEADER_SCOPE).read == set()   # the next-item test
    assert scope(stmt.target).modified_names == {'i', 'x'}
    assert scope(stmt, Static.BODY_SCOPE).modified_names == {'s'}
    assert scope(stmt).modified_names == {'i', 'x', 's'}


def test_try_with_and_handlers():
    stmt = first_stmt('''
        try:
            with open(p) as fh:
                a = fh
        except ValueError as e:
            b = e
        else:
            c = 1
        finally:
            d = 2
    ''')
    assert scope(stmt, Static.BODY_SCOPE).modified_names == {'fh', 'a'}
    assert scope(stmt.body[0], Static.HEADER_SCOPE).modified_names == {'fh'}
    handler = stmt.handlers[0]
    assert scope(handler, Static.HEADER_SCOPE).modified_names == {'e'}
    assert scope(handler, Static.HEADER_SCOPE).read_names == {'ValueError'}
    assert scope(stmt, Static.ORELSE_SCOPE).modified_names == {'c'}
    assert scope(stmt, Static.FINALLY_SCOPE).modified_names == {'d'}
    assert scope(stmt).modified_names == {'fh', 'a', 'e', 'b', 'c', 'd'}


def test_comprehension_targets_do_not_leak():
    stmt = first_stmt('y = [x * k for x in xs if x > t]')
    s = scope(stmt)
    assert s.modified_names == {'y'}
    assert s.read_names == {'k', 'xs', 't'}
    inner = scope(stmt.value, Static.BODY_SCOPE)
    assert inner.modified_names == {'x'}


def test_comprehension_first_iterable_is_read_outside():
    stmt = first_stmt('y = {k: v for x in x for k, v in x}')
    assert scope(stmt).read_names == {'x'}
    assert scope(stmt).modified_names == {'y'}


def test_walrus_in_comprehension_binds_outside():
    stmt = first_stmt('y = [(last := v) for v in vs]')
    assert scope(stmt).modified_names == {'y', 'last'}
    assert 'v' not in scope(stmt).read_names


def test_lambda_params_do_not_leak():
    s = scope(first_stmt('f = lambda a, b=d: a + b + c'))
    assert s.modified_names == {'f'}
    assert s.read_names == {'c', 'd'}


def test_nested_def_modifies_its_name_and_reads_free_variables():
    fn = function('''
        def f(a):
            @deco
            def g(x, y=default):
                t = x + a
                return t + later
            later = 1
    ''')
    s = scope(fn.body[0])
    assert s.modified_names == {'g'}
    assert s.read_names == {'deco', 'default', 'a', 'later'}
    body = scope(fn.body[0], Static.BODY_SCOPE)
    assert body.param_names == {'x', 'y'}
    assert body.modified_names == {'t'}
    assert body.local_names == {'x', 'y', 't'}
    outer = scope(fn, Static.BODY_SCOPE)
    assert outer.param_names == {'a'}
    assert outer.modified_names == {'g', 'later'}
    assert 't' not in outer.read_names | outer.modified_names
    assert scope(fn.args).param_names == {'a'}


def test_nonlocal_writes_leak_and_globals_are_not_locals():
    fn = function('''
        def f():
            n = 0
            def inc():
                nonlocal n
                n += 1
            global g
            g = 1
    ''')
    assert scope(fn.body[1]).modified_names == {'inc', 'n'}
    assert scope(fn, Static.BODY_SCOPE).local_names == {'n', 'inc'}


def test_variables_are_what_python_makes_local():
    fn = function('''
        def f(a, *rest):
            buf[0] = a
            obj.attr = a
            import numpy as np
            for i in rest:
                (b := i)
            try:
                pass
            except ValueError as e:
                del a
            def g():
                pass
            global h
            h = 1
    ''')
    body = scope(fn, Static.BODY_SCOPE)
    # `buf[0] = a` and `obj.attr = a` change values the function reads from outside
    assert {'buf', 'obj'} <= body.local_names
    assert body.variables == {'a', 'rest', 'np', 'i', 'b', 'e', 'g'}


def test_class_body_is_isolated():
    fn = function('''
        def f(base):
            class C(base):
                attr = base
    ''')
    assert scope(fn.body[0]).modified_names == {'C'}
    assert scope(fn.body[0]).read_names == {'base'}


def test_module_scope():
    tree = gast.parse('import numpy as np\nx = np.zeros(3)\n')
    activity.resolve(tree)
    assert scope(tree, Static.BODY_SCOPE).modified_names == {'np', 'x'}
    assert strs(scope(tree.body[1]).read) == {'np', 'np.zeros'}
    more = function('''
        def f():
            import os.path, numpy.linalg as la
            from math import pi as PI
    ''')
    assert scope(more, Static.BODY_SCOPE).modified_names == {'os', 'la', 'PI'}


def test_node_scope_picks_the_header():
    stmt = first_stmt('''
        if c:
            x = 1
    ''')
    assert activity.node_scope(stmt) is scope(stmt, Static.HEADER_SCOPE)
    assert activity.node_scope(stmt.body[0]) is scope(stmt.body[0])
    assert 'read={c}' in repr(activity.node_scope(stmt))


def _expr(src):
    return gast.parse(src).body[0].value


def test_qualified_names():
    assert str(qual_names.from_node(_expr('a.b[0][i].c'))) == 'a.b[0][i].c'
    assert str(qual_names.from_node(_expr("a['k'][-1]"))) == "a['k'][-1]"
    assert qual_names.from_node(_expr('a[i]')) == QN(QN('a'), subscript=QN('i'))
    assert qual_names.from_node(_expr('a[0]')) != qual_names.from_node(_expr('a[i]'))
    assert QN(QN('a'), subscript=Literal(1)) != QN(QN('a'), subscript=Literal(True))
    assert qual_names.from_node(_expr('a[i:j]')) is None
    assert qual_names.from_node(_expr('f().x')) is None
    assert qual_names.root_of(_expr('a[i:j].b')) == QN('a')
    qn = qual_names.from_node(_expr('a.b[i.j]'))
    assert qn.root == QN('a') and qn.is_composite and not qn.root.is_composite
    assert qn.support_set == {QN('a'), QN('i')}
    with pytest.raises(ValueError):
        qn.name
    with pytest.raises(ValueError):
        QN(QN('a'))


def test_resolve_annotates_qualified_names():
    tree = gast.parse('a.b = c[0]')
    qual_names.resolve(tree)
    assign = tree.body[0]
    assert anno.getanno(assign.targets[0], Static.QN) == QN(QN('a'), attr='b')
    assert str(anno.getanno(assign.value, Static.QN)) == 'c[0]'


def test_anno_helpers():
    node = gast.Pass()
    assert not anno.hasanno(node, Static.SCOPE)
    assert anno.getanno(node, Static.SCOPE, None) is None
    with pytest.raises(KeyError):
        anno.getanno(node, Static.SCOPE)
    anno.setanno(node, Static.SCOPE, 1)
    other = gast.Pass()
    anno.copyanno(node, other, Static.SCOPE)
    assert anno.getanno(other, Static.SCOPE) == 1
    anno.delanno(other, Static.SCOPE)
    anno.clear(node, Static)
    assert not anno.hasanno(node, Static.SCOPE) and not anno.hasanno(other, Static.SCOPE)
