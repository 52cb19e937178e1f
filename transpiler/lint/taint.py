"""Traced-value analysis: an abstract interpreter over a jitted function's AST.

It runs the function's statements in order on `values.Val`s instead of real values:
arguments start as traced (`MAYBE`, or `DATA` when the function uses them as arrays;
static arguments are `STATIC`), assignments, calls, subscripts and operators compute new
values, branches are analysed separately and joined, loops are iterated to a fixed
point. Control flow on traced values also taints what it assigns (a variable assigned in
a branch on `x.sum() > 0` is traced after it), and the variables a data-dependent
branch or loop rebinds on some paths only are tracked for the aliasing rule.

Calls to functions of the same file are analysed with the argument values of the call
(findings inside them point at their lines); nested functions and lambdas too.

Rules do not walk the tree themselves: the interpreter calls their `on_<event>`
handlers with the values at the point of the event:

* `on_function(ctx, fn)`: once per analysed function (syntax rules).
* `on_call(ctx, node, callee, args, kwargs)`: every call; `callee` is the callee's
  value (`REF` with `qual` for library functions, `METHOD` with the receiver in
  `items[0]` and the method name in `qual`).
* `on_subscript(ctx, node, base, index, mode, value)`: `x[i]` read (`mode="load"`),
  assigned (`"store"`, `value` is the assigned value) or updated (`"aug"`).
* `on_control(ctx, node, kind, cond)`: `if`, `while`, `for` (cond: the range bound or
  the iterable), `ifexp`, `boolop`, `not`, `assert`, `compare` (chains).
* `on_iterate(ctx, node, iterable, how)`: Python-level iteration (comprehensions,
  `list(...)`, `*x`), not `for` statements.
* `on_inplace(ctx, node, name, val)`: an in-place update of the array bound to `name`
  (`y += v`, `y[i] = v`, `out=y`).
* `on_container_mutation(ctx, node, container, what)`: a Python list/dict/set changes.
"""
from __future__ import annotations

import ast

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import (ARRAY, BOOL, CONTAINERS, DATA, DICT, FUNC, ITER, LIST, MAYBE, METHOD,
                     NONE, NUMBER, PYTHON_ONLY, RANGE, REF, RNG, SET, STATIC, STR, TUPLE,
                     UNKNOWN, UNKNOWN_STATIC, Val, const, element_of, join, join_all,
                     max_level)
from npxla.transpiler.lint.discovery import collect_imports

_MAX_LOOP_PASSES = 4
_MAX_CALL_DEPTH = 4
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TRY = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if t is not None)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


class Frame:
    """An enclosing `if`/`while`/`for` (with the level of its condition) or `try` body."""
    __slots__ = ("kind", "node", "level")

    def __init__(self, kind, node, level):
        self.kind = kind
        self.node = node
        self.level = level


class _Terminated(Exception):
    pass


def modified_names(stmts) -> frozenset:
    """Names a block (re)binds, not counting nested function/class/comprehension scopes."""
    out = set()
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            base = node.value
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                out.add((a.asname or a.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            base = node.target.value
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Subscript):
                    base = t.value
                    while isinstance(base, ast.Subscript):
                        base = base.value
                    if isinstance(base, ast.Name):
                        out.add(base.id)
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(out)


_BLOCK_FIELDS = ("body", "orelse", "finalbody")


def _block_modified(stmts, cache) -> frozenset:
    """Names a statement list binds, filling `cache[(id(stmt), field)]` for every
    compound statement inside it on the way (one pass, bottom-up)."""
    out = set()
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(stmt.name)
            continue
        compound = False
        for f in _BLOCK_FIELDS:
            value = getattr(stmt, f, None)
            if isinstance(value, list):
                compound = True
                key = (id(stmt), f)
                hit = cache.get(key)
                if hit is None:
                    hit = cache[key] = _block_modified(value, cache)
                out |= hit
        handlers = getattr(stmt, "handlers", None)
        if handlers:
            for h in handlers:
                if h.name:
                    out.add(h.name)
                out |= _block_modified(h.body, cache)
        cases = getattr(stmt, "cases", None)
        if cases:
            for c in cases:
                out |= _block_modified(c.body, cache)
                out |= modified_names([c.pattern])
        if compound:
            heads = [getattr(stmt, f, None) for f in ("target", "test", "iter")]
            heads += [i.optional_vars for i in getattr(stmt, "items", ())
                      if i.optional_vars is not None]
            heads = [h for h in heads if h is not None]
            if heads:
                hit = modified_names(heads)
                cache[(id(stmt), "target")] = hit
                out |= hit
        else:
            cls = stmt.__class__
            if cls is ast.Assign:
                out |= modified_names(stmt.targets)
            elif cls is ast.AugAssign or cls is ast.AnnAssign:
                out |= modified_names([stmt.target])
            elif cls not in (ast.Expr, ast.Return, ast.Pass, ast.Raise, ast.Break,
                             ast.Continue, ast.Assert):
                out |= modified_names([stmt])
    return frozenset(out)


class Analysis:
    """Analyses the jitted functions of one module and collects findings."""

    def __init__(self, info, handlers, report):
        self.info = info
        self.handlers = handlers          # flavor -> event -> [callable]
        self.report_cb = report
        self._cache = {}                  # (fn id, flavor, arg key) -> return Val
        self._active = set()
        self._globals = {}
        self._nodes = {}                  # fn id -> {node type: [nodes]}
        self._seen = set()                # (fn id, flavor) whose syntax was checked
        self._modified = {}               # (node id, field) -> modified names
        self._locals = {}                 # fn id -> local names

    def modified(self, node, fields):
        """Names the given fields of a compound statement `node` (re)bind."""
        out = frozenset()
        for f in fields:
            key = (id(node), f)
            hit = self._modified.get(key)
            if hit is None:
                value = getattr(node, f, None)
                if isinstance(value, list):
                    hit = _block_modified(value, self._modified)
                elif value is not None:
                    hit = modified_names([value])
                else:
                    hit = frozenset()
                self._modified[key] = hit
            out = out | hit
        return out

    def local_names(self, fn):
        """Parameters and every name bound anywhere in `fn` (nested scopes included,
        an over-approximation that only makes the outside-state rules quieter), less
        the names declared global/nonlocal."""
        hit = self._locals.get(id(fn))
        if hit is None:
            names = {a.arg for a in _params(fn)}
            for node in self.nodes_of(fn, ast.Name):
                if not isinstance(node.ctx, ast.Load):
                    names.add(node.id)
            for node in self.nodes_of(fn, (ast.FunctionDef, ast.AsyncFunctionDef,
                                           ast.ClassDef)):
                if node is not fn:
                    names.add(node.name)
            for node in self.nodes_of(fn, (ast.Import, ast.ImportFrom)):
                for a in node.names:
                    names.add((a.asname or a.name).split(".")[0])
            for node in self.nodes_of(fn, ast.ExceptHandler):
                if node.name:
                    names.add(node.name)
            for node in self.nodes_of(fn, ast.arg):
                names.add(node.arg)
            for node in self.nodes_of(fn, (ast.Global, ast.Nonlocal)):
                names -= set(node.names)
            hit = self._locals[id(fn)] = frozenset(names)
        return hit

    def array_evidence(self, fn):
        """Parameters the function certainly receives as NumPy arrays: used as one
        (`x.shape`, `x.sum()`, `x[:, 0]`, `x.T`, `x @ y`) before being rebound, and
        never with an attribute an ndarray does not have (`xp.asarray`: a namespace)."""
        params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        params -= K.NAMESPACE_NAMES
        rebound = {}
        for node in self.nodes_of(fn, ast.Name):
            if node.id in params and not isinstance(node.ctx, ast.Load):
                pos = (node.lineno, node.col_offset)
                if node.id not in rebound or pos < rebound[node.id]:
                    rebound[node.id] = pos

        def use(name_node):
            if not isinstance(name_node, ast.Name) or name_node.id not in params:
                return None
            first = rebound.get(name_node.id)
            if first is not None and (name_node.lineno, name_node.col_offset) >= first:
                return None
            return name_node.id

        out, not_array = set(), set()
        for node in self.nodes_of(fn, ast.Attribute):
            name = use(node.value)
            if name is None:
                continue
            if node.attr in K.NDARRAY_ATTRS or node.attr in K.NDARRAY_METHODS:
                out.add(name)
            elif node.attr not in K.NDARRAY_ALL:
                not_array.add(name)
        for node in self.nodes_of(fn, ast.Subscript):
            name = use(node.value)
            if name is not None and isinstance(node.slice, ast.Tuple):
                out.add(name)
        for node in self.nodes_of(fn, ast.BinOp):
            if isinstance(node.op, ast.MatMult):
                for side in (node.left, node.right):
                    name = use(side)
                    if name is not None:
                        out.add(name)
        return frozenset(out - not_array)

    def nodes_of(self, fn, types):
        """Nodes of the given types anywhere in `fn` (nested functions included)."""
        table = self._nodes.get(id(fn)) or self.info.node_tables.get(id(fn))
        if table is None:
            table = {}
            for node in ast.walk(fn):
                table.setdefault(type(node), []).append(node)
            self._nodes[id(fn)] = table
        if isinstance(types, type):
            types = (types,)
        out = []
        for t in types:
            out.extend(table.get(t, ()))
        return out

    # --- module-level values ----------------------------------------------------------
    def global_value(self, name):
        hit = self._globals.get(name)
        if hit is not None:
            return hit
        info = self.info
        outside = frozenset({("outside", name)})
        if name in info.functions:
            v = Val(kind=FUNC, func=(info.functions[name], None), qual=name)
        elif name in info.imports:
            v = Val(kind=REF, qual=info.imports[name])
        elif name in info.module_values:
            v = self._module_value(info.module_values[name]).replace(origins=outside)
        elif name in info.assigned:
            v = Val(origins=outside)
        else:
            qual = info.qualify(ast.Name(id=name, ctx=ast.Load()))
            v = Val(kind=REF, qual=qual) if qual and not qual.startswith("?") else \
                Val(origins=outside)
        self._globals[name] = v
        return v

    def _module_value(self, node):
        if isinstance(node, ast.Constant):
            return const(node.value)
        if isinstance(node, ast.List):
            return Val(kind=LIST)
        if isinstance(node, (ast.Dict, ast.DictComp)):
            return Val(kind=DICT)
        if isinstance(node, (ast.Set, ast.SetComp)):
            return Val(kind=SET)
        if isinstance(node, ast.ListComp):
            return Val(kind=LIST)
        if isinstance(node, ast.Tuple):
            return Val(kind=TUPLE, items=tuple(self._module_value(e) for e in node.elts))
        if isinstance(node, ast.Call):
            qual = self.info.qualify(node.func) or ""
            if qual.startswith("numpy.random.") and \
                    qual.rsplit(".", 1)[-1] in K.RANDOM_GENERATORS:
                return Val(kind=RNG)
            if qual.startswith("numpy.") or qual.startswith("jax.numpy."):
                return Val(kind=ARRAY)
            if qual in ("builtins.list",):
                return Val(kind=LIST)
            if qual in ("builtins.dict", "collections.defaultdict",
                        "collections.OrderedDict"):
                return Val(kind=DICT)
            if qual in ("builtins.set",):
                return Val(kind=SET)
        return UNKNOWN_STATIC

    # --- entry points -----------------------------------------------------------------
    def analyze_target(self, target):
        fn = target.node
        evidence = self.array_evidence(fn)
        args = {}
        for i, a in enumerate(_params(fn)):
            name = a.arg
            if name in K.NAMESPACE_NAMES and _default_of(fn, a) is None:
                # `xp`, `np`, ...: an array namespace passed in, not an array
                args[name] = Val(kind=REF, qual=_NAMESPACE_QUALS.get(name))
            elif target.all_static or name in target.static or \
                    (i == 0 and name in ("self", "cls")):
                args[name] = Val(origins=frozenset({("outside", name)}))
            elif fn.args.vararg is not None and a is fn.args.vararg:
                args[name] = Val(level=MAYBE, kind=TUPLE,
                                 elem=Val(level=MAYBE), origins=frozenset({("param", name)}))
            elif fn.args.kwarg is not None and a is fn.args.kwarg:
                args[name] = Val(level=MAYBE, kind=DICT, elem=Val(level=MAYBE))
            else:
                level = DATA if name in evidence else MAYBE
                kind = ARRAY if name in evidence else UNKNOWN
                default = _default_of(fn, a)
                if default is not None and isinstance(default, ast.Constant) and \
                        isinstance(default.value, str):
                    args[name] = Val(kind=STR)
                    continue
                args[name] = Val(level=level, kind=kind, nd=1 if name in evidence else None,
                                 origins=frozenset({("param", name)}), qual="param")
        self.run_function(fn, target.flavor, args, closure=None, depth=0)

    def run_function(self, fn, flavor, args, closure, depth):
        """Analyse `fn` with parameter values `args`; return its return value."""
        key = (id(fn), flavor, tuple(sorted(args.items(), key=lambda kv: kv[0])))
        if closure is not None:
            key = None
        if key is not None:
            try:
                if key in self._cache:
                    return self._cache[key]
            except Exception:
                key = None
        if id(fn) in self._active or depth > _MAX_CALL_DEPTH:
            return Val(level=max_level(args.values()))
        self._active.add(id(fn))
        try:
            ctx = FunctionContext(self, fn, flavor, args, closure, depth)
            result = ctx.run()
        finally:
            self._active.discard(id(fn))
        if key is not None:
            self._cache[key] = result
        return result


_NAMESPACE_QUALS = {"np": "numpy", "numpy": "numpy", "xp": "numpy", "jnp": "jax.numpy",
                    "math": "math"}


def _params(fn):
    a = fn.args
    out = list(a.posonlyargs) + list(a.args)
    if a.vararg:
        out.append(a.vararg)
    out += list(a.kwonlyargs)
    if a.kwarg:
        out.append(a.kwarg)
    return out


def _default_of(fn, arg):
    a = fn.args
    positional = list(a.posonlyargs) + list(a.args)
    if arg in positional:
        k = positional.index(arg) - (len(positional) - len(a.defaults))
        return a.defaults[k] if k >= 0 else None
    if arg in a.kwonlyargs:
        return a.kw_defaults[a.kwonlyargs.index(arg)]
    return None


class FunctionContext:
    """The analysis of one function body with given argument values; also the `ctx`
    object rule handlers receive."""

    def __init__(self, analysis, fn, flavor, args, closure, depth):
        self.analysis = analysis
        self.info = analysis.info
        self.fn = fn
        self.flavor = flavor
        self.depth = depth
        self.closure = closure or {}
        self.env = dict(args)
        self.params = frozenset(args)
        self.locals = analysis.local_names(fn)
        self.frames: list[Frame] = []
        self.returns = []
        self.values = {}
        self.silent = 0
        self._breaks = []
        self._continues = []
        self._handlers = analysis.handlers.get(flavor, {})
        self._pending_defs = {}
        self.imports = dict(self.info.imports)

    # --- API for rules ----------------------------------------------------------------
    def value(self, node) -> Val:
        return self.values.get(node, UNKNOWN_STATIC)

    def report(self, rule, node, message, end=None):
        if self.silent:
            return
        self.analysis.report_cb(rule, node, message, end)

    @property
    def is_jax(self):
        return self.flavor == "jax"

    def staged_frames(self, min_level):
        return [f for f in self.frames if f.kind != "try" and f.level >= min_level]

    def in_try_body(self):
        return any(f.kind == "try" for f in self.frames)

    def qualify(self, node):
        return self.info.qualify(node, self.imports)

    def emit(self, event, *args):
        for handler in self._handlers.get(event, ()):
            handler(self, *args)

    # --- driver -----------------------------------------------------------------------
    def nodes(self, types):
        return self.analysis.nodes_of(self.fn, types)

    def run(self):
        key = (id(self.fn), self.flavor)
        if key not in self.analysis._seen:
            self.analysis._seen.add(key)
            self.emit("function", self.fn)
        if isinstance(self.fn, ast.Lambda):
            return self.ev(self.fn.body)
        try:
            self.block(self.fn.body, self.env)
        except _Terminated:
            pass
        # nested functions never called: analyse them with traced parameters
        for name, (node, env) in list(self._pending_defs.items()):
            self._call_user(node, env, None, [], {}, unknown_args=True)
        if not self.returns:
            return const(None)
        return join_all(self.returns)

    # --- environments -----------------------------------------------------------------
    def lookup(self, name, env):
        v = env.get(name)
        if v is not None:
            return v
        if name in self.closure:
            return self.closure[name]
        return self.analysis.global_value(name)

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

    def staged_join(self, before, paths, level, names, mark=True, views_only=False):
        """Join the environments at the end of the paths of a branch or loop whose
        condition has `level`; when it is traced, what the paths assign is traced, and a
        variable that is the same object on some paths and another on others becomes
        `ambiguous` (for the aliasing rule)."""
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
        when every path left the block (return/raise/break/continue)."""
        for stmt in stmts:
            if env is None:
                return None
            env = self.stmt(stmt, env)
        return env

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
            self.ev(t.value)
        return self.env

    def s_Return(self, s, env):
        v = self.ev(s.value) if s.value is not None else const(None)
        if self.staged_frames(MAYBE):
            level = max(f.level for f in self.staged_frames(MAYBE))
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
        return env

    s_Nonlocal = s_Global

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
        self.frames.append(Frame("if", s, level))
        try:
            then = self.block(s.body, dict(before))
            other = self.block(s.orelse, dict(before)) if s.orelse else dict(before)
        finally:
            self.frames.pop()
        names = self.analysis.modified(s, ("body", "orelse"))
        out = self.staged_join(before, [then, other], level, names, views_only=True)
        self.env = out
        return out

    def s_While(self, s, env):
        names = self.analysis.modified(s, ("body",))
        head = dict(env)
        self.env = head
        cond = self.ev(s.test)
        level = cond.condition_level
        if isinstance(s.test, ast.Constant):
            level = STATIC
        exit_env, head = self._loop(s, head, names, level,
                                    lambda e: self._while_test(s, e))
        self.env = dict(head)
        final = self.ev(s.test)
        if isinstance(s.test, ast.Constant):
            final = Val()
        self.emit("control", s, "while", final)
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
        names = self.analysis.modified(s, ("body", "target"))
        head = dict(self.env)

        def bind_target(e):
            self.env = e
            self.bind(s.target, item, s)
            return self.env
        exit_env, head = self._loop(s, head, names, level, None, bind_target)
        return self._loop_else(s, head, exit_env, level, names)

    s_AsyncFor = s_For

    def _loop(self, s, head, names, level, retest=None, bind_target=None):
        """Iterate the body to a fixed point. Returns (env after the loop, head env)."""
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
                                            mark=False)
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
            exit_env = self.staged_join(entry, [entry, head] + breaks, level, names)
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
            if h.type is not None:
                self.ev(h.type)
            henv = dict(after_body)
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

    # --- binding ----------------------------------------------------------------------
    def bind(self, target, v, stmt):
        if isinstance(target, ast.Name):
            self.values[target] = v
            self.env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            if v.items is not None and len(v.items) == len(elts) and \
                    not any(isinstance(e, ast.Starred) for e in elts):
                parts = list(v.items)
            else:
                item = element_of(v)
                parts = [item] * len(elts)
            for e, p in zip(elts, parts):
                if isinstance(e, ast.Starred):
                    self.bind(e.value, Val(kind=LIST, level=p.level, elem=p), stmt)
                else:
                    self.bind(e, p, stmt)
        elif isinstance(target, ast.Subscript):
            self.store_subscript(target, v, stmt, mode="store")
        elif isinstance(target, ast.Attribute):
            self.ev(target.value)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, Val(kind=LIST, level=v.level, elem=element_of(v)), stmt)

    def store_subscript(self, t, v, stmt, mode):
        base = self.ev(t.value)
        index = self.ev_index(t.slice)
        self.emit("subscript", t, base, index, mode, v)
        root = t.value
        while isinstance(root, ast.Subscript):
            root = root.value
        if base.kind in (LIST, DICT):
            self.emit("container_mutation", stmt, base, f"assignment into a Python {base.kind}")
            if isinstance(root, ast.Name) and root.id in self.env:
                old = self.env[root.id]
                self.env[root.id] = old.replace(elem=join(old.elem, v), items=None)
            return
        if isinstance(root, ast.Name):
            old = self.lookup(root.id, self.env)
            if old.arrayish or old.kind == UNKNOWN:
                self.emit("inplace", stmt, root.id, old)
            if root.id in self.locals:
                new_level = max(old.level, v.level, index.level) \
                    if old.kind not in PYTHON_ONLY else old.level
                self.env[root.id] = old.replace(level=new_level)

    # --- expressions ------------------------------------------------------------------
    def ev(self, node) -> Val:
        if node is None:
            return const(None)
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.ev(child)
            v = UNKNOWN_STATIC
        else:
            v = method(node)
        self.values[node] = v
        return v

    def e_Constant(self, n):
        return const(n.value)

    def e_Name(self, n):
        return self.lookup(n.id, self.env)

    def e_JoinedStr(self, n):
        for v in n.values:
            self.ev(v)
        return Val(kind=STR)

    def e_FormattedValue(self, n):
        self.ev(n.value)
        if n.format_spec is not None:
            self.ev(n.format_spec)
        return Val(kind=STR)

    def e_Tuple(self, n):
        items = tuple(self.ev(e) for e in n.elts)
        if any(isinstance(e, ast.Starred) for e in n.elts):
            return Val(kind=TUPLE, level=max_level(items), elem=join_all(
                [element_of(i) if isinstance(e, ast.Starred) else i
                 for e, i in zip(n.elts, items)]))
        return Val(kind=TUPLE, level=max_level(items), items=items,
                   elem=join_all(items))

    def e_List(self, n):
        items = [self.ev(e) for e in n.elts]
        starred = any(isinstance(e, ast.Starred) for e in n.elts)
        return Val(kind=LIST, level=max_level(items), elem=join_all(items),
                   items=None if starred else tuple(items),
                   origins=frozenset({("new", id(n))}))

    def e_Set(self, n):
        items = [self.ev(e) for e in n.elts]
        return Val(kind=SET, level=max_level(items), elem=join_all(items))

    def e_Dict(self, n):
        vals = [self.ev(k) for k in n.keys if k is not None]
        vals = [self.ev(v) for v in n.values]
        return Val(kind=DICT, level=max_level(vals), elem=join_all(vals),
                   origins=frozenset({("new", id(n))}))

    def e_Starred(self, n):
        v = self.ev(n.value)
        self.emit("iterate", n, v, "*unpacking")
        return v

    def e_Lambda(self, n):
        for d in n.args.defaults + [d for d in n.args.kw_defaults if d is not None]:
            self.ev(d)
        self._pending_defs[id(n)] = (n, dict(self.env))
        return Val(kind=FUNC, func=(n, self.env), qual="<lambda>")

    def e_NamedExpr(self, n):
        v = self.ev(n.value)
        self.bind(n.target, v, n)
        return v

    def e_Await(self, n):
        return Val(level=self.ev(n.value).level)

    def e_Yield(self, n):
        if n.value is not None:
            self.ev(n.value)
        return Val(level=MAYBE)

    e_YieldFrom = e_Yield

    def e_Attribute(self, n):
        base = self.ev(n.value)
        return self.attribute(n, base, called=False)

    def attribute(self, n, base, called):
        attr = n.attr
        if base.kind == REF:
            return Val(kind=REF, qual=f"{base.qual}.{attr}" if base.qual else None)
        if base.kind in (RNG, STR) or base.kind in CONTAINERS:
            return Val(kind=METHOD, qual=attr, items=(base,)) if called else UNKNOWN_STATIC
        if base.kind in (FUNC, METHOD, NONE):
            return UNKNOWN_STATIC
        if attr in K.STATIC_ATTRS:
            if attr == "shape":
                return Val(kind=TUPLE, elem=Val(kind=NUMBER, nd=0))
            if attr == "dtype":
                return Val(kind=REF, qual="<dtype>")
            return Val(kind=NUMBER, nd=0)
        if attr in ("T", "mT"):
            return base.replace(kind=ARRAY if base.kind != BOOL else BOOL,
                                qual=None, const=_noconst(), items=None)
        if attr in ("real", "imag", "flat"):
            return base.replace(qual=None, const=_noconst(), items=None)
        if called:
            return Val(kind=METHOD, qual=attr, items=(base,))
        if base.kind == UNKNOWN and attr not in K.NDARRAY_ALL:
            # an attribute arrays do not have: `base` is a Python object (npxla makes
            # such arguments static), e.g. `res.converged`, `key.step`
            return UNKNOWN_STATIC
        return Val(level=base.level)

    def e_Subscript(self, n):
        base = self.ev(n.value)
        index = self.ev_index(n.slice)
        self.emit("subscript", n, base, index, "load", None)
        return self.subscript_value(n, base, index)

    def ev_index(self, node):
        if isinstance(node, ast.Slice):
            parts = [self.ev(p) for p in (node.lower, node.upper, node.step) if p is not None]
            v = Val(level=max_level(parts), kind="slice")
            self.values[node] = v
            return v
        if isinstance(node, ast.Tuple):
            parts = tuple(self.ev_index(e) for e in node.elts)
            v = Val(level=max_level(parts), kind=TUPLE, items=parts)
            self.values[node] = v
            return v
        return self.ev(node)

    def subscript_value(self, n, base, index):
        if base.kind in (LIST, TUPLE):
            if index.kind == "slice":
                return base.replace(items=None, origins=frozenset({("new", id(n))}))
            if base.items is not None and index.has_const and isinstance(index.const, int):
                try:
                    return base.items[index.const]
                except IndexError:
                    pass
            return base.elem if base.elem is not None else Val(level=base.level)
        if base.kind == DICT:
            return base.elem if base.elem is not None else Val(level=base.level)
        if base.kind == STR:
            return Val(kind=STR)
        if base.kind == REF:
            qual = base.qual or ""
            if qual.endswith((".r_", ".c_", ".mgrid", ".ogrid", ".index_exp", ".s_")):
                return Val(level=index.level, kind=ARRAY if not qual.endswith(
                    ("s_", "index_exp")) else UNKNOWN)
            return Val(kind=REF, qual=None)       # typing.List[int] and the like
        if base.kind in PYTHON_ONLY:
            return UNKNOWN_STATIC
        parts = index.items if index.kind == TUPLE and index.items is not None else (index,)
        has_slice = any(p.kind == "slice" or (p.kind == NONE) for p in parts)
        mask = any(p.kind == BOOL and p.nd != 0 for p in parts)
        arrays = any(p.kind in (ARRAY, BOOL) and p.nd != 0 for p in parts)
        level = max(base.level, index.level)
        if base.level >= MAYBE and base.kind == UNKNOWN and not has_slice:
            level = max(level, base.level)
        if mask:
            nd = 1
        elif has_slice:
            nd = base.nd
        else:
            nd = None if base.nd != 0 else 0
        view = has_slice and not arrays and index.level == STATIC
        kind = BOOL if base.kind == BOOL else (ARRAY if base.kind in (ARRAY, BOOL) else
                                               UNKNOWN if base.kind == UNKNOWN else ARRAY)
        return Val(level=level, kind=kind, nd=nd,
                   origins=base.origins | {("view", id(n))} if view else
                   frozenset({("new", id(n))}),
                   ambiguous=base.ambiguous if view else False)

    def e_Slice(self, n):
        return self.ev_index(n)

    def e_BinOp(self, n):
        left = self.ev(n.left)
        right = self.ev(n.right)
        v = self.binop(left, right, n.op)
        return v.replace(origins=frozenset({("new", id(n))})) if v.arrayish else v

    def binop(self, a, b, op):
        if a.kind == STR or (isinstance(op, ast.Mod) and a.kind == STR):
            return Val(kind=STR)
        if a.kind in (LIST, TUPLE) and isinstance(op, (ast.Add, ast.Mult)):
            elem = join(a.elem, b.elem if b.kind in (LIST, TUPLE) else None)
            items = None
            if isinstance(op, ast.Add) and b.kind == a.kind and a.items is not None \
                    and b.items is not None:
                items = a.items + b.items
            return Val(kind=a.kind, level=max(a.level, b.level if b.kind in CONTAINERS
                                              else a.level), elem=elem, items=items)
        if b.kind in (LIST, TUPLE) and isinstance(op, ast.Mult):
            return Val(kind=b.kind, level=b.level, elem=b.elem)
        level = max(a.condition_level if a.kind not in CONTAINERS else a.level,
                    b.condition_level if b.kind not in CONTAINERS else b.level)
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and \
                a.kind == BOOL and b.kind == BOOL:
            kind = BOOL
        elif isinstance(op, ast.MatMult) or ARRAY in (a.kind, b.kind) or \
                BOOL in (a.kind, b.kind):
            kind = ARRAY
        elif a.kind == NUMBER and b.kind == NUMBER:
            kind = NUMBER
        else:
            kind = UNKNOWN
        nd = _nd_join(a.nd, b.nd)
        c = _noconst()
        if a.has_const and b.has_const:
            c = _fold(op, a.const, b.const)
        return Val(level=level, kind=kind, nd=nd, const=c)

    def e_UnaryOp(self, n):
        v = self.ev(n.operand)
        if isinstance(n.op, ast.Not):
            self.emit("control", n, "not", v)
            return Val(level=v.condition_level, kind=BOOL, nd=0)
        c = _noconst()
        if v.has_const and isinstance(v.const, (int, float, complex)):
            try:
                c = {ast.USub: lambda x: -x, ast.UAdd: lambda x: +x,
                     ast.Invert: lambda x: ~x}[type(n.op)](v.const)
            except Exception:
                pass
        return Val(level=v.condition_level, kind=v.kind if v.kind in (ARRAY, BOOL, NUMBER)
                   else UNKNOWN, nd=v.nd, const=c)

    def e_BoolOp(self, n):
        vals = [self.ev(v) for v in n.values]
        self.emit("control", n, "boolop", join_all(vals[:-1]))
        kinds = {v.kind for v in vals}
        return Val(level=max(v.condition_level if v.kind not in CONTAINERS else v.level
                             for v in vals),
                   kind=kinds.pop() if len(kinds) == 1 else UNKNOWN)

    def e_Compare(self, n):
        left = self.ev(n.left)
        comps = [self.ev(c) for c in n.comparators]
        operands = [left] + comps
        if len(n.ops) > 1:
            self.emit("control", n, "compare", join_all(operands))
        if all(isinstance(op, (ast.Is, ast.IsNot)) for op in n.ops):
            return Val(kind=BOOL, nd=0)
        if any(v.kind in (STR, NONE) for v in operands):
            return Val(kind=BOOL, nd=0)
        level = max(v.condition_level if v.kind not in CONTAINERS else v.level
                    for v in operands)
        if any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops):
            return Val(level=level, kind=BOOL, nd=0)
        nd = 1 if any(v.nd == 1 for v in operands) else (
            0 if all(v.nd == 0 for v in operands) else None)
        return Val(level=level, kind=BOOL, nd=nd)

    def e_IfExp(self, n):
        cond = self.ev(n.test)
        self.emit("control", n, "ifexp", cond)
        a = self.ev(n.body)
        b = self.ev(n.orelse)
        v = join(a, b)
        if cond.condition_level >= MAYBE and v.kind not in PYTHON_ONLY:
            v = v.replace(level=max(v.level, cond.condition_level))
        return v

    def _comprehension(self, n, elts):
        saved = self.env
        env = dict(self.env)
        self.env = env
        try:
            for gen in n.generators:
                it = self.ev(gen.iter)
                self.emit("iterate", gen.iter, it, "a comprehension")
                self.bind(gen.target, element_of(it), n)
                for cond in gen.ifs:
                    self.ev(cond)
            return [self.ev(e) for e in elts]
        finally:
            self.env = saved

    def e_ListComp(self, n):
        (elt,) = self._comprehension(n, [n.elt])
        return Val(kind=LIST, level=elt.level, elem=elt, origins=frozenset({("new", id(n))}))

    def e_SetComp(self, n):
        (elt,) = self._comprehension(n, [n.elt])
        return Val(kind=SET, level=elt.level, elem=elt)

    def e_GeneratorExp(self, n):
        (elt,) = self._comprehension(n, [n.elt])
        return Val(kind=ITER, level=elt.level, elem=elt)

    def e_DictComp(self, n):
        k, v = self._comprehension(n, [n.key, n.value])
        return Val(kind=DICT, level=v.level, elem=v)

    # --- calls ------------------------------------------------------------------------
    def e_Call(self, n):
        if isinstance(n.func, ast.Attribute):
            recv = self.ev(n.func.value)
            callee = self.attribute(n.func, recv, called=True)
            self.values[n.func] = callee
        else:
            callee = self.ev(n.func)
        args = []
        for a in n.args:
            if isinstance(a, ast.Starred):
                v = self.ev(a.value)
                self.values[a] = v
                args.append(element_of(v).replace())
            else:
                args.append(self.ev(a))
        kwargs = {}
        for kw in n.keywords:
            v = self.ev(kw.value)
            if kw.arg is not None:
                kwargs[kw.arg] = v
        self.emit("call", n, callee, args, kwargs)
        return self.call(n, callee, args, kwargs)

    def call(self, n, callee, args, kwargs):
        if callee.kind == FUNC and callee.func is not None:
            node, env = callee.func
            self._pending_defs.pop(id(node), None)
            return self._call_user(node, env, n, args, kwargs)
        if callee.kind == REF and callee.qual:
            return self.call_ref(n, callee.qual, args, kwargs)
        if callee.kind == METHOD:
            return self.call_method(n, callee.items[0], callee.qual, args, kwargs)
        # an unknown callable: maybe traced, not certainly array data
        return Val(level=min(MAYBE, max_level(list(args) + list(kwargs.values()) + [callee])))

    def _call_user(self, node, env, n, args, kwargs, unknown_args=False):
        params = _params(node)
        values = {}
        if unknown_args:
            for p in params:
                values[p.arg] = Val(level=MAYBE, origins=frozenset({("param", p.arg)}))
        else:
            positional = list(node.args.posonlyargs) + list(node.args.args)
            for p, v in zip(positional, args):
                values[p.arg] = v
            if node.args.vararg is not None:
                extra = args[len(positional):]
                values[node.args.vararg.arg] = Val(kind=TUPLE, level=max_level(extra),
                                                   items=tuple(extra))
            for k, v in kwargs.items():
                values[k] = v
            for p in params:
                if p.arg not in values:
                    d = _default_of(node, p)
                    values[p.arg] = const(d.value) if isinstance(d, ast.Constant) else \
                        (Val(kind=DICT) if p is node.args.kwarg else UNKNOWN_STATIC)
        closure = None
        if env is not None:
            closure = dict(self.closure)
            closure.update(env)
        result = self.analysis.run_function(node, self.flavor, values, closure,
                                            self.depth + 1)
        return result

    def call_ref(self, n, qual, args, kwargs):
        allv = list(args) + list(kwargs.values())
        level = max_level(allv)
        if qual.startswith("builtins."):
            return self.call_builtin(n, qual[9:], args, kwargs, level)
        for prefix, flavor_traced in (("numpy.", False), ("jax.numpy.", True)):
            if qual.startswith(prefix):
                name = qual[len(prefix):]
                v = self.call_numpy(n, name, args, kwargs, level)
                if flavor_traced and self.is_jax and name.split(".")[-1] not in \
                        K.STATIC_RESULT and v.kind not in PYTHON_ONLY:
                    v = v.replace(level=DATA)
                return v
        if qual.startswith(("jax.lax.", "jax.random.", "jax.nn.", "jax.scipy.")):
            return Val(level=DATA if self.is_jax else level, kind=ARRAY,
                       origins=frozenset({("new", id(n))}))
        if qual.startswith("math."):
            return Val(level=level, kind=NUMBER, nd=0)
        if qual in ("npxla.jit", "jax.jit") \
                or qual == "functools.partial":
            return args[0] if args else UNKNOWN_STATIC
        if qual in ("jax.debug.print", "jax.debug.callback"):
            return const(None)
        # another library: its result may be traced, but is not certainly array data
        return Val(level=min(level, MAYBE), origins=frozenset({("new", id(n))}))

    def call_builtin(self, n, name, args, kwargs, level):
        first = args[0] if args else None
        if name in K.BUILTIN_STATIC:
            if name == "len":
                return Val(kind=NUMBER, nd=0)
            if name in ("str", "repr", "format", "ascii", "chr", "bin", "hex", "oct"):
                return Val(kind=STR)
            if name == "getattr" and first is not None:
                return Val(level=first.level if first.kind not in PYTHON_ONLY else STATIC)
            return UNKNOWN_STATIC
        if name == "print":
            return const(None)
        if name == "range":
            items = list(args) + [const(1)] * (3 - len(args))
            if len(args) == 1:
                items = [const(0), args[0], const(1)]
            return Val(kind=RANGE, items=tuple(items[:3]), level=level)
        if name == "enumerate":
            inner = element_of(first) if first is not None else UNKNOWN_STATIC
            return Val(kind=ITER, level=first.level if first else STATIC,
                       elem=Val(kind=TUPLE, items=(Val(kind=NUMBER, nd=0), inner),
                                level=inner.level), qual=_range_qual(args))
        if name == "zip":
            items = tuple(element_of(a) for a in args)
            return Val(kind=ITER, level=level, elem=Val(kind=TUPLE, items=items,
                                                        level=max_level(items)),
                       qual=_range_qual(args))
        if name in ("reversed", "iter", "filter", "map"):
            src = args[-1] if name in ("filter", "map") and args else first
            if name in ("filter", "map") and first is not None and src is not None:
                self.emit("iterate", n, src, f"{name}(...)")
            return Val(kind=ITER, level=level,
                       elem=element_of(src) if src is not None else None)
        if name in ("list", "tuple", "set", "sorted", "frozenset"):
            if first is None:
                kind = {"tuple": TUPLE, "set": SET, "frozenset": SET}.get(name, LIST)
                return Val(kind=kind, origins=frozenset({("new", id(n))}))
            self.emit("iterate", n, first, f"{name}(...)")
            kind = {"tuple": TUPLE, "set": SET, "frozenset": SET}.get(name, LIST)
            items = first.items if name in ("list", "tuple") and \
                first.kind in (LIST, TUPLE) else None
            return Val(kind=kind, level=first.level, elem=element_of(first), items=items,
                       origins=frozenset({("new", id(n))}))
        if name == "dict":
            return Val(kind=DICT, level=level, elem=join_all(
                [a.elem for a in args if a.elem is not None] + list(kwargs.values())),
                origins=frozenset({("new", id(n))}))
        if name in K.BUILTIN_CONVERSIONS:
            if first is None:
                return const({"float": 0.0, "int": 0, "bool": False, "complex": 0j}[name])
            return Val(level=first.condition_level, kind=BOOL if name == "bool" else NUMBER,
                       nd=0)
        if name in ("abs", "round", "pow", "divmod", "sum", "min", "max", "next"):
            if name == "next" and first is not None:
                return element_of(first)
            nd = first.nd if name in ("abs", "round") and first is not None else None
            if name in ("sum", "min", "max") and first is not None and len(args) == 1:
                self.emit("iterate", n, first, f"{name}(...)")
                return Val(level=max(first.level, element_of(first).level), nd=None)
            return Val(level=max(a.condition_level if a.kind not in CONTAINERS else a.level
                                 for a in args) if args else STATIC, nd=nd,
                       kind=NUMBER if all(a.kind == NUMBER for a in args) and args
                       else UNKNOWN)
        if name == "slice":
            return Val(level=level, kind="slice")
        return Val(level=level)

    def call_numpy(self, n, name, args, kwargs, level):
        short = name.rsplit(".", 1)[-1]
        first = args[0] if args else (next(iter(kwargs.values())) if kwargs else None)
        fresh = frozenset({("new", id(n))})
        if name.startswith("random."):
            if short in K.RANDOM_GENERATORS:
                return Val(kind=RNG)
            return Val(kind=ARRAY, origins=fresh)
        if short in K.STATIC_RESULT:
            return Val(kind=TUPLE if short in ("shape", "broadcast_shapes") else UNKNOWN)
        if short in K.CREATION:
            fill = K.FILL_ARGS.get(short)
            flevel = STATIC
            if fill is not None:
                fv = kwargs.get(fill[1]) or (args[fill[0]] if len(args) > fill[0] else None)
                flevel = fv.level if fv is not None else STATIC
            like = short.endswith("_like") and first is not None
            return Val(level=flevel, kind=ARRAY, nd=first.nd if like else
                       (0 if (first is not None and first.has_const and first.const == ())
                        else 1), origins=fresh)
        if short in ("array", "asarray", "asanyarray", "ascontiguousarray", "copy",
                     "asfortranarray", "array_api"):
            if first is None:
                return Val(kind=ARRAY, origins=fresh)
            nd = 1 if first.kind in (LIST, TUPLE) else first.nd
            lvl = max(first.level, element_of(first).level) if first.kind in CONTAINERS \
                else first.level
            dtype = kwargs.get("dtype") or (args[1] if len(args) > 1 else None)
            kind = BOOL if (first.kind == BOOL or (dtype is not None and dtype.qual in (
                "builtins.bool", "numpy.bool_", "numpy.bool"))) else ARRAY
            view = short in ("asarray", "asanyarray") and first.kind not in CONTAINERS
            return Val(level=lvl, kind=kind, nd=nd,
                       origins=first.origins if view else fresh,
                       ambiguous=first.ambiguous if view else False)
        if short in K.BOOL_REDUCTIONS or (short in ("any", "all")):
            return Val(level=level, kind=BOOL, nd=0 if "axis" not in kwargs and
                       len(args) < 2 else None)
        if short in K.BOOL_RESULT:
            nd = None
            for a in args:
                nd = a.nd if nd is None else _nd_join(nd, a.nd)
            return Val(level=level, kind=BOOL, nd=nd, origins=fresh)
        if short in K.REDUCTIONS:
            axis = "axis" in kwargs or len(args) > 1
            return Val(level=level, kind=NUMBER if not axis else ARRAY,
                       nd=None if axis else 0, origins=fresh)
        if short in K.VIEW_FUNCTIONS and first is not None:
            return Val(level=level, kind=first.kind if first.kind in (ARRAY, BOOL)
                       else ARRAY, nd=None if first.nd is None else 1,
                       origins=first.origins, ambiguous=first.ambiguous)
        if short == "where" and len(args) == 3:
            return Val(level=level, kind=ARRAY, nd=_nd_join(_nd_join(
                args[0].nd, args[1].nd), args[2].nd), origins=fresh)
        nd = None
        if args and all(a.nd == 1 for a in args[:1]):
            nd = 1
        if args and all(a.nd == 0 for a in args):
            nd = 0
        return Val(level=level, kind=ARRAY, nd=nd, origins=fresh)

    def call_method(self, n, recv, name, args, kwargs):
        allv = list(args) + list(kwargs.values())
        level = max_level(allv)
        fresh = frozenset({("new", id(n))})
        if recv.kind in (LIST, DICT, SET):
            if name in K.ANY_MUTATORS:
                self.emit("container_mutation", n, recv, f"{recv.kind}.{name}()")
                if name in ("append", "add", "insert", "setdefault") and args:
                    new_elem = args[-1]
                elif name in ("extend", "update") and args:
                    new_elem = element_of(args[0])
                else:
                    new_elem = None
                target = n.func.value if isinstance(n.func, ast.Attribute) else None
                if isinstance(target, ast.Name) and new_elem is not None:
                    old = self.lookup(target.id, self.env)
                    if old.kind == recv.kind and target.id in self.env:
                        self.env[target.id] = old.replace(
                            elem=join(old.elem, new_elem), items=None,
                            level=max(old.level, new_elem.level))
                if name == "pop":
                    return recv.elem if recv.elem is not None else UNKNOWN_STATIC
                return const(None)
            if name in ("get", "pop", "copy", "values", "items", "keys", "index", "count"):
                if name in ("index", "count", "keys"):
                    return Val(kind=NUMBER, nd=0)
                if name == "copy":
                    return recv.replace(origins=fresh)
                if name in ("values", "items"):
                    return Val(kind=ITER, level=recv.level, elem=recv.elem)
                return recv.elem if recv.elem is not None else UNKNOWN_STATIC
            return Val(level=recv.level)
        if recv.kind == STR:
            return Val(kind=STR) if name not in ("split", "splitlines") else \
                Val(kind=LIST, elem=Val(kind=STR))
        if recv.kind == RNG:
            return Val(kind=ARRAY, origins=fresh)
        if recv.kind == TUPLE:
            return Val(kind=NUMBER, nd=0) if name in ("index", "count") else UNKNOWN_STATIC
        if recv.kind in PYTHON_ONLY:
            return Val(level=level)
        array_method = name in K.NDARRAY_METHODS
        rlevel = max(recv.level, level)
        if name in ("item", "tolist"):
            return Val(kind=NUMBER if name == "item" else LIST, nd=0)
        if name in K.VIEW_METHODS:
            return Val(level=rlevel, kind=recv.kind if recv.kind in (ARRAY, BOOL) else ARRAY,
                       nd=recv.nd if name != "ravel" else (1 if recv.nd is not None else None),
                       origins=recv.origins, ambiguous=recv.ambiguous)
        if name in ("copy", "astype", "conj", "conjugate", "round", "clip", "flatten"):
            kind = recv.kind if recv.kind in (ARRAY, BOOL) else ARRAY
            if name == "astype" and args and args[0].qual in ("builtins.bool",
                                                               "numpy.bool_", "numpy.bool"):
                kind = BOOL
            return Val(level=rlevel, kind=kind,
                       nd=recv.nd if name != "flatten" else 1, origins=fresh)
        if name in ("any", "all"):
            axis = "axis" in kwargs or bool(args)
            return Val(level=rlevel, kind=BOOL, nd=None if axis else 0, origins=fresh)
        if name in K.REDUCTIONS or name in ("cumsum", "cumprod"):
            axis = "axis" in kwargs or bool(args)
            scalar = not axis and name not in ("cumsum", "cumprod")
            return Val(level=rlevel, kind=NUMBER if scalar else ARRAY,
                       nd=0 if scalar else None, origins=fresh)
        if name == "nonzero":
            return Val(level=rlevel, kind=TUPLE, elem=Val(level=rlevel, kind=ARRAY, nd=1))
        if recv.kind == NUMBER and not array_method:
            return Val(level=rlevel, kind=NUMBER, nd=0)
        if not array_method and recv.kind == UNKNOWN:
            # a method of a Python object (static): the result depends on the arguments
            return Val(level=min(level, MAYBE), origins=fresh)
        return Val(level=rlevel, kind=ARRAY if (array_method or recv.kind == ARRAY)
                   else UNKNOWN, origins=fresh)


def _range_qual(args):
    """Mark enumerate/zip iterators over a range (their length is the range's)."""
    ranges = [a for a in args if a.kind == RANGE or (a.kind == ITER and a.qual)]
    if ranges and max_level(ranges) >= MAYBE:
        return "range:%d" % max_level(ranges)
    return None


def _noconst():
    return Val().const


def _nd_join(a, b):
    if a == 1 or b == 1:
        return 1
    if a == 0 and b == 0:
        return 0
    return None


_FOLD = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
         ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
         ast.Mod: lambda a, b: a % b, ast.Div: lambda a, b: a / b}


def _fold(op, a, b):
    f = _FOLD.get(type(op))
    if f is None or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                            for x in (a, b)):
        return _noconst()
    try:
        out = f(a, b)
    except Exception:
        return _noconst()
    if isinstance(out, int) and abs(out) > 2 ** 64:
        return _noconst()
    return out


def _origins(v):
    return v.origins if v is not None else frozenset()
