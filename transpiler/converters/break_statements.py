"""`break` -> a flag, so later passes only see structured `if`/`while`/`for`.

A staged XLA loop has one exit, its condition; it cannot jump out of the middle of
its body. So `break` sets `brk__N = True`, what could follow it in the body is
guarded by `if ag__.not_(brk__N):`, the loop also stops when the flag is set (in the
`while` test, or as the `for` loop's extra test) and its `else:` runs only when the
flag is still false, as Python's does.
"""
from __future__ import annotations

import gast

from npxla.transpiler.converters.common import (LoopJumpConverter, add_loop_test,
                                                assign_flag, guard, not_flag)


class _Transformer(LoopJumpConverter):
    jump = gast.Break
    flag_hint = "brk"

    def convert_loop(self, node, flag):
        add_loop_test(node, not_flag(flag, node))
        if node.orelse:
            node.orelse = guard(node.orelse, flag, node.orelse[0])
        return assign_flag(flag, False, node) + [node]


def transform(node, ctx):
    return _Transformer(ctx).visit(node)
