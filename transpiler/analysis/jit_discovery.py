"""Which functions of a parsed module are jitted, by which `jit`, with which static
arguments: the one jit discovery that `npxla convert` (`module_convert`) and the linter
(`lint/discovery`) both read, so the two never disagree about what `@jit` covers.

The module is never imported: names resolve through its import statements. Recognised:

* decorators: `@jit`, `@jit(static_argnums=...)`, `@npxla.jit`, `@jax.jit`, `@njit` after
  `from npxla import jit as njit` (or `njit = npxla.jit`), `@partial(jax.jit, ...)`,
  `@functools.partial(jit, ...)`, on functions, methods and nested functions;
* calls anywhere in the file: `g = jit(f, static_argnums=1)`, `jit(f)(x)`, `jax.jit(f)`,
  `partial(jit, ...)(f)`, where `f` names a function of the file (looked up in the
  call's scope first), plus calls of caller-named wrappers (`wrappers`).

A `jit` from any npxla module (`npxla.jit`, `from npxla.runtime.driver.api import jit`)
is the "npxla" flavour, `jax.jit` the "jax" flavour. A bare `jit` that nothing binds is
taken to be npxla's; a `jit` imported from anywhere else (numba, ...) is not a jit.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

JAX_JITS = frozenset({"jax.jit", "jax.api.jit", "jax._src.api.jit"})
# `partial` resolved through the imports, or spelled so with nothing binding it
PARTIALS = frozenset({"functools.partial", "?partial", "?functools.partial"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BUILTINS = frozenset(dir(builtins))
_BLOCKS = ("body", "orelse", "finalbody")


@dataclass
class JitTarget:
    """A jitted function."""
    node: ast.AST                     # FunctionDef / AsyncFunctionDef
    flavor: str                       # "npxla" or "jax"
    static: frozenset = frozenset()   # parameter names that are static
    all_static: bool = False          # static arguments could not be read: trust nothing
    where: ast.AST | None = None      # the decorator or jit(...) call
    qualname: str = ""                # `f`, `Class.m`, `outer.<locals>.inner`


def collect_imports(stmts, table):
    """Fill `table` (local name -> qualified name) with the names bound by the import
    statements in `stmts` (recursing into if/try/with blocks, not into functions or
    classes)."""
    for stmt in stmts:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    table[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    table[top] = top
        elif isinstance(stmt, ast.ImportFrom):
            mod = "." * stmt.level + (stmt.module or "") if stmt.level else stmt.module
            for alias in stmt.names:
                if alias.name != "*":
                    table[alias.asname or alias.name] = f"{mod}.{alias.name}"
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)) or type(stmt).__name__ == "TryStar":
            body: dict = {}
            for fld in _BLOCKS:
                collect_imports(getattr(stmt, fld, []), body)
            table.update(body)
            # `try: from numpy import sin except ImportError: from math import sin`:
            # the fallback binds only what the try body did not (the body is what runs
            # where the first import works)
            for h in getattr(stmt, "handlers", []):
                fallback: dict = {}
                collect_imports(h.body, fallback)
                table.update({k: v for k, v in fallback.items() if k not in body})


class ModuleNames:
    """What the module-level statements of a file bind: imports, functions, constants."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.imports: dict = {}          # local name -> qualified name
        self.functions: dict = {}        # module-level name -> FunctionDef
        self.module_values: dict = {}    # name -> ast value of simple assignments
        self.assigned: set = set()       # every module-level bound name (imports excluded)
        collect_imports(tree.body, self.imports)
        self._scan(tree.body)
        self.assigned -= set(self.imports)   # those resolve through the import table

    def _scan(self, stmts):
        for stmt in stmts:
            if isinstance(stmt, _DEFS):
                self.functions[stmt.name] = stmt
                self.assigned.add(stmt.name)
            elif isinstance(stmt, ast.ClassDef):
                self.assigned.add(stmt.name)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.assigned.add(n.id)
                            if isinstance(t, ast.Name) and getattr(stmt, "value", None) is not None:
                                self.module_values[n.id] = stmt.value
            elif isinstance(stmt, (ast.If, ast.Try, ast.With, ast.For, ast.While)) or \
                    type(stmt).__name__ == "TryStar":
                for fld in _BLOCKS:
                    self._scan(getattr(stmt, fld, []))
                for h in getattr(stmt, "handlers", []):
                    self._scan(h.body)

    def qualify(self, node, imports=None) -> str | None:
        """The qualified name an expression (`np.linalg.norm`, `jit`) refers to: None for
        a name the module binds itself, `?name` for a name nothing binds."""
        table = self.imports if imports is None else imports
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = table.get(node.id)
        if base is None:
            if node.id in self.assigned or node.id in self.functions:
                return None
            base = "builtins." + node.id if node.id in _BUILTINS else "?" + node.id
        return ".".join([base] + parts[::-1])


# --- jit expressions ----------------------------------------------------------------------
def jit_flavor(names: ModuleNames, node, imports=None, _depth=0) -> str | None:
    """'npxla' / 'jax' if `node` (an expression) is a jit function, else None. A module
    constant (`njit = npxla.jit`) is followed."""
    qual = names.qualify(node, imports)
    if qual is None:
        value = names.module_values.get(node.id) if isinstance(node, ast.Name) else None
        if value is not None and _depth < 3 and (imports is None or node.id not in imports):
            return jit_flavor(names, value, imports, _depth + 1)
        return None
    if qual == "?jit" or (qual.split(".")[0] == "npxla" and qual.endswith(".jit")):
        return "npxla"
    if qual in JAX_JITS:
        return "jax"
    return None


def _literal(node, module_values, depth=0):
    """A literal value (ints, strings, tuples/lists of them), following module constants."""
    try:
        return ast.literal_eval(node)
    except Exception:
        pass
    if isinstance(node, ast.Name) and node.id in module_values and depth < 3:
        return _literal(module_values[node.id], module_values, depth + 1)
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_literal(e, module_values, depth + 1) for e in node.elts)
    raise ValueError("not a literal")


def static_params(fn, keywords, names: ModuleNames):
    """(static parameter names, all_static) from static_argnums/static_argnames keywords."""
    found, unreadable = set(), False
    args = fn.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    for kw in keywords:
        if kw.arg not in ("static_argnums", "static_argnames"):
            if kw.arg is None:          # **options: cannot tell
                unreadable = True
            continue
        try:
            value = _literal(kw.value, names.module_values)
        except ValueError:
            unreadable = True
            continue
        if value is None:
            continue
        if not isinstance(value, (tuple, list, set, frozenset)):
            value = (value,)
        for v in value:
            if kw.arg == "static_argnums" and isinstance(v, int) and not isinstance(v, bool):
                if -len(positional) <= v < len(positional):
                    found.add(positional[v])
            elif isinstance(v, str):
                found.add(v)
    return frozenset(found), unreadable


def _is_partial(names, expr) -> bool:
    return names.qualify(expr) in PARTIALS


def decorator_jit(names: ModuleNames, dec):
    """(flavor, keywords) if the decorator applies a jit, else None."""
    flavor = jit_flavor(names, dec)
    if flavor:
        return flavor, []
    if isinstance(dec, ast.Call):
        flavor = jit_flavor(names, dec.func)
        no_function = not dec.args or (isinstance(dec.args[0], ast.Constant)
                                       and dec.args[0].value is None)
        if flavor and no_function:                   # @jit(static_argnums=...)
            return flavor, dec.keywords
        if _is_partial(names, dec.func) and dec.args:
            flavor = jit_flavor(names, dec.args[0])  # @partial(jax.jit, ...)
            if flavor:
                return flavor, dec.keywords
    return None


def call_jit(names: ModuleNames, call, wrappers=()):
    """(flavor, keywords, function expression) if `call` applies a jit to a function."""
    flavor = jit_flavor(names, call.func)
    if flavor and call.args:
        return flavor, call.keywords, call.args[0]
    if isinstance(call.func, ast.Call) and call.args:    # partial(jax.jit, ...)(f)
        inner = call.func
        if _is_partial(names, inner.func) and inner.args:
            flavor = jit_flavor(names, inner.args[0])
            if flavor:
                return flavor, inner.keywords + call.keywords, call.args[0]
    if wrappers and call.args:
        qual = names.qualify(call.func)
        name = qual.lstrip("?").rsplit(".", 1)[-1] if qual else (
            call.func.id if isinstance(call.func, ast.Name) else None)
        if name in wrappers:
            return "npxla", [], call.args[0]
    return None


# --- the functions of a module ------------------------------------------------------------
def qualnames(tree) -> dict:
    """id(def) -> qualified name (`f`, `C.m`, `f.<locals>.g`) of every function in `tree`."""
    out = {}

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS):
                out[id(child)] = prefix + child.name
                visit(child, f"{prefix}{child.name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)
    visit(tree, "")
    return out


def definitions(tree):
    """Functions at module level and in classes (not nested in functions), in source
    order: what `--all-functions` / `--assume-jit` select."""
    out = []

    def visit(stmts):
        for node in stmts:
            if isinstance(node, _DEFS):
                out.append(node)
            elif isinstance(node, ast.ClassDef):
                visit(node.body)
            else:
                for fld in _BLOCKS:
                    inner = getattr(node, fld, None)
                    if isinstance(inner, list):
                        visit(inner)
                for handler in getattr(node, "handlers", []) or []:
                    visit(handler.body)
    visit(tree.body)
    return out


def all_functions(names: ModuleNames, flavor="npxla") -> list[JitTarget]:
    """Every module-level function and method as a target (nested functions belong to
    the function that defines them)."""
    quals = qualnames(names.tree)
    return [JitTarget(fn, flavor, qualname=quals[id(fn)]) for fn in definitions(names.tree)]


def scan(tree):
    """(decorated defs, [(call, scope)]) for the whole module; the scope of a call is its
    innermost enclosing function, or the module."""
    decorated, calls = [], []
    stack = [(child, tree) for child in ast.iter_child_nodes(tree)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, _DEFS):
            if node.decorator_list:
                decorated.append(node)
            stack.extend((child, scope) for child in node.decorator_list)
            stack.append((node.args, scope))
            if node.returns is not None:
                stack.append((node.returns, scope))
            stack.extend((child, node) for child in node.body)
            continue
        if isinstance(node, ast.Call):
            calls.append((node, scope))
        stack.extend((child, scope) for child in ast.iter_child_nodes(node))
    return decorated, calls


def _scope_defs(stmts):
    """{name: def} of a scope's functions, not descending into nested functions or
    lambdas (their bodies are scopes of their own), descending into classes."""
    defs, stack = {}, list(reversed(stmts))
    while stack:
        node = stack.pop()
        if isinstance(node, _DEFS):
            defs.setdefault(node.name, node)
            continue
        if not isinstance(node, ast.Lambda):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return defs


def discover(names: ModuleNames, wrappers=(), extra=(), found=None) -> list[JitTarget]:
    """Every jitted function of the module (each at most once per flavour), in source
    order: decorated with a `jit`, passed by name to a `jit` call or to one of
    `wrappers`, or named in `extra` (`f`, `Class.m`; npxla flavour). `found` is
    `scan(tree)`'s result when the caller walked the module already.

    A function jitted in several places is one target whose static arguments are those
    static everywhere, so that an analysis of it does not trust a static argument that
    some call site traces."""
    targets: dict = {}
    quals = qualnames(names.tree)

    def add(fn, flavor, keywords, where):
        static, unreadable = static_params(fn, keywords, names)
        key = (id(fn), flavor)
        if key in targets:
            old = targets[key]
            old.static = old.static & static
            old.all_static = old.all_static and unreadable
            return
        targets[key] = JitTarget(fn, flavor, static, unreadable, where, quals.get(id(fn), ""))

    decorated, calls = found if found is not None else scan(names.tree)
    for node in decorated:
        for dec in node.decorator_list:
            hit = decorator_jit(names, dec)
            if hit:
                add(node, hit[0], hit[1], dec)
    scope_defs = {}
    for call, scope, *_ in calls:
        hit = call_jit(names, call, wrappers)
        if not hit or not isinstance(hit[2], ast.Name):
            continue
        if id(scope) not in scope_defs:
            scope_defs[id(scope)] = _scope_defs(scope.body)
        fn = scope_defs[id(scope)].get(hit[2].id) or names.functions.get(hit[2].id)
        if fn is not None:
            add(fn, hit[0], hit[1], call)
    if extra:
        by_qualname = {q: fn for fn in definitions(names.tree) for q in [quals[id(fn)]]}
        for name in extra:
            fn = names.functions.get(name) or by_qualname.get(name)
            if fn is not None and (id(fn), "npxla") not in targets:
                targets[(id(fn), "npxla")] = JitTarget(fn, "npxla", qualname=quals[id(fn)])
    return sorted(targets.values(), key=lambda t: (t.node.lineno, t.node.col_offset))
