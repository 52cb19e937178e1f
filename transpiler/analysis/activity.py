"""Activity: which names each statement and block reads, modifies and deletes.

Converters must know what a branch or loop body writes (its candidate outputs)
and what it reads (its inputs). Every statement gets `Static.SCOPE`; compound
statements also get `HEADER_SCOPE` / `BODY_SCOPE` / `ORELSE_SCOPE` /
`FINALLY_SCOPE`, functions, lambdas and comprehensions a `BODY_SCOPE` of their
own, and a `for` iterable and target their own `SCOPE` (each is a CFG node of
its own; the `HEADER_SCOPE` of a `for`, its next-item test, is empty).

Rules that matter for NumPy code:

* `a[i] = v`, `a.b = v`, `del a[i]` modify `a` (and the place `a[i]` / `a.b`)
  and read `a`; `x += 1` reads and modifies `x`.
* Comprehensions, lambdas and nested functions are scopes of their own: their
  targets and locals do not leak, their free variables are read where they are
  defined, a nested `def` modifies its name, and `nonlocal` writes leak out.
"""

import gast

from npxla.transpiler.analysis import anno
from npxla.transpiler.analysis import qual_names
from npxla.transpiler.analysis.anno import Static

_READ, _MODIFIED, _DELETED, _PARAMS = 'read', 'modified', 'deleted', 'params'
_BOUND = 'bound'


class Scope:
    """Activity of a piece of code; the sets hold `qual_names.QN` values."""

    def __init__(self, kind=None):
        # kind is None for blocks and statements, else 'function', 'lambda',
        # 'comprehension', 'class' or 'module': those isolate their names.
        self.kind = kind
        self.read = set()
        self.modified = set()
        self.deleted = set()
        self.params = set()
        self.bound = set()      # names (re)bound as variables, not through x[i] / x.a
        self.nonlocals = set()
        self.globals = set()

    @property
    def isolated(self):
        return self.kind is not None

    @staticmethod
    def _names(qns):
        return frozenset(qn.name for qn in qns if qn.is_simple)

    @property
    def read_names(self):
        return self._names(self.read)

    @property
    def modified_names(self):
        return self._names(self.modified)

    @property
    def deleted_names(self):
        return self._names(self.deleted)

    @property
    def param_names(self):
        return self._names(self.params)

    @property
    def bound_names(self):
        """Plain names (re)bound as variables: `x = ...`, `import x`, `def x`, a target,
        `del x`; not `x[i] = v` or `x.a = v`, which change the value `x` holds."""
        return self._names(self.bound)

    @property
    def variables(self):
        """The names Python makes local to this (isolated) scope: parameters and names
        bound by assignment, import, def, class or a target. Unlike `local_names`, a
        store into an item or attribute (`x[i] = v`) does not make `x` local: Python
        reads `x` from outside then."""
        return (self.bound_names | self.param_names) - self._names(self.nonlocals |
                                                                    self.globals)

    @property
    def local_names(self):
        """Plain names this (isolated) scope binds: its variables."""
        bound = self._names(self.modified | self.params | self.deleted)
        return bound - self._names(self.nonlocals | self.globals)

    def merge_into(self, parent):
        """Account for this scope's activity in the enclosing one."""
        if not self.isolated:
            for field in (_READ, _MODIFIED, _DELETED, _PARAMS, _BOUND, 'nonlocals',
                          'globals'):
                getattr(parent, field).update(getattr(self, field))
            return
        local = self.local_names
        parent.read.update(qn for qn in self.read if qn.root.name not in local)
        nonlocal_names = self._names(self.nonlocals)
        parent.modified.update(qn for qn in self.modified | self.deleted
                               if qn.root.name in nonlocal_names)

    def __repr__(self):
        def fmt(qns):
            return '{' + ', '.join(sorted(map(str, qns))) + '}'
        return 'Scope(read={}, modified={}, deleted={}, params={})'.format(
            fmt(self.read), fmt(self.modified), fmt(self.deleted), fmt(self.params))


def node_scope(node):
    """Activity of what a CFG node stands for: a statement, or only the header
    of a compound statement."""
    if anno.hasanno(node, Static.HEADER_SCOPE):
        return anno.getanno(node, Static.HEADER_SCOPE)
    return anno.getanno(node, Static.SCOPE)


_COMPREHENSION_RESULTS = {
    gast.ListComp: ('elt',), gast.SetComp: ('elt',),
    gast.GeneratorExp: ('elt',), gast.DictComp: ('key', 'value'),
}


class _Analyzer(gast.NodeVisitor):

    def __init__(self):
        self.stack = []

    # -- scope bookkeeping -------------------------------------------------

    @property
    def scope(self):
        return self.stack[-1]

    def push(self, kind=None):
        self.stack.append(Scope(kind))

    def pop(self):
        scope = self.stack.pop()
        if self.stack:
            scope.merge_into(self.scope)
        return scope

    def in_scope(self, node, key, children, kind=None):
        """Visit `children` in a new scope, annotated on `node` under `key`."""
        self.push(kind)
        self.visit_list(children)
        scope = self.pop()
        anno.setanno(node, key, scope)
        return scope

    def record(self, field, qn, scope=None):
        if qn is not None:
            getattr(scope or self.scope, field).add(qn)

    def bind(self, qn, scope=None):
        """`qn` is (re)bound as a variable: modified, and local to the scope."""
        self.record(_MODIFIED, qn, scope)
        self.record(_BOUND, qn, scope)

    # -- dispatch ------------------------------------------------------------

    def visit(self, node):
        if not isinstance(node, (gast.stmt, gast.excepthandler)):
            return super().visit(node)
        self.push()
        super().visit(node)
        anno.setanno(node, Static.SCOPE, self.pop())

    def visit_list(self, nodes):
        for node in nodes:
            if node is not None:
                self.visit(node)

    # -- names and places ----------------------------------------------------

    def visit_Name(self, node):
        field = {gast.Load: _READ, gast.Store: _MODIFIED,
                 gast.Del: _DELETED, gast.Param: _PARAMS}[type(node.ctx)]
        self.record(field, qual_names.QN(node.id))
        if field in (_MODIFIED, _DELETED):
            self.record(_BOUND, qual_names.QN(node.id))

    def _visit_place(self, node):
        qn = qual_names.from_node(node)
        if isinstance(node.ctx, gast.Load):
            self.record(_READ, qn)
        else:  # storing into / deleting from a part of a value modifies it
            self.record(_MODIFIED, qn)
            self.record(_MODIFIED, qual_names.root_of(node))
        self.generic_visit(node)  # the value is a Load: reads the root

    visit_Attribute = _visit_place
    visit_Subscript = _visit_place

    # -- simple statements ---------------------------------------------------

    def visit_AugAssign(self, node):
        self.record(_READ, qual_names.from_node(node.target))
        self.record(_READ, qual_names.root_of(node.target))
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        # Local annotations are never evaluated; `x: int` alone binds nothing.
        if node.value is not None:
            self.visit(node.value)
            self.visit(node.target)

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name != '*':  # `import a.b` binds `a`
                self.bind(qual_names.QN(alias.asname or alias.name.split('.')[0]))

    visit_ImportFrom = visit_Import

    def visit_Global(self, node):
        self.scope.globals.update(qual_names.QN(n) for n in node.names)

    def visit_Nonlocal(self, node):
        self.scope.nonlocals.update(qual_names.QN(n) for n in node.names)

    def visit_NamedExpr(self, node):
        self.visit(node.value)
        # PEP 572: the target binds in the scope enclosing any comprehension.
        owner = next(s for s in reversed(self.stack) if s.kind != 'comprehension')
        self.bind(qual_names.QN(node.target.id), owner)

    # -- compound statements -------------------------------------------------

    def visit_If(self, node):
        self.in_scope(node, Static.HEADER_SCOPE, [node.test])
        self.in_scope(node, Static.BODY_SCOPE, node.body)
        self.in_scope(node, Static.ORELSE_SCOPE, node.orelse)

    visit_While = visit_If

    def visit_For(self, node):
        self.in_scope(node.iter, Static.SCOPE, [node.iter])
        self.in_scope(node, Static.HEADER_SCOPE, [])  # the next-item test
        self.in_scope(node.target, Static.SCOPE, [node.target])
        self.in_scope(node, Static.BODY_SCOPE, node.body)
        self.in_scope(node, Static.ORELSE_SCOPE, node.orelse)

    visit_AsyncFor = visit_For

    def visit_With(self, node):
        self.in_scope(node, Static.HEADER_SCOPE, node.items)
        self.in_scope(node, Static.BODY_SCOPE, node.body)

    visit_AsyncWith = visit_With

    def visit_Try(self, node):
        self.in_scope(node, Static.BODY_SCOPE, node.body)
        self.visit_list(node.handlers)
        self.in_scope(node, Static.ORELSE_SCOPE, node.orelse)
        self.in_scope(node, Static.FINALLY_SCOPE, node.finalbody)

    visit_TryStar = visit_Try

    def visit_ExceptHandler(self, node):
        self.in_scope(node, Static.HEADER_SCOPE, [node.type, node.name])
        self.in_scope(node, Static.BODY_SCOPE, node.body)

    # -- new scopes ----------------------------------------------------------

    def _visit_function(self, node, kind, body):
        """Defaults and annotations are evaluated where the function is
        defined; parameters and body belong to the function's own scope."""
        args = node.args
        params = [p for p in args.posonlyargs + args.args + args.kwonlyargs
                  + [args.vararg, args.kwarg] if p is not None]
        self.visit_list(args.defaults + args.kw_defaults
                        + [p.annotation for p in params])
        self.push(kind)
        self.visit_list(params)
        entry = Scope()  # the CFG entry node binds the parameters
        entry.params = set(self.scope.params)
        anno.setanno(args, Static.SCOPE, entry)
        self.visit_list(body)
        anno.setanno(node, Static.BODY_SCOPE, self.pop())

    def visit_FunctionDef(self, node):
        self.visit_list(node.decorator_list + [node.returns])
        self.bind(qual_names.QN(node.name))
        self._visit_function(node, 'function', node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.visit_list(node.decorator_list + node.bases + node.keywords)
        self.bind(qual_names.QN(node.name))
        self.in_scope(node, Static.BODY_SCOPE, node.body, kind='class')

    def visit_Lambda(self, node):
        self._visit_function(node, 'lambda', [node.body])

    def _visit_comprehension(self, node):
        first = node.generators[0]
        self.visit(first.iter)  # evaluated in the enclosing scope
        self.push('comprehension')
        for generator in node.generators:
            self.visit(generator.target)
            if generator is not first:
                self.visit(generator.iter)
            self.visit_list(generator.ifs)
        self.visit_list([getattr(node, f) for f in _COMPREHENSION_RESULTS[type(node)]])
        anno.setanno(node, Static.BODY_SCOPE, self.pop())

    visit_ListComp = _visit_comprehension
    visit_SetComp = _visit_comprehension
    visit_GeneratorExp = _visit_comprehension
    visit_DictComp = _visit_comprehension


def resolve(tree):
    """Annotate every statement under `tree` (a Module, or any node)."""
    analyzer = _Analyzer()
    analyzer.push('module')
    analyzer.visit(tree)
    if isinstance(tree, gast.Module):
        anno.setanno(tree, Static.BODY_SCOPE, analyzer.pop())
    return tree
