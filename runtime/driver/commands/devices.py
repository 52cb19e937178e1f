"""`npxla devices`: the XLA devices JAX's PJRT backends offer on this machine."""
from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
List the XLA devices npxla can compile for, one per line: the name to pass as
jit(..., device=NAME) or npxla emit --device NAME, and the device kind. The first
line is the device @jit uses by default (gpu, then tpu, then cpu)."""

EPILOG = """\
examples:
  npxla devices
  npxla devices --json

exit status:
  0  devices were listed
  2  internal error (no XLA backend could start)"""


def add_arguments(parser: argparse.ArgumentParser):
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of {name, platform, id, kind} objects")


def run(args) -> int:
    # lazy: the XLA backends import JAX, which the other subcommands never need
    from npxla.runtime.xla.devices import available_platforms, backend
    rows = []
    for platform in available_platforms():
        for d in backend(platform).local_devices():
            rows.append({"name": f"{platform}:{d.id}", "platform": platform, "id": d.id,
                         "kind": d.device_kind})
    if args.json:
        import json
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for row in rows:
            print(f"{row['name']}\t{row['kind']}")
    return 0
