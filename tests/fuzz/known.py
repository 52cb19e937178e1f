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
    feature: str          # the Features switch that generates this family
    description: str
    pattern: str          # regex on a shrunk program's source that marks the family


KNOWN = [
    # re-enable when fixed: views created before a loop and written inside it
    Known("view-written-in-loop", "view_write_in_loop",
          "a view or alias made before a loop and written inside it",
          r"(?s)^(?=.*\b[ua]\d+ = )(?=.*\b(for|while)\b)"),
    # re-enable when fixed: an argument mutated then rebound inside a loop
    Known("param-rebound-in-loop", "rebind_param_in_loop",
          "an argument mutated, then rebound, inside a loop",
          r"(?s)\b(for|while)\b.*\n\s+[xyz] = "),
    # re-enable when fixed: raise/assert under data-dependent conditions
    Known("data-dependent-raise", "raise_assert",
          "`raise` / `assert` under a data-dependent condition",
          r"\b(raise|assert)\b"),
    # re-enable when fixed: empty data-dependent branches / zero-trip loops inside a
    # data-dependent `if` ("operation has been invalidated")
    Known("empty-data-dependent-branch", "empty_in_dd_if",
          "an empty branch or a zero-trip loop inside a data-dependent `if`",
          r"\bpass\b|range\(0\)"),
    # re-enable when fixed: isinstance/type on arrays
    Known("isinstance-on-arrays", "isinstance_checks",
          "isinstance(...) / type(...) tests on arrays",
          r"\bisinstance\(|\btype\("),
]

DEFAULT_FEATURES = Features(**{k.feature: False for k in KNOWN})
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
