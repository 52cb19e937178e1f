"""What the linter reports: a `Finding`, and the error that is the linter's own fault.

Both are shared by the engine that produces findings, the entry points that filter and
wrap them, and the front ends (command line, flake8) that print them; they live in a
module of their own so that none of those has to import another just for these types
(the package `__init__` re-exports them as the public names).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """One diagnostic. `line`/`end_line` are 1-based; `col`/`end_col` are 1-based
    character columns, `end_col` one past the last character (as in SARIF)."""
    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    code: str
    message: str

    def __str__(self):
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"

    def as_dict(self):
        return asdict(self)


class LintInternalError(Exception):
    """A bug in the linter while analysing a file (never the user's fault)."""
