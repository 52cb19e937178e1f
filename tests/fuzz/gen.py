"""Random legacy-NumPy programs, emitted as Python source text.

Why source text: `jit` reads a function's source with `inspect.getsource`, so a program
must live in a real file, and a failing program must be something a person can read
and paste into an issue. Why typed generation: a program NumPy itself rejects tests
nothing, so every expression is typed the cheap, exact way — it is evaluated on dummy
values (`np.ones` of the right shape and dtype, `1` / `1.0` for Python scalars) and
whatever NumPy 2 gives back (shape, dtype, Python-vs-NumPy scalar) is its type. Every
name keeps the type of its first binding for the whole program, which keeps loops and
branches well formed (a loop-carried value of changing shape is a *refusal*, not a bug,
and would drown the interesting outcomes).

Values stay small and safe on purpose: integer inputs lie in [-5, 5], divisions are by
positive constants or by `abs(...) + 1`, square roots take `abs(...)`, loops run at most
a handful of times, and every `while` carries a counter that bounds it.
"""
from __future__ import annotations

import ast
import dataclasses
import random
import re
import types

import numpy as np

from .gen_bounded import BoundedGen
from .gen_lists import gen_lists
from .gen_reductions import gen_reductions
from .gen_swaps import gen_swaps
from .gen_rows import gen_rows
from .gen_tables import gen_tables
from .gen_families import (LayoutGen, array_value, between_source, class_source, default_val,
                           family_of, gen_casts, gen_exact, layout_args, method_source,
                           object_source)
from .model import (ARITH, AUG, CMP, DTYPE_WEIGHTS, DTYPES, PACKAGE, PACKAGE_MARK, REDUCE, Ctx,
                    Features, NewState, Program, Val, Var, dummy, empty_body, quiet_eval,
                    val_of)
from .regress import literal


_VIEW = re.compile(r"^([A-Za-z_]\w*)(\.T|\[[^\[\]()]*\])*$")


def _view_base(src, env):
    """The name `src` aliases or views (`x`, `x.T`, `x[1:-1]`, `x[0]`), if any."""
    m = _VIEW.match(src)
    return m.group(1) if m and m.group(1) in env else None


class _Namespace(dict):
    """The typing namespace: `ns["st.acc"]` reads the attribute (feature `effects`)."""

    def __missing__(self, key):
        if "." in key:
            owner, attr = key.split(".", 1)
            return getattr(self[owner], attr)
        raise KeyError(key)


class _Gen(BoundedGen, LayoutGen):
    def __init__(self, seed: int, feats: Features, prog_family: str | None = None):
        self.r = random.Random(seed)
        self.seed = seed
        self.feats = feats
        self.count = 0
        self.loop_ids = 0
        self.left = 0
        self.helpers: list[tuple[str, tuple, bool, str]] = []  # name, arg vals, mutates, src
        self.ns: dict = {"np": np}
        self.in_helper = False
        self.early_returns = 0
        self.results: list[str] = []   # names of data-dependent results `f` returns
        self.pkg_helpers: list[str] = []   # sources of the helpers in the package
        self.pkg_from: list[str] = []      # package helpers imported by name
        self.fx: dict = {}                 # feature `effects`: the outside state in use
        self.prog_family = prog_family     # gen_families.FAMILIES, or None
        self.layout_results: list[str] = []   # family `arg_layouts`: results `f` returns

    # -- typing on dummies ---------------------------------------------------------------
    def _ns(self, env):
        ns = _Namespace(self.ns)
        for v in env.values():
            if "." in v.name:      # an attribute of an outside object (`st.acc`)
                owner, attr = v.name.split(".")
                if not isinstance(ns.get(owner), types.SimpleNamespace):
                    ns[owner] = types.SimpleNamespace()
                setattr(ns[owner], attr, dummy(v.val))
            else:
                ns[v.name] = dummy(v.val)
        for name in ("lst", "dct", "LOG"):
            if name in self.fx:
                ns[name] = self.fx[name]()
        return ns

    def typeof(self, env, src) -> Val | None:
        try:
            return val_of(quiet_eval(src, self._ns(env)))
        except Exception:
            return None

    def runs(self, env, src) -> dict | None:
        """Exec a statement on dummies; the resulting namespace, or None if NumPy refuses."""
        try:
            return quiet_eval(src, self._ns(env), "exec")
        except Exception:
            return None

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def chance(self, p):
        return self.r.random() < p

    # -- leaves ---------------------------------------------------------------------------
    def index(self, env, dim):
        loopvars = [v.name for v in env.values() if v.bound is not None and 0 < v.bound <= dim]
        if loopvars and self.chance(0.5):
            return self.r.choice(loopvars)
        return str(self.r.randrange(-dim, dim))

    def const(self, want_int=False):
        if want_int or self.chance(0.5):
            return str(self.r.randint(-3, 5))
        return self.r.choice(["0.5", "1.5", "2.0", "-1.25", "0.1", "3.0"])

    def arrays(self, env, ndim=None):
        return [v for v in env.values() if v.val.is_array and v.val.dtype != "bool"
                and min(v.val.shape) > 0 and (ndim is None or len(v.val.shape) == ndim)]

    def leaf(self, env, shape):
        opts = []
        for v in self.arrays(env):
            s, n = v.val.shape, v.name
            if s == shape:
                opts += [n, n, n]
                if len(s) == 1 and self.chance(0.2):
                    opts.append(f"{n}[::-1]")
            if len(s) == 2:
                a, b = s
                if (b, a) == shape:
                    opts.append(f"{n}.T")
                if (b,) == shape:
                    opts.append(f"{n}[{self.index(env, a)}]")
                    red = self.r.choice(REDUCE)
                    opts.append(self.r.choice([f"np.{red}({n}, axis=0)", f"{n}.{red}(axis=0)"]))
                if (a,) == shape:
                    opts.append(f"{n}[:, {self.index(env, b)}]")
                    opts.append(f"np.{self.r.choice(REDUCE)}({n}, axis=1)")
                if shape == ():
                    opts.append(f"{n}[{self.index(env, a)}, {self.index(env, b)}]")
            if len(s) == 1 and len(shape) == 1:
                m, k = s[0], shape[0]
                if m - 2 == k:
                    opts.append(f"{n}[1:-1]")
                if (m + 1) // 2 == k and m != k:
                    opts.append(f"{n}[::2]")
                if m > k:
                    opts.append(self.r.choice([f"{n}[:{k}]", f"{n}[{m - k}:]"]))
            if len(s) == 1 and shape == ():
                opts.append(f"{n}[{self.index(env, s[0])}]")
            if shape == ():
                red = self.r.choice(REDUCE)
                opts.append(self.r.choice([f"np.{red}({n})", f"{n}.{red}()",
                                           f"np.{red}({n}, axis=None)"]))
                if self.chance(0.2):
                    opts.append(self.r.choice([f"len({n})", f"{n}.shape[0]"]))
        if self.feats.bounded and self.chance(0.25):   # run-time lengths, reduced
            extra = self.bounded_scalar(env) if shape == () else \
                self.bounded_vector(env, shape) if len(shape) == 1 else None
            opts += [extra] * 3 if extra else []
        if shape == ():
            opts += [v.name for v in env.values() if v.val.kind != "arr"]
            opts += [self.const(), self.const()]
        elif len(shape) == 1 and self.chance(0.1):
            opts.append(f"np.arange({shape[0]})")
        elif self.chance(0.1):
            opts.append(f"np.{self.r.choice(['zeros', 'ones'])}({shape})")
        return self.r.choice(opts) if opts else None

    # -- expressions ----------------------------------------------------------------------
    def expr(self, env, shape, depth=0):
        """Source of an expression whose value has exactly `shape`, and its Val."""
        for _ in range(12):
            src = self._expr(env, shape, depth)
            if src is None:
                continue
            val = self.typeof(env, src)
            if val is not None and val.shape == shape and val.dtype != "bool":
                return src, val
        return None, None

    def _sub(self, env, shape, depth, scalar_ok=True):
        if scalar_ok and shape != () and self.chance(0.3):
            shape = ()
        src, _ = self.expr(env, shape, depth + 1)
        return src

    def _expr(self, env, shape, depth):
        if depth >= 2 or self.chance(0.35 + 0.25 * depth):
            return self.leaf(env, shape)
        k = self.r.choice(["bin", "bin", "bin", "div", "intdiv", "unary", "where", "minmax",
                           "helper", "copy"])
        a = self._sub(env, shape, depth, scalar_ok=False)
        if a is None:
            return None
        if k in _BINARY_FORMS:        # a second operand, then the form (RNG order kept)
            b = self._sub(env, shape, depth)
            return b and _BINARY_FORMS[k](self, a, b)
        if k == "intdiv":
            return f"({a} {self.r.choice(['//', '%'])} {self.r.randint(2, 4)})"
        if k == "unary":
            if self.feats.transcendental and self.chance(0.5):
                return self.r.choice(_TRANSCENDENTAL).format(a)
            return self.r.choice([f"np.abs({a})", f"np.sqrt(np.abs({a}))", f"(-{a})",
                                  f"abs({a})" if shape == () else f"np.square({a})"])
        if k == "copy":
            if shape == ():
                return a
            return self.r.choice([f"{a}.copy()", f"np.copy({a})", f"{a}.astype(np.float64)"])
        return self.helper_call(env, shape, [a]) or a

    def cond(self, env, dd=True):
        """A branch/loop condition; data-dependent (reads array values) or static."""
        if not dd:
            opts = [f"{v.name} {self.r.choice(CMP)} {self.r.randint(0, 2)}"
                    for v in env.values() if v.val.kind == "py" and v.val.dtype == "int"]
            opts += [f"{v.name}.shape[0] > {self.r.randint(2, 5)}" for v in self.arrays(env)]
            opts += [f"{v.name} % 2 == 0" for v in env.values() if v.bound is not None]
            if opts:
                return self.r.choice(opts)
        kind = self.r.randrange(5)
        arrs = self.arrays(env)
        if kind == 0 and arrs:
            v = self.r.choice(arrs).name
            op = self.r.choice(["any", "all"])
            return f"np.{op}({v} {self.r.choice(CMP[:4])} {self.const()})"
        a, _ = self.expr(env, (), 1)
        if a is None:
            return "True"
        c = f"{a} {self.r.choice(CMP[:4])} {self.const()}"
        if kind == 1:
            b, _ = self.expr(env, (), 1)
            return f"{c} {self.r.choice(['and', 'or'])} {b} {self.r.choice(CMP[:2])} 0" \
                if b else c
        if kind == 2:
            return f"not {c}"
        return c

    def helper_call(self, env, shape, args):
        """A call to a pure helper (new or reused) whose result has `shape`."""
        if not self.feats.helpers or self.in_helper or not args:
            return None
        vals = tuple(self.typeof(env, a) for a in args)
        if None in vals:
            return None
        for name, hvals, mut, _ in self.helpers:
            if hvals == vals and not mut and self.chance(0.6):
                src = f"{name}({', '.join(args)})"
                v = self.typeof(env, src)
                if v is not None and v.shape == shape:
                    return src
        name = self.make_helper(vals, mutate=False, out_shape=shape)
        return name and f"{name}({', '.join(args)})"

    def make_helper(self, vals, mutate, out_shape=None):
        self.count += 1
        name = f"h{self.count}"
        params = ["a", "b", "c"][:len(vals)]
        env = {p: Var(p, v, param=True) for p, v in zip(params, vals)}
        saved, self.left, self.in_helper = self.left, self.r.randint(1, 3), True
        try:
            return self._helper_body(name, params, env, vals, mutate, out_shape)
        finally:
            self.left, self.in_helper = saved, False

    def _helper_body(self, name, params, env, vals, mutate, out_shape):
        body = self.block(env, Ctx(helper=True), self.left)
        tail = []
        if mutate:
            w = self.inplace(env, Ctx(helper=True), only="a")
            tail = w or []
        else:
            src, _ = self.expr(env, out_shape, 0)
            if src is None:
                return None
            tail = [ast.parse(f"return {src}").body[0]]
        body = [s for s in body if not isinstance(s, ast.Pass)] + tail
        # feature `helpers_pkg`: most helpers live in the installed package, called as
        # `fuzzpkg.h3(...)` or imported by name
        in_pkg = self.feats.helpers_pkg and self.chance(0.7)
        callee = f"{PACKAGE}.{name}" if in_pkg and self.chance(0.5) else name
        fn = ast.FunctionDef(name=name, args=ast.arguments(
            posonlyargs=[], args=[ast.arg(p) for p in params], kwonlyargs=[], kw_defaults=[],
            defaults=[]), body=body or [ast.Pass()], decorator_list=[], returns=None,
            type_params=[])
        src = ast.unparse(ast.fix_missing_locations(fn))
        try:
            quiet_eval(src, self.ns, "exec")
        except Exception:
            return None
        if in_pkg:
            self.pkg_helpers.append(src)
            if callee != name:
                pkg = self.ns.setdefault(PACKAGE, types.SimpleNamespace())
                setattr(pkg, name, self.ns.pop(name))
            else:
                self.pkg_from.append(name)
        self.helpers.append((callee, vals, mutate, "" if in_pkg else src))
        return callee

    # -- statements ------------------------------------------------------------------------
    def block(self, env, ctx, size):
        out = []
        for _ in range(size):
            if self.left <= 0:
                break
            stmts = self.stmt(env, ctx)
            if stmts:
                self.left -= 1
                out += stmts
        return out or [ast.Pass()]

    def stmt(self, env, ctx):
        kinds = ["assign", "assign", "view", "inplace", "inplace", "inplace", "rebind",
                 "accum", "if", "if", "for", "for", "while"]
        if not ctx.helper and self.feats.helpers:
            kinds.append("mutcall")
        if ctx.loops:
            kinds += ["jump", "jump"]
        if ctx.ret is not None:
            kinds.append("return")
        if self.feats.raise_assert:
            kinds.append("raise")
        if self.feats.isinstance_checks:
            kinds.append("isinst")
        if self.feats.bounded:
            kinds += ["bounded"] * 3
        if self.fx and not ctx.helper:   # mostly outside data-dependent flow (refused there)
            kinds += ["effect"] * (1 if ctx.dd_if or ctx.loops else 4)
        if self.prog_family == "arg_layouts" and not ctx.helper:
            kinds += ["layout"] * 3
        k = self.r.choice(kinds)
        return getattr(self, "s_" + k)(env, ctx)

    def _p(self, src):
        return ast.parse(src).body

    def s_assign(self, env, ctx):
        arrs = self.arrays(env)
        shape = () if not arrs or self.chance(0.25) else self.r.choice(arrs).val.shape
        src, val = self.expr(env, shape)
        if src is None:
            return None
        name = self.fresh("t")
        env[name] = Var(name, val, base=_view_base(src, env) if val.is_array else None,
                        loop=ctx.loops[-1] if ctx.loops else 0)
        return self._p(f"{name} = {src}")

    def s_view(self, env, ctx):
        arrs = self.arrays(env)
        if not arrs:
            return None
        v = self.r.choice(arrs)
        n, s = v.name, v.val.shape
        opts = [n]
        if len(s) == 1:
            opts += [f"{n}[1:-1]"] * (s[0] > 2) + [f"{n}[::2]", f"{n}[1:]", f"{n}[::-1]"]
        else:
            opts += [f"{n}.T", f"{n}[{self.index(env, s[0])}]", f"{n}[:, {self.index(env, s[1])}]",
                     f"{n}[1:]"]
        src = self.r.choice(opts)
        val = self.typeof(env, src)
        if val is None or not val.is_array:
            return None
        name = self.fresh("a" if src == n else "u")
        env[name] = Var(name, val, base=n, loop=ctx.loops[-1] if ctx.loops else 0)
        return self._p(f"{name} = {src}")

    def _writable(self, env, ctx, v):
        """May this statement write through `v`?  (Switches for known-bad families.)"""
        if ctx.loops and not self.feats.view_write_in_loop:
            if v.base is not None and v.loop != ctx.loops[-1]:
                return False
            if any(w.base == v.name for w in env.values()):
                return False  # writing a base whose view lives across the loop
        return True

    def s_inplace(self, env, ctx):
        return self.inplace(env, ctx)

    def inplace(self, env, ctx, only=None):
        cands = [v for v in self.arrays(env) if (only is None or v.name == only)
                 and self._writable(env, ctx, v)]
        if not cands:
            return None
        v = self.r.choice(cands)
        n, s = v.name, v.val.shape
        form = self.r.randrange(4)
        if form == 0:
            target = n
        elif form == 1:
            target = f"{n}[{self.index(env, s[0])}]"
        elif form == 2:
            target = (f"{n}[1:3]" if s[0] >= 3 else f"{n}[:1]") if len(s) == 1 else \
                f"{n}[:, {self.index(env, s[1])}]"
        else:
            target = f"{n}[{n} {self.r.choice(CMP[:2])} {self.const()}]" \
                if self.chance(0.5) else f"{n}[::2]"
        tval = self.typeof(env, target)
        if tval is None:
            return None
        if "[" in target and "<" not in target and ">" not in target and self.chance(0.4):
            op = "="
        else:
            op = self.r.choice(AUG)
        vshape = () if self.chance(0.4) or tval.shape == () or "<" in target or ">" in target \
            else tval.shape
        src, _ = self.expr(env, vshape)
        if src is None:
            return None
        if op == "=" and _view_base(src, env) and not self.feats.overlap_assign:
            src += ".copy()"
        stmt = f"{target} {op} {src}"
        ns = self.runs(env, stmt)
        if ns is None or val_of(ns[n]) != v.val:
            return None
        return self._p(stmt)

    def s_rebind(self, env, ctx):
        cands = [v for v in env.values() if v.val.kind != "py" and v.bound is None]
        if ctx.loops and not self.feats.rebind_param_in_loop:
            cands = [v for v in cands if not v.param and v.base is None]
        if self.prog_family == "private_attrs" and (ctx.loops or ctx.dd_if):
            # `self.__w = ...` there is refused (an attribute stored in data-dependent flow)
            cands = [v for v in cands if v.name != "w"]
        if not cands:
            return None
        v = self.r.choice(cands)
        src, val = self.expr(env, v.val.shape)
        if src is None:
            return None
        if val != v.val:
            src = f"({src}).astype(np.{v.val.dtype})" if v.val.kind == "arr" else \
                f"np.{v.val.dtype}({src})"
            if self.typeof(env, src) != v.val:
                return None
        v.base = None
        return self._p(f"{v.name} = {src}")

    def s_accum(self, env, ctx):
        """Counters and accumulators: Python ints (`c += 1`), NumPy scalars (`s += x[0]`)."""
        accs = [v for v in env.values() if v.val.kind != "arr" and v.bound is None
                and v.name.startswith("s")]
        if accs and self.chance(0.7):
            v = self.r.choice(accs)
            if v.val.kind == "py":
                return self._p(f"{v.name} {self.r.choice(['+=', '-='])} {self.r.randint(1, 3)}")
            src, _ = self.expr(env, (), 1)
            stmt = f"{v.name} {self.r.choice(AUG[:2])} {src}"
            ns = self.runs(env, stmt) if src else None
            return self._p(stmt) if ns is not None and val_of(ns[v.name]) == v.val else None
        name = self.fresh("s")
        arrs = self.arrays(env)
        init = "0" if not arrs or self.chance(0.5) else f"np.sum({self.r.choice(arrs).name}) * 0"
        env[name] = Var(name, self.typeof(env, init), loop=ctx.loops[-1] if ctx.loops else 0)
        return self._p(f"{name} = {init}")

    def _sub_block(self, env, ctx, n=None):
        sub = {k: dataclasses.replace(v) for k, v in env.items()}
        return self.block(sub, ctx, n or self.r.randint(1, 3)), sub

    def _keep_rebinds(self, env, *subs):
        """A name rebound in a nested block is no longer a view of its old base."""
        for sub in subs:
            for k, v in env.items():
                if k in sub and sub[k].base is None:
                    v.base = None

    def s_if(self, env, ctx):
        dd = self.chance(0.75)
        c = self.cond(env, dd)
        inner = dataclasses.replace(ctx, dd_if=ctx.dd_if or dd, top=False)
        empty_ok = not (dd or ctx.dd_if) or self.feats.empty_in_dd_if
        if empty_ok and self.chance(0.1):
            body, sub1 = [ast.Pass()], env
        elif empty_ok and self.chance(0.08):
            body = self._p(f"for {self.fresh('i')} in range(0):\n    {self.fresh('t')} = 1")
            sub1 = env
        else:
            body, sub1 = self._sub_block(env, inner)
            if empty_body(body) and not empty_ok:
                return None
        node = ast.If(test=ast.parse(c, mode="eval").body, body=body, orelse=[])
        subs = [sub1]
        if self.chance(0.5):
            if self.chance(0.3):
                c2 = self.cond(env, dd)
                b2, s2 = self._sub_block(env, inner)
                node.orelse = [ast.If(test=ast.parse(c2, mode="eval").body, body=b2, orelse=[])]
                subs.append(s2)
                target = node.orelse[0]
            else:
                target = node
            orelse, s3 = self._sub_block(env, inner)
            if not (empty_body(orelse) and not empty_ok):
                target.orelse = orelse
            subs.append(s3)
        self._keep_rebinds(env, *subs)
        return [node]

    def s_for(self, env, ctx):
        arrs = self.arrays(env)
        ints = [v.name for v in env.values() if v.param and v.val.kind == "py"
                and "." not in v.name]   # `st.count` may have grown past the bound
        opts = [("0", 0), ("1", 1), ("2", 2), ("3", 3)]
        opts += [(n, 2) for n in ints] * 2
        for v in arrs:
            opts += [(f"len({v.name})", v.val.shape[0]), (f"{v.name}.shape[0]", v.val.shape[0])]
        count, bound = self.r.choice(opts)
        if bound > 4:
            count, bound = f"min({count}, 3)", 3
        self.loop_ids += 1
        i = self.fresh("i")
        sub = {k: dataclasses.replace(v) for k, v in env.items()}
        sub[i] = Var(i, Val("py", (), "int"), bound=bound, loop=self.loop_ids)
        body = self.block(sub, dataclasses.replace(ctx, loops=ctx.loops + (self.loop_ids,)),
                          self.r.randint(1, 4))
        self._keep_rebinds(env, sub)
        return [ast.For(
            target=ast.Name(i, ast.Store()), iter=ast.parse(f"range({count})", mode="eval").body,
            body=body, orelse=[], type_comment=None)]

    def s_while(self, env, ctx):
        k = self.fresh("k")
        env[k] = Var(k, Val("py", (), "int"), loop=ctx.loops[-1] if ctx.loops else 0)
        c = self.cond(env, dd=True)
        limit = self.r.randint(1, 4)
        self.loop_ids += 1
        sub = {n: dataclasses.replace(v) for n, v in env.items()}
        if self.feats.bounded:  # the counter is 1..limit in the body: a slice bound
            sub[k].bound = limit + 1
        body = self.block(sub, dataclasses.replace(ctx, loops=ctx.loops + (self.loop_ids,)),
                          self.r.randint(1, 3))
        self._keep_rebinds(env, sub)
        head = f"while {k} < {limit} and ({c}):" if self.chance(0.7) else \
            f"while {c}:\n    if {k} >= {limit}:\n        break"
        loop = self._p(f"{k} = 0\n{head}\n    {k} += 1")
        loop[1].body += [s for s in body if not isinstance(s, ast.Pass)]
        return loop

    def s_jump(self, env, ctx):
        c = self.cond(env, dd=self.chance(0.7))
        return self._p(f"if {c}:\n    {self.r.choice(['break', 'continue'])}")

    def s_return(self, env, ctx):
        self.early_returns += 1
        c = self.cond(env, dd=self.chance(0.8))
        return self._p(f"if {c}:\n    return {', '.join(ctx.ret)}")

    def s_mutcall(self, env, ctx):
        cands = [v for v in self.arrays(env) if self._writable(env, ctx, v)]
        if not cands:
            return None
        v = self.r.choice(cands)
        mine = [h for h in self.helpers if h[2] and h[1] == (v.val,)]
        name = mine[0][0] if mine and self.chance(0.5) else self.make_helper((v.val,), True)
        return name and self._p(f"{name}({v.name})")

    # -- feature `effects`: side effects on objects that outlive the call ---------------
    def _any_expr(self, env):
        """An expression to store: an array of some argument's shape or a scalar; now and
        then a bare array name (the container then holds an alias the program may go on
        writing in place)."""
        arrs = self.arrays(env)
        if arrs and self.chance(0.15):
            return self.r.choice(arrs).name
        shape = () if not arrs or self.chance(0.4) else self.r.choice(arrs).val.shape
        src, _ = self.expr(env, shape, 1)
        return src

    def s_effect(self, env, ctx):
        fx = self.fx
        grow = ctx.top and not ctx.loops    # runs exactly once when reached
        kinds = []
        if "st" in fx:
            kinds += ["acc", "count", "attr", "method"]
        if "lst" in fx:
            kinds += ["append", "append", "extend", "insert"]
            if fx["lst_min"] > 0 and not ctx.loops:
                kinds += ["pop", "lset"]
        if "dct" in fx:
            kinds += ["dset", "dupdate", "dcount", "dpop"]
        if "G" in fx:
            kinds += ["G"]
        if "G2" in fx:
            kinds += ["G2"]
        if "LOG" in fx:
            kinds += ["LOG"]
        k = self.r.choice(kinds)
        if k == "acc":
            src, _ = self.expr(env, () if self.chance(0.3) else fx["acc"], 1)
            stmt = self.r.choice([f"st.acc = st.acc + {src}", f"st.acc += {src}"]) \
                if src else None
            ns = self.runs(env, stmt) if stmt else None
            if ns is None or val_of(ns["st"].acc) != env["st.acc"].val:
                return None
            return self._p(stmt)
        if k == "count":
            return self._p(f"st.count {self.r.choice(['+=', '-='])} {self.r.randint(1, 2)}")
        if k == "G":
            return self._p(f"G += {self.r.randint(1, 2)}")
        src = self._any_expr(env)
        if src is None:
            return None
        if k == "attr":
            stmt = f"st.{self.r.choice(['out', 'best', 'last'])} = {src}"
        elif k == "method":
            stmt = f"st.push({src})"
        elif k in ("append", "extend", "insert"):
            if k == "append":
                stmt = f"lst.append({src})"
            elif k == "extend":
                other = self._any_expr(env) or "0"
                stmt = f"lst.extend([{src}, {other}])"
            else:
                stmt = f"lst.insert({self.r.choice(['0', '1', '-1'])}, {src})"
            if grow:
                fx["lst_min"] += 2 if k == "extend" else 1
        elif k == "pop":
            fx["lst_min"] -= 1
            stmt = self.r.choice(["lst.pop()", "lst.pop(0)", f"{self.fresh('p')} = lst.pop()"])
        elif k == "lset":
            stmt = f"lst[{self.r.choice(['0', '-1'])}] = {src}"
        elif k == "dset":
            stmt = f"dct[{self.r.choice(['w', 'k', 'm'])!r}] = {src}"
        elif k == "dupdate":
            stmt = f"dct.update({self.r.choice(['w', 'k', 'm'])}={src})"
        elif k == "dcount":
            stmt = f"dct['n'] {self.r.choice(['+=', '-='])} {self.r.randint(1, 2)}"
        elif k == "dpop":
            stmt = f"dct.pop({self.r.choice(['k', 'm', 'w'])!r}, None)"
        elif k == "G2":
            stmt = f"G2 = {src}"
        else:
            stmt = f"LOG.append({src})"
        return self._p(stmt)

    def s_raise(self, env, ctx):
        """Mostly checks that pass (as in real code); sometimes one that fails."""
        arrs = self.arrays(env)
        if arrs and self.chance(0.85):
            v = self.r.choice(arrs).name
            c = self.r.choice([f"np.all(np.isfinite({v}))", f"np.max(np.abs({v})) < 1e6",
                               f"{v}.size > 0", f"not np.any(np.isnan({v}))"])
        else:
            c = self.cond(env, dd=True)
        if self.chance(0.5):
            return self._p(f"assert {c}")
        exc = self.r.choice(["ValueError", "RuntimeError"])
        return self._p(f"if not ({c}):\n    raise {exc}('fuzz')")

    def s_isinst(self, env, ctx):
        arrs = self.arrays(env)
        if not arrs:
            return None
        n = self.r.choice(arrs).name
        c = self.r.choice([f"isinstance({n}, np.ndarray)", f"type({n}) is np.ndarray",
                           f"not isinstance({n}, float)"])
        body, sub = self._sub_block(env, dataclasses.replace(ctx, top=False))
        self._keep_rebinds(env, sub)
        return [ast.If(test=ast.parse(c, mode="eval").body, body=body, orelse=[])]


def make_args(seed: int, params, nan_args: bool = False):
    """Argument values for `params` [(name, Val)]: small ints, normal floats (with
    `nan_args`, some float arrays hold a NaN, inf or -inf at one or two places)."""
    rng = np.random.default_rng(seed)
    out = []
    for _, val in params:
        if val.kind == "py":
            out.append(int(rng.integers(0, 3)))
        elif val.dtype.startswith("int"):
            out.append(rng.integers(-5, 6, size=val.shape).astype(val.dtype))
        else:
            a = rng.normal(size=val.shape).astype(val.dtype)
            if nan_args and a.size and rng.random() < 0.4:
                for _ in range(int(rng.integers(1, 3))):
                    a.flat[int(rng.integers(0, a.size))] = rng.choice(
                        [np.nan, np.nan, np.inf, -np.inf])
            out.append(a)
    return out


def _params(r: random.Random, large: bool = False):
    params = []
    shapes = []
    for name in ["x", "y", "z"][:r.choice([1, 2, 2, 3])]:
        if shapes and r.random() < 0.6:
            shape = r.choice(shapes)
        elif r.random() < 0.5:
            shape = (r.randint(4096, 12000),) if large else (r.randint(3, 6),)
        elif large:
            shape = (r.randint(64, 110), r.randint(64, 110))
        else:
            shape = (r.randint(2, 4), r.randint(2, 4))
        shapes.append(shape)
        dtype = r.choices(DTYPES, DTYPE_WEIGHTS)[0]
        params.append((name, Val("arr", shape, dtype)))
    if r.random() < 0.4:
        params.append(("n", Val("py", (), "int")))
    return params


# unary forms of feature `transcendental`, each defined on every float (NaN passes)
_TRANSCENDENTAL = ("np.exp(-np.abs({0}))", "np.log1p(np.abs({0}))", "np.tanh({0})",
                   "np.arctan({0})", "np.sinh(np.tanh({0}))", "np.cbrt({0})",
                   "np.arctan2({0}, 1.0 + np.abs({0}))", "np.log(1.0 + np.abs({0}))",
                   "np.expm1(np.tanh({0}))", "np.arcsinh({0})")


def generate(seed: int, feats: Features = Features()) -> Program:
    """The program for `seed`: a module defining helpers `h*` and the entry point `f`
    (or, family `private_attrs`, `f = OBJ.f`, a bound method)."""
    fam = family_of(seed, feats)
    if fam == "exact_float":
        return gen_exact(seed, feats)
    if fam == "float_int_casts":
        return gen_casts(seed)
    if fam == "row_loops":
        return gen_rows(seed)
    if fam == "list_builds":
        return gen_lists(seed)
    if fam == "table_loops":
        return gen_tables(seed)
    if fam == "reduce_loops":
        return gen_reductions(seed)
    if fam == "swap_loops":
        return gen_swaps(seed)
    g = _Gen(seed, feats, fam)
    params = _params(g.r, feats.large_args)
    env = {n: Var(n, v, param=True) for n, v in params}
    prologue = []
    module = []
    if feats.effects and fam is None:
        prologue, module = _effects_setup(g, seed, params, env)
    frng = np.random.default_rng([seed, 35, 2])   # the families' own values
    if fam in ("default_args", "private_attrs"):
        wval = default_val(g.r, params)
        w_value = array_value(frng, wval)
        env["w"] = Var("w", wval, param=True)
        if fam == "private_attrs":
            env["k"] = Var("k", Val("py", (), "int"), param=True)
            k_value = g.r.randint(0, 2)
        elif g.chance(0.15):   # the global itself, read at the call (rebound in between;
            # refused when the program also writes in place, docs/semantics.md)
            env["wg"] = Var("wg", wval)
            prologue += g._p("wg = W.copy()")
    for _ in range(g.r.choice([0, 1, 1])):
        prologue += g.s_accum(env, Ctx()) or []
    arrays = [n for n, v in params if v.kind == "arr"]
    ret = g.r.sample(arrays, 1) + [n for n in env if n.startswith("s")][:1]
    if len(ret) == 1 and g.chance(0.3):
        ret.append(g.r.choice(arrays))
    g.left = g.r.randint(feats.min_stmts, feats.max_stmts)
    body = g.block(env, Ctx(ret=tuple(ret), top=True), g.left)
    if not g.early_returns:  # no early return to match: also hand back a counter
        counters = [n for n, v in env.items() if v.val.kind == "py" and v.bound is None
                    and not v.param and n not in ret]
        if counters and g.chance(0.5):
            ret.append(g.r.choice(counters))
    if g.results and not g.early_returns:  # data-dependent arrays (feature `bounded`)
        ret += g.results
    if g.layout_results and not g.early_returns:   # family `arg_layouts`
        ret += g.layout_results[:2]
    final = ast.parse(f"return {', '.join(ret)}").body
    names = [n for n, _ in params] + [n for n in ("st", "lst", "dct") if n in g.fx]
    defaults = []
    if fam == "default_args":
        names.append("w")
        defaults = [ast.Name("W", ast.Load())]
    fn = ast.FunctionDef(name="f", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(n) for n in names], kwonlyargs=[], kw_defaults=[],
        defaults=defaults), body=prologue + body + final, decorator_list=[], returns=None,
        type_params=[])
    if fam == "private_attrs":
        fsrc = class_source(g.r, method_source(fn, g.r, arrays[0] if arrays else None))
    else:
        fsrc = ast.unparse(ast.fix_missing_locations(fn))
    head = ["import numpy as np"]
    if any(h[0].startswith(PACKAGE + ".") for h in g.helpers):
        head.append(f"import {PACKAGE}")
    if g.pkg_from:
        head.append(f"from {PACKAGE} import {', '.join(g.pkg_from)}")
    if fam == "default_args":
        module.append(f"W = {literal(w_value)}")
    parts = ["\n".join(head)] + module + [h[3] for h in g.helpers if h[3]] + [fsrc]
    if fam == "default_args":
        parts.append(between_source(g.r, wval))
    if fam == "private_attrs":
        parts.append(object_source(w_value, k_value))
    if g.pkg_helpers:
        parts += [PACKAGE_MARK + "\nimport numpy as np"] + g.pkg_helpers
    args = make_args(seed, params, feats.nan_args) + [g.fx[n + "_arg"] for n in
                                                      ("st", "lst", "dct") if n in g.fx]
    if fam == "arg_layouts":
        args = layout_args(random.Random(f"layout:{seed}"), frng, args, feats.readonly_args)
    return Program(seed, "\n\n\n".join(parts) + "\n", args)


_STATE_CLASS = """class State:

    def __init__(self, acc, count, buf):
        self.acc = acc
        self.count = count
        self.buf = buf

    def push(self, v):
        self.count += 1
        self.last = v
        return self.count"""


def _effects_setup(g, seed, params, env):
    """Feature `effects`: choose the outside state `f` works on; returns `f`'s prologue
    (its `global` statement) and the module-level definitions. The arguments are drawn
    from their own generator, so the arrays of a program are those without the feature."""
    rng = np.random.default_rng([seed, 7])
    arrays = [(n, v) for n, v in params if v.kind == "arr"]
    fx = g.fx
    while not fx:
        for name in ("st", "lst", "dct", "G", "G2", "LOG"):
            if g.chance(0.6 if name in ("st", "lst", "dct") else 0.35):
                fx[name] = True
    module, prologue = [], []

    def values(shape, dtype="float64"):
        return rng.normal(size=shape).astype(dtype) if dtype.startswith("float") else \
            rng.integers(-5, 6, size=shape).astype(dtype)
    if "st" in fx:
        acc = g.r.choice(arrays)[1].shape
        _, bval = g.r.choice(arrays)
        fx["acc"] = acc
        env["st.acc"] = Var("st.acc", Val("arr", acc, "float64"), param=True)
        env["st.count"] = Var("st.count", Val("py", (), "int"), param=True)
        env["st.buf"] = Var("st.buf", bval, param=True)
        fx["st_arg"] = NewState((values(acc), int(rng.integers(0, 3)),
                                 values(bval.shape, bval.dtype)))
        module.append(_STATE_CLASS)
    if "lst" in fx:
        fx["lst_arg"] = [values(g.r.choice(arrays)[1].shape), float(rng.normal())][
            :g.r.choice([0, 1, 2, 2])]
        fx["lst_min"] = len(fx["lst_arg"])
        fx["lst"] = lambda: [np.ones(2)] * fx["lst_min"]
    if "dct" in fx:
        fx["dct_arg"] = {"n": int(rng.integers(0, 3)), "w": values(g.r.choice(arrays)[1].shape)}
        fx["dct"] = lambda: {"n": 1, "w": np.ones(2)}
    names = [n for n in ("G", "G2") if n in fx]
    if names:
        prologue = g._p(f"global {', '.join(names)}")
        module.append("\n".join(f"{n} = {v}" for n, v in (("G", 0), ("G2", 0.0)) if n in fx))
    if "LOG" in fx:
        module.append("LOG = []")
        fx["LOG"] = list
    return prologue, module


# expressions of two operands, by kind: (generator, a, b) -> source
_BINARY_FORMS = {
    "bin": lambda g, a, b: f"({a} {g.r.choice(ARITH)} {b})",
    "div": lambda g, a, b: f"({a} / (np.abs({b}) + 1))",
    "where": lambda g, a, b: f"np.where({a} {g.r.choice(CMP[:2])} {g.const()}, {a}, {b})",
    "minmax": lambda g, a, b: f"np.{g.r.choice(['maximum', 'minimum'])}({a}, {b})",
}
