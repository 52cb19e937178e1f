"""Generator family `bounded`: arrays whose length is only known at run time.

What it writes (see "Lengths known at run time" in docs/semantics.md): slices whose
bounds are loop indices (`x[:i]`, `A[i, :j]`, `A[i + 1:, i]`, `x[:i][::-1]`) or array
data (`x[z[0]:z[1]]`), boolean-mask selections (`x[x > 0]`, `A[A[:, 0] > 0]`), and the
data-dependent functions (`np.nonzero`, `np.flatnonzero`, `np.argwhere`, `np.unique`,
one-argument `np.where`, `np.compress`, `np.extract`); triangular loops (`for j in
range(i)`), in-place writes through such slices and masks (also through a view kept in
a variable for the rest of the iteration), and data-dependent arrays returned from `f`.

How it stays typed: the length of `x[:i]` depends on `i`, so such an array never
becomes a name in the generator's environment (which holds one static type per name).
It only appears inside expressions whose own type does not depend on the length — a
reduction, `len`, a contraction of two arrays of the *same* length, an update of the
same slice — and every such expression or statement is typed on dummies for *every*
value of the loop indices it mentions (`typeof_all`), not only for the dummy `1`. Data
bounds and masks cannot be enumerated that way; their pairs are the same by
construction (the same mask source, the same bound expressions over axes of the same
length). Empty selections are kept (they are the edge case), but `max`/`min`/`argmax`
of one that may be empty is mostly guarded (`S.max() if S.size > 0 else x[0]`, the
fallback having the same type as the reduction).

Every random draw here happens only when the switch is on, so the programs of a
campaign without it are exactly those of the generator before the family existed.
"""
from __future__ import annotations

import ast
import dataclasses
import itertools
import re

import numpy as np

from .model import AUG, CMP, Ctx, Val, Var, quiet_eval, val_of


def _mentions(name, src):
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", src) is not None


class BoundedGen:
    """Mixed into `gen._Gen` (uses its `r`, `chance`, `expr`, `index`, `const`, ...)."""

    # -- typing over every value of the loop indices --------------------------------------
    def _combos(self, env, src):
        lv = [v for v in env.values() if v.bound is not None and _mentions(v.name, src)]
        names = [v.name for v in lv]
        for combo in itertools.product(*[range(max(v.bound, 1)) for v in lv]):
            ns = self._ns(env)
            ns.update(zip(names, combo))
            yield ns

    def typeof_all(self, env, src):
        """The Val of `src`, if NumPy accepts it with the same Val for every value of the
        loop indices it mentions (None otherwise)."""
        seen = None
        for ns in self._combos(env, src):
            try:
                val = val_of(quiet_eval(src, ns))
            except Exception:
                return None
            if val is None or (seen is not None and val != seen):
                return None
            seen = val
        return seen

    def runs_all(self, env, stmt):
        """Does `stmt` run for every value of the loop indices, keeping every name's Val?"""
        for ns in self._combos(env, stmt):
            try:
                out = quiet_eval(stmt, ns, "exec")
            except Exception:
                return False
            for v in env.values():
                if val_of(out[v.name]) != v.val:
                    return False
        return True

    def _sizes(self, env, src):
        out = []
        for ns in self._combos(env, src):
            try:
                out.append(np.size(quiet_eval(src, ns)))
            except Exception:
                return None
        return out

    # -- building blocks ------------------------------------------------------------------
    def _barrays(self, env, ndim=None):
        return [v for v in self.arrays(env, ndim) if v.val.kind == "arr"]

    def _loopvars(self, env, m):
        return [v.name for v in env.values() if v.bound is not None and 0 < v.bound <= m + 1]

    def _ints(self, env):
        return [v for v in self._barrays(env) if v.val.dtype.startswith("int")]

    def _data_bound(self, env):
        """A bound read from integer array data (`z[1]`, `np.abs(z[0, 1])`), or None."""
        ints = self._ints(env)
        if not ints:
            return None
        z = self.r.choice(ints)
        idx = ", ".join(str(self.r.randrange(d)) for d in z.val.shape)
        b = f"{z.name}[{idx}]"
        form = self.r.random()
        if form < 0.15:
            return f"np.abs({b})"
        if form < 0.25:
            return f"{b} % 3"
        return b

    def _spec(self, env, m):
        """Slice text (inside the brackets) with run-time bounds over an axis of length m."""
        lv = self._loopvars(env, m)
        if lv and (self.chance(0.8) or not self._ints(env)):
            i = self.r.choice(lv)
            others = [j for j in lv if j != i]
            forms = [f":{i}", f"{i}:", f":{i} + 1", f"{i} + 1:", f"1:{i} + 1", f"{i}:{i} + 2",
                     f":{m} - {i}", f"{i}:{m - 1}"]
            rare = [f"-{i}:", f":-{i}", f"{i} - 1:", f"{i}::-1", f":{i}:-1",
                    f"{i}::2", f"{i}::-2", f":{i}:3", f"{i}:{m}:2"]
            if others:
                j = self.r.choice(others)
                forms += [f"{j}:{i}", f"{j}:{i} + 1"]
            return self.r.choice(rare) if self.chance(0.1) else self.r.choice(forms)
        a = self._data_bound(env)
        if a is None:
            return None
        b = self._data_bound(env)
        forms = [f":{a}", f"{a}:"] + ([f"{a}:{b}"] * 2 if b else [])
        if self.chance(0.2):        # strided: gathered views (bounded_strided.py)
            forms = [f"{a}::2", f"{a}::-3", f"::{a} % 3 + 1", f"::-({a} % 2 + 1)"] + \
                ([f"{a}:{b}:-2"] if b else [])
        return self.r.choice(forms)

    def _axes(self, env):
        """{axis length: [templates with one `{}` for the slice text]} (1-D results)."""
        out = {}
        for v in self._barrays(env):
            s, n = v.val.shape, v.name
            if len(s) == 1:
                out.setdefault(s[0], []).append(f"{n}[{{}}]")
            elif len(s) == 2:
                out.setdefault(s[1], []).append(f"{n}[{self.index(env, s[0])}, {{}}]")
                out.setdefault(s[0], []).append(f"{n}[{{}}, {self.index(env, s[1])}]")
        return out

    def _mask(self, env, v):
        """A boolean mask with the shape of array var `v`'s data (`v` itself or another)."""
        same = [w for w in self._barrays(env) if w.val.shape == v.val.shape]
        w = self.r.choice(same).name
        c = self.r.choice(["0", "0", "1", "-1", "0.5", "2"])
        form = self.r.random()
        if form < 0.55:
            return f"{w} {self.r.choice(CMP[:4])} {c}"
        if form < 0.7:
            return f"np.abs({w}) > {self.r.choice(['0.5', '1', '2'])}"
        if form < 0.85:
            w2 = self.r.choice(same).name
            return f"({w} > {c}) {self.r.choice(['&', '|'])} ({w2} < {self.const()})"
        if form < 0.93 and len(v.val.shape) == 1:
            lv = self._loopvars(env, v.val.shape[0])
            if lv:
                return f"np.arange({v.val.shape[0]}) {self.r.choice(['<', '>=', '!='])} " \
                       f"{self.r.choice(lv)}"
        return f"~({w} > {c})"

    def family(self, env):
        """(members, maybe_empty): 1-D arrays of one run-time length, as source texts."""
        for _ in range(6):
            k = self.r.random()
            if k < 0.55:
                axes = self._axes(env)
                if not axes:
                    return None
                m = self.r.choice(sorted(axes))
                spec = self._spec(env, m)
                if spec is None:
                    continue
                members = [t.format(spec) for t in axes[m]]
                if "::-1" not in spec and ":-1" not in spec and self.chance(0.25):
                    members = members + [f"{self.r.choice(members)}[::-1]"]
                sizes = self._sizes(env, members[0])
                if sizes is None:
                    continue
                maybe_empty = min(sizes) == 0 or \
                    any(_mentions(z.name, spec) for z in self._ints(env))
                return members, maybe_empty
            arrs = self._barrays(env)
            if not arrs:
                return None
            v = self.r.choice(arrs)
            if k < 0.93:
                mask = self._mask(env, v)
                same = [w.name for w in arrs if w.val.shape == v.val.shape]
                members = [f"{w}[{mask}]" for w in same]
                members += [f"np.extract({mask}, {self.r.choice(same)})",
                            f"np.flatnonzero({mask})"]
                if len(v.val.shape) == 1:
                    members += [f"np.compress({mask}, {self.r.choice(same)})",
                                f"np.nonzero({mask})[0]", f"np.where({mask})[0]"]
                return members, True
            return [f"np.unique({v.name})"], False
        return None

    def _pick(self, members):
        """A member, sometimes with an elementwise operation (same length)."""
        s = self.r.choice(members)
        k = self.r.random()
        if k < 0.6:
            return s
        forms = [f"({s} * {self.r.choice(['2', '0.5', '-1'])})", f"np.abs({s})",
                 f"({s} + {self.r.choice(members)})", f"{s}.astype(np.float64)",
                 f"np.cumsum({s})", f"{s}.copy()", f"np.maximum({s}, 0)",
                 f"({s} - {self.r.choice(members)}.mean())"]
        if self.chance(0.05):  # no bounded implementation: unrolled or refused
            forms += [f"np.sort({s})", f"np.diff({s})"]
        return self.r.choice(forms)

    def _guarded(self, s, reduce, fallback):
        return f"({s}.{reduce}() if {s}.size > 0 else {fallback})"

    def _fallback(self, src, env):
        """An element of the array a selection `src` comes from (same dtype as its max)."""
        for v in self._barrays(env):
            if re.match(rf"(np\.\w+\()?{re.escape(v.name)}\[", src):
                return f"{v.name}[{', '.join('0' * 1 for _ in v.val.shape)}]"
        return None

    def bounded_scalar(self, env):
        """A scalar computed from run-time-length arrays (typed for every loop value)."""
        for _ in range(4):
            src = self._bounded_scalar(env)
            if src is not None and self.typeof_all(env, src) is not None:
                return src
        return None

    def _bounded_scalar(self, env):
        if self.chance(0.2):
            return self._scalar_2d(env)
        fam = self.family(env)
        if fam is None:
            return None
        members, maybe_empty = fam
        s = self._pick(members)
        k = self.r.random()
        if k < 0.3:
            return self.r.choice([f"{s}.sum()", f"np.sum({s})", f"len({s})", f"{s}.shape[0]",
                                  f"{s}.size", f"np.count_nonzero({s})", f"{s}.prod()"])
        if k < 0.55:
            t = self._pick(members)
            return self.r.choice([f"({s} @ {t})", f"np.dot({s}, {t})", f"np.inner({s}, {t})",
                                  f"np.vdot({s}, {t})", f"({s} * {t}).sum()"])
        if k < 0.62:            # sorting, joining, order statistics (bounded_functions.py)
            t = self._pick(members)
            safe = [f"np.concatenate([{s}, {t}]).sum()", f"np.unique({s}).size",
                    f"np.diff({s}).sum()", f"np.append({s}, 1).sum()",
                    f"(np.sort({s}) * np.arange(1, 2)[0]).sum()",
                    f"np.unique({s}, return_counts=True)[1].max(initial=0)"]
            full = [f"np.median({s})", f"np.sort({s})[0]", f"np.percentile({s}, 30)",
                    f"np.nanmax({s})", f"np.ptp({s})", f"np.argsort({s})[-1] * 0"]
            return self.r.choice(safe if maybe_empty else safe + full)
        if k < 0.65:
            return self.r.choice([f"np.linalg.norm({s})", f"{s}.mean()" if not maybe_empty
                                  or self.chance(0.15) else f"{s}.sum()",
                                  f"{s}.std()" if not maybe_empty else f"{s}.any()",
                                  f"np.var({s})" if not maybe_empty else f"{s}.all()",
                                  f"np.nanmean({s})" if not maybe_empty else
                                  f"np.any({s} > 0, where={s} < 1)",
                                  f"np.nanstd({s}, where={s} != 0)" if not maybe_empty
                                  else f"np.sum({s}, where={s} > 0)"])
        red = self.r.choice(["max", "min", "argmax", "argmin"])
        if not maybe_empty or self.chance(0.08):
            if self.chance(0.2) and red in ("max", "min"):
                return f"np.{red}({s})"
            return self.r.choice([f"{s}.{red}()", f"{s}[0]", f"{s}[-1]", f"np.cumsum({s})[-1]"]
                                 if red in ("max", "min") else [f"{s}.{red}()"])
        if red in ("argmax", "argmin"):
            return self._guarded(s, red, "np.int64(0)")
        fb = self._fallback(s, env) if s in members else None
        if fb is None:
            return f"{s}.sum()"
        return self._guarded(s, red, fb)

    def _scalar_2d(self, env):
        mats = self._barrays(env, 2)
        if not mats:
            return None
        a = self.r.choice(mats)
        n, (r, c) = a.name, a.val.shape
        k = self.r.random()
        if k < 0.5:
            spec = self._spec(env, r)
            sel = f"{n}[{spec}]" if spec else None
        elif k < 0.7:
            spec = self._spec(env, c)
            sel = f"{n}[:, {spec}]" if spec else None
        elif k < 0.85:
            s1, s2 = self._spec(env, r), self._spec(env, c)
            sel = f"{n}[{s1}, {s2}]" if s1 and s2 else None
        else:
            sel = f"{n}[{self._mask(env, Var('', Val('arr', (r,), 'float64')))}]" \
                if any(w.val.shape == (r,) for w in self._barrays(env)) else \
                f"{n}[{n}[:, {self.r.randrange(c)}] > 0]"
        if sel is None:
            return None
        return self.r.choice([f"{sel}.sum()", f"np.sum({sel})", f"{sel}.size",
                              f"{sel}.sum(axis=0).sum()", f"np.abs({sel}).sum()",
                              f"len({sel})", f"{sel}.T.sum()"])

    def bounded_vector(self, env, shape):
        """A static 1-D array of `shape` from a run-time-length 2-D selection
        (`A[:i].sum(axis=0)`, `A[:i].T @ x[:i]`, `A[m].max(axis=0)`), or None."""
        (want,) = shape
        mats = [a for a in self._barrays(env, 2) if want in a.val.shape]
        if not mats:
            return None
        a = self.r.choice(mats)
        n, (r, c) = a.name, a.val.shape
        rows = c == want and (r != want or self.chance(0.5))
        m = r if rows else c
        spec = self._spec(env, m)
        if spec is None:
            return None
        sel = f"{n}[{spec}]" if rows else f"{n}[:, {spec}]"
        ax = 0 if rows else 1
        vecs = [t.format(spec) for t in self._axes(env).get(m, [])]
        opts = [f"{sel}.sum(axis={ax})", f"np.sum({sel}, axis={ax})"]
        if vecs:
            opts += [f"({sel}.T @ {self.r.choice(vecs)})" if rows else
                     f"({sel} @ {self.r.choice(vecs)})"] * 2
        src = self.r.choice(opts)
        val = self.typeof_all(env, src)
        return src if val is not None and val.kind == "arr" and val.shape == shape else None

    # -- statements -----------------------------------------------------------------------
    def s_bounded(self, env, ctx):
        k = self.r.random()
        top = ctx.top and not ctx.loops and not ctx.dd_if and not ctx.helper
        if top and k < 0.4:
            return self.b_result(env)
        if k < 0.55:
            return self.b_inplace(env, ctx)
        if k < 0.7:
            return self.b_masked(env, ctx)
        if k < 0.85 and ctx.loops:
            return self.b_view(env, ctx)
        return self.s_tri(env, ctx)

    def _value_for(self, env, target, members):
        """A right-hand side for `target op= value` of a run-time length."""
        if members and self.chance(0.5):
            return self._pick(members)
        src, _ = self.expr(env, (), 1)
        return src

    def _copy_if_view(self, env, op, src, base):
        if op == "=" and not self.feats.overlap_assign and \
                re.match(rf"^{re.escape(base)}\[[^()]*\](\[::-1\])?$", src):
            return src + ".copy()"
        return src

    def b_inplace(self, env, ctx):
        """`x[:i] += v`, `A[i + 1:, i] = A[i + 1:, i] / (...)`, `A[:i] -= row`, ..."""
        cands = [v for v in self._barrays(env) if self._writable(env, ctx, v)]
        if not cands:
            return None
        v = self.r.choice(cands)
        n, s = v.name, v.val.shape
        axes = self._axes(env)
        if len(s) == 1 or self.chance(0.5):
            m = s[0] if len(s) == 1 else self.r.choice(s)
            spec = self._spec(env, m)
            if spec is None:
                return None
            if len(s) == 1:
                target = f"{n}[{spec}]"
            elif m == s[1] and (s[0] != s[1] or self.chance(0.5)):
                target = f"{n}[{self.index(env, s[0])}, {spec}]"
            else:
                target = f"{n}[{spec}, {self.index(env, s[1])}]"
            members = [t.format(spec) for t in axes.get(m, [])]
        else:  # a 2-D block with run-time extent, broadcast rows or scalars
            r, c = s
            s1 = self._spec(env, r)
            if s1 is None:
                return None
            s2 = self._spec(env, c) if self.chance(0.4) else None
            target = f"{n}[{s1}, {s2}]" if s2 else f"{n}[{s1}]"
            members = [target]
            if not s2:
                rows = [w.name for w in self._barrays(env, 1) if w.val.shape == (c,)]
                members += rows + [f"{n}[{self.index(env, r)}]"]
        op = self.r.choice(["="] * 2 + AUG)
        val = self._value_for(env, target, members)
        if val is None:
            return None
        if op == "=" and self.chance(0.5):  # a function of the target itself
            val = self.r.choice([f"{target} / (np.abs({val}) + 1)", f"{target} * {val}",
                                 f"{target} - {val}", f"np.abs({target})"])
        val = self._copy_if_view(env, op, val, n)
        stmt = f"{target} {op} {val}"
        return self._p(stmt) if self.runs_all(env, stmt) else None

    def b_masked(self, env, ctx):
        """`x[x > 0] = x[x > 0] ** 2`, `x[m] += 1`, `A[A[:, 0] > 0] = 0`, guarded max."""
        cands = [v for v in self._barrays(env) if self._writable(env, ctx, v)]
        if not cands:
            return None
        v = self.r.choice(cands)
        n, s = v.name, v.val.shape
        if len(s) == 2 and self.chance(0.4):
            mask = f"{n}[:, {self.r.randrange(s[1])}] > {self.r.choice(['0', '-1', '1'])}"
        else:
            mask = self._mask(env, v)
        target = f"{n}[{mask}]"
        k = self.r.random()
        if k < 0.35:
            f = self.r.choice([f"{target} * 2", f"np.abs({target})", f"{target} ** 2",
                               f"-{target}", f"{target} // 2" if "int" in v.val.dtype
                               else f"np.sqrt(np.abs({target}))", f"{target} - {target}.mean()"])
            stmt = f"{target} = {f}"
        elif k < 0.7:
            src, _ = self.expr(env, (), 1)
            if src is None:
                return None
            stmt = f"{target} {self.r.choice(['='] + AUG)} {src}"
        else:  # use the selection: a guarded reduction into an element
            red = self.r.choice(["max", "min", "sum", "mean"])
            fb = f"{n}[{', '.join('0' for _ in s)}]"
            use = self._guarded(target, red, fb) if red in ("max", "min") else \
                f"{target}.{red}()"
            if red == "mean":
                use = f"({target}.mean() if {target}.size > 0 else 0.0)"
            dst = self.r.choice([w for w in self._barrays(env)
                                 if self._writable(env, ctx, w)])
            idx = ", ".join(str(self.r.randrange(d)) for d in dst.val.shape)
            stmt = f"{dst.name}[{idx}] {self.r.choice(['='] + AUG[:2])} {use}"
        return self._p(stmt) if self.runs_all(env, stmt) else None

    def b_view(self, env, ctx):
        """A view of run-time length in a name for the rest of the iteration, written
        through: `u = x[:i]; u *= 0.5; x[i] += u.sum()`."""
        cands = [v for v in self._barrays(env) if self._writable(env, ctx, v)]
        if not cands:
            return None
        v = self.r.choice(cands)
        n, s = v.name, v.val.shape
        m = s[-1] if len(s) == 2 else s[0]
        spec = self._spec(env, m)
        if spec is None or "::-1" in spec or ":-1" in spec:
            return None
        view = f"{n}[{spec}]" if len(s) == 1 else f"{n}[{self.index(env, s[0])}, {spec}]"
        u = self.fresh("b")
        lines = [f"{u} = {view}" if self.chance(0.8) else f"{u} = {view}[::-1]"]
        c, _ = self.expr(env, (), 1)
        lines.append(f"{u} {self.r.choice(AUG)} {c or 1}")
        if self.chance(0.4):
            lines.append(f"{u}[{self.r.choice(['::2', '1:', ':'])}] = "
                         f"{self.r.choice(['0', '1', '-2'])}")
        idx = ", ".join(self.index(env, d) for d in s)
        red = self.r.choice(["sum()", "size", "sum() * 0.5" if "float" in v.val.dtype
                             else "sum() * 2"])
        lines.append(f"{n}[{idx}] {self.r.choice(AUG[:2])} {u}.{red}")
        stmt = "\n".join(lines)
        if not self.runs_all(env, stmt):
            return None
        return self._p(stmt)

    def b_result(self, env):
        """`r = <a data-dependent array>`, handed back by `f` (when it has no early
        return). A view (`x[z[0]:z[1]]`) must also see the writes made after it."""
        arrs = self._barrays(env)
        if not arrs:
            return None
        v = self.r.choice(arrs)
        n, s = v.name, v.val.shape
        mask = self._mask(env, v)
        same = [w.name for w in arrs if w.val.shape == s]
        forms = [f"{self.r.choice(same)}[{mask}]", f"np.nonzero({mask})",
                 f"np.flatnonzero({mask})", f"np.argwhere({mask})", f"np.where({mask})",
                 f"np.extract({mask}, {self.r.choice(same)})", f"np.unique({n})",
                 f"np.unique({n}, return_counts=True)",
                 f"np.{self.r.choice(['cumsum', 'abs'])}({self.r.choice(same)}[{mask}])",
                 f"({self.r.choice(same)}[{mask}] * 2 + 1)"]
        if len(s) == 1:
            forms += [f"np.compress({mask}, {self.r.choice(same)})"]
        else:
            col = f"{n}[:, {self.r.randrange(s[1])}] > 0"
            forms += [f"{n}[{col}]", f"np.compress({col}, {n}, axis=0)",
                      f"np.compress({n}[0] > 0, {n}, axis=1)"]
        if self._ints(env):
            m = s[0]
            static = {k: w for k, w in env.items() if w.bound is None}
            spec = self._spec(static, m)
            if spec:
                tmpl = self.r.choice(self._axes(static).get(m, [f"{n}[{{}}]"]))
                forms += [tmpl.format(spec)] * 3 + [tmpl.format(spec) + "[::-1]"]
        src = self.r.choice(forms)
        if not isinstance(self._try(env, src), (tuple, np.ndarray)):
            return None
        r = self.fresh("r")
        self.results.append(r)
        return self._p(f"{r} = {src}")

    def _try(self, env, src):
        try:
            return quiet_eval(src, self._ns(env))
        except Exception:
            return None

    def s_tri(self, env, ctx):
        """A triangular loop nest (`for i in range(n): for j in range(i): ...`), or a
        substitution/elimination sweep with slices bounded by the index."""
        arrs = self._barrays(env)
        if not arrs:
            return None
        lens = sorted({d for v in arrs for d in v.val.shape})
        nlen = self.r.choice(lens)
        srcs = [f"len({v.name})" for v in arrs if v.val.shape[0] == nlen] + \
            [f"{v.name}.shape[{k}]" for v in arrs for k, d in enumerate(v.val.shape)
             if d == nlen]
        count = self.r.choice(srcs)
        if nlen > 5:
            count, nlen = f"min({count}, 4)", 4
        self.loop_ids += 1
        outer_id = self.loop_ids
        i = self.fresh("i")
        sub = {k: dataclasses.replace(v) for k, v in env.items()}
        sub[i] = Var(i, Val("py", (), "int"), bound=nlen, loop=outer_id)
        octx = dataclasses.replace(ctx, loops=ctx.loops + (outer_id,), top=False)
        rng = self.r.choice([f"range({count})"] * 3 + [f"range({count} - 1, -1, -1)",
                                                       f"range(1, {count})"])
        if self.chance(0.3):
            body = self._sweep(sub, octx, i)
            if body is None:
                return None
        else:
            self.loop_ids += 1
            j = self.fresh("j")
            inner_rng, jb = self.r.choice([
                (f"range({i})", nlen - 1), (f"range({i} + 1)", nlen),
                (f"range({i} + 1, {count})", nlen), (f"range({i}, {count})", nlen)])
            sub2 = {k: dataclasses.replace(v) for k, v in sub.items()}
            sub2[j] = Var(j, Val("py", (), "int"), bound=jb, loop=self.loop_ids)
            ictx = dataclasses.replace(octx, loops=octx.loops + (self.loop_ids,))
            inner = self.block(sub2, ictx, self.r.randint(1, 3))
            self._keep_rebinds(sub, sub2)
            before = self.block(sub, octx, 1) if self.chance(0.3) else []
            loop = ast.For(target=ast.Name(j, ast.Store()),
                           iter=ast.parse(inner_rng, mode="eval").body, body=inner, orelse=[],
                           type_comment=None)
            after = self.block(sub, octx, 1) if self.chance(0.3) else []
            body = [s for s in before + [loop] + after if not isinstance(s, ast.Pass)]
        self._keep_rebinds(env, sub)
        return [ast.For(target=ast.Name(i, ast.Store()), iter=ast.parse(rng, mode="eval").body,
                        body=body, orelse=[], type_comment=None)]

    def _sweep(self, env, ctx, i):
        """Substitution-like statements with slices bounded by `i`."""
        mats = [a for a in self._barrays(env, 2) if self._writable(env, ctx, a)]
        vecs = [v for v in self._barrays(env, 1) if self._writable(env, ctx, v)]
        opts = []
        for a in mats:
            n = a.name
            for x in vecs:
                opts += [f"{x.name}[{i}] = ({x.name}[{i}] - {n}[{i}, :{i}] @ {x.name}[:{i}]) "
                         f"/ (np.abs({n}[{i}, {i}]) + 1)",
                         f"{x.name}[{i}] = ({x.name}[{i}] - {n}[{i}, {i} + 1:] @ "
                         f"{x.name}[{i} + 1:]) / (np.abs({n}[{i}, {i}]) + 1)",
                         f"{x.name}[{i} + 1:] -= {x.name}[{i}] * {n}[{i} + 1:, {i}]"]
            opts += [f"{n}[{i} + 1:, {i}] = {n}[{i} + 1:, {i}] / (np.abs({n}[{i}, {i}]) + 1)",
                     f"{n}[{i} + 1:, {i} + 1:] -= {n}[{i} + 1:, {i}:{i} + 1] * "
                     f"{n}[{i}:{i} + 1, {i} + 1:]",
                     f"{n}[{i}, {i} + 1:] = {n}[{i} + 1:, {i}]",
                     f"{n}[{i} + 1:, {i}] = {n}[{i}, {i} + 1:] * 0.5",
                     f"{n}[:{i}, {i}] = {n}[{i}, :{i}] - {n}[:{i}, {i}]"]
        for x in vecs:
            for y in self._barrays(env, 1):
                opts += [f"{x.name}[:{i} + 1] += {y.name}[{i}]",
                         f"{x.name}[1:{i} + 1] = {x.name}[1:{i} + 1] + 0.5 * "
                         f"{y.name}[:{i}][::-1]",
                         f"{x.name}[{i}] = {y.name}[:{i} + 1][::-1] @ {x.name}[:{i} + 1]"]
        self.r.shuffle(opts)
        out = []
        for stmt in opts[:12]:
            if self.runs_all(env, stmt):
                out.append(stmt)
                if len(out) >= self.r.randint(1, 2):
                    break
        if not out:
            return None
        body = self._p("\n".join(out))
        if self.chance(0.4):
            body += [s for s in self.block(env, ctx, 1) if not isinstance(s, ast.Pass)]
        return body
