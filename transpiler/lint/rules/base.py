"""The rule registry: one `Rule` subclass per lint code.

A rule declares its code, a stable kebab-case name, a one-line `message` (a format
string; `report` fills its fields), an `explain` text with a `bad` and a `good`
example, a `severity` ("error": the function will not compile; "warning": it compiles
but does not do what it seems), which jit flavours it applies to (`targets`), and the
error that `@jit` (or `jax.jit`) raises for the same code. It implements one or more
`on_<event>` handlers that the analysis calls (see `transpiler.lint.taint`).
"""
from __future__ import annotations

import textwrap

NPXLA, JAX = "npxla", "jax"
BOTH = frozenset({NPXLA, JAX})

RULES: dict = {}          # code -> Rule instance, in code order


class Rule:
    code = ""
    name = ""
    message = ""
    explain = ""
    bad = ""
    good = ""
    severity = "error"
    targets = BOTH
    # whether the refusal is the same in code @jit calls as plain Python (an installed
    # package's helpers, `transpiler.lint.plain`): what it reports there makes the call
    # fail (the value needed in Python, the unsupported function), and is reported at
    # the call
    plain = False
    error = ""            # what the compiler raises for the same code
    # For the consistency tests: arguments to call the bad/good examples with, as Python
    # source evaluated with numpy as np (None: not checked by running it).
    example_args = None
    defaults: dict = {}
    # a rule that mirrors a compiler refusal names its catalogue entry: the code, name,
    # message and compiler error then come from there (transpiler/base/catalogue.py)
    refusal = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        entry = cls.__dict__.get("refusal")
        if entry is not None:
            cls.code, cls.name, cls.message = entry.code, entry.name, entry.message
            cls.error = " / ".join(f"{e.__name__} ({e.code})"
                                   for e in (entry.error,) + entry.also) + (
                f"; {cls.jax_note}" if getattr(cls, "jax_note", "") else "")

    def format(self, **fields):
        values = dict(self.defaults)
        values.update(fields)
        try:
            return self.message.format(**values)
        except (KeyError, IndexError):
            return self.message

    def report(self, ctx, node, end=None, **fields):
        ctx.report(self, node, self.format(**fields), end)

    @property
    def applies_to(self):
        return ", ".join(f"`{t}`" for t in (
            ["npxla @jit"] if NPXLA in self.targets else []) + (
            ["jax.jit"] if JAX in self.targets else []))

    def explain_text(self) -> str:
        """The `--explain` text: plain text, examples indented."""
        parts = [f"{self.code} {self.name} ({self.severity})", "",
                 self.format(), "", textwrap.dedent(self.explain).strip(), ""]
        parts.append("Applies to: " + self.applies_to.replace("`", ""))
        if self.error:
            parts.append("Compiler error: " + self.error)
        parts += ["", "Bad:", textwrap.indent(textwrap.dedent(self.bad).strip(), "    "), "",
                  "Good:", textwrap.indent(textwrap.dedent(self.good).strip(), "    ")]
        return "\n".join(parts)


def register(cls):
    """Class decorator: add a rule (instantiated once) to RULES."""
    rule = cls()
    if not rule.code or rule.code in RULES:
        raise ValueError(f"bad or duplicate rule code {rule.code!r}")
    RULES[rule.code] = rule
    return cls
