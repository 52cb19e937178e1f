"""Lint rules, one per code, and the registry `RULES` (code -> rule).

Codes (stable):

* `NPX1xx`: code that npxla's `@jit` refuses (10x syntax, 11x data-dependent shapes,
  12x traced values needed as Python values, 13x staged control flow, 14x state outside
  the function, 15x functions and methods `@jit` does not compile). Each names the
  `TranspileError` (`NPX0xx`) that `@jit` raises for it.
* `NPX2xx`: code that `jax.jit` rejects although npxla's `@jit` compiles it.
* `NPX3xx`: performance pitfalls and side effects that run once, while compiling.
"""
from __future__ import annotations

from npxla.transpiler.lint.rules.base import BOTH, JAX, NPXLA, RULES, Rule, register
from npxla.transpiler.lint.rules import (syntax, shapes, concretization, formatting, staged,  # noqa: F401
                                         results, state, support, jaxrules, performance)

# keep RULES in code order whatever the import order
_ordered = dict(sorted(RULES.items()))
RULES.clear()
RULES.update(_ordered)


def lookup(code_or_name: str):
    """The rule with this code (any case) or name, else None."""
    key = code_or_name.strip()
    rule = RULES.get(key.upper())
    if rule is not None:
        return rule
    for rule in RULES.values():
        if rule.name == key.lower():
            return rule
    return None


def selected(select=None, ignore=None):
    """Codes enabled by flake8-style `select`/`ignore` prefix lists (the longer matching
    prefix wins). Raises ValueError for a prefix that matches no rule."""
    select = _prefixes(select)
    ignore = _prefixes(ignore)
    for p in select + ignore:
        if not any(code.startswith(p) for code in RULES) and not "NPX".startswith(p):
            raise ValueError(f"unknown rule code or prefix: {p}")
    out = set()
    for code in RULES:
        sel = max((len(p) for p in select if code.startswith(p)), default=-1) \
            if select else 0
        if sel < 0:
            continue
        ign = max((len(p) for p in ignore if code.startswith(p)), default=-1)
        if ign >= 0 and ign >= sel:
            continue
        out.add(code)
    return frozenset(out)


def _prefixes(value):
    if not value:
        return []
    if isinstance(value, str):
        value = [value]
    out = []
    for item in value:
        out += [p.strip().upper() for p in str(item).replace(";", ",").split(",") if p.strip()]
    return out


__all__ = ["RULES", "Rule", "register", "lookup", "selected", "NPXLA", "JAX", "BOTH"]
