"""`npxla devices`: the XLA devices JAX's PJRT backends offer on this machine."""
from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
List the XLA devices npxla can compile for, one per line: the name to pass as
jit(..., device=NAME), NPXLA_DEVICE=NAME or npxla emit --device NAME, the device
kind, and "(default)" on the device @jit uses without device= (NPXLA_DEVICE when
set, else the best platform: gpu, then tpu, then cpu)."""

EPILOG = """\
examples:
  npxla devices
  NPXLA_DEVICE=cpu npxla devices
  npxla devices --json

exit status:
  0  devices were listed
  2  NPXLA_DEVICE names no device here, or internal error (no XLA backend could start)"""


def add_arguments(parser: argparse.ArgumentParser):
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of {name, platform, index, id, kind, "
                             "default} objects")


def run(args) -> int:
    # lazy: the XLA backends import JAX, which the other subcommands never need
    from npxla.runtime.xla.devices import DeviceNotFoundError, listing, resolve
    try:
        default = resolve(None)
    except DeviceNotFoundError as e:
        print(f"npxla devices: {e}", file=sys.stderr)
        default = None
    rows = []
    for name, device, kind in listing():
        platform, _, index = name.partition(":")
        rows.append({"name": name, "platform": platform, "index": int(index),
                     "id": device.id, "kind": kind, "default": device == default})
    if args.json:
        import json
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for row in rows:
            print(f"{row['name']}\t{row['kind']}" + ("\t(default)" if row["default"] else ""))
    return 0 if default is not None else 2
