"""`python -m tests.fuzz --count N --seed S`: run the fuzzer, print each new kind of
failure (shrunk) as it is found, then a summary table of the outcomes."""
from __future__ import annotations

import argparse
import dataclasses
import sys

from . import known, regress
from .campaign import run_campaign, run_in_processes


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    p.add_argument("--count", type=int, default=200, help="programs to run")
    p.add_argument("--seed", type=int, default=0, help="first seed (then seed+1, ...)")
    p.add_argument("--all-features", action="store_true",
                   help="also generate the known-bad families (see tests/fuzz/known.py)")
    p.add_argument("--enable", action="append", default=[], metavar="FEATURE",
                   help="turn one generator switch on (repeatable)")
    p.add_argument("--disable", action="append", default=[], metavar="FEATURE",
                   help="turn one generator switch off (repeatable)")
    p.add_argument("--family", default=None, metavar="NAME",
                   help="make every program of one family of gen_families.FAMILIES "
                        "(exact_float, default_args, arg_layouts, float_int_casts, "
                        "private_attrs, row_loops, list_builds, table_loops, reduce_loops, "
                        "swap_loops)")
    p.add_argument("--no-shrink", action="store_true", help="print failures unshrunk")
    p.add_argument("--shrink-seconds", type=float, default=60.0)
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="run in N fresh processes, 2,000 seeds each (for long runs: "
                        "bounded memory; failures are printed at the end)")
    p.add_argument("--time-limit", type=float, default=None, help="stop after N seconds")
    p.add_argument("--save", action="store_true",
                   help="write each shrunk failure to tests/fuzz/regressions/")
    p.add_argument("--refusals", action="store_true",
                   help="also shrink and print one example of each kind of refusal")
    p.add_argument("--isolate", action="store_true",
                   help="run each program in a child process (restarted when a native "
                        "crash kills it: the program is then a crash:died outcome)")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per program")
    p.add_argument("--show", type=int, default=None, metavar="SEED",
                   help="print the program for SEED and exit")
    opts = p.parse_args(argv)

    feats = known.ALL_FEATURES if opts.all_features else known.DEFAULT_FEATURES
    if opts.enable:
        feats = dataclasses.replace(feats, **{name: True for name in opts.enable})
    if opts.disable:
        feats = dataclasses.replace(feats, **{name: False for name in opts.disable})
    if opts.family:
        feats = dataclasses.replace(feats, family=opts.family)
    if opts.show is not None:
        from .gen import generate
        prog = generate(opts.show, feats)
        print(prog.source)
        from .campaign import _args_text
        print("# args:", _args_text(prog.args))   # with layouts (feature `arg_layouts`)
        return 0

    def progress(report):
        if opts.verbose:
            print(f"seed {opts.seed + report.programs - 1}: {report.last}", file=sys.stderr,
                  flush=True)
        elif report.programs % 100 == 0:
            done = ", ".join(f"{k} {report.counts[k]}" for k in report.counts)
            print(f"[{report.programs}/{opts.count}] {done}", file=sys.stderr, flush=True)

    def found(report, fail):
        print(report.failure_text(fail) + "\n", flush=True)
        if opts.save and fail.key.split(":")[0] in ("mismatch", "crash"):
            print("# saved:", regress.save(fail.source, fail.args, fail.key, fail.detail,
                                           fail.seed, fail.known) + "\n", flush=True)

    seeds = range(opts.seed, opts.seed + opts.count)
    if opts.workers:
        report = run_in_processes(seeds, feats, workers=opts.workers,
                                  time_limit=opts.time_limit,
                                  shrink_seconds=opts.shrink_seconds)
        for fail in report.failures.values():
            found(report, fail)
    else:
        report = run_campaign(seeds, feats, shrink_failures=not opts.no_shrink,
                              time_limit=opts.time_limit, shrink_seconds=opts.shrink_seconds,
                              progress=progress, refusals=opts.refusals, on_failure=found,
                              isolate=opts.isolate)
    print(f"seeds {opts.seed}..{opts.seed + report.programs - 1}, features: "
          + ", ".join(f"{f.name}={getattr(feats, f.name)}"
                      for f in dataclasses.fields(feats) if f.type == "bool")
          + (f", family={feats.family}" if feats.family else ""))
    print(report.table())
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
