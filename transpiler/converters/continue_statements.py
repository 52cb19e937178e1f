"""`continue` -> a flag, so later passes only see structured `if`/`while`/`for`.

A staged loop body is one straight-line region; it cannot skip to its end. So
`continue` sets `cont__N = True` (reset to False at the top of every iteration) and
what could follow it in the body is guarded by `if ag__.not_(cont__N):`.
"""
from __future__ import annotations

import gast

from npxla.transpiler.converters.common import LoopJumpConverter, assign_flag


class _Transformer(LoopJumpConverter):
    jump = gast.Continue
    flag_hint = "cont"

    def convert_loop(self, node, flag):
        node.body = assign_flag(flag, False, node) + node.body
        return node


def transform(node, ctx):
    return _Transformer(ctx).visit(node)
