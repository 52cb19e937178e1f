"""Runs the rules over one parsed module: discovery, traced-value analysis of every
jitted function (and what it calls), module-wide rules, findings."""
from __future__ import annotations

from npxla.transpiler.analysis.jit_discovery import jit_flavor
from npxla.transpiler.lint.discovery import all_functions, discover, module_info
from npxla.transpiler.lint.findings import Finding
from npxla.transpiler.lint.plain import PLAIN
from npxla.transpiler.lint.rules import RULES, selected
from npxla.transpiler.lint.rules.base import Rule
from npxla.transpiler.lint.taint import Analysis

_EVENTS = ("function", "call", "subscript", "control", "iterate", "inplace",
           "container_mutation", "callee_mutation", "plain_call", "attribute_store",
           "global_store", "carry", "paths_joined")


def _handlers(rules):
    """{"npxla" | "jax" | "plain": {event: [handler]}}: the rules for each jit flavour,
    and for code run as plain Python the rules marked `plain` and `plain.PLAIN`."""
    out = {}
    for flavor in ("npxla", "jax", "plain"):
        if flavor == "plain":
            chosen = [r for r in rules if r.plain] + [PLAIN]
        else:
            chosen = [r for r in rules if flavor in r.targets]
        table = {}
        for rule in chosen:
            for event in _EVENTS:
                method = getattr(type(rule), "on_" + event, None)
                if method is not None:
                    table.setdefault(event, []).append(getattr(rule, "on_" + event))
        out[flavor] = table
    return out


class _Positions:
    def __init__(self, path, lines):
        self.path = path
        self.lines = lines

    def column(self, line, col):
        """0-based UTF-8 byte offset -> 1-based character column."""
        if col is None:
            return 1
        if self.lines is not None and 0 < line <= len(self.lines):
            text = self.lines[line - 1]
            if not text.isascii():
                col = len(text.encode("utf-8")[:col].decode("utf-8", errors="ignore"))
        return col + 1


class ModuleContext:
    """What module-wide rules (`on_module`) receive."""

    def __init__(self, info, report):
        self.info = info
        self._report = report

    def jit_flavor(self, node):
        return jit_flavor(self.info, node)

    def report(self, rule, node, message, end=None):
        self._report(rule, node, message, end)


def run(tree, path, select=None, ignore=None, *, assume_jit=None, jit_wrappers=(),
        jitted=(), lines=None, targets=None):
    """Findings for a parsed module. `targets` (a list of `discovery.JitTarget`)
    replaces discovery when given.

    A function of the file can be analysed several times (once per jitted caller and
    argument values), and would report the same problem each time: findings are kept
    once per (line, column, code), the first report winning, and returned in source
    order, so the output does not depend on the order of analysis."""
    codes = selected(select, ignore)
    rules = [r for code, r in RULES.items() if code in codes]
    if not rules:
        return []
    info = module_info(tree, path)
    positions = _Positions(path, lines)
    findings = {}

    def report(rule: Rule, node, message, end=None):
        line = getattr(node, "lineno", None) or 1
        col = getattr(node, "col_offset", 0)
        end_node = end if end is not None else node
        end_line = getattr(end_node, "end_lineno", None) or line
        end_col = getattr(end_node, "end_col_offset", None)
        if end_col is None:
            end_line, end_col = line, col + 1
        f = Finding(path, line, positions.column(line, col), end_line,
                    positions.column(end_line, end_col), rule.code, message)
        findings.setdefault((f.line, f.col, f.code), f)

    found = discover(info, wrappers=frozenset(jit_wrappers), extra=tuple(jitted))
    targets = found if targets is None else list(targets)
    mctx = ModuleContext(info, report)
    for rule in rules:
        if hasattr(rule, "on_module"):
            rule.on_module(mctx, tree)

    if assume_jit:
        seen = {id(t.node) for t in targets}
        targets += [t for t in all_functions(info, assume_jit) if id(t.node) not in seen]
    if targets:
        analysis = Analysis(info, _handlers(rules), report)
        for target in targets:
            analysis.analyze_target(target)
    return sorted(findings.values(), key=lambda f: (f.line, f.col, f.code))
