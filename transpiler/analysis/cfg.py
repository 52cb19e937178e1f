"""Statement-level control-flow graph of one function.

Dataflow analyses (reaching definitions, liveness) need every path control can
take, `break` / `continue` / `return` / exceptions included, which the nested
AST does not show. One CFG node stands for one simple statement, or for the
*header* of a compound statement (the test of `if` / `while`, the items of
`with`, the `except` clause). A `for` loop has three: its iterable (evaluated
once, before the loop), its header (the per-iteration "is there a next item"
test, where the back edge leads) and its target, bound only on the way into
the body (after a loop that ran zero times it is unbound). Nested function and
class definitions are single statements: they get graphs of their own.

`try` is modelled conservatively: any statement of the `try` body (or nothing of
it) may have run when a handler starts, and any point of the whole statement may
lead into `finally`. `with` is assumed not to swallow exceptions. A `while` whose test
is a true constant (`while True:`) is left only by `break` (or a jump out of it): the
code after it is unreachable otherwise, which tells "this function may fall off its
end" apart from "every path returns".
"""

import gast


class Node:
    """A CFG node: `ast_node` is the statement (or header) it stands for."""

    __slots__ = ('index', 'ast_node', 'next', 'prev')

    def __init__(self, index, ast_node):
        self.index = index
        self.ast_node = ast_node
        self.next = set()
        self.prev = set()

    def __repr__(self):
        what = 'exit' if self.ast_node is None else type(self.ast_node).__name__
        line = getattr(self.ast_node, 'lineno', None)
        return '<{} {}{}>'.format(self.index, what, '' if line is None else ' L%d' % line)


class Graph:
    """CFG of a function.

    `entry` stands for the parameters (its `ast_node` is the `arguments` node),
    `exit` (no `ast_node`) is where `return`, uncaught `raise` and the end of the
    body lead. `index` maps AST nodes (statements, headers, for iterables and targets) to
    their CFG node.
    """

    def __init__(self):
        self.nodes = []
        self.index = {}
        self.entry = None
        self.exit = None
        self._within = {}
        self._leaves = {}

    def nodes_within(self, stmt):
        """All CFG nodes of `stmt`, its nested bodies included."""
        return self._within[stmt]

    def block_nodes(self, stmts):
        return frozenset().union(*(self._within[s] for s in stmts))

    def statements(self):
        """Statements (and except handlers) of the function, in source order."""
        return list(self._within)

    def outside_preds(self, stmt):
        """Nodes outside `stmt` from which control enters it (back edges excluded)."""
        within = self._within[stmt]
        return {p for n in within for p in n.prev if p not in within}

    def entries(self, stmt):
        """Nodes of `stmt` control enters it at; its first node if unreachable."""
        within = self._within[stmt]
        found = {n for n in within if any(p not in within for p in n.prev)}
        return found or {min(within, key=lambda n: n.index)}

    def fallthrough_nodes(self, stmt):
        """Nodes of `stmt` after which control continues with the next statement.

        Empty when `stmt` never completes normally (every path returns, breaks...).
        """
        return self._leaves[stmt]

    def successors(self, stmt):
        """Nodes outside `stmt` that control reaches when `stmt` falls through."""
        within = self._within[stmt]
        return {s for n in self._leaves[stmt] for s in n.next if s not in within}


class _Loop:
    def __init__(self, header):
        self.header = header
        self.breaks = set()


class _Try:
    def __init__(self, node):
        self.catches = bool(node.handlers)
        self.has_finally = bool(node.finalbody)
        self.in_body = True
        self.pending = []  # (kind, loop) jumps that must run `finally` first


class _Builder:
    def __init__(self):
        self.graph = Graph()
        self.leaves = set()
        self.frames = []

    def new_node(self, ast_node):
        node = Node(len(self.graph.nodes), ast_node)
        self.graph.nodes.append(node)
        if ast_node is not None:
            self.graph.index[ast_node] = node
        return node

    @staticmethod
    def connect(sources, target):
        for source in sources:
            source.next.add(target)
            target.prev.add(source)

    def add(self, ast_node):
        """Append a node after the current leaves; it becomes the only leaf."""
        node = self.new_node(ast_node)
        self.connect(self.leaves, node)
        self.leaves = {node}
        return node

    def build(self, fn_node):
        exit_node = Node(None, None)
        self.graph.exit = exit_node
        self.graph.entry = self.add(fn_node.args)
        self.block(fn_node.body)
        self.connect(self.leaves, exit_node)
        exit_node.index = len(self.graph.nodes)
        self.graph.nodes.append(exit_node)
        return self.graph

    def block(self, stmts):
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, stmt):
        start = len(self.graph.nodes)
        self.graph._within[stmt] = None  # keeps `statements()` in source order
        getattr(self, 'visit_' + type(stmt).__name__, self.add)(stmt)
        self.graph._within[stmt] = frozenset(self.graph.nodes[start:])
        self.graph._leaves[stmt] = frozenset(self.leaves)

    def jump(self, sources, kind, loop=None):
        """Route a `return` / `raise` / `break` / `continue` from `sources`."""
        if kind in ('break', 'continue') and loop is None:
            loop = next((f for f in reversed(self.frames) if isinstance(f, _Loop)), None)
            if loop is None:
                raise ValueError("'{}' outside loop".format(kind))
        for frame in reversed(self.frames):
            if isinstance(frame, _Try):
                if kind == 'raise' and frame.catches and frame.in_body:
                    return  # handler edges are added for the whole try body
                if frame.has_finally:
                    frame.pending.append((kind, loop))
                    return
            elif frame is loop:
                if kind == 'continue':
                    self.connect(sources, loop.header)
                else:
                    loop.breaks.update(sources)
                return
        self.connect(sources, self.graph.exit)

    def _jump_statement(self, stmt, kind):
        node = self.add(stmt)
        self.jump({node}, kind)
        self.leaves = set()

    def visit_Return(self, stmt):
        self._jump_statement(stmt, 'return')

    def visit_Raise(self, stmt):
        self._jump_statement(stmt, 'raise')

    def visit_Break(self, stmt):
        self._jump_statement(stmt, 'break')

    def visit_Continue(self, stmt):
        self._jump_statement(stmt, 'continue')

    def visit_If(self, stmt):
        header = self.add(stmt)
        self.block(stmt.body)
        body_leaves = self.leaves
        self.leaves = {header}
        self.block(stmt.orelse)
        self.leaves |= body_leaves

    def _loop(self, stmt, iterable=None, target=None):
        if iterable is not None:
            self.add(iterable)
        header = self.add(stmt)
        loop = _Loop(header)
        self.frames.append(loop)
        if target is not None:
            self.add(target)
        self.block(stmt.body)
        self.connect(self.leaves, header)
        self.frames.pop()
        endless = _always_true(getattr(stmt, 'test', None))
        self.leaves = set() if endless else {header}
        self.block(stmt.orelse)
        if endless:         # the else block never runs: only a break leaves
            self.leaves = set()
        self.leaves |= loop.breaks

    def visit_While(self, stmt):
        self._loop(stmt)

    def visit_For(self, stmt):
        self._loop(stmt, iterable=stmt.iter, target=stmt.target)

    visit_AsyncFor = visit_For

    def visit_With(self, stmt):
        self.add(stmt)
        self.block(stmt.body)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, handler):
        self.visit_With(handler)  # header node, then the body

    def visit_Try(self, stmt):
        before = self.leaves
        start = len(self.graph.nodes)
        frame = _Try(stmt)
        self.frames.append(frame)
        self.block(stmt.body)
        body_leaves = self.leaves
        may_raise = before | set(self.graph.nodes[start:])
        frame.in_body = False
        handler_leaves = set()
        for handler in stmt.handlers:
            self.leaves = may_raise
            self.statement(handler)
            handler_leaves |= self.leaves
        self.leaves = body_leaves
        self.block(stmt.orelse)
        self.frames.pop()
        normal = self.leaves | handler_leaves
        if not stmt.finalbody:
            self.leaves = normal
            return
        self.leaves = normal | before | set(self.graph.nodes[start:])
        self.block(stmt.finalbody)
        final_leaves = self.leaves
        for kind, loop in frame.pending:
            self.jump(final_leaves, kind, loop)
        self.jump(final_leaves, 'raise')  # an exception finally re-raises
        self.leaves = final_leaves if normal else set()

    visit_TryStar = visit_Try


def _always_true(test):
    """Whether a `while` test is a constant that is true (`while True:`, `while 1:`):
    control then never leaves the loop through its test, only by `break`, `return` or
    an exception, so what follows the loop is reached only from its `break`s."""
    return isinstance(test, gast.Constant) and bool(test.value)


def build(fn_node):
    """Build the CFG of a FunctionDef / AsyncFunctionDef body."""
    if not isinstance(fn_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        raise TypeError('expected a function definition, got {}'.format(
            type(fn_node).__name__))
    return _Builder().build(fn_node)
