"""Reaching definitions: definitely / maybe defined names per statement."""

import textwrap

import gast

from npxla.transpiler.analysis import activity
from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis import cfg
from npxla.transpiler.analysis import reaching_definitions
from npxla.transpiler.analysis.anno import Static


def function(src):
    fn = gast.parse(textwrap.dedent(src)).body[0]
    activity.resolve(fn)
    reaching_definitions.resolve(fn, cfg.build(fn))
    return fn


def defined(node, after=False):
    return anno.getanno(node, Static.DEFINED_VARS_OUT if after else Static.DEFINED_VARS_IN)


def undefined(node, after=False):
    key = Static.MAYBE_UNDEFINED_VARS_OUT if after else Static.MAYBE_UNDEFINED_VARS_IN
    return anno.getanno(node, key)


def definitions(node, name):
    return {d.node.lineno for d in anno.getanno(node, Static.DEFINITIONS_IN)[name]}


def test_params_are_defined_on_entry_and_locals_are_not():
    fn = function('''
        def f(a, *b, c=1, **d):
            x = a
            return x
    ''')
    assert defined(fn.body[0]) == {'a', 'b', 'c', 'd'}
    assert undefined(fn.body[0]) == {'x'}
    assert defined(fn.body[1]) == {'a', 'b', 'c', 'd', 'x'}
    assert undefined(fn.body[1]) == frozenset()
    assert anno.getanno(fn.body[0], Static.DEFINITIONS_IN)['a'] == {
        reaching_definitions.Definition('a', fn.args)}


def test_defined_in_both_branches():
    fn = function('''
        def f(c):
            if c:
                x = 1
            else:
                x = 2
            return x
    ''')
    branch, ret = fn.body
    assert 'x' in defined(branch, after=True)
    assert definitions(ret, 'x') == {4, 6}


def test_defined_in_only_one_branch():
    fn = function('''
        def f(c):
            if c:
                x = 1
                y = 1
            else:
                y = 2
            return y
    ''')
    branch = fn.body[0]
    assert defined(branch, after=True) == {'c', 'y'}
    assert undefined(branch, after=True) == {'x'}
    assert set(anno.getanno(branch, Static.DEFINITIONS_OUT)) == {'c', 'x', 'y'}
    assert undefined(branch) == {'x', 'y'}


def test_return_in_one_branch_leaves_the_other_path():
    fn = function('''
        def f(c):
            if c:
                x = 1
            else:
                return 0
            return x
    ''')
    assert 'x' in defined(fn.body[0], after=True)
    assert 'x' in defined(fn.body[1])
    assert not anno.hasanno(fn.body[0].orelse[0], Static.DEFINED_VARS_OUT)


def test_loop_entry_excludes_back_edges():
    fn = function('''
        def f(n):
            i = 0
            while i < n:
                t = i
                i = i + 1
            return t
    ''')
    loop = fn.body[1]
    assert 't' not in defined(loop) and 't' in undefined(loop)
    assert definitions(loop, 'i') == {3}                 # from before the loop only
    assert definitions(loop.body[0], 'i') == {3, 6}      # inside: either
    assert undefined(loop, after=True) == {'t'}          # zero iterations


def test_for_target_may_be_undefined_after_the_loop():
    fn = function('''
        def f(xs):
            for x in xs:
                y = x
            return x
    ''')
    loop = fn.body[0]
    assert 'x' in defined(loop.body[0])
    assert undefined(fn.body[1]) == {'x', 'y'}


def test_break_paths_reach_after_the_loop():
    fn = function('''
        def f(n):
            while n:
                found = n
                break
            return found
    ''')
    assert definitions(fn.body[1], 'found') == {4}
    assert 'found' in undefined(fn.body[1])


def test_del_undefines():
    fn = function('''
        def f(a):
            x = a
            del x
            return a
    ''')
    assert 'x' in defined(fn.body[1])
    assert undefined(fn.body[2]) == {'x'}


def test_item_assignment_is_a_new_definition():
    fn = function('''
        def f(a, i):
            a[i] = 0
            return a
    ''')
    assert definitions(fn.body[1], 'a') == {3}


def test_handler_sees_partial_try_body():
    fn = function('''
        def f(a):
            try:
                x = a
                y = x
            except ValueError:
                z = 0
            return a
    ''')
    handler = fn.body[0].handlers[0]
    assert undefined(handler) == {'x', 'y', 'z'}
    assert definitions(handler, 'x') == {4}


def test_free_and_global_names_are_not_tracked():
    fn = function('''
        def f(a):
            global g
            g = np.abs(a)
            return g
    ''')
    assert 'g' not in defined(fn.body[2]) | undefined(fn.body[2])
    assert 'np' not in defined(fn.body[1]) | undefined(fn.body[1])


def test_unreachable_code_has_no_definitions():
    fn = function('''
        def f(a):
            return a
            b = 1
    ''')
    assert defined(fn.body[1]) == frozenset()
