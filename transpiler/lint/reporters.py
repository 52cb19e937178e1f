"""Output formats: text (`path:line:col: CODE message`), JSON, SARIF 2.1.0."""
from __future__ import annotations

import json
import os

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "npxla-lint"
HELP_URI = "docs/lint-rules.md"

_RESET = "\033[0m"
_STYLE = {"path": "\033[1m", "error": "\033[31m", "warning": "\033[33m", "dim": "\033[2m"}


def text_line(finding, rules=None, color=False) -> str:
    if not color:
        return str(finding)
    rule = (rules or {}).get(finding.code)
    sev = rule.severity if rule is not None else "error"
    return (f"{_STYLE['path']}{finding.path}{_RESET}{_STYLE['dim']}:{finding.line}:"
            f"{finding.col}:{_RESET} {_STYLE[sev]}{finding.code}{_RESET} {finding.message}")


def to_json(findings) -> str:
    return json.dumps([f.as_dict() for f in findings], indent=2)


def _uri(path):
    if path in ("-", "<stdin>"):
        return "stdin"
    return path.replace(os.sep, "/")


def to_sarif(findings, rules, version="0") -> str:
    """A SARIF 2.1.0 log of `findings`, for code-scanning services and editors.

    Every rule of `rules` is described in the log, not only those found, so that a
    viewer can explain any code; each result points at its rule by `ruleIndex`. Columns
    are counted in code points (`columnKind`), as `Finding` columns are."""
    rule_list = list(rules.values())
    index = {r.code: i for i, r in enumerate(rule_list)}
    driver = {
        "name": TOOL_NAME,
        "version": version,
        "informationUri": "https://pypi.org/project/npxla/",
        "rules": [{
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.format()},
            "fullDescription": {"text": " ".join(r.explain.split())},
            "help": {"text": r.explain_text()},
            "helpUri": f"{HELP_URI}#{r.code.lower()}",
            "defaultConfiguration": {"level": "error" if r.severity == "error" else
                                     "warning"},
            "properties": {"appliesTo": sorted(r.targets), "compilerError": r.error},
        } for r in rule_list],
    }
    results = []
    for f in findings:
        rule = rules.get(f.code)
        result = {
            "ruleId": f.code,
            "level": "error" if rule is None or rule.severity == "error" else "warning",
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.path)},
                "region": {"startLine": f.line, "startColumn": f.col,
                           "endLine": f.end_line, "endColumn": f.end_col},
            }}],
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        results.append(result)
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0",
           "runs": [{"tool": {"driver": driver}, "results": results,
                     "columnKind": "unicodeCodePoints"}]}
    return json.dumps(log, indent=2)
