"""`assert test, msg` -> `if not test: raise AssertionError(msg)`.

An assertion on array data can only be decided when the program runs, so it must
become a data-dependent branch whose taken side raises: the control-flow pass then
stages it like any `if`, and a `raise` on a staged path becomes a runtime check that
raises the same exception with the same message (see `runtime.operators.conditionals`).
Python evaluates the message only when the assertion fails; so does the `if`.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates


class _Transformer(gast.NodeTransformer):
    def visit_Assert(self, node):
        if node.msg is None:
            return templates.replace("if not test:\n    raise AssertionError", origin=node,
                                     test=node.test)
        return templates.replace("if not test:\n    raise AssertionError(msg)", origin=node,
                                 test=node.test, msg=node.msg)


def transform(node, ctx):
    return _Transformer().visit(node)
