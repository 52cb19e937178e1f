"""The interpreter of one function body, and the `ctx` that rule handlers receive.

Rules see the analysis only through this object: the values it computed (`value`), the
enclosing staged control flow (`staged_frames`, `in_try_body`), `report`, and which
`jit` flavour is being checked. Keeping that surface in one small class, with the
interpreter's statement, expression and call evaluation mixed in from their own modules,
is what lets the interpreter change without touching the rules.
"""
from __future__ import annotations

import ast

from npxla.transpiler.lint.calls import CallsMixin
from npxla.transpiler.lint.expressions import ExpressionsMixin
from npxla.transpiler.lint.statements import Frame, StatementsMixin
from npxla.transpiler.lint.values import MUTABLE, STATIC, UNKNOWN_STATIC, Val, const, join_all


class FunctionContext(StatementsMixin, ExpressionsMixin, CallsMixin):
    """The analysis of one function body with given argument values; also the `ctx`
    object rule handlers receive."""

    def __init__(self, analysis, fn, flavor, args, closure, depth, plain=False):
        self.analysis = analysis
        self.info = analysis.info
        self.fn = fn
        self.flavor = flavor
        self.depth = depth
        # run as plain Python, not converted (`transpiler.lint.plain`): what the
        # handlers report is collected in `failures` (those of the functions it defines
        # without calling them in `deferred_failures`): [(message, path, line)]
        self.plain = plain
        self.failures = []
        self.deferred_failures = []
        # in another module's analysis (`Analysis.collecting`): the error findings of
        # the rules, reported at the linted file's call: [(rule, message, path, line)]
        self.errors = []
        self.closure = closure or {}
        self.env = dict(args)
        self.params = frozenset(args)
        self.frames: list[Frame] = []
        self.returns = []
        self.values = {}
        self.silent = 0
        self._breaks = []
        self._continues = []
        self._handlers = analysis.handlers.get("plain" if plain else flavor, {})
        self._pending_defs = {}
        self.imports = dict(self.info.imports)
        # the Python list/dict/set changes running this function makes (its own and
        # its callees'), and those of the functions it defines without calling them:
        # {(path, line, col): (kind, what, path, line)}
        self.effects = {}
        self.deferred = {}
        self.global_names = frozenset()  # names a `global` statement declared so far
        self.exit_level = STATIC         # the level of a staged `return` seen (statements)

    # --- the analysis' facts (built on first use: straight-line code never asks) -----------
    @property
    def facts(self):
        """`ast_facts.FunctionFacts` of this function: activity, CFG, reaching
        definitions (`transpiler/analysis`)."""
        return self.analysis.facts(self.fn)

    @property
    def locals(self):
        return self.facts.local_names(self.fn)

    # --- API for rules ----------------------------------------------------------------
    def value(self, node) -> Val:
        return self.values.get(node, UNKNOWN_STATIC)

    def report(self, rule, node, message, end=None):
        if self.silent:
            return
        if self.plain:
            self.failures.append((message, self.info.path, getattr(node, "lineno", 0)))
        elif self.analysis.muted:
            return
        elif self.analysis.collecting:
            if rule.severity == "error" and rule.code.startswith("NPX1"):
                self.errors.append((rule, message, self.info.path,
                                    getattr(node, "lineno", 0)))
        else:
            self.analysis.report_cb(rule, node, message, end)

    @property
    def is_jax(self):
        return self.flavor == "jax"

    @property
    def calls_plainly(self):
        """Whether this (converted) function's calls to the other functions of its
        package are plain calls: it lives in an installed package, where @jit converts
        only the jitted function (`jax.jit` traces through everything)."""
        return self.plain or (self.analysis.library and self.flavor == "npxla")

    def staged_frames(self, min_level):
        return [f for f in self.frames if f.kind != "try" and f.level >= min_level]

    def in_try_body(self):
        return any(f.kind == "try" for f in self.frames)

    def qualify(self, node):
        return self.info.qualify(node, self.imports)

    def made_here(self):
        """The origin tag of a container `list()`/`dict()`/`set()` makes now: which
        function context and which innermost staged statement (the compiler lets that
        statement's paths change it, `runtime/operators/mutation.made_in_region`)."""
        frames = self.staged_frames(1)
        return ("made", id(self), id(frames[-1].node) if frames else None)

    def made_in_innermost(self, container):
        """Whether `container` was made by this function inside its innermost staged
        statement (so changing it there is that path's own change)."""
        tag = self.made_here()
        made = [o for o in container.origins if o[0] == "made"]
        return bool(made) and all(o == tag for o in made) and \
            all(o[0] in ("made", "new") for o in container.origins)

    def made_locally(self, container):
        """Whether `container` was made by this function (its changes stay inside)."""
        made = [o for o in container.origins if o[0] == "made"]
        return bool(made) and all(o[1] == id(self) for o in made) and \
            all(o[0] in ("made", "new") for o in container.origins)

    def emit(self, event, *args):
        if event == "container_mutation" and args[1].kind in MUTABLE and \
                not self.made_locally(args[1]):
            node = args[0]
            line = getattr(node, "lineno", 0)
            self.effects.setdefault((self.info.path, line, getattr(node, "col_offset", 0)),
                                    (args[1].kind, args[2], self.info.path, line))
        for handler in self._handlers.get(event, ()):
            handler(self, *args)

    # --- driver -----------------------------------------------------------------------
    def nodes(self, types):
        return self.analysis.nodes_of(self.fn, types)

    def run(self):
        key = (id(self.fn), "plain" if self.plain else self.flavor)
        # (a collecting analysis keeps each call's findings: the syntax rules run for each)
        if key not in self.analysis._seen or self.analysis.collecting:
            self.analysis._seen.add(key)
            self.emit("function", self.fn)
        if isinstance(self.fn, ast.Lambda):
            return self.ev(self.fn.body)
        self.block(self.fn.body, self.env)
        # nested functions never called: analyse them with traced parameters
        for name, (node, env) in list(self._pending_defs.items()):
            self._call_user(node, env, None, [], {}, unknown_args=True)
        if not self.returns:
            return const(None)
        return join_all(self.returns)

    # --- environments -----------------------------------------------------------------
    def lookup(self, name, env):
        v = env.get(name)
        if v is not None:
            return v
        if name in self.closure:
            return self.closure[name]
        return self.analysis.global_value(name)
