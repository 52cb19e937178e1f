"""`# noqa` comments: `# noqa` silences every finding on its line, `# noqa: NPX101,NPX2`
only those codes (a prefix matches every code it starts). Codes of other tools on the
same line (`# noqa: E731`) do not silence npxla findings."""
from __future__ import annotations

import re

_NOQA = re.compile(r"#\s*noqa(?::[\s]*(?P<codes>[A-Z][0-9A-Z]*(?:[\s,]+[A-Z][0-9A-Z]*)*))?",
                   re.IGNORECASE)
_ALL = "*"


def noqa_lines(source: str) -> dict:
    """Line number -> frozenset of codes silenced there ({"*"} for all)."""
    out = {}
    if "noqa" not in source and "NOQA" not in source.upper():
        return out
    for number, line in enumerate(source.splitlines(), 1):
        if "#" not in line:
            continue
        m = _NOQA.search(line, line.index("#"))
        if m is None:
            continue
        codes = m.group("codes")
        if codes:
            out[number] = frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c)
        else:
            out[number] = frozenset({_ALL})
    return out


def suppressed(finding, table) -> bool:
    for line in range(finding.line, (finding.end_line or finding.line) + 1):
        codes = table.get(line)
        if codes and (_ALL in codes or any(finding.code.startswith(c) for c in codes)):
            return True
    return False
