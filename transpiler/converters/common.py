"""Helpers shared by the control-flow converters.

Jumps (`break`, `continue`, `return`) are canonicalised the same way whichever kind
they are: the jump becomes a flag assignment and every statement that could follow it
is guarded by `if ag__.not_(flag):`. `JumpRewriter` does that walk once for all three
converters; the loop-test and lazy-operand ("thunk") builders are shared as well.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates
from npxla.transpiler.pyct.loader import RUNTIME_NAME

LOOPS = (gast.For, gast.While)
SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
EXTRA_TEST = "npxla_extra_test"  # attribute a break/return converter puts on a `For`


def is_runtime_call(node, name=None):
    """Whether `node` is a call `ag__.<name>(...)` (any runtime operator if no name)."""
    if not isinstance(node, gast.Call):
        return False
    func = node.func
    return (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
            and func.value.id == RUNTIME_NAME and (name is None or func.attr == name))


def store_name(name, load=False):
    return gast.Name(id=name, ctx=gast.Load() if load else gast.Store(), annotation=None,
                     type_comment=None)


def split_targets(target, matches, store, ctx, hint):
    """`target` (a name, attribute, or tuple/list/starred of them) with every part for
    which `matches(part)` holds replaced by a fresh name; `store(part, name)` gives the
    statements that store that name where the part stood, collected in target order.
    Returns (new target, statements)."""
    stores: list = []

    def visit(t):
        if matches(t):
            name = ctx.new_name(hint)
            stores.extend(store(t, name))
            return store_name(name)
        if isinstance(t, (gast.Tuple, gast.List)):
            t.elts = [visit(e) for e in t.elts]
        elif isinstance(t, gast.Starred):
            t.value = visit(t.value)
        return t
    return visit(target), stores


def augmented_update(name, node):
    """`name op= value` for augmented assignment `node` (positions kept)."""
    update = gast.AugAssign(target=store_name(name), op=node.op, value=node.value)
    gast.copy_location(update, node)
    update.end_lineno, update.end_col_offset = node.end_lineno, node.end_col_offset
    return update


def functions(node):
    """The function definitions in `node` (itself included), not those in classes."""
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, gast.ClassDef):
            continue
        if isinstance(current, gast.FunctionDef):
            yield current
        todo.extend(gast.iter_child_nodes(current))


def walk_scope(node):
    """Like `gast.walk`, without entering nested functions, lambdas or classes."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        if current is node or not isinstance(current, SCOPES):
            todo.extend(gast.iter_child_nodes(current))


def lambda_safe(expr):
    """Whether `expr` may be moved into a lambda: a walrus target would then bind in
    the lambda instead of the function."""
    return not any(isinstance(n, gast.NamedExpr) for n in walk_scope(expr))


def thunk_call(template, origin, exprs, **replacements):
    """`template` with `{thunks}` spelled `lambda: e0, lambda: e1, ...` for `exprs`.

    Operands become zero-argument lambdas so the runtime decides whether and in
    which order they are evaluated (short circuit), as Python would.
    """
    names = [f"__operand{i}__" for i in range(len(exprs))]
    source = template.format(thunks=", ".join(f"lambda: {n}" for n in names))
    replacements.update(zip(names, exprs))
    return templates.replace_expr(source, origin=origin, **replacements)


def header_origin(node):
    """The position of the header of compound statement `node` (`if <test>`, `while
    <test>`, `for <target> in <iter>`): code generated for the whole statement points
    there, so an error raised by the operator call underlines the header."""
    last = node.iter if isinstance(node, gast.For) else node.test
    origin = gast.copy_location(gast.Pass(), node)
    if last.end_lineno == node.lineno:
        origin.end_lineno, origin.end_col_offset = last.end_lineno, last.end_col_offset
    else:   # one line only: CPython would move a multi-line call to its last line
        keyword = {gast.If: "if", gast.While: "while"}.get(type(node), "for")
        origin.end_lineno, origin.end_col_offset = node.lineno, node.col_offset + len(keyword)
    return origin


def not_flag(flag, origin):
    return templates.replace_expr(f"ag__.not_({flag})", origin=origin)


def guard(stmts, flag, origin):
    """`if ag__.not_(flag): stmts`."""
    return templates.replace(f"if ag__.not_({flag}):\n    __body__", origin=origin,
                             __body__=stmts)


def assign_flag(flag, value, origin):
    return templates.replace(f"{flag} = {value}", origin=origin)


def add_loop_test(loop, test):
    """Make loop `loop` also stop when `test` is false (checked before its own test)."""
    if isinstance(loop, gast.While):
        if is_runtime_call(loop.test, "and_"):
            loop.test.args.insert(0, thunk_call("{thunks}", loop, [test]))
        else:
            loop.test = thunk_call("ag__.and_({thunks})", loop.test, [test, loop.test])
        return
    previous = getattr(loop, EXTRA_TEST, None)
    if previous is None:
        combined = test
    elif is_runtime_call(previous, "and_"):
        previous.args.append(thunk_call("{thunks}", loop, [test]))
        combined = previous
    else:
        combined = thunk_call("ag__.and_({thunks})", loop, [previous, test])
    setattr(loop, EXTRA_TEST, combined)


class ExpressionConverter(gast.NodeTransformer):
    """Base of the expression converters: they reach everything but class-level
    statements, where a generated lambda could not see the class's own names."""

    def visit_ClassDef(self, node):
        node.body = [self.visit(s) if isinstance(s, gast.FunctionDef) else s
                     for s in node.body]
        return node


class JumpRewriter:
    """Rewrites the jumps of one kind inside a block into flag assignments.

    Subclasses say what a jump is (`jump`, a statement type), what replaces it
    (`replace`, by default `flag = True`), and whether jumps inside nested loop bodies
    belong to them (`enters_loops`: true for `return`, false for `break`/`continue`,
    whose nested-loop jumps are the inner loop's). A loop's `else` block always
    belongs to the enclosing context.
    """

    jump: type = gast.stmt
    enters_loops = False

    def __init__(self, flag=None, jump=None):
        self.flag = flag
        if jump is not None:
            self.jump = jump

    def is_jump(self, stmt):
        return isinstance(stmt, self.jump)

    def replace(self, stmt):
        return assign_flag(self.flag, True, stmt)

    def loop_may_jump(self, loop):
        """Hook: a nested loop whose body jumps (only called when `enters_loops`)."""

    def _blocks(self, stmt):
        """(owner, field) pairs of the statement lists of `stmt` this rewriter scans."""
        if isinstance(stmt, SCOPES):
            return []
        if isinstance(stmt, LOOPS):
            fields = ("body", "orelse") if self.enters_loops else ("orelse",)
            return [(stmt, f) for f in fields]
        if isinstance(stmt, (gast.Try, gast.TryStar)):
            return ([(stmt, "body")] + [(h, "body") for h in stmt.handlers] +
                    [(stmt, "orelse"), (stmt, "finalbody")])
        return [(stmt, f) for f in ("body", "orelse") if isinstance(
            getattr(stmt, f, None), list)]

    def may_jump(self, stmt):
        return self.is_jump(stmt) or any(
            self.may_jump(s) for owner, field in self._blocks(stmt)
            for s in getattr(owner, field))

    def block_may_jump(self, stmts):
        return any(self.may_jump(s) for s in stmts)

    def rewrite(self, stmts):
        """The rewritten block; statements after a possible jump are guarded."""
        out = []
        for i, stmt in enumerate(stmts):
            if self.is_jump(stmt):
                out.extend(self.replace(stmt))
                return out  # the rest of the block is unreachable
            if not self.may_jump(stmt):
                out.append(stmt)
                continue
            body_jumps = isinstance(stmt, LOOPS) and self.block_may_jump(stmt.body)
            for owner, field in self._blocks(stmt):
                setattr(owner, field, self.rewrite(getattr(owner, field)))
            if body_jumps:
                self.loop_may_jump(stmt)
            out.append(stmt)
            rest = self.rewrite(stmts[i + 1:])
            if rest:
                out.extend(guard(rest, self.flag, rest[0]))
            return out
        return out


class LoopJumpConverter(gast.NodeTransformer):
    """Base of the `break` / `continue` converters: visits loops innermost first,
    rewrites the `jump` statements that belong to each, then lets the subclass adapt
    the loop itself (`convert_loop(loop, flag)`)."""

    jump: type = gast.stmt  # the statement type this converter rewrites
    flag_hint = ""

    def __init__(self, ctx):
        self.ctx = ctx

    def _visit_loop(self, node):
        self.generic_visit(node)
        rewriter = JumpRewriter(jump=self.jump)
        if not rewriter.block_may_jump(node.body):
            return node
        rewriter.flag = self.ctx.new_name(self.flag_hint)
        node.body = rewriter.rewrite(node.body)
        return self.convert_loop(node, rewriter.flag)

    visit_For = _visit_loop
    visit_While = _visit_loop

    def visit_ClassDef(self, node):
        return node  # class bodies stay Python (their methods convert when called)
