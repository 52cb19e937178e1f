"""Run the real-code corpus and print markdown tables (for docs/realcode.md).

    python -m tests.realcode.report                 # every case
    python -m tests.realcode.report skfuzzy nolds   # some packages
    python -m tests.realcode.report --plain-only    # only check the corpus's own inputs

Prints one summary table (per package: functions tried, agree, refused located, other)
and, per package, every case with its outcome and, for each that does not agree, why.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import sys
import time
from collections import Counter, defaultdict

os.environ.setdefault("NPXLA_CACHE_DIR", "off")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from tests.realcode.catalogue import CASES  # noqa: E402
from tests.realcode.runner import AGREE, LOCATED, run_case  # noqa: E402

DISTRIBUTIONS = {"peakutils": "PeakUtils", "skfuzzy": "scikit-fuzzy",
                 "numpy_financial": "numpy-financial"}


def _version(package):
    try:
        return importlib.metadata.version(DISTRIBUTIONS.get(package, package))
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="*", help="import names (default: all)")
    ap.add_argument("--plain-only", action="store_true",
                    help="run each case with NumPy only (checks the table itself)")
    opts = ap.parse_args(argv)
    cases = [c for c in CASES if not opts.packages or c.package in opts.packages]
    results = defaultdict(list)
    start = time.perf_counter()
    for c in cases:
        try:
            importlib.import_module(c.package)
        except ImportError as e:
            print(f"skipping {c.name}: {e}", file=sys.stderr)
            continue
        if opts.plain_only:
            built = c.build(0)
            fn = getattr(*built.target) if isinstance(built.target, tuple) else built.target
            try:
                fn(*built.args, **built.kwargs)
                print(f"ok    {c.name}", file=sys.stderr)
            except Exception as e:
                print(f"FAIL  {c.name}: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        outcome = run_case(c)
        results[c.package].append((c, outcome))
        print(f"{outcome.kind:18s} {outcome.seconds:6.1f}s  {c.name}", file=sys.stderr,
              flush=True)
    if opts.plain_only:
        return 0
    total = Counter()
    print("| package | version | functions tried | agree | refused, located | other |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for package in sorted(results):
        kinds = Counter(o.kind for _, o in results[package])
        n = len(results[package])
        other = n - kinds[AGREE] - kinds[LOCATED]
        total.update(kinds)
        total["n"] += n
        print(f"| {package} | {_version(package)} | {n} | {kinds[AGREE]} | "
              f"{kinds[LOCATED]} | {other} |")
    other = total["n"] - total[AGREE] - total[LOCATED]
    print(f"| **all** | | **{total['n']}** | **{total[AGREE]}** | **{total[LOCATED]}** | "
          f"**{other}** |")
    print()
    for package in sorted(results):
        print(f"### {package} {_version(package)}")
        print()
        print("| callable | outcome | reason |")
        print("| --- | --- | --- |")
        for c, o in results[package]:
            where = f" (call {o.call})" if o.call else ""
            print(f"| `{c.name}` | {o.kind}{where} | {_cell(o.reason)} |")
        print()
    print(f"_{total['n']} cases, {total[AGREE]} agree, "
          f"{time.perf_counter() - start:.0f} s_", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
