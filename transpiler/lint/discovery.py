"""Which functions of a file are jitted, with which static arguments, by which `jit`.

Recognised spellings (after resolving the file's imports):

* decorators: `@jit`, `@jit(static_argnums=...)`, `@npxla.jit`, `@jax.jit`,
  `@partial(jax.jit, static_argnames=...)`, `@functools.partial(jit, ...)`;
* calls anywhere in the file: `g = jit(f, static_argnums=1)`, `jit(f)(x)`,
  `jax.jit(f)`, `partial(jax.jit, ...)(f)`, where `f` names a function of the file.

`jit` resolving to npxla (`from npxla import jit`, `npxla.jit`)
gives the "npxla" flavour, `jax.jit` the "jax" flavour. A bare `jit` that no import
binds is taken to be npxla's; a `jit` imported from anywhere else (numba, ...) is not
linted.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

NPXLA_JITS = frozenset({"npxla.jit"})
JAX_JITS = frozenset({"jax.jit", "jax.api.jit", "jax._src.api.jit"})
PARTIALS = frozenset({"functools.partial"})

_BUILTINS = frozenset(dir(builtins))


@dataclass
class JitTarget:
    """A function to lint as jitted."""
    node: ast.AST                     # FunctionDef / AsyncFunctionDef
    flavor: str                       # "npxla" or "jax"
    static: frozenset = frozenset()   # parameter names that are static
    all_static: bool = False          # static arguments could not be read: trust nothing
    where: ast.AST | None = None      # the decorator or jit(...) call


@dataclass
class ModuleInfo:
    """What the linter knows about a file before looking inside functions."""
    tree: ast.Module
    path: str
    imports: dict = field(default_factory=dict)     # local name -> qualified name
    functions: dict = field(default_factory=dict)   # module-level name -> FunctionDef
    module_values: dict = field(default_factory=dict)  # name -> ast value of simple assignments
    assigned: set = field(default_factory=set)      # every module-level bound name
    calls: list = field(default_factory=list)       # (call, scope, in loop), by discover()
    node_tables: dict = field(default_factory=dict)  # fn id -> {type: [nodes]}, by discover()

    def qualify(self, node, imports=None) -> str | None:
        """The qualified name an expression (`np.linalg.norm`, `jit`) refers to."""
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
            if node.id in _BUILTINS:
                base = "builtins." + node.id
            else:
                base = "?" + node.id          # unbound name
        return ".".join([base] + parts[::-1])


def collect_imports(stmts, table):
    """Fill `table` with the names bound by the import statements in `stmts`
    (recursing into if/try blocks, not into functions or classes)."""
    for stmt in stmts:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    table[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    table[top] = top
        elif isinstance(stmt, ast.ImportFrom):
            if stmt.level or not stmt.module:
                mod = "." * stmt.level + (stmt.module or "")
            else:
                mod = stmt.module
            for alias in stmt.names:
                if alias.name != "*":
                    table[alias.asname or alias.name] = f"{mod}.{alias.name}"
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)) or type(stmt).__name__ == "TryStar":
            for fld in ("body", "orelse", "finalbody"):
                collect_imports(getattr(stmt, fld, []), table)
            for h in getattr(stmt, "handlers", []):
                collect_imports(h.body, table)


def module_info(tree: ast.Module, path: str) -> ModuleInfo:
    info = ModuleInfo(tree, path)
    collect_imports(tree.body, info.imports)

    def scan(stmts):
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                info.functions[stmt.name] = stmt
                info.assigned.add(stmt.name)
            elif isinstance(stmt, ast.ClassDef):
                info.assigned.add(stmt.name)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            info.assigned.add(n.id)
                            if isinstance(t, ast.Name) and getattr(stmt, "value", None) is not None:
                                info.module_values[n.id] = stmt.value
            elif isinstance(stmt, (ast.If, ast.Try, ast.With, ast.For, ast.While)) or \
                    type(stmt).__name__ == "TryStar":
                for fld in ("body", "orelse", "finalbody"):
                    scan(getattr(stmt, fld, []))
                for h in getattr(stmt, "handlers", []):
                    scan(h.body)
    scan(tree.body)
    # names bound by imports are not "assigned" (they resolve through the import table)
    info.assigned -= set(info.imports)
    return info


# --- jit expressions ----------------------------------------------------------------------

def jit_flavor(info: ModuleInfo, node, imports=None) -> str | None:
    """'npxla' / 'jax' if `node` (an expression) is a jit function, else None."""
    qual = info.qualify(node, imports)
    if qual is None:
        return None
    if qual in NPXLA_JITS or qual == "?jit":
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


def static_params(fn, keywords, info: ModuleInfo):
    """(static parameter names, all_static) from static_argnums/static_argnames keywords."""
    names, unreadable = set(), False
    args = fn.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    for kw in keywords:
        if kw.arg not in ("static_argnums", "static_argnames"):
            if kw.arg is None:          # **options: cannot tell
                unreadable = True
            continue
        try:
            value = _literal(kw.value, info.module_values)
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
                    names.add(positional[v])
            elif isinstance(v, str):
                names.add(v)
    return frozenset(names), unreadable


def _decorator_jit(info, dec):
    """(flavor, keywords) if the decorator applies a jit."""
    flavor = jit_flavor(info, dec)
    if flavor:
        return flavor, []
    if isinstance(dec, ast.Call):
        flavor = jit_flavor(info, dec.func)
        if flavor and not dec.args:                  # @jit(static_argnums=...)
            return flavor, dec.keywords
        if info.qualify(dec.func) in PARTIALS and dec.args:
            flavor = jit_flavor(info, dec.args[0])   # @partial(jax.jit, ...)
            if flavor:
                return flavor, dec.keywords
    return None


def _call_jit(info, call, wrappers):
    """(flavor, keywords, function expression) if `call` applies a jit to a function."""
    flavor = jit_flavor(info, call.func)
    if flavor and call.args:
        return flavor, call.keywords, call.args[0]
    if isinstance(call.func, ast.Call):              # partial(jax.jit, ...)(f)
        inner = call.func
        if info.qualify(inner.func) in PARTIALS and inner.args and call.args:
            flavor = jit_flavor(info, inner.args[0])
            if flavor:
                return flavor, inner.keywords + call.keywords, call.args[0]
    if wrappers and call.args:
        qual = info.qualify(call.func)
        name = qual.lstrip("?").rsplit(".", 1)[-1] if qual else (
            call.func.id if isinstance(call.func, ast.Name) else None)
        if name in wrappers:
            return "npxla", [], call.args[0]
    return None


def _walk_scope(stmts):
    """Nodes of a scope, not descending into nested functions, lambdas or classes
    (their bodies are scopes of their own) but yielding the defs themselves."""
    stack = list(reversed(stmts))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.ClassDef):
            stack.extend(reversed(node.body))
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def _scan(info):
    """One walk over the module. Returns (decorated function defs, [(call, scope node,
    in a loop)] for every call), and fills `info.node_tables` (function id ->
    {node type: [nodes in it, nested functions included]}). "In a loop": lexically inside
    a loop body or a comprehension of the same function."""
    decorated, calls = [], []
    tables = info.node_tables
    stack = [(child, info.tree, False, ()) for child in reversed(info.tree.body)]
    pop, push = stack.pop, stack.append
    fields_of = _child_fields
    while stack:
        node, scope, in_loop, chain = pop()
        cls = node.__class__
        for table in chain:
            bucket = table.get(cls)
            if bucket is None:
                table[cls] = [node]
            else:
                bucket.append(node)
        if cls is ast.Call:
            calls.append((node, scope, in_loop))
        elif cls in _SCOPES:
            if node.decorator_list:
                decorated.append(node)
            own = {cls: [node]}
            tables[id(node)] = own
            inner = chain + (own,)
            for child in node.decorator_list:
                push((child, scope, in_loop, chain))
            push((node.args, scope, in_loop, inner))
            if node.returns is not None:
                push((node.returns, scope, in_loop, chain))
            for child in reversed(node.body):
                push((child, node, False, inner))
            continue
        elif cls in _LOOPS:
            for child in reversed(node.orelse):
                push((child, scope, in_loop, chain))
            for child in reversed(node.body):
                push((child, scope, True, chain))
            if cls is ast.While:
                push((node.test, scope, in_loop, chain))
            else:
                push((node.iter, scope, in_loop, chain))
                push((node.target, scope, in_loop, chain))
            continue
        elif cls in _COMPS:
            for g in node.generators:
                push((g.target, scope, in_loop, chain))
                push((g.iter, scope, in_loop, chain))
                for c in g.ifs:
                    push((c, scope, True, chain))
            for child in ([node.key, node.value] if cls is ast.DictComp else [node.elt]):
                push((child, scope, True, chain))
            continue
        elif cls is ast.Lambda:
            push((node.args, scope, in_loop, chain))
            push((node.body, scope, False, chain))
            continue
        elif cls is ast.ClassDef:
            for child in node.decorator_list + node.bases + node.keywords:
                push((child, scope, in_loop, chain))
            for child in reversed(node.body):
                push((child, scope, False, chain))
            continue
        for name in fields_of(cls):
            value = getattr(node, name, None)
            if value is None:
                continue
            if isinstance(value, list):
                for item in reversed(value):
                    if isinstance(item, ast.AST):
                        push((item, scope, in_loop, chain))
            elif isinstance(value, ast.AST):
                push((value, scope, in_loop, chain))
    return decorated, calls


_FIELDS_CACHE: dict = {}
_LEAF_FIELDS = {"ctx", "id", "attr", "arg", "name", "names", "module", "level", "op",
                "type_comment", "kind", "conversion", "is_async", "value_const"}


def _child_fields(cls):
    fields = _FIELDS_CACHE.get(cls)
    if fields is None:
        fields = tuple(f for f in cls._fields if f not in _LEAF_FIELDS or
                       (f == "op" and False))
        if cls is ast.Constant:
            fields = ()
        _FIELDS_CACHE[cls] = fields
    return fields


def discover(info: ModuleInfo, wrappers=(), extra=()) -> list[JitTarget]:
    """Every jitted function of the file (each at most once per flavour), in source
    order: decorated with a `jit`, passed by name to a `jit` call or to one of
    `wrappers`, or named in `extra` (linted as npxla-jitted).

    A function jitted in several places is analysed once, with only the arguments that
    are static everywhere as static, so that a finding is not missed for the call site
    with fewer static arguments. Also records every call of the module in `info.calls`
    for the module-wide rules."""
    targets: dict = {}

    def add(fn, flavor, keywords, where):
        static, unreadable = static_params(fn, keywords, info)
        key = (id(fn), flavor)
        if key in targets:
            old = targets[key]
            old.static = old.static & static
            old.all_static = old.all_static and unreadable
            return
        targets[key] = JitTarget(fn, flavor, static, unreadable, where)

    decorated, calls = _scan(info)
    info.calls = calls
    for node in decorated:
        for dec in node.decorator_list:
            found = _decorator_jit(info, dec)
            if found:
                add(node, found[0], found[1], dec)
    scope_defs = {}
    for call, scope, _ in calls:
        found = _call_jit(info, call, wrappers)
        if not found or not isinstance(found[2], ast.Name):
            continue
        defs = scope_defs.get(id(scope))
        if defs is None:
            defs = {}
            body = scope.body
            for node in _walk_scope(body):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs.setdefault(node.name, node)
            scope_defs[id(scope)] = defs
        fn = defs.get(found[2].id) or info.functions.get(found[2].id)
        if fn is not None:
            add(fn, found[0], found[1], call)
    for name in extra:
        fn = info.functions.get(name)
        if fn is None:
            for node in ast.walk(info.tree):
                if isinstance(node, ast.ClassDef):
                    for item in node.body:
                        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                                f"{node.name}.{item.name}" == name:
                            fn = item
        if fn is not None and (id(fn), "npxla") not in targets:
            targets[(id(fn), "npxla")] = JitTarget(fn, "npxla")
    return sorted(targets.values(), key=lambda t: (t.node.lineno, t.node.col_offset))


def all_functions(info: ModuleInfo, flavor="npxla") -> list[JitTarget]:
    """Every module-level function and method (nested functions are analysed as part of
    the function that defines them), for `--assume-jit`."""
    out = []
    def visit(stmts):
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append(JitTarget(stmt, flavor))
            elif isinstance(stmt, ast.ClassDef):
                visit(stmt.body)
            elif isinstance(stmt, (ast.If, ast.Try, ast.With)) or \
                    type(stmt).__name__ == "TryStar":
                for fld in ("body", "orelse", "finalbody"):
                    visit(getattr(stmt, fld, []))
                for h in getattr(stmt, "handlers", []):
                    visit(h.body)
    visit(info.tree.body)
    return out
