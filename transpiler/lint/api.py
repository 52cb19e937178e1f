"""The linter's entry points: source text, a parsed tree, a file, or paths in.

The engine lints one parsed module; every front end (the package's public functions,
`npxla lint`, the flake8 plugin, `npxla convert --strict`) also needs the same steps
around it: decode and parse the file, apply `# noqa`, walk directories, and turn a crash
of the analysis into `LintInternalError` so that one bad file is reported, not fatal.
They are written once here.
"""
from __future__ import annotations

import ast
import io
import os
import tokenize

from npxla.transpiler.lint import engine
from npxla.transpiler.lint.findings import Finding, LintInternalError
from npxla.transpiler.lint.noqa import noqa_lines, suppressed


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
    try:
        # `engine.run`, looked up at each call: tests replace it to simulate a crash
        return engine.run(tree, path, select, ignore, assume_jit=assume_jit,
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
    source = decode_source(data)
    return lint_source(source, path, select, ignore, **options)


def decode_source(data: bytes) -> str:
    """A file's bytes as text, in the encoding its coding cookie or BOM declares (UTF-8
    otherwise); undecodable bytes are replaced rather than failing the file."""
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
