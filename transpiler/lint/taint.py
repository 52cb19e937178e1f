"""Traced-value analysis: an abstract interpreter over a jitted function's AST.

This module is the analysis' entry point (`Analysis`, which the engine creates once per
linted module) and holds what every analysed function of that module shares: the values
of module-level names, per-function caches, and the results of calls already analysed
with the same arguments. The interpreter of one function body is
`interpreter.FunctionContext`, split by syntax into `statements`, `expressions` and
`calls`.

The interpreter runs the function's statements in order on `values.Val`s instead of real values:
arguments start as traced (`MAYBE`, or `DATA` when the function uses them as arrays;
static arguments are `STATIC`), assignments, calls, subscripts and operators compute new
values, branches are analysed separately and joined, loops are iterated to a fixed
point. Control flow on traced values also taints what it assigns (a variable assigned in
a branch on `x.sum() > 0` is traced after it), and the variables a data-dependent
branch or loop rebinds on some paths only are tracked for the aliasing rule.

Calls to functions of the same file are analysed with the argument values of the call
(findings inside them point at their lines); nested functions and lambdas too. In a
file of an installed package, `@jit` converts only the jitted function and calls the
package's other functions as plain Python: those calls are analysed as plain code
(`plain`), and what would fail there is reported at the call.

Which names a branch or loop rebinds, which assignments reach a use, and whether a
function falls off its end are not worked out here: they are the converter's own
analyses (`transpiler/analysis`), asked through `ast_facts.FunctionFacts` (`facts`).

Rules do not walk the tree themselves: the interpreter calls their `on_<event>`
handlers with the values at the point of the event:

* `on_function(ctx, fn)`: once per analysed function (syntax rules).
* `on_call(ctx, node, callee, args, kwargs)`: every call; `callee` is the callee's
  value (`REF` with `qual` for library functions, `METHOD` with the receiver in
  `items[0]` and the method name in `qual`).
* `on_subscript(ctx, node, base, index, mode, value)`: `x[i]` read (`mode="load"`),
  assigned (`"store"`, `value` is the assigned value) or updated (`"aug"`).
* `on_control(ctx, node, kind, cond)`: `if`, `while`, `for` (cond: the range bound or
  the iterable), `ifexp`, `boolop`, `not`, `assert`, `compare` (chains).
* `on_iterate(ctx, node, iterable, how)`: Python-level iteration (comprehensions,
  `list(...)`, `*x`), not `for` statements.
* `on_inplace(ctx, node, name, val)`: an in-place update of the array bound to `name`
  (`y += v`, `y[i] = v`, `out=y`).
* `on_container_mutation(ctx, node, container, what)`: a Python list/dict/set changes.
* `on_callee_mutation(ctx, node, callee, effect)`: a call to a function that changes a
  Python list/dict/set when it runs (itself, through what it calls, or through the
  wrapper a decorator puts around it); `effect` is `(kind, what, path, line)` of one
  such change.
* `on_plain_call(ctx, node, name, lib, failure)`: a call to a function of the installed
  package being linted, which runs as plain Python and fails on its traced arguments;
  `failure` is `(what, path, line)` of the first thing that fails.

Every analysed call also gives back the container changes it makes (its "effects"),
because `@jit` refuses them inside a data-dependent branch of any caller up the stack,
while the callee, analysed alone, sees no such branch. Helpers of other modules of the
user's code are found statically (`modules`) and analysed silently for their effects.
"""
from __future__ import annotations

import ast
import os
from typing import NamedTuple

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.analysis.ast_facts import FunctionFacts
from npxla.transpiler.lint import modules
from npxla.transpiler.lint.calls import default_of, parameters
from npxla.transpiler.lint.evidence import parameter_evidence
from npxla.transpiler.lint.interpreter import FunctionContext
from npxla.transpiler.lint.values import (ARRAY, DATA, DICT, FUNC, LIST, MAYBE, REF, RNG,
                                          NUMBER, SET, TUPLE, UNKNOWN, UNKNOWN_STATIC, Val,
                                          const, max_level, ref_value)

_MAX_CALL_DEPTH = 4


class Analysis:
    """Analyses the jitted functions of one module and collects findings."""

    def __init__(self, info, handlers, report, project=None, module_depth=0):
        self.info = info
        self.handlers = handlers          # flavor -> event -> [callable]
        self.report_cb = report
        self.module_depth = module_depth  # how many imports away from the linted file
        # shared by the analyses of one lint run: other modules' analyses by file,
        # decorator effects, and the decorators being summarised (recursion guard)
        self.project = project if project is not None else {"modules": {}, "decorators": {},
                                                            "busy": set()}
        self.muted = 0                    # > 0: analysing for effects only, no reports
        # another module of the user's code, read for a call from the linted file: what
        # its rules find is collected with the call's outcome (`Outcome.errors`) and
        # reported at the call, not at lines of a file that is not being linted
        self.collecting = report is None
        # a file of an installed package: @jit converts only its jitted functions and
        # calls the package's other functions, in any of its modules, as plain Python
        self.library = modules.installed_file(info.path)
        self.package = modules.package_root(info.path) if self.library else None
        self._imports = None
        self._cache = {}                  # (fn id, flavor, plain, arg key) -> Outcome
        self._foreign = {}                # qual -> foreign_function(qual)
        self._active = set()
        self._globals = {}
        self._nodes = {}                  # fn id -> {node type: [nodes]}
        self._seen = set()                # (fn id, flavor) whose syntax was checked

    def facts(self, fn):
        """The activity, CFG and reaching definitions of `fn` (a def or a lambda of this
        module): `transpiler.analysis`'s own, through `ast_facts`. One gast copy is
        analysed per outermost function asked about; the functions nested in it share
        it, and it is kept with the parsed module (`ModuleInfo.facts`)."""
        table = self.info.facts
        hit = table.get(id(fn))
        if hit is None:
            hit = FunctionFacts(fn)
            for node in hit.functions:
                table[id(node)] = hit
        return hit

    def evidence(self, fn):
        """(array parameters, real-number parameters) of `fn` (`evidence` module).

        A parameter with either starts the analysis as array data (`DATA`) rather than
        as a value that may be a Python int (`MAYBE`), which is what lets the rules
        about values needed as Python values and about data-dependent branches fire on
        it under npxla's `@jit`."""
        return parameter_evidence(fn, self.nodes_of, self.info.qualify,
                                  lambda: self.facts(fn))

    def nodes_of(self, fn, types):
        """Nodes of the given types anywhere in `fn` (nested functions included)."""
        table = self._nodes.get(id(fn)) or self.info.node_tables.get(id(fn))
        if table is None:
            table = {}
            for node in ast.walk(fn):
                table.setdefault(type(node), []).append(node)
            self._nodes[id(fn)] = table
        if isinstance(types, type):
            types = (types,)
        out = []
        for t in types:
            out.extend(table.get(t, ()))
        return out

    # --- module-level values ----------------------------------------------------------
    def global_value(self, name):
        hit = self._globals.get(name)
        if hit is not None:
            return hit
        info = self.info
        outside = frozenset({("outside", name)})
        if name in info.functions:
            v = Val(kind=FUNC, func=(info.functions[name], None), qual=name)
        elif name in info.imports:
            v = ref_value(self.library_name(name, set()) or info.imports[name])
        elif name in info.module_values:
            v = self._module_value(info.module_values[name]).replace(origins=outside)
        elif name in info.assigned:
            v = Val(origins=outside)
        else:
            # a library name, or one a `from .m import *` brings (`?name`: followed)
            qual = info.qualify(ast.Name(id=name, ctx=ast.Load()))
            v = Val(kind=REF, qual=qual) if qual and (
                not qual.startswith("?") or self.foreign_function(qual)) else \
                Val(origins=outside)
        self._globals[name] = v
        return v

    def _module_value(self, node):
        if isinstance(node, ast.Constant):
            return const(node.value)
        if isinstance(node, ast.List):
            return Val(kind=LIST)
        if isinstance(node, (ast.Dict, ast.DictComp)):
            return Val(kind=DICT)
        if isinstance(node, (ast.Set, ast.SetComp)):
            return Val(kind=SET)
        if isinstance(node, ast.ListComp):
            return Val(kind=LIST)
        if isinstance(node, ast.Tuple):
            return Val(kind=TUPLE, items=tuple(self._module_value(e) for e in node.elts))
        if isinstance(node, ast.Call):
            qual = self.info.qualify(node.func) or ""
            if qual.startswith("numpy.random.") and \
                    qual.rsplit(".", 1)[-1] in K.RANDOM_GENERATORS:
                return Val(kind=RNG)
            if qual.startswith("numpy.") or qual.startswith("jax.numpy."):
                return Val(kind=ARRAY)
            if qual in ("builtins.list",):
                return Val(kind=LIST)
            if qual in ("builtins.dict", "collections.defaultdict",
                        "collections.OrderedDict"):
                return Val(kind=DICT)
            if qual in ("builtins.set",):
                return Val(kind=SET)
        return UNKNOWN_STATIC

    # --- entry points -----------------------------------------------------------------
    def analyze_target(self, target):
        fn = target.node
        arrays, reals = self.evidence(fn)
        args = {}
        for i, a in enumerate(parameters(fn)):
            name = a.arg
            if name in K.NAMESPACE_NAMES and default_of(fn, a) is None:
                # `xp`, `np`, ...: an array namespace passed in, not an array
                args[name] = Val(kind=REF, qual=_NAMESPACE_QUALS.get(name))
            elif target.all_static or name in target.static or \
                    (i == 0 and name in ("self", "cls")):
                args[name] = Val(origins=frozenset({("outside", name)}))
            elif fn.args.vararg is not None and a is fn.args.vararg:
                args[name] = Val(level=MAYBE, kind=TUPLE,
                                 elem=Val(level=MAYBE), origins=frozenset({("param", name)}))
            elif fn.args.kwarg is not None and a is fn.args.kwarg:
                args[name] = Val(level=MAYBE, kind=DICT, elem=Val(level=MAYBE))
            else:
                # a real number may be a Python float, which @jit specialises like an int
                level = DATA if name in arrays else MAYBE
                kind = ARRAY if name in arrays else NUMBER if name in reals else UNKNOWN
                default = default_of(fn, a)
                if isinstance(default, ast.Constant) and (
                        default.value is None or isinstance(default.value, (str, bool))):
                    # an option left at its default, as a plain call leaves it: the
                    # branches on it that such a call never takes are not checked
                    args[name] = const(default.value)
                    continue
                nd = 1 if name in arrays else 0 if name in reals else None
                args[name] = Val(level=level, kind=kind, nd=nd,
                                 origins=frozenset({("param", name)}), qual="param")
        self.run_function(fn, target.flavor, args, closure=None, depth=0)

    def run_function(self, fn, flavor, args, closure, depth):
        """Analyse `fn` with parameter values `args`; return its return value."""
        return self.run_effects(fn, flavor, args, closure, depth).value

    def run_effects(self, fn, flavor, args, closure, depth, plain=False):
        """Analyse `fn` with parameter values `args`, converted or (`plain`) run as
        plain Python; the `Outcome`."""
        key = (id(fn), flavor, plain, tuple(sorted(args.items(), key=lambda kv: kv[0])))
        if closure is not None:
            key = None
        if key is not None:
            try:
                if key in self._cache:
                    return self._cache[key]
            except Exception:
                key = None
        if id(fn) in self._active or depth > _MAX_CALL_DEPTH:
            return Outcome(Val(level=max_level(args.values())), {}, {}, [], [])
        self._active.add(id(fn))
        try:
            ctx = FunctionContext(self, fn, flavor, args, closure, depth, plain)
            result = Outcome(ctx.run(), ctx.effects, ctx.deferred, ctx.failures,
                             ctx.deferred_failures, tuple(ctx.errors))
        finally:
            self._active.discard(id(fn))
        if key is not None:
            self._cache[key] = result
        return result

    # --- other modules and decorators ---------------------------------------------------
    def foreign_function(self, qual):
        """(analysis of its module, FunctionDef) for a module-level function of another
        module of the user's code (or, in an installed package, of the package) that
        `qual` names, found without importing; or None. Modules further than
        `modules.MAX_MODULE_DEPTH` imports away are not read."""
        if qual not in self._foreign:
            self._foreign[qual] = self._find_foreign(qual)
        return self._foreign[qual]

    def _find_foreign(self, qual):
        if self.module_depth >= modules.MAX_MODULE_DEPTH or not qual or \
                qual.startswith(_NOT_FOLLOWED):
            return None
        if qual.startswith("?"):            # a name nothing binds: a star import's?
            name = qual[1:]
            return self.exported(name, set()) if name.isidentifier() else None
        found = modules.resolve(self.info.path, qual, self._import_table(), self.package)
        if found is None or len(found[1]) != 1:
            return None
        path, (name,) = found
        other = self._module(path, self.module_depth + 1)
        return other.exported(name, set()) if other is not None else None

    def _module(self, path, depth):
        """The (silent) analysis of the user's module at `path`, one per lint run;
        `depth`: how many calls into other modules it takes to get there."""
        table = self.project["modules"]
        real = os.path.realpath(path)
        if real not in table:
            info = modules.parse_module(path)
            # converted, it runs for its effects and the errors its rules find
            # (`collecting`); plain, for its failures
            table[real] = None if info is None else Analysis(
                info, self.handlers, None, self.project, depth)
        return table[real]

    def exported(self, name, seen):
        """(analysis, FunctionDef) of the function this module's global `name` is:
        defined here, imported by name (`from .vector import normalize`, a package's
        `__init__` re-exporting), or brought by `from .vector import *`. Following a
        re-export is a name lookup, not a call: it does not count in the depth."""
        if id(self) in seen:
            return None
        seen.add(id(self))
        fn = self.info.functions.get(name)
        if fn is not None:
            return self, fn
        imported = self.info.imports.get(name)
        if imported:
            found = modules.resolve(self.info.path, imported, self._import_table(),
                                    self.package)
            if found is None or len(found[1]) != 1:
                return None
            other = self._module(found[0], self.module_depth)
            return other.exported(found[1][0], seen) if other is not None else None
        if name in self.info.assigned:
            return None
        for path in modules.star_imports(self.info.path, self.info.tree, self.package):
            other = self._module(path, self.module_depth)
            found = other.exported(name, seen) if other is not None else None
            if found is not None:
                return found
        return None

    def library_name(self, name, seen):
        """The library name (`numpy.radians`) that this module's global `name` imports,
        followed through the user's modules that re-export it (pymap3d's `mathfun`:
        `try: from numpy import radians except ImportError: from math import ...`), or
        None."""
        if id(self) in seen:
            return None
        seen.add(id(self))
        imported = self.info.imports.get(name)
        if not imported:
            return None
        found = modules.resolve(self.info.path, imported, self._import_table(), self.package)
        if found is None:
            return None if imported.startswith(".") else imported
        if len(found[1]) != 1:
            return None
        other = self._module(found[0], self.module_depth)
        return other.library_name(found[1][0], seen) if other is not None else None

    def _import_table(self):
        if self._imports is None:
            self._imports = modules.import_table(self.info.tree)
        return self._imports

    def decorator_summary(self, fn, plain=False):
        """What the decorators of `fn` add around every call of it: (the container
        changes of the wrapper a decorator of the user's code returns, the failures of
        that wrapper run as plain Python with traced arguments). Each decorator function
        is analysed once per mode, silently, with unknown arguments; what the functions
        it defines do is its summary (`plain`: they run as plain Python, as a decorator
        of an installed package's function does under @jit)."""
        effects, failures = {}, []
        for dec in getattr(fn, "decorator_list", ()):
            expr = dec.func if isinstance(dec, ast.Call) else dec
            found = None
            if isinstance(expr, ast.Name) and expr.id in self.info.functions and \
                    expr.id not in self.info.imports:
                found = (self, self.info.functions[expr.id])
            else:
                qual = self.info.qualify(expr)
                if qual and not qual.startswith("?"):
                    found = self.foreign_function(qual)
            if found is None:
                continue
            owner, deco = found
            key = (id(owner), id(deco), plain)
            cache = self.project["decorators"]
            if key not in cache:
                if key in self.project["busy"]:
                    continue
                self.project["busy"].add(key)
                owner.muted += 1
                try:
                    args = {p.arg: Val(level=MAYBE, origins=frozenset({("param", p.arg)}))
                            for p in parameters(deco)}
                    out = owner.run_effects(deco, "npxla", args, None, 0, plain)
                finally:
                    owner.muted -= 1
                    self.project["busy"].discard(key)
                cache[key] = ({**out.effects, **out.deferred}, out.deferred_failures)
            effects.update(cache[key][0])
            failures += cache[key][1]
        return effects, failures


class Outcome(NamedTuple):
    """What analysing one call of a function gives. `effects`: the Python list/dict/set
    changes the call makes, `deferred`: those of the functions it defines without
    calling them ({(path, line, col): (kind, what, path, line)}); `failures`, for a
    function run as plain Python: what fails in it on traced values, and in the
    functions it defines ([(message, path, line)]); `errors`, for a converted function
    of another module (`Analysis.collecting`): the error findings of its rules, its
    callees' included ([(rule, message, path, line)])."""
    value: Val
    effects: dict
    deferred: dict
    failures: list
    deferred_failures: list
    errors: tuple = ()


# qualified names never looked for in the user's files (libraries @jit knows or calls
# as they are; `resolve` also refuses every file that lives with the libraries)
_NOT_FOLLOWED = ("numpy.", "jax.", "builtins.", "math.", "npxla.", "scipy.", "functools.")


_NAMESPACE_QUALS = {"np": "numpy", "numpy": "numpy", "xp": "numpy", "jnp": "jax.numpy",
                    "math": "math"}
