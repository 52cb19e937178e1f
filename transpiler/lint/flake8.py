"""flake8 plugin: `flake8` reports npxla's lint findings (codes NPX...).

Registered in setup.cfg:

    [options.entry_points]
    flake8.extension =
        NPX = transpiler.lint.flake8:Plugin

flake8 handles `# noqa`, `--select`/`--ignore`/`--extend-select` itself.
Option: `--npx-assume-jit={npxla,jax}` lints every function as if it were jitted.
"""
from __future__ import annotations

from npxla.transpiler.base.version import VERSION as __version__
from npxla.transpiler.lint.api import lint_tree
from npxla.transpiler.lint.findings import LintInternalError


class Plugin:
    name = "npxla"
    version = __version__
    assume_jit = None

    def __init__(self, tree, filename="<unknown>", lines=None):
        self.tree = tree
        self.filename = filename
        self.lines = [l.rstrip("\r\n") for l in lines] if lines is not None else None

    @classmethod
    def add_options(cls, manager):
        manager.add_option("--npx-assume-jit", default=None, choices=["npxla", "jax"],
                           parse_from_config=True,
                           help="lint every function as if decorated with npxla's jit "
                                "(or jax.jit)")

    @classmethod
    def parse_options(cls, options):
        cls.assume_jit = getattr(options, "npx_assume_jit", None)

    def run(self):
        try:
            findings = lint_tree(self.tree, self.filename, assume_jit=self.assume_jit,
                                 lines=self.lines)
        except LintInternalError as e:
            yield (1, 0, f"NPX999 npxla-lint internal error, please report it: {e}",
                   type(self))
            return
        for f in findings:
            yield f.line, f.col - 1, f"{f.code} {f.message}", type(self)
