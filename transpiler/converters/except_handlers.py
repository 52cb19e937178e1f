"""Every `except` clause starts with `ag__.reraise_refusal()`.

Legacy code guards numerics with `try: ... except Exception: <fallback>`. A refusal of
npxla's raised inside the `try` (a value needed while compiling, an unsupported call)
is an exception too, and a broad handler would swallow it and run the fallback: the
compiled program would silently compute something NumPy never does. The runtime's
`reraise_refusal` re-raises a caught `TranspileError` (so a value that staging needs
still reaches the driver, which may specialise and retry), and does nothing for the
user's own exceptions.
"""
from __future__ import annotations

import gast

from npxla.transpiler.pyct import templates


class _Transformer(gast.NodeTransformer):
    def visit_ExceptHandler(self, node):
        self.generic_visit(node)
        node.body = templates.replace("ag__.reraise_refusal()", origin=node) + node.body
        return node


def transform(node, ctx):
    return _Transformer().visit(node)
