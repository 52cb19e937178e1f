"""The analyses of this package, asked about a stdlib `ast` tree.

The converter works on gast trees, the linter (which must read any file without
converting it, and whose rules are written against the stdlib `ast`) on `ast` trees.
Both need the same facts: which names a branch or loop rebinds (activity), which
assignments reach a use (reaching definitions over the CFG), whether a function can fall
off its end (the CFG). Rather than derive them a second time on `ast`, `FunctionFacts`
converts one function to gast, runs this package's analyses on the copy, and pairs every
`ast` node with its gast counterpart, so that questions and answers are in `ast` nodes
and the facts are the converter's own.

    facts = FunctionFacts(fn)                  # fn: ast.FunctionDef / Lambda
    facts.modified(if_stmt, ("body", "orelse"))
    facts.reaching(fn, "x", name_node)         # [fn.args | ast statement | None]

The linter asks about many functions it only reads once (helpers, callees), so only
activity runs up front; a function's CFG is built, and its reaching definitions solved,
when first asked about (the converter's `analyze` does all of it, liveness too, and
annotates every statement, which the linter never reads).
"""
from __future__ import annotations

import ast

import gast

from npxla.transpiler.analysis import activity, anno, cfg
from npxla.transpiler.analysis.anno import Static
from npxla.transpiler.analysis.reaching_definitions import ReachingDefinitions

_AST_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# which scope annotation holds the activity of each part of a compound statement
_PART_SCOPES = {"body": Static.BODY_SCOPE, "orelse": Static.ORELSE_SCOPE,
                "finalbody": Static.FINALLY_SCOPE, "test": Static.HEADER_SCOPE}
# compound statements whose CFG node stands for their header only: the parts it covers
_HEADERS = {gast.If: ("test",), gast.While: ("test",), gast.For: (), gast.AsyncFor: (),
            gast.With: ("items",), gast.AsyncWith: ("items",),
            gast.ExceptHandler: ("type", "name")}


class FunctionFacts:
    """Activity, CFG and reaching definitions of one `ast` function (a def or a lambda)
    and of every function nested in it, through a gast copy."""

    def __init__(self, fn: ast.AST):
        self.root = fn
        self._tree = activity.resolve(gast.ast_to_gast(fn))
        self._gast = {}             # id(ast node) -> gast node
        self._ast = {}              # id(gast node) -> ast node
        # the functions and lambdas these facts are about: `fn` and those nested in it
        self.functions = _pair(fn, self._tree, self._gast, self._ast)
        self._graphs = {}           # id(gast def) -> cfg.Graph
        self._solutions = {}        # id(gast def) -> solved ReachingDefinitions
        self._owners = {}           # id(gast def) -> {id(gast node): CFG node}

    # --- the node correspondence ----------------------------------------------------------
    def covers(self, node) -> bool:
        return id(node) in self._gast

    def gast_of(self, node):
        return self._gast[id(node)]

    def ast_of(self, gnode):
        return self._ast.get(id(gnode))

    # --- activity ---------------------------------------------------------------------------
    def modified(self, stmt, parts) -> frozenset:
        """Plain names the given parts of compound statement `stmt` bind ("body",
        "orelse", "finalbody", "test", or "target" for a `for` loop's target). A store
        into an item or attribute (`x[i] = v`) counts as binding `x`: its value changes."""
        g = self.gast_of(stmt)
        out = frozenset()
        for part in parts:
            if part == "target":
                scope = anno.getanno(g.target, Static.SCOPE)
            else:
                scope = anno.getanno(g, _PART_SCOPES[part], None)
            if scope is not None:
                out |= scope.modified_names
        return out

    def local_names(self, fn) -> frozenset:
        """The variables of function `fn` as Python scopes them: parameters and names it
        binds, less those declared global or nonlocal (nested scopes have their own; a
        store into an item, `x[i] = v`, leaves `x` the enclosing scope's)."""
        return anno.getanno(self.gast_of(fn), Static.BODY_SCOPE).variables

    # --- control flow -----------------------------------------------------------------------
    def fallthrough(self, fn) -> list:
        """The statements of def `fn` after which control falls off the end of its
        body (empty when every path returns or raises)."""
        g = self.gast_of(fn)
        return [self.ast_of(n.ast_node) for n in self._graph(g).fallthrough_nodes(g.body[-1])]

    def returns_within(self, fn, stmt=None) -> list:
        """The `return` statements of def `fn` (inside statement `stmt` when given; not
        those of the functions nested in it), in source order."""
        graph = self._graph(self.gast_of(fn))
        nodes = graph.nodes if stmt is None else graph.nodes_within(self.gast_of(stmt))
        found = [n.ast_node for n in nodes if isinstance(n.ast_node, gast.Return)]
        found.sort(key=lambda r: (r.lineno, r.col_offset))
        return [self.ast_of(r) for r in found]

    # --- reaching definitions ---------------------------------------------------------------
    def reaching(self, fn, name, node) -> list:
        """What may have bound local `name` of def `fn` when `node` (any node of `fn`,
        nested scopes included: they count where they are defined) is evaluated:
        `fn.args` for the parameter, the binding `ast` statement (or a `for` target, an
        except handler), None where it may be unbound. Empty for a name `fn` does not
        bind (a global, a builtin). A store into an item (`x[i] = v`) does not rebind
        `x`: what reached it is what `x` still is."""
        g = self.gast_of(fn)
        owner = self._owner_map(g).get(id(self.gast_of(node)))
        if owner is None:
            return []
        solution = self._solution(g)
        out, todo, seen = [], [owner], set()
        while todo:
            at = todo.pop()
            for d in solution.ins[at]:
                if d.name != name or d in seen:
                    continue
                seen.add(d)
                if d.is_undefined:
                    out.append(None)
                elif name in activity.node_scope(d.node).bound_names or \
                        isinstance(d.node, gast.arguments):
                    out.append(self.ast_of(d.node))
                else:                           # x[i] = v: x is what it was before
                    todo.append(self._graph(g).index[d.node])
        return out

    def _graph(self, g):
        hit = self._graphs.get(id(g))
        if hit is None:
            hit = self._graphs[id(g)] = cfg.build(g)
        return hit

    def _solution(self, g):
        hit = self._solutions.get(id(g))
        if hit is None:
            local = anno.getanno(g, Static.BODY_SCOPE).local_names
            hit = self._solutions[id(g)] = ReachingDefinitions(self._graph(g), local).solve()
        return hit

    def _owner_map(self, g):
        """{id(gast node): the CFG node of function `g` evaluating it}: a header owns its
        test, a simple statement everything in it (nested functions and lambdas too)."""
        table = self._owners.get(id(g))
        if table is None:
            table = self._owners[id(g)] = {}
            for cfg_node in self._graph(g).nodes:
                stmt = cfg_node.ast_node
                if stmt is None or isinstance(stmt, gast.arguments):
                    continue
                parts = _HEADERS.get(type(stmt))
                if parts is None:
                    roots = [stmt]
                else:
                    roots = []
                    for part in parts:
                        value = getattr(stmt, part, None)
                        roots.extend(value if isinstance(value, list) else [value])
                for root in roots:
                    if root is not None:
                        for inner in gast.walk(root):
                            table[id(inner)] = cfg_node
        return table


# operator and context nodes are shared singletons in a parsed `ast` tree: not paired
_SHARED = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _pair(a, g, to_gast, to_ast):
    """Record `ast` node `a` and gast node `g` as the same node, then their children,
    field by field. gast keeps `ast`'s fields and their order; where it represents a
    field differently (a parameter is a `Name`, an except handler's name is a `Name`
    rather than a string) the `ast` side has no node to pair, or pairs with the `Name`.
    Returns the function definitions and lambdas met."""
    functions = []
    stack = [(a, g)]
    while stack:
        a, g = stack.pop()
        to_gast[id(a)] = g
        to_ast[id(g)] = a
        if isinstance(a, _AST_FUNCTIONS):
            functions.append(a)
        for field in a._fields:
            av = getattr(a, field, None)
            gv = getattr(g, field, None)
            if isinstance(av, list) and isinstance(gv, list):
                stack.extend((x, y) for x, y in zip(av, gv) if _pairs(x, y))
            elif _pairs(av, gv):
                stack.append((av, gv))
    return functions


def _pairs(a, g):
    return isinstance(a, ast.AST) and isinstance(g, gast.AST) and not isinstance(a, _SHARED)
