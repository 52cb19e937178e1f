"""Terminal output shared by the subcommands: colour, diagnostics, a progress bar.

Colour is used only when the stream is a terminal (`--color auto`, the default), never
when `NO_COLOR` is set (https://no-color.org), always with `--color always` or
`FORCE_COLOR`. The progress bar is drawn on stderr only when it is a terminal and more
than `PROGRESS_MIN_FILES` files are processed.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

PROGRESS_MIN_FILES = 4

_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33",
          "blue": "34", "magenta": "35", "cyan": "36", "bold_red": "1;31"}


def color_enabled(stream, mode: str = "auto") -> bool:
    """Whether to colour `stream` under `--color mode` (auto / always / never)."""
    if mode == "never":
        return False
    if mode == "always":
        return True
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:      # closed stream
        return False


class Style:
    """`style.red("text")` wraps text in ANSI codes when colour is on, else returns it."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __getattr__(self, name):
        code = _CODES.get(name)
        if code is None:
            raise AttributeError(name)
        if not self.enabled:
            return lambda text: text
        return lambda text: f"\033[{code}m{text}\033[0m"


def style_for(stream, mode: str = "auto") -> Style:
    return Style(color_enabled(stream, mode))


@dataclass(frozen=True)
class Diagnostic:
    """One located message: `path:line:col: CODE message` (line and col 1-based)."""
    path: str
    line: int
    col: int
    code: str
    message: str
    hint: str = ""
    end_line: int | None = None
    end_col: int | None = None

    def render(self, style: Style | None = None, hint: bool = True) -> str:
        s = style or Style(False)
        code = s.bold_red(self.code) if self.code else ""
        text = f"{s.bold(f'{self.path}:{self.line}:{self.col}:')} {code} {self.message}"
        if hint and self.hint:
            text += "\n    " + s.cyan("hint:") + " " + self.hint
        return text


def diagnostic_from_error(err, path: str) -> Diagnostic:
    """A `TranspileError` (or SyntaxError) as a Diagnostic located in `path`."""
    if isinstance(err, SyntaxError):
        return Diagnostic(path, err.lineno or 1, err.offset or 1, "E999",
                          f"SyntaxError: {err.msg}")
    loc = getattr(err, "location", None)
    line = loc.line if loc else 1
    col = loc.col + 1 if loc else 1
    end_col = loc.end_col + 1 if loc and loc.end_col is not None else None
    return Diagnostic(path, line, col, getattr(err, "code", "NPX000"),
                      f"{type(err).__name__}: {getattr(err, 'message', str(err))}",
                      getattr(err, "hint", "") or "", line, end_col)


def diagnostic_from_finding(f) -> Diagnostic:
    """A linter Finding (path, line, col, end_line, end_col, code, message)."""
    return Diagnostic(str(f.path), f.line, f.col, f.code, f.message, "",
                      getattr(f, "end_line", None), getattr(f, "end_col", None))


class Progress:
    """`[#####.....]  12/40  path` on one stderr line, redrawn in place; silent unless
    the stream is a terminal and there are more than PROGRESS_MIN_FILES items."""

    def __init__(self, total: int, stream=None, enabled: bool | None = None, width: int = 30):
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.width = width
        self.done = 0
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty()) and total > PROGRESS_MIN_FILES
        self.enabled = enabled
        self._last_len = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def advance(self, label: str = ""):
        self.done += 1
        if not self.enabled:
            return
        filled = self.width * self.done // max(1, self.total)
        bar = "#" * filled + "." * (self.width - filled)
        text = f"[{bar}] {self.done:>{len(str(self.total))}}/{self.total} {label}"
        text = text[:max(20, _columns() - 1)]
        pad = " " * max(0, self._last_len - len(text))
        self.stream.write(f"\r{text}{pad}")
        self.stream.flush()
        self._last_len = len(text)

    def write(self, text: str):
        """Print a message line without garbling the bar."""
        if self.enabled and self._last_len:
            self.stream.write("\r" + " " * self._last_len + "\r")
            self._last_len = 0
        self.stream.write(text if text.endswith("\n") else text + "\n")
        self.stream.flush()

    def close(self):
        if self.enabled and self._last_len:
            self.stream.write("\r" + " " * self._last_len + "\r")
            self.stream.flush()
            self._last_len = 0


def _columns() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80
