"""Statements of the traced-value interpreter: control flow and how paths join.

Most of what the linter knows about staging is decided here: a branch or loop whose
condition is traced makes what it assigns traced, a variable left holding different
arrays on different paths becomes ambiguous (the aliasing rule), and loops run to a
fixed point. These rules about paths are read and changed together, apart from what a
single expression evaluates to (`expressions`).
"""
from __future__ import annotations

import ast
import builtins

from npxla.transpiler.analysis.jit_discovery import collect_imports
from npxla.transpiler.lint.expressions import truth
from npxla.transpiler.lint.values import (DATA, CONTAINERS, DICT, FUNC, LIST, MAYBE, NUMBER,
                                          PYTHON_ONLY, RANGE, REF, SET, STATIC, TUPLE,
                                          UNKNOWN_STATIC, Val, const, element_of, join,
                                          max_level)

_MAX_LOOP_PASSES = 4


class Frame:
    """An enclosing `if`/`while`/`for` (with the level of its condition) or `try` body."""
    __slots__ = ("kind", "node", "level")

    def __init__(self, kind, node, level):
        self.kind = kind
        self.node = node
        self.level = level


class StatementsMixin:
    """The statement part of `interpreter.FunctionContext`: `block` runs a statement
    list on an environment (name -> `Val`) and returns the environment after it, or None
    when no path falls through; one `s_<Statement>` method per statement type. It uses
    the context's state (`env`, `frames`, `values`, ...) and its expression evaluator."""

    # --- joining paths ----------------------------------------------------------------
    @staticmethod
    def join_envs(envs):
        envs = [e for e in envs if e is not None]
        if not envs:
            return None
        if len(envs) == 1:
            return dict(envs[0])
        out = dict(envs[0])
        for e in envs[1:]:
            for k, v in e.items():
                out[k] = join(out.get(k), v)
        return out

    def staged_join(self, before, paths, level, names, mark=True, views_only=False,
                    node=None, what=None):
        """Join the environments at the end of the paths of a branch or loop whose
        condition has `level`; when it is traced, what the paths assign is traced, and a
        variable that is the same object on some paths and another on others becomes
        `ambiguous` (for the aliasing rule).

        `names` are the variables the paths may rebind (activity: `facts.modified`); only they
        are re-examined. `mark=False` (a loop's carried values, inside the loop) never
        marks ambiguity; `views_only` (an `if`) marks it only when a path made a new
        view, which is what `@jit` refuses there. Returns None when no path falls
        through. With `node` (the `if` or loop) and `what` ("if", "loop"), the rules
        hear each variable's values on the paths of a data-dependent one
        (`paths_joined`)."""
        out = self.join_envs(paths)
        if out is None:
            return None
        if level < MAYBE:
            return out
        live = [p for p in paths if p is not None]
        for name in names:
            v = out.get(name)
            if v is None:
                continue
            vals = [p.get(name) for p in live]
            if node is not None and level >= DATA and not self.plain:
                self.emit("paths_joined", node, name, vals, what)
            same = all(x is not None and x == vals[0] for x in vals)
            if same and v.level == STATIC and v.has_const:
                continue
            new_level = max(v.level, level) if v.kind not in PYTHON_ONLY else v.level
            ambiguous = v.ambiguous
            if mark and v.arrayish and not same and all(x is not None for x in vals):
                # @jit selects between the arrays a branch may leave in a variable
                # (NumPy's aliasing kept); it refuses only a view made on one path,
                # which has no name outside it. A loop's exit is refused more often.
                made = {o for x in vals for o in x.origins if o[0] == "view"}
                if len({x.origins for x in vals}) > 1 and (
                        not views_only or made - _origins(before.get(name))):
                    ambiguous = True
            out[name] = v.replace(level=new_level, ambiguous=ambiguous)
        return out

    # --- statements -------------------------------------------------------------------
    def block(self, stmts, env):
        """Run statements on `env` (mutated); return the environment after them, or None
        when every path left the block (return/raise/break/continue).

        A `return` under a data-dependent condition (`if x.sum() > 0: return x`) makes
        the rest of the function run only when the condition is false: `@jit` stages
        it as the other branch. From the statement that may return on, the rest of the
        block is analysed under a frame of that condition's level (`exit_level`, which
        `s_Return` raises and which bubbles up to the enclosing blocks)."""
        outer = self.exit_level
        self.exit_level = STATIC
        pushed = []
        try:
            for stmt in stmts:
                if env is None:
                    return None
                env = self.stmt(stmt, env)
                if env is not None and self.exit_level >= MAYBE and \
                        (not pushed or pushed[-1].level < self.exit_level):
                    pushed.append(Frame("if", stmt, self.exit_level))
                    self.frames.append(pushed[-1])
            return env
        finally:
            for f in pushed:
                self.frames.remove(f)
            self.exit_level = max(outer, self.exit_level)

    def stmt(self, s, env):
        self.env = env
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None:
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self.ev(child)
            return env
        return method(s, env)

    def s_Expr(self, s, env):
        self.ev(s.value)
        return self.env

    def s_Pass(self, s, env):
        return env

    def s_Assign(self, s, env):
        v = self.ev(s.value)
        for t in s.targets:
            self.bind(t, v, s)
        return self.env

    def s_AnnAssign(self, s, env):
        if s.value is not None:
            self.bind(s.target, self.ev(s.value), s)
        return self.env

    def s_AugAssign(self, s, env):
        rhs = self.ev(s.value)
        t = s.target
        if isinstance(t, ast.Name):
            old = self.lookup(t.id, self.env)
            self.values[t] = old
            if t.id in self.global_names:
                self.emit("global_store", s, t.id)
            if old.kind in CONTAINERS:
                if old.kind != TUPLE:
                    self.emit("container_mutation", s, old, f"{old.kind} +=")
                self.env[t.id] = old.replace(elem=join(old.elem, element_of(rhs)),
                                             items=None)
                return self.env
            if old.arrayish and old.nd != 0:
                self.emit("inplace", s, t.id, old)
            new = self.binop(old, rhs, s.op)
            if old.arrayish and old.kind != NUMBER:
                new = new.replace(origins=old.origins, ambiguous=old.ambiguous, nd=old.nd)
            self.env[t.id] = new
        elif isinstance(t, ast.Subscript):
            self.store_subscript(t, rhs, s, mode="aug")
        elif isinstance(t, ast.Attribute):
            self.emit("attribute_store", s, t, self.ev(t.value))
        return self.env

    def s_Return(self, s, env):
        v = self.ev(s.value) if s.value is not None else const(None)
        if self.staged_frames(MAYBE):
            level = max(f.level for f in self.staged_frames(MAYBE))
            self.exit_level = max(self.exit_level, level)
            if v.kind not in PYTHON_ONLY:
                v = v.replace(level=max(v.level, level))
        self.returns.append(v)
        return None

    def s_Raise(self, s, env):
        if s.exc is not None:
            self.ev(s.exc)
        return None

    def s_Break(self, s, env):
        if self._breaks:
            self._breaks[-1].append(dict(env))
        return None

    def s_Continue(self, s, env):
        if self._continues:
            self._continues[-1].append(dict(env))
        return None

    def s_Delete(self, s, env):
        for t in s.targets:
            if isinstance(t, ast.Name):
                env.pop(t.id, None)
            elif isinstance(t, ast.Subscript):
                base = self.ev(t.value)
                self.ev(t.slice)
                if base.kind in (LIST, DICT, SET):
                    self.emit("container_mutation", s, base, f"del {base.kind}[...]")
            else:
                self.ev(t)
        return env

    def s_Global(self, s, env):
        self.global_names = self.global_names | set(s.names)
        return env

    def s_Nonlocal(self, s, env):
        return env

    def s_Import(self, s, env):
        table = {}
        collect_imports([s], table)
        self.imports.update(table)
        for name, qual in table.items():
            env[name] = Val(kind=REF, qual=qual)
        return env

    s_ImportFrom = s_Import

    def s_FunctionDef(self, s, env):
        for d in s.decorator_list:
            self.ev(d)
        for d in s.args.defaults + [d for d in s.args.kw_defaults if d is not None]:
            self.ev(d)
        v = Val(kind=FUNC, func=(s, env), qual=s.name)
        env[s.name] = v
        self._pending_defs[id(s)] = (s, env)
        return env

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, s, env):
        env[s.name] = Val(kind=REF, qual="<class>")
        return env

    def s_Assert(self, s, env):
        cond = self.ev(s.test)
        self.emit("control", s, "assert", cond)
        if s.msg is not None:
            self.ev(s.msg)
        return self.env

    def s_With(self, s, env):
        for item in s.items:
            v = self.ev(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, Val(level=v.level), s)
        return self.block(s.body, self.env)

    s_AsyncWith = s_With

    def s_If(self, s, env):
        cond = self.ev(s.test)
        level = cond.condition_level
        self.emit("control", s, "if", cond)
        before = self.env
        decided = truth(cond)
        if decided is not None:          # decided while compiling: one arm runs
            out = self.block(s.body if decided else s.orelse, dict(before))
            self.env = out
            return out
        self.frames.append(Frame("if", s, level))
        try:
            then = self.block(s.body, dict(before))
            other = self.block(s.orelse, dict(before)) if s.orelse else dict(before)
        finally:
            self.frames.pop()
        names = self.facts.modified(s, ("body", "orelse"))
        out = self.staged_join(before, [then, other], level, names, views_only=True,
                               node=s, what="if")
        if level >= MAYBE and out is not None:
            live = [p for p in (then, other) if p is not None]
            self.carried(s, [n for n in names if n in before or
                             all(n in p for p in live)], out, before)
        self.env = out
        return out

    def carried(self, s, names, after, before):
        """Tell the rules which variables a staged branch or loop `s` carries (rebinds,
        and had before it or binds on every path), with their values after it."""
        if self.plain:
            return
        for name in sorted(names):
            v = after.get(name)
            if v is not None:
                self.emit("carry", s, name, join(v, before.get(name)))

    def s_While(self, s, env):
        names = self.facts.modified(s, ("body",))
        head = dict(env)
        self.env = head
        cond = self.ev(s.test)
        level = cond.condition_level
        if isinstance(s.test, ast.Constant):
            level = STATIC
        entry = dict(head)
        exit_env, head = self._loop(s, head, names, level,
                                    lambda e: self._while_test(s, e))
        self.env = dict(head)
        final = self.ev(s.test)
        if isinstance(s.test, ast.Constant):
            final = Val()
        self.emit("control", s, "while", final)
        if final.condition_level >= MAYBE:
            self.carried(s, [n for n in names if n in entry], head, entry)
        return self._loop_else(s, head, exit_env, final.condition_level, names)

    def _while_test(self, s, env):
        self.env = env
        return self.ev(s.test).condition_level

    def s_For(self, s, env):
        it = self.ev(s.iter)
        item = element_of(it)
        if it.kind == RANGE:
            level = max_level(it.items or ())
            self.emit("control", s, "for", Val(level=level, kind=NUMBER))
        else:
            level = STATIC                  # a static trip count (arrays, lists)
            self.emit("control", s, "for-each", it)
        names = self.facts.modified(s, ("body", "target"))
        head = dict(self.env)

        def bind_target(e):
            self.env = e
            self.bind(s.target, item, s)
            return self.env
        entry = dict(self.env)
        exit_env, head = self._loop(s, head, names, level, None, bind_target)
        if it.kind == RANGE:          # @jit stages a loop over a range, even a static one
            self.carried(s, [n for n in names if n in entry], head, entry)
        return self._loop_else(s, head, exit_env, level, names)

    s_AsyncFor = s_For

    def _loop(self, s, head, names, level, retest=None, bind_target=None):
        """Iterate the body to a fixed point. Returns (env after the loop, head env).

        A value that changes in the body (`i = i + x.sum()`) is seen traced only on a
        later pass, so the body is run again until the environment at its head stops
        changing, or `_MAX_LOOP_PASSES` times at most for values that keep growing.
        Reports are silenced (`silent`) on every pass but the last, so that each finding
        is reported once, with the values the loop settles on. `retest` re-evaluates a
        `while` condition, which can become traced through the body; `bind_target`
        binds a `for` loop's target at the start of each pass."""
        self.frames.append(Frame("while" if isinstance(s, ast.While) else "for", s, level))
        entry = head
        try:
            passes = 0
            while True:
                passes += 1
                final = passes >= _MAX_LOOP_PASSES
                if not final:
                    self.silent += 1
                self._breaks.append([])
                self._continues.append([])
                try:
                    body_env = dict(head)
                    if bind_target is not None:
                        body_env = bind_target(body_env)
                    end = self.block(s.body, body_env)
                finally:
                    breaks = self._breaks.pop()
                    conts = self._continues.pop()
                    if not final:
                        self.silent -= 1
                # inside the body a carried variable is one handle per iteration:
                # rebinding it in the loop makes it ambiguous only after the loop
                new_head = self.staged_join(head, [head, end] + conts, level, names,
                                            mark=False, node=s, what="loop")
                if retest is not None:
                    test_level = retest(dict(new_head))
                    if test_level > level:
                        level = test_level
                        self.frames[-1].level = level
                if final:
                    break
                if new_head == head:
                    # converged: one last pass with reporting on
                    passes = _MAX_LOOP_PASSES - 1
                    continue
                head = new_head
            exit_env = self.staged_join(entry, [entry, head] + breaks, level, names,
                                        node=s, what="loop")
        finally:
            self.frames.pop()
        return exit_env, head

    def _loop_else(self, s, head, exit_env, level, names):
        if s.orelse:
            else_env = self.block(s.orelse, dict(head))
            # a break skips the else clause; approximate with a join
            exit_env = self.join_envs([exit_env, else_env])
        self.env = exit_env if exit_env is not None else head
        return self.env

    def s_Try(self, s, env):
        before = dict(env)
        self.frames.append(Frame("try", s, STATIC))
        try:
            body = self.block(s.body, dict(env))
        finally:
            self.frames.pop()
        paths = []
        after_body = self.join_envs([before, body])
        for h in s.handlers:
            if self._cannot_happen(h, s.body):
                continue
            henv = dict(after_body)
            self.env = henv             # (the body may have left no environment)
            if h.type is not None:
                self.ev(h.type)
            if h.name:
                henv[h.name] = UNKNOWN_STATIC
            paths.append(self.block(h.body, henv))
        if body is not None:
            paths.append(self.block(s.orelse, dict(body)) if s.orelse else body)
        out = self.join_envs(paths)
        if s.finalbody:
            fin_in = out if out is not None else after_body
            fin = self.block(s.finalbody, dict(fin_in))
            out = fin if out is not None else None
        self.env = out
        return out

    s_TryStar = s_Try

    def _cannot_happen(self, handler, body):
        """An `except NameError:` around code whose every name is bound (a fallback for
        a missing import that is there: `try: x = atleast_1d(x) except NameError:
        pass`) never runs."""
        t = handler.type
        if not (isinstance(t, ast.Name) and t.id == "NameError"):
            return False
        info = self.info
        for node in ast.walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                name = node.id
                if not (name in self.env or name in self.closure or
                        name in info.functions or name in info.imports or
                        name in info.module_values or name in info.assigned or
                        hasattr(builtins, name)):
                    return False
        return True

    def s_Match(self, s, env):
        subject = self.ev(s.subject)
        paths = []
        for case in s.cases:
            cenv = dict(env)
            for n in ast.walk(case.pattern):
                name = getattr(n, "name", None)
                if isinstance(name, str):
                    cenv[name] = Val(level=subject.level)
            self.env = cenv
            if case.guard is not None:
                self.ev(case.guard)
            paths.append(self.block(case.body, self.env))
        paths.append(env)
        self.env = self.join_envs(paths)
        return self.env


def _origins(v):
    return v.origins if v is not None else frozenset()
