"""Liveness: names that may be read later, per statement and per body."""

import textwrap

import gast

from npxla.transpiler.analysis import activity
from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis import cfg
from npxla.transpiler.analysis import liveness
from npxla.transpiler.analysis.anno import Static


def function(src):
    fn = gast.parse(textwrap.dedent(src)).body[0]
    activity.resolve(fn)
    liveness.resolve(fn, cfg.build(fn))
    return fn


def live_in(node):
    return anno.getanno(node, Static.LIVE_VARS_IN)


def live_out(node):
    return anno.getanno(node, Static.LIVE_VARS_OUT)


def test_straight_line():
    fn = function('''
        def f(a, b):
            x = a
            y = b
            x = y
            return x
    ''')
    first, second, third, ret = fn.body
    assert live_in(first) == {'a', 'b'}
    assert live_out(first) == {'b'}          # x is overwritten before any read
    assert live_out(second) == {'y'}
    assert live_in(ret) == {'x'}
    assert live_out(ret) == frozenset()


def test_branch_local_temporaries_are_not_live_after_the_if():
    fn = function('''
        def f(c, a):
            if c:
                t = a * 2
                y = t + 1
            else:
                y = a
            return y
    ''')
    branch = fn.body[0]
    assert live_out(branch) == {'y'}
    assert live_in(branch) == {'c', 'a'}
    assert anno.getanno(branch, Static.BODY_LIVE_VARS_IN) == {'a'}
    assert anno.getanno(branch, Static.ORELSE_LIVE_VARS_IN) == {'a'}


def test_if_without_else_passes_through():
    fn = function('''
        def f(c, y):
            if c:
                y = 1
            return y
    ''')
    assert anno.getanno(fn.body[0], Static.ORELSE_LIVE_VARS_IN) == {'y'}
    assert live_in(fn.body[0]) == {'c', 'y'}


def test_while_condition_keeps_its_variables_live():
    fn = function('''
        def f(n):
            i = 0
            done = False
            while not done:
                done = i > n
                i = i + 1
            return i
    ''')
    loop = fn.body[2]
    assert live_in(loop) == {'done', 'i', 'n'}
    assert live_out(loop.body[1]) == {'done', 'i', 'n'}   # back to the test
    assert anno.getanno(loop, Static.BODY_LIVE_VARS_IN) == {'i', 'n'}
    assert live_out(loop) == {'i'}


def test_loop_local_temporaries_are_not_live_around_the_loop():
    fn = function('''
        def f(x, n):
            s = 0
            for i in range(n):
                t = x[i]
                s = s + t
            return s
    ''')
    loop = fn.body[1]
    assert 't' not in live_in(loop) | live_out(loop)
    assert anno.getanno(loop, Static.BODY_LIVE_VARS_IN) == {'x', 's'}  # before `i` is bound
    assert live_in(loop.body[0]) == {'x', 'i', 's'}


def test_break_and_continue():
    fn = function('''
        def f(xs, a, b):
            r = 0
            for x in xs:
                if x > a:
                    r = b
                    break
                if x < b:
                    continue
                r = x
            return r
    ''')
    loop = fn.body[1]
    brk = loop.body[0].body[1]
    cont = loop.body[1].body[0]
    assert live_in(brk) == {'r'}                # straight to `return r`
    assert live_in(cont) == {'a', 'b', 'r'}     # back to the header (xs was read once)
    assert live_out(brk) == live_out(cont) == frozenset()  # never fall through
    assert live_out(loop.body[0]) == {'a', 'b', 'x', 'r'}
    assert live_in(loop) == {'xs', 'a', 'b', 'r'}


def test_return_ends_liveness():
    fn = function('''
        def f(c, a):
            if c:
                return a
            b = 1
            return b
    ''')
    assert live_in(fn.body[0]) == {'c', 'a'}
    assert live_out(fn.body[0]) == frozenset()


def test_updates_keep_the_array_live():
    fn = function('''
        def f(a, i, v, n):
            a[i] = v
            n += 1
            return a, n
    ''')
    assert live_in(fn.body[0]) == {'a', 'i', 'v', 'n'}
    assert live_in(fn.body[1]) == {'a', 'n'}


def test_nested_def_reads_its_free_variables():
    fn = function('''
        def f(a, b):
            def g(x):
                return x + a
            return g
    ''')
    assert live_in(fn.body[0]) == {'a'}


def test_nested_loops():
    fn = function('''
        def f(n, m):
            total = 0
            for i in range(n):
                acc = 0
                for j in range(m):
                    acc = acc + i * j
                total = total + acc
            return total
    ''')
    outer = fn.body[1]
    inner = outer.body[1]
    # `range` and `m` stay live for the next outer iteration; `n` was read once.
    assert live_in(inner) == {'range', 'm', 'acc', 'i', 'total'}
    assert live_out(inner) == {'acc', 'total', 'range', 'm'}
    assert anno.getanno(inner, Static.BODY_LIVE_VARS_IN) == {
        'acc', 'i', 'total', 'range', 'm'}
    assert live_in(outer) == {'range', 'n', 'm', 'total'}
    assert 'acc' not in live_in(outer) | live_out(outer)
