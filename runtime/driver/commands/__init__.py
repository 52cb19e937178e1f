"""The `npxla` subcommands, one module each (`convert`, `emit`, `lint`, `devices`).

Each module exposes `add_arguments(parser)` and `run(args) -> int` (the exit code);
`runtime/driver/cli.py` builds the parser and maps exceptions to exit codes. Only `emit`
and `devices` import the runtime (JAX); `convert` and `lint` stay static and JAX-free.
"""


class UsageError(Exception):
    """Bad command-line use: printed as `npxla <command>: error: ...`, exit status 2."""


class CommandFailed(Exception):
    """A user-level failure with a message ready to print (exit status 1)."""


def no_such_file(path: str) -> UsageError:
    """The one wording of a missing file or directory, in every command (exit status 2):
    `npxla <command>: error: PATH: no such file or directory`."""
    return UsageError(f"{path}: no such file or directory")
