"""`npxla lint`: a thin wrapper over `transpiler.lint.command` (imported lazily)."""
from __future__ import annotations

import argparse
import os

from npxla.runtime.driver.commands import UsageError, no_such_file

DESCRIPTION = """\
Report code that @jit (or jax.jit) would refuse, before anything runs: the files are
parsed, never imported. Findings are printed as path:line:col: CODE message."""

EPILOG_FALLBACK = """\
examples:
  npxla lint model.py
  npxla lint src/ --format json
  npxla lint --explain NPX101
  npxla lint --assume-jit legacy.py      every function as if it were @jit
  npxla lint --assume-jit=jax legacy.py  ... as if it were jax.jit

exit status:
  0  no findings
  1  findings
  2  usage or internal error"""


_ERROR: list = []


def _command():
    """`transpiler.lint.command`, or None when the linter is missing or broken (the
    other subcommands must keep working; `npxla lint` then reports why)."""
    try:
        from npxla.transpiler.lint import command
    except Exception as e:     # noqa: BLE001 - a missing or broken linter module
        _ERROR[:] = [e]
        return None
    return command


def available() -> bool:
    return _command() is not None


def description():
    command = _command()
    return getattr(command, "DESCRIPTION", None) or DESCRIPTION


def epilog():
    command = _command()
    return getattr(command, "EPILOG", None) or EPILOG_FALLBACK


def add_arguments(parser: argparse.ArgumentParser):
    command = _command()
    if command is None:
        parser.add_argument("paths", nargs="*", metavar="FILE")
        return
    command.add_arguments(parser)


_FLAVOURS = ("npxla", "jax")


def rewrite_args(args: list) -> list:
    """The lint subcommand's arguments with `--assume-jit` followed by anything but a
    flavour (`npxla lint --assume-jit kernels.py`) read as the flag alone: the option's
    value is taken only from `--assume-jit=VALUE` or a following `npxla`/`jax`, never
    from a path."""
    out = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + list(args[i:])
        if arg == "--assume-jit" and (i + 1 == len(args) or args[i + 1] not in _FLAVOURS):
            arg = "--assume-jit=npxla"
        out.append(arg)
    return out


def run(args) -> int:
    command = _command()
    if command is None:
        why = f": {type(_ERROR[0]).__name__}: {_ERROR[0]}" if _ERROR else ""
        raise UsageError(f"the linter (transpiler.lint.command) cannot be loaded{why}")
    if not getattr(args, "explain", None) and not getattr(args, "list_rules", False):
        for path in getattr(args, "paths", None) or ():
            if path != "-" and not os.path.exists(path):
                raise no_such_file(path)      # worded as in every other command
    return command.run(args)
