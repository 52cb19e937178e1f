"""Static source-to-source conversion of a whole module (what `npxla convert` prints).

The module is parsed, never imported: every function or method that the shared jit
discovery (`transpiler/analysis/jit_discovery.py`, the linter's too) finds jitted by
npxla's `jit` (`@jit`, `@jit(...)`, `@npxla.jit`, `@partial(jit, ...)`, `g = jit(f, ...)`,
with import aliases resolved), or with `all_functions` every top-level function and
method, goes through the same converter passes as
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

from npxla.transpiler.analysis import jit_discovery
from npxla.transpiler.converters import PASSES, unsupported
from npxla.transpiler.converters.context import Context
from npxla.transpiler.base.errors import Location, TranspileError, UnsupportedSyntaxError
from npxla.transpiler.pyct import loader

RUNTIME_IMPORT = f"from npxla.runtime import operators as {loader.RUNTIME_NAME}"
IMPORT_COMMENT = "  # added by npxla convert"
NPXLA_ROOTS = ("npxla",)


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
# `runtime/driver/commands/emit.py` builds one with `JitNames(tree)`
JitNames = jit_discovery.ModuleNames


def jitted_functions(tree, all_functions=False, jit_names: JitNames | None = None):
    """The function definitions to convert, in source order: [(node, qualname)].

    The npxla-jitted functions of the shared jit discovery (`analysis/jit_discovery`)
    that are defined at module level or in a class: a function nested in another one is
    converted as part of it."""
    names = jit_names or JitNames(tree)
    if all_functions:
        targets = jit_discovery.all_functions(names)
    else:
        targets = [t for t in jit_discovery.discover(names)
                   if t.flavor == "npxla" and "<locals>" not in t.qualname]
    chosen = {id(t.node): t.qualname for t in targets}
    return [(node, chosen[id(node)]) for node in jit_discovery.definitions(tree)
            if id(node) in chosen]


def npxla_imports(tree):
    """(statement, alias, bound name) of every module-level import from npxla."""
    out, todo = [], list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for fld in ("body", "orelse", "finalbody", "handlers"):
            todo.extend(getattr(node, fld, None) or [])
        if isinstance(node, ast.ImportFrom) and node.level == 0 and \
                (node.module or "").split(".")[0] in NPXLA_ROOTS:
            out.extend((node, alias, alias.asname or alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            out.extend((node, alias, alias.asname or alias.name.split(".")[0])
                       for alias in node.names if alias.name.split(".")[0] in NPXLA_ROOTS)
    return out


def _first_line(node) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


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
    refusal = unsupported.generator_error(tree, path)
    if refusal is not None:
        raise refusal
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
    chosen = jitted_functions(tree, all_functions)
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
    imports = npxla_imports(tree)
    if not imports:
        return source
    used = _used_names(tree)
    lines = source.splitlines(keepends=True)
    by_stmt: dict = {}
    for stmt, alias, bound in imports:
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
