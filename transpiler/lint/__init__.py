"""npxla's linter: static checks that a jitted function will compile.

Pure static analysis: it parses the file (never imports or runs it), finds the
functions decorated with npxla's `jit` or `jax.jit` (see `discovery`), follows which
values are traced (`taint`) and reports what `@jit` would refuse, what `jax.jit`
rejects where npxla would not, and performance pitfalls (`rules`).

    from npxla.transpiler.lint import lint_source, lint_paths
    for f in lint_source(open("model.py").read(), "model.py"):
        print(f)                          # model.py:12:5: NPX111 boolean-mask ...

This package imports neither JAX nor the runtime.
"""
from __future__ import annotations

import ast
import os
from dataclasses import asdict, dataclass
from npxla.transpiler.lint.noqa import noqa_lines, suppressed

__all__ = ["Finding", "lint_source", "lint_tree", "lint_file", "lint_paths", "iter_files",
           "RULES", "LintInternalError"]


@dataclass(frozen=True, order=True)
class Finding:
    """One diagnostic. `line`/`end_line` are 1-based; `col`/`end_col` are 1-based
    character columns, `end_col` one past the last character (as in SARIF)."""
    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    code: str
    message: str

    def __str__(self):
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"

    def as_dict(self):
        return asdict(self)


class LintInternalError(Exception):
    """A bug in the linter while analysing a file (never the user's fault)."""


def __getattr__(name):
    if name == "RULES":
        from npxla.transpiler.lint.rules import RULES
        return RULES
    raise AttributeError(name)


def lint_source(source: str, path: str = "<string>", select=None, ignore=None, *,
                assume_jit=None, jit_wrappers=(), jitted=(), noqa=True) -> list[Finding]:
    """Lint Python source text. Raises SyntaxError if it does not parse.

    `select`/`ignore`: codes or prefixes (lists or comma-separated strings).
    `assume_jit`: "npxla" or "jax" to lint every function as if it were jitted.
    `jit_wrappers`: names of functions that jit their first argument like `jit(f)`.
    `jitted`: names of module-level functions (or "Class.method") to lint as npxla-jitted.
    """
    tree = ast.parse(source, filename=path)
    findings = lint_tree(tree, path, select, ignore, assume_jit=assume_jit,
                         jit_wrappers=jit_wrappers, jitted=jitted,
                         lines=source.splitlines())
    if noqa:
        table = noqa_lines(source)
        if table:
            findings = [f for f in findings if not suppressed(f, table)]
    return findings


def lint_tree(tree, path, select=None, ignore=None, *, assume_jit=None, jit_wrappers=(),
              jitted=(), lines=None) -> list[Finding]:
    """Lint a parsed module (no `# noqa` handling: flake8 does its own)."""
    from npxla.transpiler.lint.engine import run
    try:
        return run(tree, path, select, ignore, assume_jit=assume_jit,
                   jit_wrappers=jit_wrappers, jitted=jitted, lines=lines)
    except (ValueError, RecursionError) as e:
        if isinstance(e, ValueError) and str(e).startswith("unknown rule code"):
            raise
        raise LintInternalError(f"{path}: {type(e).__name__}: {e}") from e
    except Exception as e:
        raise LintInternalError(f"{path}: {type(e).__name__}: {e}") from e


def lint_file(path, select=None, ignore=None, **options) -> list[Finding]:
    with open(path, "rb") as fh:
        data = fh.read()
    source = _decode(data)
    return lint_source(source, path, select, ignore, **options)


def _decode(data: bytes) -> str:
    import io
    import tokenize
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    return data.decode(encoding, errors="replace")


_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox",
              "node_modules", "build", "dist", ".eggs", ".mypy_cache", ".pytest_cache"}


def iter_files(paths):
    """The .py files named by `paths` (directories are searched recursively)."""
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and
                                 not d.endswith(".egg-info"))
                for f in sorted(files):
                    if f.endswith(".py"):
                        yield os.path.join(root, f)
        else:
            yield p


def lint_paths(paths, select=None, ignore=None, **options) -> list[Finding]:
    """Lint files and directories; returns every finding (raises on unreadable or
    unparsable files: use `command.run` for per-file error reporting)."""
    out = []
    for path in iter_files(paths):
        out.extend(lint_file(path, select, ignore, **options))
    return out
