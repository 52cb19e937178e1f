"""CFG shape: every edge control can take, jumps and exceptions included."""

import textwrap

import gast
import pytest

from npxla.transpiler.analysis import cfg
from npxla.transpiler.analysis import dataflow


def build(src):
    fn = gast.parse(textwrap.dedent(src)).body[0]
    return fn, cfg.build(fn)


def node_at(graph, line):
    """The CFG node of the statement on `line` (a header for compound ones)."""
    found = [n for n in graph.nodes if getattr(n.ast_node, 'lineno', None) == line]
    assert len(found) == 1, found
    return found[0]


def lines(nodes):
    found = [getattr(n.ast_node, 'lineno', 'exit') for n in nodes]
    return sorted(found, key=lambda line: (line == 'exit', str(line).zfill(4)))


def succ(graph, line):
    return lines(node_at(graph, line).next)


def test_straight_line():
    fn, g = build('''
        def f(a):
            b = a
            return b
    ''')
    assert g.entry.ast_node is fn.args
    assert lines(g.entry.next) == [3]
    assert succ(g, 3) == [4]
    assert succ(g, 4) == ['exit']
    assert g.exit.ast_node is None and g.exit in node_at(g, 4).next
    assert [n.index for n in g.nodes] == list(range(len(g.nodes)))


def test_if_else_and_join():
    _, g = build('''
        def f(c):
            if c:
                x = 1
            else:
                x = 2
            return x
    ''')
    assert succ(g, 3) == [4, 6]
    assert succ(g, 4) == [7]
    assert succ(g, 6) == [7]


def test_if_without_else_falls_through_from_header():
    _, g = build('''
        def f(c):
            if c:
                x = 1
            y = 2
    ''')
    assert succ(g, 3) == [4, 5]


def test_elif_chain():
    _, g = build('''
        def f(c, d):
            if c:
                x = 1
            elif d:
                x = 2
            else:
                x = 3
            return x
    ''')
    assert succ(g, 3) == [4, 5]
    assert succ(g, 5) == [6, 8]
    assert succ(g, 4) == succ(g, 6) == succ(g, 8) == [9]


def test_while_else_and_break_skips_else():
    _, g = build('''
        def f(c):
            while c:
                if c > 1:
                    break
                c = c - 1
            else:
                c = 0
            return c
    ''')
    assert succ(g, 3) == [4, 8]          # body or else
    assert succ(g, 5) == [9]             # break leaves the loop, skipping else
    assert succ(g, 6) == [3]             # back edge
    assert succ(g, 8) == [9]


def test_while_true_is_left_only_by_break():
    _, g = build('''
        def f(c):
            while True:
                c = c + 1
                if c > 9:
                    break
            else:
                c = 0
            return c
    ''')
    assert succ(g, 3) == [4]             # no exit through a test that is always true
    assert node_at(g, 8).prev == set()   # so the else block never runs
    assert lines(node_at(g, 9).prev) == [6]
    _, g = build('''
        def f(c):
            while 1:
                c = c - 1
                if c < 0:
                    return c
            x = 1
    ''')
    assert node_at(g, 7).prev == set()   # unreachable: the function never falls off
    assert g.fallthrough_nodes(g.statements()[0]) == frozenset()


def test_for_binds_target_on_the_way_into_the_body():
    fn, g = build('''
        def f(xs):
            for x in xs:
                continue
            return 0
    ''')
    loop = fn.body[0]
    iterable, header, target = g.index[loop.iter], g.index[loop], g.index[loop.target]
    assert g.entry.next == {iterable} and iterable.next == {header}  # evaluated once
    assert header.next == {target, node_at(g, 5)}
    assert header.prev == {iterable, node_at(g, 4)}
    assert lines(target.next) == [4]
    assert succ(g, 4) == [3]             # continue goes back to the header


def test_return_makes_rest_unreachable():
    fn, g = build('''
        def f(c):
            return c
            c = 1
    ''')
    assert succ(g, 3) == ['exit']
    assert node_at(g, 4).prev == set()
    assert g.fallthrough_nodes(fn.body[0]) == frozenset()


def test_nested_loops_break_and_continue_target_the_innermost_loop():
    _, g = build('''
        def f(n):
            i = 0
            while i < n:
                j = 0
                while j < n:
                    if j == i:
                        break
                    if j > i:
                        continue
                    j += 1
                i += 1
            return i
    ''')
    assert succ(g, 8) == [12]            # inner break: to the outer body
    assert succ(g, 10) == [6]            # inner continue: inner header
    assert succ(g, 6) == [7, 12]
    assert succ(g, 12) == [4]            # outer back edge
    assert succ(g, 4) == [5, 13]


def test_try_except_finally_is_conservative():
    _, g = build('''
        def f(a):
            b = a
            try:
                c = 1
                d = 2
            except ValueError as e:
                c = 3
            finally:
                z = 0
            return c
    ''')
    handler = node_at(g, 7)
    assert lines(handler.prev) == [3, 5, 6]   # before or within the try body
    final = node_at(g, 10)
    assert {3, 5, 6, 7, 8} <= set(lines(final.prev))
    assert succ(g, 10) == [11, 'exit']        # continue, or re-raise


def test_return_inside_try_runs_finally_first():
    _, g = build('''
        def f(a):
            while a:
                try:
                    return a
                finally:
                    a = 0
            return 1
    ''')
    assert succ(g, 5) == [7]
    assert succ(g, 7) == ['exit']            # the pending return (or a raise)


def test_break_inside_try_finally_reaches_after_the_loop_through_finally():
    _, g = build('''
        def f(a):
            while a:
                try:
                    break
                finally:
                    a = 0
            return a
    ''')
    assert succ(g, 5) == [7]
    assert 8 in succ(g, 7)


def test_raise_outside_try_goes_to_exit():
    _, g = build('''
        def f(a):
            if a:
                raise ValueError()
            return a
    ''')
    assert succ(g, 4) == ['exit']


def test_with_and_nested_def_are_single_nodes():
    fn, g = build('''
        def f(a):
            with a as b:
                c = b
            def g(x):
                y = x
                return y
            return g
    ''')
    assert succ(g, 3) == [4]
    assert succ(g, 5) == [8]
    assert not any(getattr(n.ast_node, 'lineno', None) in (6, 7) for n in g.nodes)
    assert g.nodes_within(fn.body[0]) == {node_at(g, 3), node_at(g, 4)}


def test_statement_queries():
    fn, g = build('''
        def f(c):
            while c:
                if c:
                    c = 1
                else:
                    return c
            return 0
    ''')
    loop, branch = fn.body[0], fn.body[0].body[0]
    assert g.entries(loop) == {node_at(g, 3)}
    assert g.outside_preds(loop) == {g.entry}
    assert lines(g.fallthrough_nodes(branch)) == [5]
    assert lines(g.successors(branch)) == [3]
    assert lines(g.successors(loop)) == [8]
    assert g.statements()[0] is loop


def test_break_outside_loop_is_rejected():
    with pytest.raises(ValueError):
        build('''
            def f():
                break
        ''')


def test_build_requires_a_function():
    with pytest.raises(TypeError):
        cfg.build(gast.parse('x = 1'))


class _Executed(dataflow.Dataflow):
    """Forward: indices of nodes that may have run before each node."""

    def transfer(self, node, state):
        return state | {node.index}


class _Reachable(dataflow.Dataflow):
    """Backward: indices of nodes that may run after each node."""

    forward = False

    def transfer(self, node, state):
        return state | {node.index}


def test_generic_solver_reaches_a_fixed_point_around_loops():
    _, g = build('''
        def f(n):
            while n:
                n = n - 1
            return n
    ''')
    header, body, ret = node_at(g, 3), node_at(g, 4), node_at(g, 5)
    fwd = _Executed(g).solve()
    assert body.index in fwd.ins[header]      # via the back edge
    assert fwd.outs[ret] == {g.entry.index, header.index, body.index, ret.index}
    bwd = _Reachable(g).solve()
    assert header.index in bwd.outs[body]
    assert bwd.ins[g.entry] == {n.index for n in g.nodes}
    assert bwd.meet_ins([body, ret]) == bwd.ins[body] | bwd.ins[ret]
