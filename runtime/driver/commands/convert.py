"""`npxla convert`: print, write or check the converted form of modules (static)."""
from __future__ import annotations

import argparse
import difflib
import io
import os
import sys
import tokenize

from npxla.runtime.driver.commands import UsageError, no_such_file
from npxla.transpiler.module_convert import convert_module
from npxla.runtime.driver.commands.output import (Progress, diagnostic_from_error,
                                                  diagnostic_from_finding, style_for)

DESCRIPTION = """\
Convert the @jit functions of Python files to the plain Python that @jit stages.

Every function decorated with npxla's jit (@jit, @jit(...), @npxla.jit,
@npxla.jit, @partial(jit, ...)) or wrapped at module level (g = jit(f)), or with
--all every top-level function, is replaced by its converted form: control flow
becomes calls to npxla's runtime operators (ag__.if_stmt, ag__.while_stmt, ...).
The rest of the file is kept as it is. The file is parsed, never imported.

The output imports npxla's runtime operators (from npxla.runtime import operators as
ag__) and no longer the jit decorator: it is ordinary Python that computes the same
results as the original when called with NumPy values. With --keep-decorators the
@jit decorators (and their imports) stay, and @jit compiles the converted code.

A function that cannot be converted is reported as path:line:col: CODE message,
followed by what the linter finds in it; nothing is printed or written for its
file, and the exit code is 1."""

EPILOG = """\
examples:
  npxla convert model.py                  print model.py with its @jit functions converted
  npxla convert --diff model.py           show what conversion changes, as a unified diff
  npxla convert -w src/                   rewrite every .py file under src/ in place
  npxla convert --output-dir build/converted src/   write the converted files there
  npxla convert --all helpers.py          convert every top-level function
  cat model.py | npxla convert -          read standard input, print to standard output
  npxla convert --check src/              exit 1 if some @jit function cannot be converted
  npxla convert --check -o gen/ src/      ... or if gen/ is not up to date

exit status:
  0  everything converted (with --check: nothing to report)
  1  a function cannot be converted, a file has a syntax error, --strict found lint
     findings, or (with --check -o DIR) a file under DIR is missing or out of date
  2  usage error (bad options, unreadable file) or internal error"""


def add_arguments(parser: argparse.ArgumentParser):
    parser.add_argument("paths", nargs="+", metavar="FILE",
                        help="Python files or directories (searched for *.py); '-' reads "
                             "standard input")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("-w", "--write", action="store_true",
                      help="rewrite the files in place")
    mode.add_argument("--output-dir", "-o", metavar="DIR",
                      help="write the converted files under DIR (a file argument goes to "
                           "DIR/<name>, files found in a directory argument keep their path "
                           "relative to it); -o is the old spelling (a file in emit)")
    parser.add_argument("--diff", action="store_true",
                        help="print a unified diff instead of the converted source")
    parser.add_argument("--check", action="store_true",
                        help="write and print nothing; report through the exit code (and "
                             "diagnostics on stderr) whether every function converts, and "
                             "with -o whether DIR is up to date")
    parser.add_argument("--all", dest="all_functions", action="store_true",
                        help="convert every top-level function, not only @jit ones")
    parser.add_argument("--keep-decorators", action="store_true",
                        help="keep the @jit decorators (and the jit import) on converted "
                             "functions")
    parser.add_argument("--strict", action="store_true",
                        help="also fail when the linter finds code in a converted function "
                             "that @jit would refuse while compiling")
    parser.add_argument("--stdin-filename", metavar="NAME", default="<stdin>",
                        help="file name to report for '-' (default: <stdin>)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bar and no summary line")


def _collect(paths):
    """[(path, output relative name)], directories expanded to their *.py files."""
    out = []
    for path in paths:
        if path == "-":
            out.append(("-", None))
        elif os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                                 and d not in ("__pycache__", "node_modules"))
                found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py"))
            out.extend((f, os.path.relpath(f, path)) for f in found)
        elif os.path.exists(path):
            out.append((path, os.path.basename(path)))
        else:
            raise no_such_file(path)
    return out


def _read(path):
    """(text, encoding): the encoding from the BOM or a PEP 263 `# -*- coding -*-` line
    (default UTF-8), used again to write the converted file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (SyntaxError, UnicodeDecodeError, LookupError) as e:
        raise UsageError(f"cannot decode {path}: {e}") from None


def _linter_available() -> bool:
    try:
        from npxla.transpiler.lint import lint_source  # noqa: F401
    except Exception:      # noqa: BLE001 - missing or broken
        return False
    return True


class _Lint:
    """The linter's findings for one file, computed once and only when needed."""

    def __init__(self, source, path):
        self.source, self.path, self._findings = source, path, None

    def within(self, functions):
        """Findings inside `functions`' line ranges ([] without a working linter)."""
        if self._findings is None:
            try:
                # lazy: a missing or broken linter must not break convert
                from npxla.transpiler.lint import lint_source
                self._findings = lint_source(self.source, self.path)
            except Exception:   # noqa: BLE001 - no linter (yet) or a broken one must
                self._findings = []   # never hide the conversion's own diagnostic
        spans = [(f.lineno, f.end_lineno) for f in functions]
        return [diagnostic_from_finding(f) for f in self._findings
                if any(a <= f.line <= b for a, b in spans)]


def run(args) -> int:
    """`npxla convert`: validate the argument combinations first (usage errors exit 2),
    then convert each file and write, diff or print it; with --strict, a file the
    linter flags fails the command even when its functions convert."""
    _validate(args)
    files = _collect(args.paths)
    out, err = sys.stdout, sys.stderr
    color = getattr(args, "color", "auto")
    estyle, ostyle = style_for(err, color), style_for(out, color)
    status = 0
    counts = {"converted": 0, "unchanged": 0, "failed": 0, "stale": 0, "lint": 0}
    show_progress = None if not args.quiet else False
    with Progress(len(files), err, enabled=show_progress) as progress:
        for path, rel in files:
            shown = args.stdin_filename if path == "-" else path
            try:
                source, encoding = (sys.stdin.read(), "utf-8") if path == "-" else _read(path)
            except UsageError as e:     # report, go on with the other files, exit 2
                progress.advance(shown)
                progress.write(f"npxla convert: {estyle.bold_red('error:')} {e}")
                status = 2
                continue
            result = convert_module(source, shown, all_functions=args.all_functions,
                                    keep_decorators=args.keep_decorators)
            progress.advance(shown)
            diags = _diagnostics(args, result, source, shown, counts)
            for d in diags:
                progress.write(d.render(estyle))
            if diags:
                status = max(status, 1)
            if not result.ok:
                counts["failed"] += 1
                continue
            counts["converted" if result.changed else "unchanged"] += 1
            if not _deliver(args, result, source, path, rel, shown, encoding, len(files),
                            progress, (out, ostyle, estyle), counts):
                status = max(status, 1)
    if not args.quiet:
        _summary(args, counts, len(files), err)
    return status


def _validate(args):
    """Refuse argument combinations that make no sense (exit 2) before any work."""
    if args.write and "-" in args.paths:
        raise UsageError("'-' (standard input) cannot be combined with -w/--write")
    if args.output_dir and "-" in args.paths:
        raise UsageError("'-' (standard input) cannot be combined with -o/--output-dir")
    if args.paths.count("-") > 1:
        raise UsageError("'-' can be given only once")
    if args.output_dir and os.path.exists(args.output_dir) and not os.path.isdir(
            args.output_dir):
        raise UsageError(f"-o {args.output_dir}: not a directory")
    if args.strict and not _linter_available():
        raise UsageError("--strict needs the linter (transpiler.lint), which cannot be loaded")


def _diagnostics(args, result, source, shown, counts):
    """The file's refusals, each with the lint findings inside the refused function
    (and, with --strict, the findings in functions that converted)."""
    lint = _Lint(source, shown)
    diags = []
    if result.syntax_error is not None:
        diags.append(diagnostic_from_error(result.syntax_error, shown))
    for f in result.functions:
        if f.error is None:
            continue
        own = diagnostic_from_error(f.error, shown)
        diags.append(own)
        diags.extend(d for d in lint.within([f]) if (d.line, d.col) != (own.line, own.col))
    if args.strict and result.ok and result.functions:
        found = lint.within(result.functions)
        counts["lint"] += bool(found)
        diags.extend(found)
    return diags


def _deliver(args, result, source, path, rel, shown, encoding, n_files, progress, styles,
             counts) -> bool:
    """Write, diff, check or print one converted file; False when --check finds the
    output directory's copy stale."""
    out, ostyle, estyle = styles
    converted = result.converted
    if args.diff:
        _print_diff(out, source, converted, shown, ostyle)
    if args.output_dir:
        target = os.path.join(args.output_dir, rel)
        if not args.check:
            _write(target, converted, encoding)
        elif _read_or_none(target, encoding) != converted:
            progress.write(f"{estyle.bold(target)}: "
                           f"{'out of date' if os.path.exists(target) else 'missing'}"
                           f" (converted from {shown})")
            counts["stale"] += 1
            return False
    elif args.write:
        if result.changed and not args.check:
            _write(path, converted, encoding)
    elif not args.check and not args.diff:
        if n_files > 1:
            out.write(ostyle.dim(f"# ---- {shown} (npxla convert) ----") + "\n")
        if converted and not converted.endswith("\n"):
            converted += "\n"
        _print_source(out, converted, encoding)
    return True


def _summary(args, counts, n_files, err):
    if args.check:
        problems = [f"{counts['failed']} cannot be converted" if counts["failed"] else "",
                    f"{counts['stale']} out of date" if counts["stale"] else "",
                    f"{counts['lint']} with lint findings" if counts["lint"] else ""]
        if any(problems):
            err.write(f"{', '.join(p for p in problems if p)} "
                      f"({_plural(n_files, 'file')} checked)\n")
    elif (args.write or args.output_dir) and n_files > 1:
        parts = [f"{n} {k}" for k, n in counts.items() if n and k in ("converted",
                                                                       "unchanged", "failed")]
        err.write(", ".join(parts) + f" ({_plural(n_files, 'file')})\n")


def _plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def _print_source(out, text, encoding):
    """Print `text` in the file's own encoding (a `# -*- coding: latin-1 -*-` file
    redirected to a file must still be latin-1)."""
    buffer = getattr(out, "buffer", None)
    if encoding.replace("_", "-").lower() in ("utf-8", "utf8") or buffer is None:
        out.write(text)
        return
    out.flush()
    buffer.write(text.encode(encoding))
    buffer.flush()


def _read_or_none(path, encoding):
    try:
        with open(path, encoding=encoding, newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def _write(path, text, encoding):
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding=encoding, newline="") as fh:
        fh.write(text)


def _print_diff(out, before, after, path, style):
    if before == after:
        return
    diff = difflib.unified_diff(before.splitlines(keepends=True),
                                after.splitlines(keepends=True),
                                fromfile=path, tofile=f"{path} (converted)")
    for line in diff:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        if line.startswith(("+++", "---")):
            out.write(style.bold(line.rstrip("\n")) + "\n")
        elif line.startswith("@@"):
            out.write(style.cyan(line.rstrip("\n")) + "\n")
        elif line.startswith("+"):
            out.write(style.green(line.rstrip("\n")) + "\n")
        elif line.startswith("-"):
            out.write(style.red(line.rstrip("\n")) + "\n")
        else:
            out.write(line)
