"""The `npxla` command line (also `python -m npxla`): convert | emit | lint | devices.

Each subcommand lives in `runtime/driver/commands/<name>.py` (`add_arguments`, `run`);
this module builds the parser and maps outcomes to exit codes: 0 success, 1 findings
or a user-level failure (a located npxla error), 2 usage or internal error. Only
`emit` and `devices` import the runtime (JAX).
"""
from __future__ import annotations

import argparse
import os
import sys

from npxla.runtime.driver.commands import CommandFailed, UsageError
from npxla.transpiler.base.version import VERSION
from npxla.runtime.driver.commands.output import style_for
from npxla.runtime.driver.commands import convert, devices, emit, lint

DESCRIPTION = """\
npxla compiles NumPy functions to XLA. This tool works on source files:
convert shows the Python that @jit stages, emit prints the StableHLO/HLO it compiles,
lint reports code @jit would refuse before anything runs, devices lists XLA devices."""

EPILOG = """\
examples:
  npxla convert --diff model.py
  npxla emit model.py::step --sig 'f64[100,100], i64[]'
  npxla lint src/
  npxla devices
  npxla COMMAND --help              options and examples of one command

exit status: 0 success, 1 findings or a function that cannot be compiled,
2 usage or internal error. Colour is used only on a terminal (--color, NO_COLOR)."""

_FORMATTER = argparse.RawDescriptionHelpFormatter


class _CommandParser(argparse.ArgumentParser):
    """A subcommand's parser: its module may rewrite its arguments before they are
    parsed (`lint.rewrite_args`: `--assume-jit PATH` is the flag, then a path)."""
    rewrite_args = None

    def parse_known_args(self, args=None, namespace=None):
        if self.rewrite_args is not None and args is not None:
            args = self.rewrite_args(list(args))
        return super().parse_known_args(args, namespace)


def _commands():
    return (
        ("convert", convert, "print/write the converted Python of @jit functions",
         convert.DESCRIPTION, convert.EPILOG),
        ("emit", emit, "print the StableHLO/HLO @jit compiles for a signature",
         emit.DESCRIPTION, emit.EPILOG),
        ("lint", lint, "report code that @jit or jax.jit would refuse (static)",
         lint.description(), lint.epilog()),
        ("devices", devices, "list the XLA devices", devices.DESCRIPTION, devices.EPILOG),
    )


def _version() -> str:
    from importlib import metadata

    parts = []
    for dist in ("numpy", "jax", "jaxlib"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    python = ".".join(map(str, sys.version_info[:3]))
    return f"npxla {VERSION} (python {python}, {', '.join(parts)})"


def _add_common(parser, default):
    """--color and --traceback, on the main parser and (SUPPRESS) on each subcommand."""
    for flags, kwargs in (
            (("--color",), dict(choices=("auto", "always", "never"),
                                default="auto" if default is None else default,
                                help="colour output: auto (on a terminal, unless NO_COLOR "
                                     "is set; default), always, never")),
            (("--traceback",), dict(action="store_true",
                                    default=False if default is None else default,
                                    help="show the Python traceback of internal errors"))):
        try:
            parser.add_argument(*flags, **kwargs)
        except argparse.ArgumentError:
            # the subcommand defines its own option of that name: keep it, but let
            # `npxla --color never lint ...` (given before the command) still count
            for action in parser._actions:
                if flags[0] in action.option_strings and default is argparse.SUPPRESS:
                    action.default = argparse.SUPPRESS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="npxla", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=_FORMATTER)
    parser.add_argument("--version", action="version", version=_version())
    _add_common(parser, None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands",
                                parser_class=_CommandParser)
    for name, module, summary, description, epilog in _commands():
        p = sub.add_parser(name, help=summary, description=description, epilog=epilog,
                           formatter_class=_FORMATTER)
        p.rewrite_args = getattr(module, "rewrite_args", None)
        module.add_arguments(p)
        _add_common(p, argparse.SUPPRESS)       # `npxla convert --color never ...` too
        p.set_defaults(run=module.run)
    return parser


def main(argv=None) -> int:
    """Run the command line; returns the exit status (the console script exits with it)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:     # --help, --version, usage errors (argparse exits 2)
        return _exit_code(e.code)
    if getattr(args, "run", None) is None:
        parser.print_usage(sys.stderr)
        sys.stderr.write("npxla: error: a command is required (convert, emit, lint, devices)\n")
        return 2
    style = style_for(sys.stderr, getattr(args, "color", "auto"))
    prefix = f"npxla {args.command}: "
    try:
        return _exit_code(args.run(args))
    except UsageError as e:
        sys.stderr.write(f"{prefix}{style.bold_red('error:')} {e}\n")
        return 2
    except CommandFailed as e:
        sys.stderr.write(f"{e}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:     # `npxla convert big.py | head`
        _silence_stdout()
        return 1
    except SystemExit as e:
        return _exit_code(e.code)
    except Exception as e:      # noqa: BLE001 - every other failure is an npxla bug
        if args.traceback or os.environ.get("NPXLA_TRACEBACK"):
            import traceback
            traceback.print_exc()
        first = str(e).splitlines()[0] if str(e) else ""
        sys.stderr.write(f"{prefix}{style.bold_red('internal error:')} "
                         f"{type(e).__name__}: {first}\n")
        if not args.traceback:
            sys.stderr.write("this is a bug in npxla; rerun with --traceback and report it\n")
        return 2


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


def _silence_stdout():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())
