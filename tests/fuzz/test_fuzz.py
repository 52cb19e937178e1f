"""Differential fuzzing in the test suite: random programs must agree with NumPy or be
refused with a located error; shrunk past failures must stay fixed.

The default run covers a fixed list of seeds (cheap: about a tenth of a second per
program), with the known-bad families of `known.KNOWN` switched off. The slow run
(`-m slow`) covers 100,000 seeds and is sized and split by environment variables:

    NPXLA_FUZZ_COUNT    programs in all (default 100000)
    NPXLA_FUZZ_SEED     first seed (default 1000000, away from the default run's seeds)
    NPXLA_FUZZ_SHARD    "i/n": run the i-th of n contiguous slices (0-based)
    NPXLA_FUZZ_SECONDS  stop after this many seconds (what ran so far still counts;
                        default 2400, so that a CI run of the slow tests stays well inside
                        its limit; 0 runs every seed: 100,000 programs take about 1.5 h
                        with 2 workers on a 2-core machine)
    NPXLA_FUZZ_ALL      "1": generate the known-bad families too
    NPXLA_FUZZ_WORKERS  processes in parallel (default: the CPU count, at most 4; each
                        runs 2,000 seeds, then exits)
    NPXLA_FUZZ_LARGE_SECONDS  the time box of the slow campaign over large arguments
                        (feature `large_args`; default 60)
    NPXLA_FUZZ_EFFECTS_SECONDS  the time box of the slow campaign over side effects and
                        an installed package (features `effects`, `helpers_pkg`;
                        default 90)

The program families of gen_families.py (`exact_float`, `default_args`, `arg_layouts`,
`float_int_casts`, `private_attrs`) each make about 5% of the default campaign's
programs; `test_program_families` runs a few seeds of each, and `python -m tests.fuzz
--family NAME` a campaign of one.

Features `effects` and `helpers_pkg` are off in the default campaign (their programs
run twice and compare more state); `test_random_programs_with_effects` covers a few
seeds of them in the default run: `python -m tests.fuzz --enable effects --enable
helpers_pkg` runs them from the command line.
"""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

from . import regress
from .campaign import run_campaign, run_in_processes
from .gen_families import FAMILIES
from .known import ALL_FEATURES, DEFAULT_FEATURES, KNOWN, SLOW_COMPILE
from .runner import run_function

DEFAULT_SEEDS = 30      # the default run stays under 5 minutes; the slow run takes many more
CHUNK = 15


def _message(report) -> str:
    parts = [report.table(), ""]
    for fail in report.failures.values():
        parts += [report.failure_text(fail), ""]
    parts.append("regenerate with: python -m tests.fuzz --show SEED; "
                 "rerun with: python -m tests.fuzz --count N --seed S")
    return "\n".join(parts)


@pytest.mark.parametrize("start", range(0, DEFAULT_SEEDS, CHUNK),
                         ids=lambda s: f"seeds{s}-{s + CHUNK - 1}")
def test_random_programs(start):
    report = run_campaign(range(start, start + CHUNK), DEFAULT_FEATURES, shrink_seconds=30)
    assert report.programs == CHUNK
    assert not report.failures, "\n" + _message(report)


FAMILY_SEEDS = range(7000, 7003)     # a few seconds per family


@pytest.mark.parametrize("family", FAMILIES)
def test_program_families(family):
    """Each family of gen_families.py on a few seeds of its own: bit-exact float
    programs, casts of NaN/inf/out-of-range floats, array defaults changed between two
    calls, non-contiguous and read-only arguments, bound methods with private
    attributes. (They also make about a quarter of `test_random_programs`' seeds.)"""
    report = run_campaign(FAMILY_SEEDS, DEFAULT_FEATURES.replace(family=family),
                          shrink_seconds=30)
    assert report.programs == len(FAMILY_SEEDS)
    assert not report.failures, "\n" + _message(report)


def test_random_programs_with_one_element_windows(monkeypatch):
    """Every data-bounded slice starts as a window of one element (see
    `numpy/bounded_window`): nearly every such program overflows, widens and reruns."""
    from npxla.runtime.numpy.indexing import bounded_window
    monkeypatch.setattr(bounded_window, "FIRST", 1)
    monkeypatch.setattr(bounded_window, "MIN_AXIS", 4)
    report = run_campaign(range(2000, 2008), DEFAULT_FEATURES, shrink_seconds=30)
    assert not report.failures, "\n" + _message(report)


def _slow_seeds():
    count = int(os.environ.get("NPXLA_FUZZ_COUNT", "100000"))
    first = int(os.environ.get("NPXLA_FUZZ_SEED", "1000000"))
    shard = os.environ.get("NPXLA_FUZZ_SHARD", "0/1")
    i, n = (int(p) for p in shard.split("/"))
    per = -(-count // n)
    lo = first + i * per
    return range(lo, min(lo + per, first + count))


@pytest.mark.slow
def test_random_programs_slow():
    seconds = float(os.environ.get("NPXLA_FUZZ_SECONDS", "2400"))
    feats = ALL_FEATURES if os.environ.get("NPXLA_FUZZ_ALL") == "1" else DEFAULT_FEATURES
    workers = int(os.environ.get("NPXLA_FUZZ_WORKERS", str(min(4, os.cpu_count() or 1))))
    report = run_in_processes(_slow_seeds(), feats, chunk=2000, workers=workers,
                              shrink_seconds=60, time_limit=seconds or None)
    print("\n" + report.table())
    # families in known.KNOWN are documented bugs being fixed: listed, not failed on
    for fail in report.failures.values():
        if fail.known is not None:
            print(f"known ({fail.known}): seeds {fail.seeds[:5]}")
    report.failures = {k: f for k, f in report.failures.items() if f.known is None}
    assert not report.failures, "\n" + _message(report)


def _column_sum_powers(y):
    for _ in range(60):
        y[11] *= np.sum(y, axis=0)
    return y


def _doubled(y):
    y[11] *= 2.0
    return y.sum(axis=0)


def test_ill_conditioned_programs_are_told_apart():
    """A program whose NumPy answer itself moves past the tolerance under a one-ulp
    change of its float inputs (found by the large-argument campaign: summing float32
    column sums in another order changed NumPy's result by up to 2.5) is classified
    `documented:ill-conditioned`, not a mismatch; a well-conditioned one is not."""
    from .runner import _ill_conditioned
    y = np.random.default_rng(4800557).normal(size=(98, 104)).astype(np.float32)
    expected = _column_sum_powers(y.copy())
    assert _ill_conditioned(_column_sum_powers, [y], expected, [expected], None)
    after = y.copy()
    assert not _ill_conditioned(_doubled, [y], _doubled(after), [after], None)


@pytest.mark.slow
def test_random_programs_with_large_arguments_slow():
    """Programs over arguments of 4,096-12,000 elements (feature `large_args`), where
    XLA:CPU takes other code paths than on the default run's few elements (its YNNPACK
    max/min skipped NaN there), with transcendental functions (NumPy's own loops at
    that size, `host_ufuncs`). NPXLA_FUZZ_LARGE_SECONDS bounds it (default 60)."""
    import dataclasses
    seconds = float(os.environ.get("NPXLA_FUZZ_LARGE_SECONDS", "60"))
    feats = dataclasses.replace(DEFAULT_FEATURES, large_args=True, transcendental=True)
    workers = int(os.environ.get("NPXLA_FUZZ_WORKERS", str(min(4, os.cpu_count() or 1))))
    report = run_in_processes(range(3_000_000, 3_100_000), feats, chunk=500,
                              workers=workers, shrink_seconds=60, time_limit=seconds)
    print("\n" + report.table())
    # a time-out of a program with a data-dependent return in nested loops is the slow
    # compile of issue 35 item 5 (known.SLOW_COMPILE): listed, not failed on; any other
    # failure of such a program still fails
    for key, fail in list(report.failures.items()):
        if "no result after" in key and re.search(SLOW_COMPILE.pattern, fail.original):
            print(f"known slow compile ({SLOW_COMPILE.name}): seeds {fail.seeds[:5]}")
            del report.failures[key]
    assert not report.failures, "\n" + _message(report)


EFFECT_FEATURES = DEFAULT_FEATURES.replace(effects=True, helpers_pkg=True)
EFFECT_SEEDS = range(5000, 5006)     # a few seconds


def test_random_programs_with_effects():
    """Features `effects` and `helpers_pkg`: programs that store attributes of an outside
    object, mutate outside lists and dicts, rebind globals (also inside data-dependent
    flow, where a located refusal that leaves the state untouched is right) and call
    helpers of an installed package; results, objects and globals must agree with
    NumPy on two calls (the second served from the cache)."""
    report = run_campaign(EFFECT_SEEDS, EFFECT_FEATURES, shrink_seconds=30)
    assert report.programs == len(EFFECT_SEEDS)
    assert report.counts["agree"] > 0
    assert not report.failures, "\n" + _message(report)


@pytest.mark.slow
def test_random_programs_with_effects_slow():
    """The same families over many seeds, time-boxed by NPXLA_FUZZ_EFFECTS_SECONDS
    (default 90); failures of a family listed in known.KNOWN are printed, not failed on."""
    seconds = float(os.environ.get("NPXLA_FUZZ_EFFECTS_SECONDS", "90"))
    workers = int(os.environ.get("NPXLA_FUZZ_WORKERS", str(min(4, os.cpu_count() or 1))))
    report = run_in_processes(range(4_000_000, 4_100_000), EFFECT_FEATURES, chunk=500,
                              workers=workers, shrink_seconds=60, time_limit=seconds)
    print("\n" + report.table())
    for fail in report.failures.values():
        if fail.known is not None:
            print(f"known ({fail.known}): seeds {fail.seeds[:5]}")
    report.failures = {k: f for k, f in report.failures.items() if f.known is None}
    assert not report.failures, "\n" + _message(report)


@pytest.mark.parametrize("path", regress.cases(), ids=os.path.basename)
def test_regression(path):
    """A saved, shrunk failure: it must now agree or be refused with a location."""
    module, args = regress.load(path)
    outcome = run_function(module.f, args, module.__fuzz_files__)
    if outcome.failed:
        known = {k.name: k for k in KNOWN}.get(getattr(module, "KNOWN", None))
        if known is not None:
            pytest.xfail(f"known, being fixed: {known.description}")
        pytest.fail(f"{outcome.key}\n{outcome.detail}\n(regression file: {path})")
