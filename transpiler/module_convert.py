"""Static source-to-source conversion of a whole module (what `npxla convert` prints).

The module is parsed, never imported: every function decorated with npxla's `jit`
(`@jit`, `@jit(...)`, `@npxla.jit`, `@partial(jit, ...)`, with import
aliases resolved), every function wrapped by a module-level `g = jit(f, ...)`, or with
`all_functions` every top-level function, goes through the same converter passes as
`@jit` (`transpiler.converters.PASSES`). The rest of the file is kept byte for byte:
only the lines of converted functions are replaced, `from npxla.runtime import operators as
ag__` is added after the docstring and `__future__` imports, and, when the `jit`
decorators are dropped (the default), npxla imports that nothing uses any more are
removed, so the result imports only npxla's runtime operators. Run with NumPy values,
the runtime operators take their Python path: the converted module computes what the
original computes.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

import gast

from npxla.transpiler.converters import PASSES
from npxla.transpiler.converters.context import Context
from npxla.transpiler.base.errors import Location, TranspileError, UnsupportedSyntaxError
from npxla.transpiler.pyct import loader

RUNTIME_IMPORT = f"from npxla.runtime import operators as {loader.RUNTIME_NAME}"
IMPORT_COMMENT = "  # added by npxla convert"
NPXLA_ROOTS = ("npxla",)
_PARTIALS = ("partial", "functools.partial")


@dataclass
class FunctionResult:
    name: str
    qualname: str
    lineno: int            # first line (decorators included)
    end_lineno: int
    error: TranspileError | None = None


@dataclass
class ModuleResult:
    path: str
    source: str
    converted: str | None = None          # None when some function could not be converted
    functions: list = field(default_factory=list)
    syntax_error: SyntaxError | None = None

    @property
    def errors(self):
        return [f.error for f in self.functions if f.error is not None]

    @property
    def ok(self) -> bool:
        return self.syntax_error is None and not self.errors

    @property
    def changed(self) -> bool:
        return self.converted is not None and self.converted != self.source


# --- which functions ----------------------------------------------------------------
def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


class JitNames:
    """The names under which npxla's `jit` is reachable in a module (import-aware)."""

    def __init__(self, tree):
        self.names = {"jit"}            # a bare `jit` is npxla's unless imported elsewhere
        self.modules = set(NPXLA_ROOTS) | {f"{r}.api" for r in NPXLA_ROOTS}
        self.imports = []               # (stmt, alias, bound name) of npxla imports
        for node in _module_level(tree):
            if isinstance(node, ast.ImportFrom):
                self._import_from(node)
            elif isinstance(node, ast.Import):
                self._import(node)

    def _import_from(self, node):
        module = node.module or ""
        ours = node.level == 0 and module.split(".")[0] in NPXLA_ROOTS
        for alias in node.names:
            bound = alias.asname or alias.name
            if ours:
                self.imports.append((node, alias, bound))
                if alias.name == "jit":
                    self.names.add(bound)
                elif alias.name == "api":
                    self.modules.add(bound)
            elif bound in self.names:       # e.g. `from jax import jit`
                self.names.discard(bound)

    def _import(self, node):
        for alias in node.names:
            root = alias.name.split(".")[0]
            if root in NPXLA_ROOTS:
                bound = alias.asname or root
                self.imports.append((node, alias, bound))
                self.modules.add(alias.asname or alias.name)
            elif (alias.asname or root) in self.modules:   # `import jax as npxla`
                self.modules.discard(alias.asname or root)

    def is_jit(self, expr) -> bool:
        """`jit`, `npxla.jit`, `jit(...)`, `partial(jit, ...)` (as a decorator)."""
        if isinstance(expr, ast.Call):
            if self.is_jit_ref(expr.func):
                return True
            return (_dotted(expr.func) in _PARTIALS and bool(expr.args)
                    and self.is_jit_ref(expr.args[0]))
        return self.is_jit_ref(expr)

    def is_jit_ref(self, expr) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in self.names
        if isinstance(expr, ast.Attribute) and expr.attr == "jit":
            return _dotted(expr.value) in self.modules
        return False

    def wrapped_name(self, call) -> str | None:
        """`f` in `jit(f, ...)` / `partial(jit, ...)(f)` (a call at module level)."""
        if not isinstance(call, ast.Call) or not call.args or not isinstance(
                call.args[0], ast.Name):
            return None
        if self.is_jit_ref(call.func) or (isinstance(call.func, ast.Call)
                                          and self.is_jit(call.func)):
            return call.args[0].id
        return None


def _module_level(tree):
    """Statements executed at import time (not inside functions), classes included."""
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for name in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                todo.extend(inner)


def _definitions(tree):
    """(def node, qualified name) for functions at module level and in classes."""
    out = []

    def visit(stmts, prefix):
        for node in stmts:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((node, prefix + node.name))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            else:
                for name in ("body", "orelse", "finalbody"):
                    inner = getattr(node, name, None)
                    if isinstance(inner, list):
                        visit(inner, prefix)
                for handler in getattr(node, "handlers", []) or []:
                    visit(handler.body, prefix)
    visit(tree.body, "")
    return out


def jitted_functions(tree, all_functions=False, jit_names: JitNames | None = None):
    """The function definitions to convert, in source order: [(node, qualname)]."""
    jit_names = jit_names or JitNames(tree)
    wrapped = set()
    for node in _module_level(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            name = jit_names.wrapped_name(node.value)
            if name:
                wrapped.add(name)
    chosen = []
    for node, qualname in _definitions(tree):
        top_level = "." not in qualname
        if any(jit_names.is_jit(d) for d in node.decorator_list) or (
                top_level and (qualname in wrapped or all_functions)):
            chosen.append((node, qualname))
    return chosen


# --- converting one definition --------------------------------------------------------
def convert_definition(node, path: str, keep_decorators=False) -> str:
    """Converted source of one `ast.FunctionDef` from a parsed file (not indented).

    Raises `TranspileError` (located in `path`) for code the converters refuse."""
    if isinstance(node, ast.AsyncFunctionDef):
        raise UnsupportedSyntaxError(
            "async functions cannot be compiled",
            hint="use a plain def and plain for/with statements",
            location=Location(path, node.lineno, node.col_offset))
    tree = gast.ast_to_gast(node)
    tree.decorator_list = []
    ctx = Context(path, node.name)
    for converter in PASSES:
        tree = converter.transform(tree, ctx)
    out = loader.to_python_ast(tree)
    if keep_decorators:
        out.decorator_list = node.decorator_list
    return ast.unparse(out)


def _indent(text: str, pad: str) -> str:
    """`text` indented by `pad` (the def line's own leading whitespace: tabs stay tabs)."""
    if not pad:
        return text
    return "\n".join(pad + line if line.strip() else line for line in text.split("\n"))


def _first_line(node) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


# --- the whole module -------------------------------------------------------------------
def convert_module(source: str, path: str = "<string>", all_functions=False,
                   keep_decorators=False) -> ModuleResult:
    """Convert the jitted functions of module `source`; see the module docstring."""
    result = ModuleResult(path, source)
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        result.syntax_error = e
        return result
    jit_names = JitNames(tree)
    chosen = jitted_functions(tree, all_functions, jit_names)
    if not chosen:
        result.converted = source
        return result
    lines = source.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    replacements = []
    for node, qualname in chosen:
        fr = FunctionResult(node.name, qualname, _first_line(node), node.end_lineno)
        result.functions.append(fr)
        try:
            text = convert_definition(node, path, keep_decorators)
        except TranspileError as e:
            fr.error = e
            continue
        replacements.append((fr.lineno, fr.end_lineno,
                             _indent(text, lines[node.lineno - 1][:node.col_offset])
                             .replace("\n", newline) + newline))
    if result.errors:
        return result
    for start, end, text in sorted(replacements, reverse=True):
        lines[start - 1:end] = [text]
    converted = "".join(lines)
    if not keep_decorators:
        converted = remove_unused_npxla_imports(converted, path)
    result.converted = add_runtime_import(converted)
    return result


def add_runtime_import(source: str) -> str:
    """`source` with `from npxla.runtime import operators as ag__` after its docstring and
    `__future__` imports (unchanged if it already imports it)."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "npxla.runtime" and any(
                a.name == "operators" and a.asname == loader.RUNTIME_NAME for a in node.names):
            return source
    after = 0           # line after which to insert (0: before everything)
    body = tree.body
    i = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        after, i = body[0].end_lineno, 1
    while i < len(body) and isinstance(body[i], ast.ImportFrom) and body[i].module == "__future__":
        after, i = body[i].end_lineno, i + 1
    lines = source.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    text = RUNTIME_IMPORT + IMPORT_COMMENT + newline
    if after == 0 and i < len(body):
        first = body[i]
        after = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])]) - 1
        while after > 0 and not lines[after - 1].strip():
            after -= 1          # right below leading comments, above the blank lines
        if isinstance(first, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            blanks = sum(1 for line in lines[after:first.lineno - 1] if not line.strip())
            text += newline * max(0, 2 - blanks)    # PEP 8: two blank lines before a def
    if after and not lines[after - 1].endswith(("\n", "\r")):
        lines[after - 1] += newline
    lines.insert(after, text)
    return "".join(lines)


def remove_unused_npxla_imports(source: str, path: str = "<string>") -> str:
    """Drop npxla imports (`from npxla import jit`, `import npxla`) whose names
    the module no longer uses after the `jit` decorators were removed."""
    tree = ast.parse(source, filename=path)
    jit_names = JitNames(tree)
    if not jit_names.imports:
        return source
    used = _used_names(tree)
    lines = source.splitlines(keepends=True)
    by_stmt: dict = {}
    for stmt, alias, bound in jit_names.imports:
        by_stmt.setdefault(id(stmt), (stmt, []))[1].append((alias, bound in used))
    edits = []
    for stmt, aliases in by_stmt.values():
        if all(keep for _, keep in aliases) or not _owns_lines(stmt, lines):
            continue
        kept = [a for a in stmt.names if not any(a is alias and not keep
                                                 for alias, keep in aliases)]
        indent = " " * stmt.col_offset
        if kept:
            new = type(stmt)(**{**{f: getattr(stmt, f) for f in stmt._fields}, "names": kept})
            text = indent + ast.unparse(new) + "\n"
        else:
            text = "" if stmt.col_offset == 0 else indent + "pass\n"
        edits.append((stmt.lineno, stmt.end_lineno, text))
    for start, end, text in sorted(edits, reverse=True):
        lines[start - 1:end] = [text] if text else []
        if text or start > len(lines):
            continue
        if start == 1:                  # no blank lines left at the top of the file
            while lines and not lines[0].strip():
                del lines[0]
        elif not lines[start - 2].strip() and not lines[start - 1].strip():
            del lines[start - 2]        # no extra blank line where the import was
    return "".join(lines)


def _owns_lines(stmt, lines) -> bool:
    """Whether `stmt` is alone on its lines (no `;` neighbours), so it can be edited."""
    first = lines[stmt.lineno - 1]
    last = lines[stmt.end_lineno - 1]
    return not first[:stmt.col_offset].strip() and not last[stmt.end_col_offset:].split(
        "#", 1)[0].strip()


def _used_names(tree) -> set:
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            used.add(node.id)
        elif isinstance(node, ast.Assign):      # names exported through __all__
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets) and \
                    isinstance(node.value, (ast.List, ast.Tuple)):
                used.update(e.value for e in node.value.elts
                            if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return used
