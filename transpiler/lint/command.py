"""`npxla lint`: the command-line front end of the linter.

    add_arguments(parser)     # fills an argparse (sub)parser
    run(args) -> int          # 0 clean, 1 findings, 2 usage or internal error

Also runnable alone: `python -m npxla.transpiler.lint FILE...`.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from npxla.transpiler.base.version import VERSION as __version__
from npxla.transpiler.lint.api import decode_source, iter_files, lint_source
from npxla.transpiler.lint.findings import LintInternalError
from npxla.transpiler.lint.reporters import text_line, to_json, to_sarif
from npxla.transpiler.lint.rules import RULES, lookup, selected

DESCRIPTION = """\
Check that functions decorated with npxla's @jit (or jax.jit) will compile, without
importing or running the files: data-dependent shapes, traced values needed as Python
values, constructs @jit refuses, what jax.jit rejects where npxla would not, and
performance pitfalls. Rules: --list-rules; details: --explain CODE."""

EPILOG = """\
examples:
  npxla lint src/                       lint every .py file under src/
  npxla lint model.py --output-format json   machine-readable findings
  npxla lint . --select NPX1 --ignore NPX141
  npxla lint --explain NPX111           what a rule means, with a bad/good example
  cat f.py | npxla lint - --stdin-filename f.py
  npxla lint legacy.py --assume-jit     lint every function as if it were @jit

exit status: 0 no findings, 1 findings, 2 usage error or a file that could not be read,
parsed or analysed. Silence a finding with `# noqa: NPX111` on its line."""

PROGRESS_MIN_FILES = 8


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Fill `parser` with the options of `npxla lint` and make `run` its handler.

    The same function serves the standalone parser (`main`, `python -m
    npxla.transpiler.lint`) and the `lint` subparser of the `npxla` command, so that both
    command lines accept exactly the same options; a description or epilog the caller
    already set is kept."""
    parser.description = parser.description or DESCRIPTION
    parser.epilog = parser.epilog or EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or directories to lint ('-' reads standard input)")
    parser.add_argument("--output-format", "--format", dest="format",
                        choices=("text", "json", "sarif"), default="text",
                        help="report format, as ruff's (default: text, 'path:line:col: "
                             "CODE message'); --format is the old spelling")
    parser.add_argument("--select", action="append", metavar="CODES",
                        help="only these codes or prefixes, comma-separated (e.g. NPX1,NPX301)")
    parser.add_argument("--ignore", action="append", metavar="CODES",
                        help="skip these codes or prefixes, comma-separated")
    parser.add_argument("--explain", metavar="CODE",
                        help="explain a rule (code or name) with a bad and a good example")
    parser.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    parser.add_argument("--assume-jit", nargs="?", const="npxla", choices=("npxla", "jax"),
                        metavar="{npxla,jax}",
                        help="lint every function as if it were jitted (default flavour: npxla)")
    parser.add_argument("--jit-wrapper", action="append", default=[], metavar="NAME",
                        help="a function that jits its first argument like jit(f) "
                             "(repeatable)")
    parser.add_argument("--stdin-filename", metavar="NAME",
                        help="the file name to report for '-'")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit with 0 even when there are findings")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the text output (default: only on a terminal)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (shown on a terminal for more than "
                             f"{PROGRESS_MIN_FILES - 1} files)")
    parser.add_argument("--statistics", action="store_true",
                        help="print the number of files, findings and files/second to "
                             "standard error")
    parser.set_defaults(func=run)
    return parser


class Progress:
    """A one-line progress bar on standard error (terminals only)."""

    def __init__(self, total, stream, enabled):
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.done = 0
        self._last = 0.0

    def clear(self):
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def draw(self, force=False):
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.05 and self.done < self.total:
            return
        self._last = now
        width = 30
        filled = int(width * self.done / max(1, self.total))
        self.stream.write(f"\r\033[K[{'#' * filled}{'.' * (width - filled)}] "
                          f"{self.done}/{self.total} files")
        self.stream.flush()

    def step(self):
        self.done += 1
        self.draw()


def _isatty(stream):
    try:
        return stream.isatty()
    except Exception:
        return False


def _use_color(mode, stream):
    if mode == "always":
        return True
    if mode == "never":
        return False
    return _isatty(stream) and not os.environ.get("NO_COLOR") and \
        os.environ.get("TERM") != "dumb"


def _list_rules(out):
    width = max(len(r.name) for r in RULES.values())
    for r in RULES.values():
        targets = "+".join(sorted(r.targets))
        out.write(f"{r.code}  {r.name:<{width}}  {r.severity:<7}  {targets:<9}  "
                  f"{r.format()}\n")
    return 0


def run(args, stdout=None, stderr=None, stdin=None) -> int:
    """Run `npxla lint` with parsed `args`; returns the exit status: 0 no findings,
    1 findings (0 with `--exit-zero`), 2 a usage error or a file that could not be read,
    parsed or analysed.

    A bad file does not stop the run: it is reported on `stderr` and the other files are
    still linted (and the status is 2). Text findings are printed as each file is done,
    clearing the progress bar around them; JSON and SARIF are single documents, written
    once at the end. The streams are parameters so the `npxla` front end and the tests
    can capture them."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    stdin = stdin or sys.stdin
    status = _informational(args, stdout, stderr)
    if status is not None:
        return status
    files = _files(args.paths, stderr)
    if files is None:
        return 2
    color = args.format == "text" and _use_color(args.color, stdout)
    progress = Progress(len(files), stderr, enabled=(
        not args.no_progress and len(files) >= PROGRESS_MIN_FILES and _isatty(stderr)))
    findings, failed = [], False
    started = time.perf_counter()
    progress.draw(force=True)
    for path in files:
        found = _lint_one(path, args, stdin, stderr, progress)
        failed = failed or found is None
        found = found or []
        if found and args.format == "text":
            progress.clear()
            for f in found:
                stdout.write(text_line(f, RULES, color) + "\n")
            stdout.flush()
        findings.extend(found)
        progress.step()
    progress.clear()
    elapsed = time.perf_counter() - started

    if args.format == "json":
        stdout.write(to_json(findings) + "\n")
    elif args.format == "sarif":
        stdout.write(to_sarif(findings, RULES, __version__) + "\n")
    if args.statistics:
        rate = len(files) / elapsed if elapsed > 0 else float("inf")
        stderr.write(f"{len(files)} files, {len(findings)} findings, {elapsed:.2f} s, "
                     f"{rate:.0f} files/s\n")
    if failed:
        return 2
    return 1 if findings and not args.exit_zero else 0


def _informational(args, stdout, stderr):
    """The exit status of `--list-rules`, `--explain` and of a usage error; None when
    the files are to be linted."""
    if getattr(args, "list_rules", False):
        return _list_rules(stdout)
    if getattr(args, "explain", None):
        rule = lookup(args.explain)
        if rule is None:
            stderr.write(f"npxla lint: unknown rule {args.explain!r} "
                         "(see --list-rules)\n")
            return 2
        stdout.write(rule.explain_text() + "\n")
        return 0
    try:
        selected(args.select, args.ignore)
    except ValueError as e:
        stderr.write(f"npxla lint: {e}\n")
        return 2
    if not args.paths:
        stderr.write("npxla lint: no paths given (use '-' for standard input)\n")
        return 2
    return None


def _files(paths, stderr):
    """The files to lint ("-" for standard input), or None when a path is missing."""
    files = []
    for p in paths:
        if p == "-":
            files.append("-")
        elif not os.path.exists(p):
            stderr.write(f"npxla lint: {p}: no such file or directory\n")
            return None
        else:
            files.extend(iter_files([p]))
    return files


def _lint_one(path, args, stdin, stderr, progress):
    """The findings of one file, or None when it could not be read, parsed or analysed
    (said on `stderr`)."""
    shown = path
    options = dict(assume_jit=args.assume_jit, jit_wrappers=tuple(args.jit_wrapper))
    try:
        if path == "-":
            shown = args.stdin_filename or "<stdin>"
            source = stdin.read()
            if isinstance(source, bytes):
                source = decode_source(source)
        else:
            with open(path, "rb") as fh:
                source = decode_source(fh.read())
        return lint_source(source, shown, args.select, args.ignore, **options)
    except SyntaxError as e:
        message = f"{shown}:{e.lineno or 1}:{e.offset or 1}: cannot parse: {e.msg}"
    except OSError as e:
        message = f"npxla lint: {shown}: {e.strerror or e}"
    except LintInternalError as e:
        message = f"npxla lint: internal error (please report it): {e}"
    progress.clear()
    stderr.write(message + "\n")
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="npxla lint")
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run(args)
