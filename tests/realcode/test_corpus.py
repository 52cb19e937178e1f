"""Issue 34's acceptance corpus: published pure-NumPy packages, unmodified, under @jit.

Each case runs plainly and under `npxla.jit` on identical copies of its inputs, twice
(the second call from the cache, with fresh inputs); see tests/realcode/runner.py. A
case passes when everything agrees with NumPy or npxla refuses with a located
`TranspileError`; a crash, an unlocated refusal or a silent difference fails it. The
summary holds the agreement reached so far as a floor (issue 34 asks for 90%; see
docs/realcode.md for what still stands in the way). `python -m tests.realcode.report`
prints the same results as tables (docs/realcode.md).
"""
from __future__ import annotations

import functools
import importlib

import pytest

from tests.realcode.catalogue import CASES, PACKAGES
from tests.realcode.runner import ACCEPTED, AGREE, run_case

# The whole corpus takes over a minute (each case is staged and compiled, the summary
# runs every case again in its worker), so it runs with the slow tests (.ci/run).
slow = pytest.mark.slow

# measured 234 of 250 (transforms3d, pyrr and properscoring added: 21 of their 22 agree
# without Numba, all 22 with it, where properscoring's cores are @guvectorize kernels);
# 213 of 228 (filterpy's sigma points through a lambda added, which lambdas'
# conversion made agree); 212 of 227 (filterpy's UnscentedKalmanFilter made in the call added; 211 of
# 226 before, with similaritymeasures: 14 of 16; 197 of 210 with pyti, 125 of 136
# before that); the target is 0.90
AGREE_FLOOR = 234

# Silent differences whose cause lies outside what the corpus can fix: each must
# change outcome when it is fixed (strict xfail), and is counted as not agreeing.
# (simdkalman's result objects made during the call were one: fixed, `pytree.flatten`
# with `objects`.)
KNOWN_SILENT: dict = {}
MIN_CASES, MIN_PACKAGES = 60, 5


@functools.lru_cache(maxsize=None)
def _outcome(name):
    case = next(c for c in CASES if c.name == name)
    return run_case(case)


def _installed(package):
    try:
        importlib.import_module(package)
        return True
    except ImportError:
        return False


def test_corpus_size():
    assert len({c.name for c in CASES}) == len(CASES), "case names must be unique"
    assert len(CASES) >= MIN_CASES
    assert len(PACKAGES) >= MIN_PACKAGES


def _param(case):
    reason = KNOWN_SILENT.get(case.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, id=case.id, marks=marks)


@slow
@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_case(case):
    pytest.importorskip(case.package)
    outcome = _outcome(case.name)
    assert outcome.kind in ACCEPTED, f"{case.name}: {outcome}"


@slow
def test_agree_fraction():
    missing = [p for p in PACKAGES if not _installed(p)]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (pip install -e '.[test]')")
    outcomes = {c.name: _outcome(c.name) for c in CASES}
    agree = sum(o.kind == AGREE for o in outcomes.values())
    others = "\n".join(f"  {name}: {o}" for name, o in outcomes.items() if o.kind != AGREE)
    assert agree >= AGREE_FLOOR, \
        f"{agree}/{len(CASES)} cases agree with NumPy; the others:\n{others}"
