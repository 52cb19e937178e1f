"""Issue 38: the linter on real code. Every public array function of five published NumPy
packages (tests/lintcorpus/corpus.py) is run under `@jit` and compared with NumPy, and
linted with the function marked as jitted; the linter must flag at least 90% of the
functions `@jit` refuses or gets wrong (recall) and at least 95% of what it flags must be
refused or wrong (precision). `python -m tests.lintcorpus.report` writes the same
measurement to docs/lint-realcode.md, misses named."""
from __future__ import annotations

import pytest

from tests.lintcorpus.corpus import cases, installed
from tests.lintcorpus.measure import measure, summary

# Recall was 97.4% when issue 38 closed (>= 90% asked). @jit then compiled further into
# pymap3d (a data-dependent `if` inside `try`), and three functions stopped at a shape
# that differs between a branch's paths (85.2%); NPX139, linted where the array's rank
# is known, brought them back: 96.3% (docs/lint-realcode.md).
RECALL, PRECISION = 0.90, 0.95
MIN_FUNCTIONS = 100

slow = pytest.mark.slow


@slow
def test_linter_on_real_code():
    """One test, so that the corpus is compiled once (about a minute)."""
    missing = installed()
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (pip install -e '.[test]')")
    s = summary(measure(cases()))
    assert s["measured"] >= MIN_FUNCTIONS
    assert s["recall"] >= RECALL, f"recall {s['recall']:.3f}; missed: {s['missed']}"
    assert s["precision"] >= PRECISION, \
        f"precision {s['precision']:.3f}; flagged but compiled: {s['flagged_ok']}"
