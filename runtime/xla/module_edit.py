"""Editing the `main` function of a staged StableHLO module: the superset variants
(`superset`, `superset_dot`, `superset_heads`) change its parameters and rebuild the
arguments from them before anything else reads them."""
from __future__ import annotations

from contextlib import contextmanager


class MainEdit:
    """The parsed module, its `main`'s block, and the MLIR modules to build with."""

    def __init__(self, module, ir, hlo):
        self.module, self.ir, self.hlo = module, ir, hlo
        self.main = main_function(module, ir)
        self.block = self.main.regions[0].blocks[0]

    def text(self):
        """The module's text, `main`'s type following its block's arguments."""
        ir = self.ir
        ftype = ir.FunctionType(ir.TypeAttr(self.main.attributes["function_type"]).value)
        self.main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in self.block.arguments], list(ftype.results)))
        return self.module.operation.get_asm(enable_debug_info=False)


def main_function(module, ir):
    return next(op for op in module.body.operations if "sym_name" in op.attributes and
                ir.StringAttr(op.attributes["sym_name"]).value == "main")


@contextmanager
def editing(module_text):
    """A MainEdit of `module_text`, inside JAX's MLIR context."""
    from jax._src.interpreters import mlir as jax_mlir  # lazy: JAX's MLIR context
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo as hlo
    with jax_mlir.make_ir_context(), ir.Location.unknown():
        yield MainEdit(ir.Module.parse(module_text), ir, hlo)
