"""Calls in the traced-value interpreter: what a call returns, by who is called.

A call is where the linter's knowledge of NumPy, JAX and the builtins comes in (which
results are arrays, scalars, views, bools or static, what `jax.numpy` traces that NumPy
would not), and where functions of the linted file are analysed with the argument values
of the call. That table-driven knowledge is the part that grows with every library
function learned; it lives here, apart from the generic expression evaluator.
"""
from __future__ import annotations

import ast
import os

from npxla.transpiler.base import supported as S
from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.modules import package_name
from npxla.transpiler.lint.rules.support import library_callee
from npxla.transpiler.lint.values import (ARRAY, BOOL, CONTAINERS, DATA, DICT, FUNC, ITER,
                                          LIST, MAYBE, METHOD, NUMBER, PYTHON_ONLY, RANGE,
                                          REF, RNG, SET, STATIC, STR, TUPLE, UNKNOWN,
                                          UNKNOWN_STATIC, Val, const, dyn_of, element_of,
                                          join, join_all, max_level, nd_join,
                                          traced_argument)


class CallsMixin:
    """The call part of `interpreter.FunctionContext`: `e_Call` evaluates the callee and
    the arguments, emits the `call` event, and `call` dispatches on the callee's kind to
    the file's own functions (`_call_user`), library functions (`call_ref`) or methods
    (`call_method`)."""

    def e_Call(self, n):
        if isinstance(n.func, ast.Attribute):
            recv = self.ev(n.func.value)
            callee = self.attribute(n.func, recv, called=True)
            self.values[n.func] = callee
        else:
            callee = self.ev(n.func)
        args = []
        for a in n.args:
            if isinstance(a, ast.Starred):
                v = self.ev(a.value)
                self.values[a] = v
                args.append(element_of(v).replace())
            else:
                args.append(self.ev(a))
        kwargs = {}
        for kw in n.keywords:
            v = self.ev(kw.value)
            if kw.arg is not None:
                kwargs[kw.arg] = v
        self.emit("call", n, callee, args, kwargs)
        return self.call(n, callee, args, kwargs)

    def call(self, n, callee, args, kwargs):
        if callee.kind == FUNC and callee.func is not None:
            node, env = callee.func
            self._pending_defs.pop(id(node), None)
            return self._call_user(node, env, n, args, kwargs)
        if callee.kind == REF and callee.qual:
            return self.call_ref(n, callee.qual, args, kwargs)
        if callee.kind == METHOD:
            return self.call_method(n, callee.items[0], callee.qual, args, kwargs)
        # an unknown callable: maybe traced, not certainly array data
        return Val(level=min(MAYBE, max_level(list(args) + list(kwargs.values()) + [callee])))

    def _call_user(self, node, env, n, args, kwargs, unknown_args=False):
        values = bind_arguments(node, args, kwargs, unknown_args)
        closure = None
        if env is not None:
            closure = dict(self.closure)
            closure.update(env)
        # a module-level function of an installed package runs as plain Python
        plain = self.plain or (env is None and self.calls_plainly)
        if plain:
            values = {k: _plain_argument(v) for k, v in values.items()}
        out = self.analysis.run_effects(node, self.flavor, values, closure,
                                        self.depth + 1, plain)
        self.errors.extend(out.errors)      # (another module's analysis: its callees')
        if n is None:               # a nested function defined, not called: later
            self.deferred.update(out.effects)
            self.deferred.update(out.deferred)
            self.deferred_failures += out.failures + out.deferred_failures
            return out.value
        name = getattr(node, "name", "<lambda>")
        if plain:
            self.plain_call(n, name, out, self.analysis, node, args, kwargs)
            return out.value
        effects = out.effects
        if getattr(node, "decorator_list", None):
            effects = {**effects, **self.analysis.decorator_summary(node)[0]}
        self.callee_effects(n, name, effects)
        self.deferred.update(out.deferred)
        return out.value

    def call_foreign(self, n, qual, args, kwargs):
        """A call to a function of another module of the user's code (which `@jit`
        converts like this file's): analysed there, silently, with the argument values
        of the call. Its container changes become this call's; how traced its result is
        comes from there (a helper returning `x.sum()` gives array data), but not the
        rest of the value (its kind and aliases belong to the other module's names).
        In an installed package, a function of another module of the package, which
        `@jit` calls as plain Python (`plain_call`). None when `qual` is neither."""
        found = self.analysis.foreign_function(qual)
        if found is None:
            return None
        other, fn = found
        values = bind_arguments(fn, [_portable(a) for a in args],
                                {k: _portable(v) for k, v in kwargs.items()})
        plain = self.calls_plainly
        if plain:
            values = {k: _plain_argument(v) for k, v in values.items()}
        out = other.run_effects(fn, self.flavor, values, None, self.depth + 1, plain)
        effects = out.effects
        if fn.decorator_list and not plain:
            effects = {**effects, **other.decorator_summary(fn)[0]}
        name = qual.rsplit(".", 1)[-1]
        if plain:
            self.plain_call(n, name, out, other, fn, args, kwargs)
        else:
            self.callee_effects(n, name, effects)
            self.foreign_errors(n, name, out.errors)
        return out.value

    def foreign_errors(self, n, name, errors):
        """What `@jit` refuses in a converted function of another module (`Analysis.
        collecting`): the first finding of each rule, reported at this call with the
        rule's own code, naming where in the other file it is."""
        if self.analysis.collecting:
            self.errors.extend(errors)
            return
        done = set()
        for rule, message, path, line in errors:
            if rule.code not in done:
                done.add(rule.code)
                self.report(rule, n, f"{message} (in '{name}', "
                                     f"{os.path.basename(path)}:{line})")

    def plain_call(self, n, name, out, owner, fn, args, kwargs):
        """`fn` (of `owner`'s module) was called as plain Python and gave `out`: what
        made it fail (its own failures, and for traced arguments its decorators') is
        this function's failure when it runs plainly too, else the `plain_call` event
        for the rules (NPX153). The package's lists are its own business: no effects."""
        failures = list(out.failures)
        if any(traced_argument(a) for a in list(args) + list(kwargs.values())):
            failures += owner.decorator_summary(fn, plain=True)[1]
        if not failures:
            return
        if self.plain:
            if not self.silent:
                self.failures.append(failures[0])
        else:
            self.emit("plain_call", n, name, package_name(owner.info.path), failures[0])

    def callee_effects(self, n, name, effects):
        """Take a callee's container changes as this call's, and tell the rules."""
        if not effects:
            return
        for k, v in effects.items():
            self.effects.setdefault(k, v)
        self.emit("callee_mutation", n, name, next(iter(effects.values())))

    def call_ref(self, n, qual, args, kwargs):
        """The abstract result of calling the function named `qual`: builtins, NumPy
        and jax.numpy by their own rules, the linted package's helpers by reading them
        (installed code), anything else as opaque: one place decides which family a
        qualified name belongs to, so the rules see the same answer."""
        allv = list(args) + list(kwargs.values())
        level = max_level(allv)
        if qual.startswith("builtins."):
            return self.call_builtin(n, qual[9:], args, kwargs, level)
        for prefix, flavor_traced in (("numpy.", False), ("jax.numpy.", True)):
            if qual.startswith(prefix):
                name = qual[len(prefix):]
                v = self.call_numpy(n, name, args, kwargs, level)
                if flavor_traced and self.is_jax and name.split(".")[-1] not in \
                        K.STATIC_RESULT and v.kind not in PYTHON_ONLY:
                    v = v.replace(level=DATA)
                data = max_level(list(args) + [v for k, v in kwargs.items()
                                               if k != "dtype"])   # dtypes: static
                if self.plain and v.kind in (ARRAY, BOOL) and v.level == data == STATIC:
                    # plain NumPy on constants: a real NumPy array (`plain`)
                    v = v.replace(origins=v.origins | {("concrete", id(n))})
                return v
        if qual.startswith(("jax.lax.", "jax.random.", "jax.nn.", "jax.scipy.")):
            return Val(level=DATA if self.is_jax else level, kind=ARRAY,
                       origins=frozenset({("new", id(n))}))
        if qual.startswith("math."):
            return Val(level=level, kind=NUMBER, nd=0)
        if qual in ("npxla.jit", "jax.jit") \
                or qual == "functools.partial":
            return args[0] if args else UNKNOWN_STATIC
        if qual in ("jax.debug.print", "jax.debug.callback"):
            return const(None)
        result = self.call_foreign(n, qual, args, kwargs)
        fresh = frozenset({("new", id(n))})
        if result is None:
            # another library: its result may be traced, but is not certainly array
            # data; called plainly on constants it is one of NumPy's own arrays
            if level == STATIC and library_callee(qual, self.info.path) is not None:
                fresh |= {("concrete", id(n))}
            return Val(level=min(level, MAYBE), origins=fresh)
        # the package's own function run plainly: an array it made from constants is
        # a NumPy array (`concrete`), whatever else its value is
        return Val(level=result.level, origins=fresh | {
            o for o in result.origins if o[0] == "concrete"})

    def call_builtin(self, n, name, args, kwargs, level):
        """The value of the builtin `name(*args, **kwargs)`; `level` is the arguments'
        highest level.

        Builtins that read only metadata (`len`, `str`, `isinstance`, ...) give static
        values whatever they are given (`getattr` is as traced as its object), so that
        lengths and types stay usable as Python values; conversions (`int`, `float`,
        `bool`) keep their argument's level, which is how a traced value needed as a
        Python value reaches the rules; those that iterate their argument in Python
        (`list`, `sum`, `map`, ...) emit an `iterate` event. The findings themselves come
        from the rules' `on_call`, not from here."""
        first = args[0] if args else None
        if name in K.BUILTIN_STATIC:
            if name == "len":
                return Val(kind=NUMBER, nd=0)
            if name in ("str", "repr", "format", "ascii", "chr", "bin", "hex", "oct"):
                return Val(kind=STR)
            if name == "getattr" and first is not None:
                return Val(level=first.level if first.kind not in PYTHON_ONLY else STATIC)
            return UNKNOWN_STATIC
        if name == "print":
            return const(None)
        if name == "range":
            items = list(args) + [const(1)] * (3 - len(args))
            if len(args) == 1:
                items = [const(0), args[0], const(1)]
            return Val(kind=RANGE, items=tuple(items[:3]), level=level)
        if name == "enumerate":
            inner = element_of(first) if first is not None else UNKNOWN_STATIC
            return Val(kind=ITER, level=first.level if first else STATIC,
                       elem=Val(kind=TUPLE, items=(Val(kind=NUMBER, nd=0), inner),
                                level=inner.level), qual=_range_qual(args))
        if name == "zip":
            items = tuple(element_of(a) for a in args)
            return Val(kind=ITER, level=level, elem=Val(kind=TUPLE, items=items,
                                                        level=max_level(items)),
                       qual=_range_qual(args))
        if name in ("reversed", "iter", "filter", "map"):
            src = args[-1] if name in ("filter", "map") and args else first
            if name in ("filter", "map") and first is not None and src is not None:
                self.emit("iterate", n, src, f"{name}(...)")
            return Val(kind=ITER, level=level,
                       elem=element_of(src) if src is not None else None)
        if name in ("list", "tuple", "set", "sorted", "frozenset"):
            made = frozenset({("new", id(n)), self.made_here()})
            if first is None:
                kind = {"tuple": TUPLE, "set": SET, "frozenset": SET}.get(name, LIST)
                return Val(kind=kind, origins=made)
            self.emit("iterate", n, first, f"{name}(...)")
            kind = {"tuple": TUPLE, "set": SET, "frozenset": SET}.get(name, LIST)
            items = first.items if name in ("list", "tuple") and \
                first.kind in (LIST, TUPLE) else None
            return Val(kind=kind, level=first.level, elem=element_of(first), items=items,
                       origins=made)
        if name == "dict":
            return Val(kind=DICT, level=level, elem=join_all(
                [a.elem for a in args if a.elem is not None] + list(kwargs.values())),
                origins=frozenset({("new", id(n)), self.made_here()}))
        if name in K.BUILTIN_CONVERSIONS:
            if first is None:
                return const({"float": 0.0, "int": 0, "bool": False, "complex": 0j}[name])
            return Val(level=first.condition_level, kind=BOOL if name == "bool" else NUMBER,
                       nd=0)
        if name in ("abs", "round", "pow", "divmod", "sum", "min", "max", "next"):
            if name == "next" and first is not None:
                return element_of(first)
            nd = first.nd if name in ("abs", "round") and first is not None else None
            if name in ("sum", "min", "max") and first is not None and len(args) == 1:
                if name != "sum":    # sum(x) of an array is a reduction, of any length
                    self.emit("iterate", n, first, f"{name}(...)")
                return Val(level=max(first.level, element_of(first).level), nd=None)
            return Val(level=max(a.condition_level if a.kind not in CONTAINERS else a.level
                                 for a in args) if args else STATIC, nd=nd,
                       kind=NUMBER if all(a.kind == NUMBER for a in args) and args
                       else UNKNOWN)
        if name == "slice":
            return Val(level=level, kind="slice")
        return Val(level=level)

    def call_numpy(self, n, name, args, kwargs, level):
        """The value of `numpy.<name>(...)` (`name` may be dotted: "linalg.norm");
        `jax.numpy` comes here too (when checking for `jax.jit`, `call_ref` then makes
        its array results data).

        The result is at least as traced as the arguments (`level`), except where it
        cannot depend on their values: metadata (`np.shape`, `np.ndim`), and creation
        functions, traced only through their fill value. Views (`reshape`, `asarray` of
        an array) keep their argument's `origins` and every other result is a fresh
        array, which is what the aliasing rule relies on; `nd` is a best guess of the
        rank (a scalar or not) used by the shape rules."""
        short = name.rsplit(".", 1)[-1]
        first = args[0] if args else (next(iter(kwargs.values())) if kwargs else None)
        fresh = frozenset({("new", id(n))})
        if name.startswith("random."):
            if short in K.RANDOM_GENERATORS:
                return Val(kind=RNG)
            return Val(kind=ARRAY, origins=fresh)
        if short in K.STATIC_RESULT:
            return Val(kind=TUPLE if short in ("shape", "broadcast_shapes") else UNKNOWN)
        sized = _data_dependent_size(name, args, kwargs, level)
        if sized is not None:
            return sized.replace(origins=fresh)
        if short in K.CREATION:
            fill = K.FILL_ARGS.get(short)
            flevel = STATIC
            if fill is not None:
                fv = kwargs.get(fill[1]) or (args[fill[0]] if len(args) > fill[0] else None)
                flevel = fv.level if fv is not None else STATIC
            like = short.endswith("_like") and first is not None
            return Val(level=flevel, kind=ARRAY, nd=first.nd if like else
                       (0 if (first is not None and first.has_const and first.const == ())
                        else 1), origins=fresh,
                       rank=first.rank if like else _created_rank(first))
        if short in ("array", "asarray", "asanyarray", "ascontiguousarray", "copy",
                     "asfortranarray", "array_api"):
            if first is None:
                return Val(kind=ARRAY, origins=fresh)
            nd = 1 if first.kind in (LIST, TUPLE) else first.nd
            lvl = max(first.level, element_of(first).level) if first.kind in CONTAINERS \
                else first.level
            dtype = kwargs.get("dtype") or (args[1] if len(args) > 1 else None)
            kind = BOOL if (first.kind == BOOL or (dtype is not None and dtype.qual in (
                "builtins.bool", "numpy.bool_", "numpy.bool"))) else ARRAY
            view = short in ("asarray", "asanyarray") and first.kind not in CONTAINERS
            return Val(level=lvl, kind=kind, nd=nd,
                       origins=first.origins if view else fresh,
                       ambiguous=first.ambiguous if view else False)
        if short in K.BOOL_REDUCTIONS or (short in ("any", "all")):
            return Val(level=level, kind=BOOL, nd=0 if "axis" not in kwargs and
                       len(args) < 2 else None)
        if short in K.BOOL_RESULT:
            nd = None
            for a in args:
                nd = a.nd if nd is None else nd_join(nd, a.nd)
            return Val(level=level, kind=BOOL, nd=nd, origins=fresh,
                       dyn=dyn_of(*args) if nd != 0 and _keeps_length(name) else None)
        if short in K.REDUCTIONS:
            axis = "axis" in kwargs or len(args) > 1
            return Val(level=level, kind=NUMBER if not axis else ARRAY,
                       nd=None if axis else 0, origins=fresh)
        if short in K.VIEW_FUNCTIONS and first is not None:
            # (np.atleast_1d & co. make an array of one or more dimensions of anything)
            return Val(level=level, kind=first.kind if first.kind in (ARRAY, BOOL)
                       else ARRAY, nd=1 if short.startswith("atleast_") or
                       first.nd is not None else None,
                       origins=first.origins, ambiguous=first.ambiguous)
        if short == "where" and len(args) == 3:
            nd = nd_join(nd_join(args[0].nd, args[1].nd), args[2].nd)
            return Val(level=level, kind=ARRAY, nd=nd, origins=fresh,
                       dyn=dyn_of(*args) if nd != 0 else None)
        nd = None
        if args and all(a.nd == 1 for a in args[:1]):
            nd = 1
        if args and all(a.nd == 0 for a in args):
            nd = 0
        return Val(level=level, kind=ARRAY, nd=nd, origins=fresh,
                   dyn=dyn_of(*args) if nd != 0 and _keeps_length(name) else None)

    def call_method(self, n, recv, name, args, kwargs):
        """The value of `recv.name(*args, **kwargs)`, by the receiver's kind.

        A Python list/dict/set method that mutates emits `container_mutation` and, as
        values are immutable, writes the widened element value back to the variable
        holding the container, so later reads see what was added. A NumPy random
        generator draws while compiling (an untraced array); array methods follow the
        NumPy functions of the same name (views keep `origins`, reductions give
        scalars); a method arrays do not have, on a value of unknown kind (a Python
        object), gives a value traced at most `MAYBE`, through its arguments."""
        allv = list(args) + list(kwargs.values())
        level = max_level(allv)
        fresh = frozenset({("new", id(n))})
        if recv.kind in (LIST, DICT, SET):
            return self.container_method(n, recv, name, args, fresh)
        if recv.kind == STR:
            return Val(kind=STR) if name not in ("split", "splitlines") else \
                Val(kind=LIST, elem=Val(kind=STR))
        if recv.kind == RNG:
            return Val(kind=ARRAY, origins=fresh)
        if recv.kind == TUPLE:
            return Val(kind=NUMBER, nd=0) if name in ("index", "count") else UNKNOWN_STATIC
        if recv.kind in PYTHON_ONLY:
            return Val(level=level)
        array_method = name in K.NDARRAY_METHODS
        rlevel = max(recv.level, level)
        if array_method and name not in K.SHARED_METHODS and recv.level >= MAYBE:
            # only arrays have it: a traced receiver is array data, not a Python int
            # that @jit would specialise (`(v * v).sum()` is data whatever `v` is)
            rlevel = DATA
        if name in ("item", "tolist"):
            return Val(kind=NUMBER if name == "item" else LIST, nd=0)
        if name in K.VIEW_METHODS:
            return Val(level=rlevel, kind=recv.kind if recv.kind in (ARRAY, BOOL) else ARRAY,
                       nd=recv.nd if name != "ravel" else (1 if recv.nd is not None else None),
                       origins=recv.origins, ambiguous=recv.ambiguous)
        if name in ("copy", "astype", "conj", "conjugate", "round", "clip", "flatten"):
            kind = recv.kind if recv.kind in (ARRAY, BOOL) else ARRAY
            if name == "astype" and args and args[0].qual in ("builtins.bool",
                                                               "numpy.bool_", "numpy.bool"):
                kind = BOOL
            return Val(level=rlevel, kind=kind,
                       nd=recv.nd if name != "flatten" else 1, origins=fresh,
                       dyn=recv.dyn if name in S.NDARRAY_RUN_TIME_LENGTH else None)
        if name in ("any", "all"):
            axis = "axis" in kwargs or bool(args)
            return Val(level=rlevel, kind=BOOL, nd=None if axis else 0, origins=fresh)
        if name in K.REDUCTIONS or name in ("cumsum", "cumprod"):
            axis = "axis" in kwargs or bool(args)
            scalar = not axis and name not in ("cumsum", "cumprod")
            return Val(level=rlevel, kind=NUMBER if scalar else ARRAY,
                       nd=0 if scalar else None, origins=fresh)
        if name == "nonzero":
            return Val(level=rlevel, kind=TUPLE, elem=Val(
                level=rlevel, kind=ARRAY, nd=1,
                dyn="x.nonzero()" if rlevel >= MAYBE else None))
        if recv.kind == NUMBER and not array_method:
            return Val(level=rlevel, kind=NUMBER, nd=0)
        if not array_method and recv.kind == UNKNOWN:
            # a method of a Python object (static): the result depends on the arguments
            return Val(level=min(level, MAYBE), origins=fresh)
        return Val(level=rlevel, kind=ARRAY if (array_method or recv.kind == ARRAY)
                   else UNKNOWN, origins=fresh)


    def container_method(self, n, recv, name, args, fresh):
        """`recv.name(*args)` on a Python list, dict or set: a method that mutates emits
        `container_mutation` and widens the element value of the variable holding it."""
        if name in K.ANY_MUTATORS:
            self.emit("container_mutation", n, recv, f"{recv.kind}.{name}()")
            if name in ("append", "add", "insert", "setdefault") and args:
                new_elem = args[-1]
            elif name in ("extend", "update") and args:
                new_elem = element_of(args[0])
            else:
                new_elem = None
            target = n.func.value if isinstance(n.func, ast.Attribute) else None
            if isinstance(target, ast.Name) and new_elem is not None:
                old = self.lookup(target.id, self.env)
                if old.kind == recv.kind and target.id in self.env:
                    self.env[target.id] = old.replace(
                        elem=join(old.elem, new_elem), items=None,
                        level=max(old.level, new_elem.level))
            if name == "pop":
                return recv.elem if recv.elem is not None else UNKNOWN_STATIC
            return const(None)
        if name in ("get", "pop", "copy", "values", "items", "keys", "index", "count"):
            if name in ("index", "count", "keys"):
                return Val(kind=NUMBER, nd=0)
            if name == "copy":
                return recv.replace(origins=fresh)
            if name in ("values", "items"):
                return Val(kind=ITER, level=recv.level, elem=recv.elem)
            return recv.elem if recv.elem is not None else UNKNOWN_STATIC
        return Val(level=recv.level)


# NumPy functions whose result's length depends on the data (a traced argument): under
# @jit, arrays of a length known at run time (`Val.dyn`); a tuple of them for the
# index-returning forms
_INDEX_TUPLES = frozenset({"nonzero"})
_SIZED = frozenset({"flatnonzero", "argwhere", "unique", "extract", "compress"})


def _data_dependent_size(name, args, kwargs, level):
    """The value of np.<name>(...) when its length depends on traced data, else None."""
    where1 = name == "where" and len(args) == 1 and not kwargs
    if (name not in _INDEX_TUPLES and name not in _SIZED and not where1) or \
            level < MAYBE or "size" in kwargs:
        return None
    how = f"np.{name}"
    if name in _SIZED:
        many = name == "unique" and any(k.startswith("return_") for k in kwargs)
        item = Val(level=level, kind=ARRAY, nd=1, dyn=how)
        return Val(level=level, kind=TUPLE, elem=item) if many else item
    return Val(level=level, kind=TUPLE, elem=Val(level=level, kind=ARRAY, nd=1, dyn=how))


def _keeps_length(name):
    """Whether np.<name> of an array of a run-time length has that length too (the
    elementwise functions and ufuncs the run-time-length table lists)."""
    qual = "numpy." + name
    return qual in S.NUMPY_RUN_TIME_LENGTH and (
        qual in S.NUMPY_UFUNCS or name in ("where", "clip", "cumsum", "cumprod", "copy"))


def bind_arguments(node, args, kwargs, unknown_args=False):
    """{parameter name: value} for a call of function `node` with `args`/`kwargs`
    (every parameter traced and unknown with `unknown_args`)."""
    params = parameters(node)
    values = {}
    if unknown_args:
        for p in params:
            values[p.arg] = Val(level=MAYBE, origins=frozenset({("param", p.arg)}))
        return values
    positional = list(node.args.posonlyargs) + list(node.args.args)
    for p, v in zip(positional, args):
        values[p.arg] = v
    if node.args.vararg is not None:
        extra = args[len(positional):]
        values[node.args.vararg.arg] = Val(kind=TUPLE, level=max_level(extra),
                                           items=tuple(extra))
    for k, v in kwargs.items():
        values[k] = v
    for p in params:
        if p.arg not in values:
            d = default_of(node, p)
            values[p.arg] = const(d.value) if isinstance(d, ast.Constant) else \
                (Val(kind=DICT) if p is node.args.kwarg else UNKNOWN_STATIC)
    return values


def _portable(v):
    """An argument value as another module's analysis may use it: a function of this
    file would be looked up there with the wrong globals, so it becomes unknown."""
    if v.kind == FUNC:
        return Val(level=v.level)
    return v


def _plain_argument(v):
    """An argument of a plain call as its analysis needs it: which arrays it may be the
    same as matters to the aliasing rule of converted code only (dropping it lets the
    calls of a helper from many places share one analysis), whether it is a real NumPy
    array made by plain code (`concrete`) matters."""
    origins = frozenset(o for o in v.origins if o[0] == "concrete")
    if origins == v.origins and not v.ambiguous:
        return v
    return v.replace(origins=origins, ambiguous=False)


def _range_qual(args):
    """Mark enumerate/zip iterators over a range (their length is the range's)."""
    ranges = [a for a in args if a.kind == RANGE or (a.kind == ITER and a.qual)]
    if ranges and max_level(ranges) >= MAYBE:
        return "range:%d" % max_level(ranges)
    return None


def parameters(fn):
    """Every parameter of `fn` in signature order, `*args` and `**kwargs` included."""
    a = fn.args
    out = list(a.posonlyargs) + list(a.args)
    if a.vararg:
        out.append(a.vararg)
    out += list(a.kwonlyargs)
    if a.kwarg:
        out.append(a.kwarg)
    return out


def default_of(fn, arg):
    """The default expression of parameter `arg` of `fn`, or None when it has none."""
    a = fn.args
    positional = list(a.posonlyargs) + list(a.args)
    if arg in positional:
        k = positional.index(arg) - (len(positional) - len(a.defaults))
        return a.defaults[k] if k >= 0 else None
    if arg in a.kwonlyargs:
        return a.kw_defaults[a.kwonlyargs.index(arg)]
    return None


def _created_rank(shape):
    """The rank of the array a creation function makes from `shape`, where it shows:
    0 for `()`, the length of a tuple or list whose items are known
    (`np.full((r + 1, c + 1), np.inf)`: 2, so that `D[i, j]` reads a number)."""
    if shape is None:
        return None
    if shape.has_const and shape.const == ():
        return 0
    if shape.kind in (TUPLE, LIST) and shape.items is not None:
        return len(shape.items)
    return 1 if shape.kind == NUMBER and shape.nd == 0 else None
