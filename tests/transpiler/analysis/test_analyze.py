"""The `analyze` entry point and the queries converters use."""

import random
import textwrap

import gast
from hypothesis import given, settings, strategies as st

import npxla.transpiler.analysis as analysis
from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis import cfg
from npxla.transpiler.analysis.anno import Static


def function(src):
    return analysis.analyze(gast.parse(textwrap.dedent(src))).body[0]


def test_branch_outputs_exclude_branch_local_temporaries():
    fn = function('''
        def f(x, c):
            if c > 0:
                t = x * 2
                y = t + 1
            else:
                u = x
                y = u - 1
            return y
    ''')
    assert analysis.branch_outputs(fn.body[0]) == {'y'}


def test_branch_outputs_include_in_place_updates():
    fn = function('''
        def f(a, i, c):
            if c:
                a[i] = 0
            return a
    ''')
    assert analysis.branch_outputs(fn.body[0]) == {'a'}


def test_variable_defined_in_only_one_branch_is_reported():
    fn = function('''
        def f(c):
            y = 0
            if c:
                x = 1
                y = 1
            return x + y
    ''')
    branch = fn.body[1]
    assert analysis.branch_outputs(branch) == {'x', 'y'}
    assert analysis.undefined_on_some_path(branch, 'x', after=True)
    assert not analysis.undefined_on_some_path(branch, 'y', after=True)
    assert analysis.partially_defined(branch, after=True) == {'x'}
    assert analysis.definitely_defined(branch, after=True) == {'c', 'y'}
    assert analysis.maybe_defined(branch, after=True) == {'c', 'x', 'y'}
    assert analysis.undefined_on_some_path(branch, 'x')        # before the if
    assert analysis.partially_defined(branch) == frozenset()   # ... on every path


def test_loop_temporaries_are_not_carried():
    fn = function('''
        def f(x, n):
            i = 0
            s = 0
            while i < n:
                t = x[i] * 2
                s = s + t
                i += 1
            return s
    ''')
    loop = fn.body[2]
    assert analysis.loop_carried(loop) == {'i', 's'}
    assert analysis.definitely_defined(loop) >= {'i', 's', 'x', 'n'}


def test_while_condition_makes_a_variable_carried():
    fn = function('''
        def f(n):
            done = False
            k = 0
            while not done:
                done = k > n
                k = k + 1
            return 0
    ''')
    assert analysis.loop_carried(fn.body[2]) == {'done', 'k'}


def test_loop_value_used_after_the_loop_is_carried():
    fn = function('''
        def f(xs):
            last = None
            for x in xs:
                last = x * 2
            return last
    ''')
    loop = fn.body[1]
    assert analysis.loop_carried(loop) == {'last'}   # the target is not carried


def test_loop_variable_first_defined_in_the_body_is_undefined_before():
    fn = function('''
        def f(xs):
            for x in xs:
                y = x
            return y
    ''')
    loop = fn.body[0]
    assert analysis.loop_carried(loop) == {'y'}
    assert analysis.undefined_on_some_path(loop, 'y')
    assert analysis.partially_defined(loop, after=True) == {'x', 'y'}


def test_break_and_continue_in_loops():
    fn = function('''
        def f(xs, limit):
            total = 0
            hit = -1
            for i in range(10):
                if i > limit:
                    hit = i
                    break
                if i % 2:
                    skipped = i
                    continue
                total = total + i
            return total, hit
    ''')
    loop = fn.body[2]
    assert analysis.loop_carried(loop) == {'total', 'hit'}
    assert analysis.branch_outputs(loop.body[1]) == frozenset()  # skipped is dead


def test_nested_loops():
    fn = function('''
        def f(a):
            n = a.shape[0]
            out = 0.0
            i = 0
            while i < n:
                row = 0.0
                j = 0
                while j < n:
                    row = row + a[i, j]
                    j = j + 1
                out = out + row
                i = i + 1
            return out
    ''')
    outer = fn.body[3]
    inner = outer.body[2]
    assert analysis.loop_carried(inner) == {'row', 'j'}
    assert analysis.loop_carried(outer) == {'out', 'i'}   # row, j are reset each time


def test_return_inside_branch():
    fn = function('''
        def f(x):
            if x > 0:
                y = x
            else:
                return -x
            return y
    ''')
    branch = fn.body[0]
    assert analysis.branch_outputs(branch) == {'y'}
    assert not analysis.undefined_on_some_path(branch, 'y', after=True)


def test_comprehension_targets_do_not_become_outputs():
    fn = function('''
        def f(xs, c):
            if c:
                ys = [x * x for x in xs]
            else:
                ys = xs
            return ys, x
    ''')
    assert analysis.branch_outputs(fn.body[0]) == {'ys'}


def test_analyze_module_nested_functions_and_reanalysis():
    tree = gast.parse(textwrap.dedent('''
        import numpy as np

        def outer(a):
            def inner(b):
                if b:
                    c = b
                return c
            return inner(a)
    '''))
    analysis.analyze(tree)
    outer = tree.body[1]
    inner = outer.body[0]
    assert isinstance(anno.getanno(outer, Static.CFG), cfg.Graph)
    assert isinstance(anno.getanno(inner, Static.CFG), cfg.Graph)
    assert analysis.partially_defined(inner.body[1]) == {'c'}
    assert anno.getanno(tree, Static.BODY_SCOPE).modified_names == {'np', 'outer'}

    # Transform: drop the `if`; stale facts must not survive re-analysis.
    old_if = inner.body[0]
    inner.body[0] = gast.parse('c = b').body[0]
    analysis.analyze(tree)
    assert analysis.partially_defined(inner.body[1]) == frozenset()
    assert anno.hasanno(old_if, Static.LIVE_VARS_OUT)  # detached nodes keep theirs
    assert analysis.analyze(outer) is outer


# --- soundness against execution ------------------------------------------
#
# Random programs run with random branch decisions; facts the analyses state
# before each statement are checked against what actually happens.

_VARS = ['a', 'b', 'c', 'd']


def _program(rng, depth=0, loops=0):
    """Random statements over a few variables, with if / while / for / break /
    continue / return / del, as source lines. `flip(x)` reads `x` and decides
    a branch; `out(x)` reads `x`."""
    lines = []

    def nested(header, inner_loops):
        lines.append(header)
        lines.extend('    ' + line for line in _program(rng, depth + 1, inner_loops))

    for _ in range(rng.randint(1, 3)):
        choice, var = rng.random(), rng.choice(_VARS)
        if choice < 0.35 or depth >= 2:
            lines.append('{} = {}'.format(var, rng.choice(_VARS + ['1'])))
        elif choice < 0.5:
            nested('if flip({}):'.format(var), loops)
            if rng.random() < 0.5:
                nested('else:', loops)
        elif choice < 0.65:
            nested('while flip({}):'.format(rng.choice(_VARS)), loops + 1)
        elif choice < 0.8:
            nested('for {} in range(count()):'.format(var), loops + 1)
        elif choice < 0.9 and loops:
            lines.append(rng.choice(['break', 'continue']))
        elif choice < 0.95:
            lines.append(rng.choice(['del {}', 'return {}', 'out({})']).format(var))
        else:
            lines.append('{} += 1'.format(var))
    return lines


def _instrument(fn, before):
    """Insert the statements `before(stmt)` in front of every statement."""
    for node in list(gast.walk(fn)):
        for field in ('body', 'orelse'):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], gast.stmt):
                setattr(node, field, [new for stmt in stmts
                                      for new in before(stmt) + [stmt]])


def _run(fn, run_seed, **env):
    """Execute `fn(0)`; return the trace of values it read through flip / out."""
    run = random.Random(run_seed)
    trace, budget = [], [100]

    def flip(value):
        trace.append(value)
        budget[0] -= 1
        return budget[0] > 0 and run.random() < 0.6

    module = gast.gast_to_ast(gast.Module(body=[fn], type_ignores=[]))
    namespace = dict(env, flip=flip, out=trace.append, count=lambda: run.randint(0, 2))
    exec(compile(module, '<generated>', 'exec'), namespace)
    try:
        trace.append(('return', namespace['f'](0)))
    except (NameError, TypeError) as e:  # unbound read; poison (below) misused
        trace.append(type(e).__name__)
    return trace


def _random_function(seed):
    rng = random.Random(seed)
    src = 'def f(a):\n' + '\n'.join('    ' + l for l in _program(rng)) + '\n'
    fn = analysis.analyze(gast.parse(src)).body[0]
    return fn, anno.getanno(fn, Static.BODY_SCOPE).local_names


_SOUNDNESS = settings(max_examples=60, deadline=None, derandomize=True, database=None)
_SEEDS = st.integers(0, 2 ** 32 - 1)


@_SOUNDNESS
@given(_SEEDS, _SEEDS)
def test_definedness_is_sound_on_executed_paths(seed, run_seed):
    fn, local_names = _random_function(seed)
    checked = {}

    def check(stmt_id, bound):
        stmt = checked[stmt_id]
        names = set(bound) & local_names
        assert analysis.definitely_defined(stmt) <= names
        assert names <= analysis.maybe_defined(stmt)
        assert all(analysis.undefined_on_some_path(stmt, n) for n in local_names - names)

    def probe(stmt):
        checked[id(stmt)] = stmt
        return gast.parse('probe({}, locals())'.format(id(stmt))).body

    _instrument(fn, probe)
    _run(fn, run_seed, probe=check)


@_SOUNDNESS
@given(_SEEDS, _SEEDS)
def test_liveness_is_sound_on_executed_paths(seed, run_seed):
    """Overwriting every dead variable with poison must not change what the
    program reads."""
    fn, local_names = _random_function(seed)
    expected = _run(gast.parse(gast.unparse(fn)).body[0], run_seed)

    def poison(stmt):
        dead = sorted(local_names - anno.getanno(stmt, Static.LIVE_VARS_IN))
        return [gast.parse("if '{0}' in locals(): {0} = POISON".format(n)).body[0]
                for n in dead]

    _instrument(fn, poison)
    assert _run(fn, run_seed, POISON=object()) == expected
