"""Failure families that are being fixed right now, each behind a generator switch.

Why a list and switches instead of expected failures: the default test must fail on
any *new* difference, so a family that is already known is not generated there at all
(its switch is off) rather than tolerated; the slow run and the CLI can still turn it
back on (`--all-features`, `NPXLA_FUZZ_ALL=1`) to check a fix. Delete an entry, and
the switch-off in `DEFAULT_FEATURES`, when its fix lands.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .model import Features


@dataclass(frozen=True)
class Known:
    name: str
    feature: str | None   # the Features switch that generates this family (None: none)
    description: str
    pattern: str          # regex on a shrunk program's source that marks the family


# Fixed and switched back on (keep a family here, with its switch off in the default
# run, only while its fix is being written):
#   view-written-in-loop, param-rebound-in-loop, data-dependent-raise,
#   empty-data-dependent-branch, isinstance-on-arrays
#   bounded-broadcast-one, bounded-norm-call (run-time lengths, gen_bounded.py)
#   inplace-update-reads-its-own-row-after-mask-write (an XLA:CPU fusion bug worked
#   around in runtime/lowering/inplace.py)
#   xla-contracts-float-arithmetic, xla-reassociates-chained-division,
#   xla-reassociates-constant-sums (products, quotients and sums with a constant are
#   rounded where computed, runtime/lowering/rounding.py), contiguous-conversion-aliases,
#   masked-store-of-float-scalar-checked, readonly-write-of-same-values-not-raised,
#   readonly-write-then-raise-raises-the-later-error (a program staged knowing which
#   arguments are read-only raises where the write happens)
KNOWN: list = []

# A slow compile, not a wrong answer (issue 35, item 5): a data-dependent `return` inside
# nested loops that are unrolled re-emits its selection at every later read, so the
# module doubles per loop level; over the large arguments of `large_args` XLA then
# takes 80 s or more to compile one such program, and the campaign's per-program time
# box reports a crash. Only that time-out is tolerated for it (test_fuzz.py).
SLOW_COMPILE = Known(
    "nested-loop-return-slow-compile", None,
    "a data-dependent return inside nested loops makes a module that takes XLA over "
    "the time box to compile (issue 35, item 5)",
    r"(?:for|while) [^\n]*:\n(?:[^\n]*\n)*?[ ]+(?:for|while) [^\n]*:\n(?:[^\n]*\n)*?"
    r"[ ]+return ")

DEFAULT_FEATURES = Features(**{k.feature: False for k in KNOWN if k.feature})
ALL_FEATURES = Features()


def classify(source: str) -> Known | None:
    """The known family a shrunk failing program most likely belongs to, if any (a
    heuristic on its source, good enough to label CLI output and regression files)."""
    try:
        code = ast.unparse(next(s for s in ast.parse(source).body
                                if isinstance(s, ast.FunctionDef) and s.name == "f"))
    except (StopIteration, SyntaxError):
        code = source
    whole = source
    for known in reversed(KNOWN):  # the most specific patterns are last
        if re.search(known.pattern, whole if known.feature != "rebind_param_in_loop"
                     else code):
            return known
    return None
