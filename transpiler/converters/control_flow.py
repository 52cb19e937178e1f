"""`if` / `while` / `for` -> runtime operators taking the branches and bodies as functions.

Python runs only the branch it takes; XLA must see both branches (`case`) or the
whole body (`while`) as regions with explicit inputs and outputs. So each branch or
body becomes a local function whose parameters and results are exactly the values
dataflow says it needs and produces (branch outputs, loop-carried values), and the
runtime operator decides per call: a Python condition runs the code as plain Python,
an abstract-array condition stages it. Names the operator must pass in but that are
not bound yet start as `ag__.Undefined(name)`.
"""
from __future__ import annotations

import contextlib
import copy

import gast

from npxla.transpiler.analysis import (anno, branch_outputs, definitely_defined,
                                       loop_carried, maybe_defined)
from npxla.transpiler.analysis import analyze
from npxla.transpiler.analysis.anno import Static
from npxla.transpiler.base.errors import InternalCompilerError
from npxla.transpiler.pyct import templates
from npxla.transpiler.converters.common import EXTRA_TEST, SCOPES, header_origin, walk_scope
from npxla.transpiler.converters.append_loops import APPENDS
from npxla.transpiler.converters.counted_loops import COUNTER


def _tuple(items):
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _call(operator, leading_args, inputs, outputs, has_else=False, keywords=""):
    """`(a, b) = ag__.<operator>(<leading_args>, (inputs), ('a', 'b'), ...)`; a bare
    call when there are no outputs."""
    keywords = (", has_else=True" if has_else else "") + keywords
    call = (f"ag__.{operator}({leading_args}, {_tuple(inputs)}, "
            f"{_tuple([repr(name) for name in outputs])}{keywords})")
    return f"{_tuple(outputs)} = {call}" if outputs else call


def _names_read(expr):
    if expr is None:
        return frozenset()
    return frozenset(n.id for n in gast.walk(expr)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))


def _check_no_jumps(stmts, node):
    for stmt in stmts:
        for child in walk_scope(stmt) if not isinstance(stmt, SCOPES) else ():
            if isinstance(child, (gast.Return, gast.Break, gast.Continue)):
                raise InternalCompilerError(
                    f"a {type(child).__name__.lower()} statement was left inside a converted "
                    f"{type(node).__name__.lower()} statement (line {child.lineno})")


def _has_jumps(stmts):
    """Whether `stmts` hold a `return`, or a `break`/`continue` of an enclosing loop."""
    todo = [s for s in stmts if not isinstance(s, SCOPES)]
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.Return, gast.Break, gast.Continue)):
            return True
        for child in gast.iter_child_nodes(node):
            if isinstance(child, SCOPES):
                continue
            if isinstance(node, (gast.For, gast.While)) and child in node.body:
                todo.extend(c for c in walk_scope(child) if isinstance(c, gast.Return))
                continue
            todo.append(child)
    return False


def _holds_yield(node):
    """Whether a statement holds a `yield` of its function: it stays a Python statement
    (a generator suspends inside it; its conditions are Python bools)."""
    return any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in walk_scope(node))


def _copy_tree(node):
    """A copy of `node`'s tree whose nodes share the original's annotation values
    (analysis results, read-only here; some cannot be deep-copied)."""
    memo: dict = {}
    for n in gast.walk(node):
        for value in (getattr(n, anno.ANNO_ATTR, None) or {}).values():
            memo[id(value)] = value
    return copy.deepcopy(node, memo)


class _Transformer:
    """Converts the compound statements of one function, innermost first.

    `bound` holds the names that the enclosing generated functions bind as
    parameters (always bound inside them), `in_try` whether the statement lies in a
    user `try` body or handler, `tested` the names read by the extra tests of the
    enclosing `for` loops: the analysis does not see those tests (they are not in the
    tree yet), so such names count as live after every statement of the loop body.
    """

    def __init__(self, ctx):
        self.ctx = ctx
        self.bound = frozenset()
        self.in_try = False
        self.tested = frozenset()

    @contextlib.contextmanager
    def _state(self, bound=None, in_try=None, tested=None):
        saved = self.bound, self.in_try, self.tested
        self.bound = saved[0] if bound is None else frozenset(bound)
        self.in_try = saved[1] if in_try is None else in_try
        self.tested = saved[2] if tested is None else frozenset(tested)
        try:
            yield
        finally:
            self.bound, self.in_try, self.tested = saved

    def block(self, stmts):
        out = []
        for stmt in stmts:
            convert = getattr(self, "convert_" + type(stmt).__name__, None)
            out.extend(convert(stmt) if convert is not None else [stmt])
        return out

    def _inner_block(self, stmts, node, bound, tested=frozenset()):
        with self._state(bound=self.bound | set(bound), tested=self.tested | tested):
            stmts = self.block(stmts)
        _check_no_jumps(stmts, node)
        return stmts

    def _undefined(self, node, names):
        """Bind `names` that may be unbound before `node` to `ag__.Undefined`."""
        maybe, surely = maybe_defined(node), definitely_defined(node)
        out = []
        for name in names:
            if name in self.bound or name in surely:
                continue
            template = (f"{name} = ag__.Undefined({name!r})" if name not in maybe else
                        f"try:\n    {name}\nexcept NameError:\n"
                        f"    {name} = ag__.Undefined({name!r})")
            out.extend(templates.replace(template, origin=header_origin(node)))
        return out

    # -- scopes that reset the state ------------------------------------------

    def convert_FunctionDef(self, node):
        with self._state(bound=(), in_try=False, tested=()):
            node.body = self.block(node.body)
        return [node]

    def convert_ClassDef(self, node):
        return [node]  # class bodies run once, as Python

    def convert_With(self, node):
        node.body = self.block(node.body)
        return [node]

    def convert_Try(self, node):
        with self._state(in_try=True):
            node.body = self.block(node.body)
            for handler in node.handlers:
                handler.body = self.block(handler.body)
        node.orelse = self.block(node.orelse)
        node.finalbody = self.block(node.finalbody)
        if node.handlers:
            # the body runs in `user_try`, told what the handlers catch (a bare
            # `except:` catches everything)
            types = [h.type or gast.Name("BaseException", gast.Load(), None, None)
                     for h in node.handlers]
            node.body = templates.replace(
                "with ag__.user_try(lambda: __types__):\n    __body__\n",
                origin=node, __body__=node.body,
                __types__=gast.Tuple(types, gast.Load()))
        return [node]

    convert_TryStar = convert_Try

    # -- control flow ---------------------------------------------------------

    def _emit(self, node, names, source, **replacements):
        """The `Undefined` initialisations of `names`, then `source` from the template."""
        return self._undefined(node, names) + templates.replace(
            source, origin=header_origin(node), **replacements)

    def convert_If(self, node):
        if _holds_yield(node):
            return self._python_statement(node, "if __test__:\n    __body__\n",
                                          __test__=node.test)
        if self.in_try:
            return self._if_in_try(node)
        return self._staged_if(node, node.test)

    def _staged_if(self, node, test):
        modified = (anno.getanno(node, Static.BODY_SCOPE).modified_names
                    | anno.getanno(node, Static.ORELSE_SCOPE).modified_names)
        outputs = sorted(branch_outputs(node) | (modified & self.tested))
        live_in = (anno.getanno(node, Static.BODY_LIVE_VARS_IN)
                   | anno.getanno(node, Static.ORELSE_LIVE_VARS_IN))
        # An output that is not live on entry to either branch is assigned on every
        # path of both: its incoming value is dead, and may not even be bound here.
        params = sorted(modified & (live_in | self.tested))
        body = self._inner_block(node.body, node, params)
        orelse = self._inner_block(node.orelse, node, params)
        true_fn, false_fn = self.ctx.new_names("if_true", "if_false")
        args, outs = ", ".join(params), _tuple(outputs)
        call = _call("if_stmt", f"__test__, {true_fn}, {false_fn}", params, outputs)
        return self._emit(
            node, params,
            f"def {true_fn}({args}):\n    __body__\n    return {outs}\n"
            f"def {false_fn}({args}):\n    __orelse__\n    return {outs}\n{call}\n",
            __test__=test, __body__=body, __orelse__=orelse)

    def _if_in_try(self, node):
        """An `if` inside a user `try` is emitted twice. A Python test runs the Python
        `if`: a branch made a function would lose the assignments it made before an
        exception that the `except` clause then sees (`n = b - a; raise ValueError` ...
        `except: use(n)`). A traced test stages both branches (`if_stmt`, which refuses
        a branch that raises while it is staged there, and the checks staged inside a
        `try` refuse at run time instead of raising past its handler). An `if` holding
        a `return`, `break` or `continue` has no staged form: its traced test is
        refused (`test_in_try`)."""
        if _has_jumps(node.body + node.orelse):
            return self._python_statement(
                node, "if ag__.test_in_try(__test__, 'if statement'):\n    __body__\n",
                __test__=node.test)
        python = _copy_tree(node)
        (test,) = self.ctx.new_names("if_test")
        staged = self._staged_if(node, test)
        body, orelse = self.block(python.body), self.block(python.orelse)
        source = (f"{test} = __test__\nif ag__.staged_in_try({test}):\n    __staged__\n"
                  f"elif {test}:\n    __body__\n")
        if orelse:
            source += "else:\n    __orelse__\n"
        return templates.replace(source, origin=header_origin(node), __test__=python.test,
                                 __staged__=staged, __body__=body, __orelse__=orelse)

    def _python_statement(self, node, header, **replacements):
        """`header` (the statement's first line and `__body__`), its `else:` block if
        any, both converted in place (only their inner statements change)."""
        body, orelse = self.block(node.body), self.block(node.orelse)
        if orelse:
            header += "else:\n    __orelse__\n"
        return templates.replace(header, origin=header_origin(node), __body__=body,
                                 __orelse__=orelse, **replacements)

    def _while_in_try(self, node):
        return self._python_statement(
            node, "while ag__.test_in_try(__test__, 'while loop'):\n    __body__\n",
            __test__=node.test)

    def _for_in_try(self, node, items="ag__.items_in_try"):
        """A `for` loop inside a user `try` (`items_in_try`) or around a `yield`
        (`items_of`): a Python loop over the items, with the `break` condition checked
        before each; a traced trip count is refused."""
        extra = getattr(node, EXTRA_TEST, None)
        thunk = "None" if extra is None else "lambda: __extra__"
        # the names the `break` test reads are live after every statement of the body
        with self._state(tested=self.tested | _names_read(extra)):
            return self._python_statement(
                node, f"for __target__ in {items}(__iter__, {thunk}):\n"
                      f"    __body__\n",
                __target__=node.target, __iter__=node.iter, __extra__=extra)

    def _loop_call(self, node, carried, operator, leading_args, keywords=""):
        """The operator call and the loop's `else:` block, which runs after it."""
        with self._state(bound=self.bound | set(carried)):
            orelse = self.block(node.orelse)
        call = _call(operator, leading_args, carried, carried,
                     has_else=bool(node.orelse), keywords=keywords)
        return f"{call}\n__orelse__\n", orelse

    def convert_While(self, node):
        if _holds_yield(node):
            return self._python_statement(node, "while __test__:\n    __body__\n",
                                          __test__=node.test)
        if self.in_try:
            return self._while_in_try(node)
        modified = anno.getanno(node, Static.BODY_SCOPE).modified_names
        carried = sorted(loop_carried(node) | (modified & self.tested))
        body = self._inner_block(node.body, node, carried)
        test_fn, body_fn = self.ctx.new_names("loop_test", "loop_body")
        args = ", ".join(carried)
        counter = getattr(node, COUNTER, None)
        keywords = "" if counter is None else \
            (f", trips=ag__.trip_bound(lambda: ({counter[0]}, __limit__), {counter[2]}, "
             f"{counter[3]}, {counter[4]})")
        call, orelse = self._loop_call(node, carried, "while_stmt", f"{test_fn}, {body_fn}",
                                       keywords)
        limit = {} if counter is None else {"__limit__": copy.deepcopy(counter[1])}
        return self._emit(
            node, carried,
            f"def {test_fn}({args}):\n    return __test__\n"
            f"def {body_fn}({args}):\n    __body__\n    return {_tuple(carried)}\n{call}",
            __test__=node.test, __body__=body, __orelse__=orelse, **limit)

    def convert_For(self, node):
        if self.in_try or _holds_yield(node):
            return self._for_in_try(node, "ag__.items_of" if _holds_yield(node) else
                                    "ag__.items_in_try")
        extra = getattr(node, EXTRA_TEST, None)
        targets = frozenset(n.id for n in gast.walk(node.target) if isinstance(n, gast.Name))
        live_after = (anno.getanno(node, Static.LIVE_VARS_OUT)
                      | anno.getanno(node, Static.ORELSE_LIVE_VARS_IN))
        modified = anno.getanno(node, Static.BODY_SCOPE).modified_names
        tested = _names_read(extra)
        carried = sorted(loop_carried(node) | (targets & live_after)
                         | (modified & (tested | self.tested)))
        body = self._inner_block(node.body, node, set(carried) | targets, tested)
        itr, body_fn, extra_fn = self.ctx.new_names("itr", "loop_body", "extra_test")
        source = (f"def {body_fn}({', '.join([itr] + carried)}):\n"
                  f"    __target__ = {itr}\n    __body__\n    return {_tuple(carried)}\n")
        if extra is not None:
            source += f"def {extra_fn}({', '.join(carried)}):\n    return __extra__\n"
        appends = getattr(node, APPENDS, ())     # lists the loop only appends to
        call, orelse = self._loop_call(
            node, carried, "for_stmt",
            f"__iter__, {extra_fn if extra is not None else None}, {body_fn}",
            f", appends=lambda: ({', '.join(appends)},)" if appends else "")
        return self._emit(node, carried, source + call, __target__=node.target,
                          __body__=body, __extra__=extra, __iter__=node.iter,
                          __orelse__=orelse)


def transform(node, ctx):
    analyze(node)
    return _Transformer(ctx).convert_FunctionDef(node)[0]
