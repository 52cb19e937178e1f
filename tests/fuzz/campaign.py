"""Run many generated programs, tally the outcomes, shrink one example per failure kind.

Why one example per key: a single compiler bug usually fails hundreds of programs the
same way; shrinking each would cost minutes and print the same bug again. Seeds are
`seed, seed + 1, ...`, so any single program can be regenerated from its seed.
"""
from __future__ import annotations

import collections
import time
from dataclasses import dataclass, field

import numpy as np

from . import known as known_mod
from .gen import generate
from .model import Features
from .regress import literal
from .runner import KINDS, IsolatedRunner, run_source
from .shrink import shrink


@dataclass
class Failure:
    seed: int
    key: str
    source: str            # shrunk when shrinking ran, else the original program
    args: list
    detail: str
    original: str
    count: int = 1
    known: str | None = None
    seeds: list = field(default_factory=list)   # every seed that failed this way


@dataclass
class Report:
    counts: collections.Counter = field(default_factory=collections.Counter)
    keys: collections.Counter = field(default_factory=collections.Counter)
    failures: dict = field(default_factory=dict)      # key -> Failure
    refusals: dict = field(default_factory=dict)      # key -> Failure (first example)
    seconds: float = 0.0
    programs: int = 0
    last: str = ""                                    # key of the latest outcome

    def table(self) -> str:
        rows = [f"{'outcome':<10}{'programs':>10}"]
        rows += [f"{k:<10}{self.counts[k]:>10}" for k in KINDS]
        rows.append(f"{'total':<10}{self.programs:>10}   ({self.seconds:.1f} s)")
        rows.append("")
        rows += [f"{n:>8}  {k}" for k, n in self.keys.most_common() if k != "agree"]
        return "\n".join(rows)

    def failure_text(self, fail: Failure) -> str:
        label = f" [known: {fail.known}]" if fail.known else ""
        detail = "\n".join("# " + line for line in fail.detail.strip()[:1500].splitlines())
        more = "" if fail.count == 1 else \
            f" (seeds {', '.join(map(str, fail.seeds[:20]))}{', ...' * (fail.count > 20)})"
        return (f"--- {fail.key}{label}: {fail.count} program(s), first seed {fail.seed}{more}\n"
                f"{fail.source.rstrip()}\n# args: {_args_text(fail.args)}\n{detail}")


def _args_text(args) -> str:
    """The arguments as source; a large array (feature `large_args`) only by its type:
    `--show SEED` regenerates it."""
    return "[" + ", ".join(
        f"<{a.dtype.name} array of shape {a.shape}: see --show SEED>"
        if isinstance(a, np.ndarray) and a.size > _SHOWN_ELEMENTS else literal(a)
        for a in args) + "]"


_SHOWN_ELEMENTS = 64


def run_campaign(seeds, feats: Features, shrink_failures: bool = True,
                 time_limit: float | None = None, shrink_seconds: float = 60.0,
                 progress=None, refusals: bool = False, on_failure=None,
                 isolate: bool = False) -> Report:
    """Generate and run a program per seed; shrink the first failure of each key (and,
    with `refusals`, the first refusal of each key: a refusal where NumPy succeeds is
    not a wrong answer, but each kind is worth a look). `on_failure(report, failure)` is
    called as each new kind is found, so a run that dies (a hang inside XLA ends the
    process, see `runner._hung`) has already shown what it found."""
    report = Report()
    start = time.monotonic()
    child = IsolatedRunner() if isolate else None
    run = child.run if child else run_source
    try:
        _loop(report, start, seeds, feats, shrink_failures, time_limit, shrink_seconds,
              progress, refusals, on_failure, run)
    finally:
        if child is not None:
            child.close()
    report.seconds = time.monotonic() - start
    return report


def _loop(report, start, seeds, feats, shrink_failures, time_limit, shrink_seconds,
          progress, refusals, on_failure, run):
    """`run_campaign`'s loop; `run(source, args)` runs one program (here or in a child)."""
    for seed in seeds:
        if time_limit is not None and time.monotonic() - start > time_limit:
            break
        program = generate(seed, feats)
        outcome = run(program.source, program.args)
        report.programs += 1
        report.counts[outcome.kind] += 1
        report.keys[outcome.key] += 1
        report.last = outcome.key
        keep = report.failures if outcome.failed else \
            report.refusals if outcome.kind == "refused" and refusals else None
        if keep is not None:
            if outcome.key in keep:
                keep[outcome.key].count += 1
                keep[outcome.key].seeds.append(seed)
            else:
                src, args, detail = program.source, program.args, outcome.detail
                if shrink_failures:
                    src, args, shrunk, _ = shrink(src, args, outcome.key, run=run,
                                                  max_seconds=shrink_seconds)
                    detail = shrunk.detail
                hit = known_mod.classify(src)
                keep[outcome.key] = Failure(
                    seed, outcome.key, src, args, detail, program.source,
                    known=hit.name if hit else None, seeds=[seed])
                if on_failure is not None:
                    on_failure(report, keep[outcome.key])
        if progress is not None:
            progress(report)


def _chunk(args):
    seeds, feats, deadline, shrink_seconds = args
    left = None if deadline is None else deadline - time.time()
    if left is not None and left <= 0:
        return Report()
    return run_campaign(seeds, feats, time_limit=left, shrink_seconds=shrink_seconds)


def merge(into: Report, part: Report) -> Report:
    into.counts.update(part.counts)
    into.keys.update(part.keys)
    into.programs += part.programs
    for key, fail in part.failures.items():
        if key in into.failures:
            into.failures[key].count += fail.count
            into.failures[key].seeds += fail.seeds
        else:
            into.failures[key] = fail
    return into


def run_in_processes(seeds, feats: Features, chunk: int = 2000, workers: int = 1,
                     time_limit: float | None = None, shrink_seconds: float = 60.0,
                     progress=None) -> Report:
    """`run_campaign` over slices of `seeds`, each in a fresh process. Why: compiled
    programs keep some memory alive inside JAX/XLA however the jit objects are dropped,
    so one process running 100,000 programs would grow without bound; and a worker that
    a hang inside XLA ends (see `runner._hung`, which prints the program) takes only its
    own slice down, reported here as a ``crash:worker-died`` failure."""
    import concurrent.futures as cf
    import multiprocessing as mp
    seeds = list(seeds)
    slices = [seeds[i:i + chunk] for i in range(0, len(seeds), chunk)]
    report, start = Report(), time.monotonic()
    deadline = None if time_limit is None else time.time() + time_limit
    with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"),
                                max_tasks_per_child=1) as pool:
        pending = {pool.submit(_chunk, (part, feats, deadline, shrink_seconds)): part
                   for part in slices}
        for future in cf.as_completed(pending):
            try:
                merge(report, future.result())
            except Exception as e:  # noqa: BLE001 - a worker that died is a finding
                part = pending[future]
                report.failures.setdefault("crash:worker-died", Failure(
                    part[0], "crash:worker-died", "", [],
                    f"seeds {part[0]}..{part[-1]}: {type(e).__name__}: {e} (see stderr)",
                    "", seeds=[part[0]]))
                report.counts["crash"] += 1
            if progress is not None:
                progress(report)
    report.seconds = time.monotonic() - start
    return report
