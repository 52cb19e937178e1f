"""npxla's linter: static checks that a jitted function will compile.

Pure static analysis: it parses the file (never imports or runs it), finds the
functions decorated with npxla's `jit` or `jax.jit` (see `discovery`), follows which
values are traced (`taint`) and reports what `@jit` would refuse, what `jax.jit`
rejects where npxla would not, and performance pitfalls (`rules`).

    from npxla.transpiler.lint import lint_source, lint_paths
    for f in lint_source(open("model.py").read(), "model.py"):
        print(f)                          # model.py:12:5: NPX111 boolean-mask ...

This package imports neither JAX nor the runtime.
"""
from __future__ import annotations

from npxla.transpiler.lint.api import (iter_files, lint_file, lint_paths, lint_source,
                                       lint_tree)
from npxla.transpiler.lint.findings import Finding, LintInternalError
from npxla.transpiler.lint.rules import RULES

__all__ = ["Finding", "lint_source", "lint_tree", "lint_file", "lint_paths", "iter_files",
           "RULES", "LintInternalError"]
