"""`npxla` command line: devices (more subcommands land with the CLI issue)."""
from __future__ import annotations

import argparse
import sys


def _devices(_args):
    from runtime.xla.devices import describe
    for line in describe():
        print(line)
    return 0


def main(argv=None):
    from . import __version__
    parser = argparse.ArgumentParser(prog="npxla", description="Compile NumPy code to XLA.")
    parser.add_argument("--version", action="version", version=f"npxla {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("devices", help="list the XLA devices", description="List XLA devices.")
    p.set_defaults(func=_devices)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
