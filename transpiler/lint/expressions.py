"""Expressions of the traced-value interpreter: the value of each expression node.

`ev` gives every expression a `Val` and records it (`FunctionContext.value`, which rules
read); subscripts, attributes and operators are where array-ness, rank (`nd`), views
(`origins`) and constants are worked out, so the rules about shapes, masks and aliasing
depend on this module being right. Assignment targets are here too: binding a value to
a target is the inverse of evaluating it. Calls, which need the library knowledge, are in
`calls`.
"""
from __future__ import annotations

import ast

from npxla.transpiler.lint import knowledge as K
from npxla.transpiler.lint.values import (ARRAY, BOOL, CONTAINERS, DATA, DICT, FUNC, ITER,
                                          LIST, MAYBE, METHOD, NONE, NUMBER, PYTHON_ONLY,
                                          REF, RNG, SET, STATIC, STR, TUPLE, UNKNOWN,
                                          UNKNOWN_STATIC, Val, const, dyn_of, element_of,
                                          join, join_all, max_level, nd_join, ref_value)


class ExpressionsMixin:
    """The expression part of `interpreter.FunctionContext`: one `e_<Expression>`
    method per expression type, dispatched by `ev`, plus `bind` for assignment targets.
    It uses the context's state (`env`, `values`, `emit`, `lookup`) and its call
    evaluator (`e_Call`)."""

    # --- binding ----------------------------------------------------------------------
    def bind(self, target, v, stmt):
        if isinstance(target, ast.Name):
            self.values[target] = v
            self.env[target.id] = v
            if target.id in self.global_names:
                self.emit("global_store", stmt, target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            if v.items is not None and len(v.items) == len(elts) and \
                    not any(isinstance(e, ast.Starred) for e in elts):
                parts = list(v.items)
            else:
                item = element_of(v)
                parts = [item] * len(elts)
            for e, p in zip(elts, parts):
                if isinstance(e, ast.Starred):
                    self.bind(e.value, Val(kind=LIST, level=p.level, elem=p), stmt)
                else:
                    self.bind(e, p, stmt)
        elif isinstance(target, ast.Subscript):
            self.store_subscript(target, v, stmt, mode="store")
        elif isinstance(target, ast.Attribute):
            self.emit("attribute_store", stmt, target, self.ev(target.value))
        elif isinstance(target, ast.Starred):
            self.bind(target.value, Val(kind=LIST, level=v.level, elem=element_of(v)), stmt)

    def store_subscript(self, t, v, stmt, mode):
        base = self.ev(t.value)
        index = self.ev_index(t.slice)
        self.emit("subscript", t, base, index, mode, v)
        root = t.value
        while isinstance(root, ast.Subscript):
            root = root.value
        if base.kind in (LIST, DICT):
            self.emit("container_mutation", stmt, base, f"assignment into a Python {base.kind}")
            if isinstance(root, ast.Name) and root.id in self.env:
                old = self.env[root.id]
                self.env[root.id] = old.replace(elem=join(old.elem, v), items=None)
            return
        if isinstance(root, ast.Name):
            old = self.lookup(root.id, self.env)
            if old.arrayish or old.kind == UNKNOWN:
                self.emit("inplace", stmt, root.id, old)
            if root.id in self.locals:
                new_level = max(old.level, v.level, index.level) \
                    if old.kind not in PYTHON_ONLY else old.level
                self.env[root.id] = old.replace(level=new_level)

    # --- expressions ------------------------------------------------------------------
    def ev(self, node) -> Val:
        if node is None:
            return const(None)
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.ev(child)
            v = UNKNOWN_STATIC
        else:
            v = method(node)
        self.values[node] = v
        return v

    def e_Constant(self, n):
        return const(n.value)

    def e_Name(self, n):
        return self.lookup(n.id, self.env)

    def e_JoinedStr(self, n):
        for v in n.values:
            self.ev(v)
        return Val(kind=STR)

    def e_FormattedValue(self, n):
        self.ev(n.value)
        if n.format_spec is not None:
            self.ev(n.format_spec)
        return Val(kind=STR)

    def e_Tuple(self, n):
        items = tuple(self.ev(e) for e in n.elts)
        if any(isinstance(e, ast.Starred) for e in n.elts):
            return Val(kind=TUPLE, level=max_level(items), elem=join_all(
                [element_of(i) if isinstance(e, ast.Starred) else i
                 for e, i in zip(n.elts, items)]))
        return Val(kind=TUPLE, level=max_level(items), items=items,
                   elem=join_all(items))

    def e_List(self, n):
        items = [self.ev(e) for e in n.elts]
        starred = any(isinstance(e, ast.Starred) for e in n.elts)
        return Val(kind=LIST, level=max_level(items), elem=join_all(items),
                   items=None if starred else tuple(items),
                   origins=frozenset({("new", id(n))}))

    def e_Set(self, n):
        items = [self.ev(e) for e in n.elts]
        return Val(kind=SET, level=max_level(items), elem=join_all(items))

    def e_Dict(self, n):
        vals = [self.ev(k) for k in n.keys if k is not None]
        vals = [self.ev(v) for v in n.values]
        return Val(kind=DICT, level=max_level(vals), elem=join_all(vals),
                   origins=frozenset({("new", id(n))}))

    def e_Starred(self, n):
        v = self.ev(n.value)
        self.emit("iterate", n, v, "*unpacking")
        return v

    def e_Lambda(self, n):
        for d in n.args.defaults + [d for d in n.args.kw_defaults if d is not None]:
            self.ev(d)
        self._pending_defs[id(n)] = (n, dict(self.env))
        return Val(kind=FUNC, func=(n, self.env), qual="<lambda>")

    def e_NamedExpr(self, n):
        v = self.ev(n.value)
        self.bind(n.target, v, n)
        return v

    def e_Await(self, n):
        return Val(level=self.ev(n.value).level)

    def e_Yield(self, n):
        if n.value is not None:
            self.ev(n.value)
        return Val(level=MAYBE)

    e_YieldFrom = e_Yield

    def e_Attribute(self, n):
        base = self.ev(n.value)
        return self.attribute(n, base, called=False)

    def attribute(self, n, base, called):
        attr = n.attr
        if base.kind == REF:
            return ref_value(f"{base.qual}.{attr}" if base.qual else None)
        if base.kind in (RNG, STR) or base.kind in CONTAINERS:
            return Val(kind=METHOD, qual=attr, items=(base,)) if called else UNKNOWN_STATIC
        if base.kind in (FUNC, METHOD, NONE):
            return UNKNOWN_STATIC
        if attr in K.STATIC_ATTRS:
            if attr == "shape":
                return Val(kind=TUPLE, elem=Val(kind=NUMBER, nd=0))
            if attr == "dtype":
                return Val(kind=REF, qual="<dtype>")
            return Val(kind=NUMBER, nd=0)
        if attr in ("T", "mT"):
            return base.replace(kind=ARRAY if base.kind != BOOL else BOOL,
                                qual=None, const=_noconst(), items=None)
        if attr in ("real", "imag", "flat"):
            return base.replace(qual=None, const=_noconst(), items=None)
        if called:
            return Val(kind=METHOD, qual=attr, items=(base,))
        if base.kind == UNKNOWN and attr not in K.NDARRAY_ALL:
            # an attribute arrays do not have: `base` is a Python object (npxla makes
            # such arguments static), e.g. `res.converged`, `key.step`
            return UNKNOWN_STATIC
        return Val(level=base.level)

    def e_Subscript(self, n):
        base = self.ev(n.value)
        index = self.ev_index(n.slice)
        self.emit("subscript", n, base, index, "load", None)
        return self.subscript_value(n, base, index)

    def ev_index(self, node):
        if isinstance(node, ast.Slice):
            parts = [self.ev(p) for p in (node.lower, node.upper, node.step) if p is not None]
            v = Val(level=max_level(parts), kind="slice")
            self.values[node] = v
            return v
        if isinstance(node, ast.Tuple):
            parts = tuple(self.ev_index(e) for e in node.elts)
            v = Val(level=max_level(parts), kind=TUPLE, items=parts)
            self.values[node] = v
            return v
        return self.ev(node)

    def subscript_value(self, n, base, index):
        """The value `base[index]` reads (`n` is the Subscript node).

        Python containers give their element (the exact item for a constant index when
        the items are known, so unpacking a literal keeps each item's value);
        `np.r_`/`np.s_` and typing subscripts are library objects. For an array the
        result is as traced as the array and the index; an index with a slice, no index
        arrays and nothing traced is a view and keeps `origins` for the aliasing rule,
        anything else makes a fresh array; a boolean mask gives a one-dimensional
        result, whose length depends on the data (`dyn`, as for a slice whose bounds
        are array data and for slices and masks of such an array)."""
        if base.kind in (LIST, TUPLE):
            if index.kind == "slice":
                return base.replace(items=None, origins=frozenset({("new", id(n))}))
            if base.items is not None and index.has_const and isinstance(index.const, int):
                try:
                    return base.items[index.const]
                except IndexError:
                    pass
            return base.elem if base.elem is not None else Val(level=base.level)
        if base.kind == DICT:
            return base.elem if base.elem is not None else Val(level=base.level)
        if base.kind == STR:
            return Val(kind=STR)
        if base.kind == REF:
            qual = base.qual or ""
            if qual.endswith((".r_", ".c_", ".mgrid", ".ogrid", ".index_exp", ".s_")):
                return Val(level=index.level, kind=ARRAY if not qual.endswith(
                    ("s_", "index_exp")) else UNKNOWN)
            return Val(kind=REF, qual=None)       # typing.List[int] and the like
        if base.kind in PYTHON_ONLY:
            return UNKNOWN_STATIC
        parts = index.items if index.kind == TUPLE and index.items is not None else (index,)
        has_slice = any(p.kind == "slice" or (p.kind == NONE) for p in parts)
        mask = any(p.kind == BOOL and p.nd != 0 for p in parts)
        arrays = any(p.kind in (ARRAY, BOOL) and p.nd != 0 for p in parts)
        level = max(base.level, index.level)
        if base.level >= MAYBE and base.kind == UNKNOWN and not has_slice:
            level = max(level, base.level)
        rank = None
        if mask:
            nd = 1
        elif has_slice:
            nd = base.nd
        elif base.rank is not None and all(p.nd == 0 and p.kind in (NUMBER, ARRAY, UNKNOWN)
                                           for p in parts) and len(parts) <= base.rank:
            rank = base.rank - len(parts)
            nd = 0 if rank == 0 else 1            # `D[i, j]` of a 2-d D: a number
        else:
            nd = None if base.nd != 0 else 0
        view = has_slice and not arrays and index.level == STATIC
        kind = BOOL if base.kind == BOOL else (ARRAY if base.kind in (ARRAY, BOOL) else
                                               UNKNOWN if base.kind == UNKNOWN else ARRAY)
        return Val(level=level, kind=kind, nd=nd, rank=rank,
                   dyn=_subscript_length(base, parts),
                   origins=base.origins | {("view", id(n))} if view else
                   frozenset({("new", id(n))}),
                   ambiguous=base.ambiguous if view else False)

    def e_Slice(self, n):
        return self.ev_index(n)

    def e_BinOp(self, n):
        left = self.ev(n.left)
        right = self.ev(n.right)
        v = self.binop(left, right, n.op)
        return v.replace(origins=frozenset({("new", id(n))})) if v.arrayish else v

    def binop(self, a, b, op):
        """The abstract value of `a op b`: Python containers and strings keep their
        Python meaning (so `shape + (1,)` stays a static shape), while anything that
        touches a traced array is traced, and a run-time length flows to the result."""
        if a.kind == STR or (isinstance(op, ast.Mod) and a.kind == STR):
            return Val(kind=STR)
        if a.kind in (LIST, TUPLE) and isinstance(op, (ast.Add, ast.Mult)):
            elem = join(a.elem, b.elem if b.kind in (LIST, TUPLE) else None)
            items = None
            if isinstance(op, ast.Add) and b.kind == a.kind and a.items is not None \
                    and b.items is not None:
                items = a.items + b.items
            return Val(kind=a.kind, level=max(a.level, b.level if b.kind in CONTAINERS
                                              else a.level), elem=elem, items=items)
        if b.kind in (LIST, TUPLE) and isinstance(op, ast.Mult):
            return Val(kind=b.kind, level=b.level, elem=b.elem)
        level = max(a.condition_level if a.kind not in CONTAINERS else a.level,
                    b.condition_level if b.kind not in CONTAINERS else b.level)
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and \
                a.kind == BOOL and b.kind == BOOL:
            kind = BOOL
        elif isinstance(op, ast.MatMult) or ARRAY in (a.kind, b.kind) or \
                BOOL in (a.kind, b.kind):
            kind = ARRAY
        elif a.kind == NUMBER and b.kind == NUMBER:
            kind = NUMBER
        else:
            kind = UNKNOWN
        nd = nd_join(a.nd, b.nd)
        c = _noconst()
        if a.has_const and b.has_const:
            c = _fold(op, a.const, b.const)
        return Val(level=level, kind=kind, nd=nd, const=c,
                   dyn=dyn_of(a, b) if nd != 0 else None)

    def e_UnaryOp(self, n):
        v = self.ev(n.operand)
        if isinstance(n.op, ast.Not):
            self.emit("control", n, "not", v)
            if _truth(v) is not None:
                return const(not _truth(v))
            return Val(level=v.condition_level, kind=BOOL, nd=0)
        c = _noconst()
        if v.has_const and isinstance(v.const, (int, float, complex)):
            try:
                c = {ast.USub: lambda x: -x, ast.UAdd: lambda x: +x,
                     ast.Invert: lambda x: ~x}[type(n.op)](v.const)
            except Exception:
                pass
        return Val(level=v.condition_level, kind=v.kind if v.kind in (ARRAY, BOOL, NUMBER)
                   else UNKNOWN, nd=v.nd, const=c, dyn=v.dyn if v.nd != 0 else None)

    def e_BoolOp(self, n):
        vals = [self.ev(v) for v in n.values]
        self.emit("control", n, "boolop", join_all(vals[:-1]))
        kinds = {v.kind for v in vals}
        return Val(level=max(v.condition_level if v.kind not in CONTAINERS else v.level
                             for v in vals),
                   kind=kinds.pop() if len(kinds) == 1 else UNKNOWN)

    def e_Compare(self, n):
        left = self.ev(n.left)
        comps = [self.ev(c) for c in n.comparators]
        operands = [left] + comps
        if len(n.ops) > 1:
            self.emit("control", n, "compare", join_all(operands))
        if all(isinstance(op, (ast.Is, ast.IsNot)) for op in n.ops):
            if len(n.ops) == 1:
                same = _identical(left, comps[0])
                if same is not None:
                    return const(same == isinstance(n.ops[0], ast.Is))
            return Val(kind=BOOL, nd=0)
        if len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq)) and \
                all(isinstance(v.const, str) for v in operands if v.has_const) and \
                left.has_const and comps[0].has_const:
            return const((left.const == comps[0].const) == isinstance(n.ops[0], ast.Eq))
        if any(v.kind in (STR, NONE) for v in operands):
            return Val(kind=BOOL, nd=0)
        level = max(v.condition_level if v.kind not in CONTAINERS else v.level
                    for v in operands)
        if any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops):
            return Val(level=level, kind=BOOL, nd=0)
        nd = 1 if any(v.nd == 1 for v in operands) else (
            0 if all(v.nd == 0 for v in operands) else None)
        return Val(level=level, kind=BOOL, nd=nd, dyn=dyn_of(*operands) if nd != 0 else None)

    def e_IfExp(self, n):
        cond = self.ev(n.test)
        self.emit("control", n, "ifexp", cond)
        if _truth(cond) is not None:        # decided while compiling: one side runs
            return self.ev(n.body if _truth(cond) else n.orelse)
        a = self.ev(n.body)
        b = self.ev(n.orelse)
        v = join(a, b)
        if cond.condition_level >= MAYBE and v.kind not in PYTHON_ONLY:
            v = v.replace(level=max(v.level, cond.condition_level))
        return v

    def _comprehension(self, n, elts):
        saved = self.env
        env = dict(self.env)
        self.env = env
        try:
            for gen in n.generators:
                it = self.ev(gen.iter)
                self.emit("iterate", gen.iter, it, "a comprehension")
                self.bind(gen.target, element_of(it), n)
                for cond in gen.ifs:
                    self.ev(cond)
            return [self.ev(e) for e in elts]
        finally:
            self.env = saved

    def e_ListComp(self, n):
        (elt,) = self._comprehension(n, [n.elt])
        return Val(kind=LIST, level=elt.level, elem=elt, origins=frozenset({("new", id(n))}))

    def e_SetComp(self, n):
        (elt,) = self._comprehension(n, [n.elt])
        return Val(kind=SET, level=elt.level, elem=elt)

    def e_GeneratorExp(self, n):
        (elt,) = self._comprehension(n, [n.elt])
        return Val(kind=ITER, level=elt.level, elem=elt)

    def e_DictComp(self, n):
        k, v = self._comprehension(n, [n.key, n.value])
        return Val(kind=DICT, level=v.level, elem=v)


def _subscript_length(base, parts):
    """Where the data-dependent length of `base[parts]` comes from, or None: a boolean
    mask computed from traced values, a slice whose bounds are array data (traced
    Python ints are specialised instead), or a slice or mask of an array that already
    has such a length (an integer index takes the run-time-length axis away)."""
    if any(p.kind == BOOL and p.nd != 0 and p.level >= MAYBE for p in parts):
        return "a boolean mask"
    if any(p.kind == "slice" and p.level >= DATA for p in parts):
        return "slice bounds computed from array data"
    if base.dyn and any(p.kind in ("slice", NONE, BOOL) for p in parts):
        return base.dyn
    return None


# kinds of values that are never None
_NOT_NONE = frozenset({ARRAY, NUMBER, STR, LIST, TUPLE, DICT, SET, FUNC, METHOD, RNG})


def _identical(a, b):
    """Whether `a is b` is known while compiling: True/False when one side is the
    constant None and the other is None or of a kind that is never None; else None."""
    for x, y in ((a, b), (b, a)):
        if x.kind == NONE:
            if y.kind == NONE:
                return True
            if y.kind in _NOT_NONE or (y.kind == BOOL and y.level == STATIC):
                return False
    return None


def truth(v):
    """The truth value of `v` when it is a constant known while compiling, else None."""
    if not v.has_const or not isinstance(v.const, (type(None), bool, int, float, str)):
        return None
    return bool(v.const)


_truth = truth


def _noconst():
    return Val().const


_FOLD = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
         ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
         ast.Mod: lambda a, b: a % b, ast.Div: lambda a, b: a / b}


def _fold(op, a, b):
    f = _FOLD.get(type(op))
    if f is None or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                            for x in (a, b)):
        return _noconst()
    try:
        out = f(a, b)
    except Exception:
        return _noconst()
    if isinstance(out, int) and abs(out) > 2 ** 64:
        return _noconst()
    return out
