"""Placeholders for variables that control-flow conversion must pass around unbound.

Converted branches and loop bodies are functions that take and return every variable
they may change, so a variable first assigned inside one of them needs *some* value
before it. `Undefined` stands in and fails loudly, with the variable's name, if the
program really reads it.
"""
from __future__ import annotations

from npxla.transpiler.base.errors import UndefinedVariableError


class Undefined:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def _fail(self, *args, **kwargs):
        raise UndefinedVariableError(
            f"local variable '{self.name}' is used before it is assigned on this path",
            hint=f"assign '{self.name}' on every path before using it")

    def __repr__(self):
        return f"Undefined({self.name!r})"

    __getattr__ = __bool__ = __index__ = __int__ = __float__ = __iter__ = __len__ = _fail
    __call__ = __getitem__ = __setitem__ = _fail


def _binary(name):
    def op(self, *other):
        self._fail()
    op.__name__ = name
    return op


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
            "xor", "lshift", "rshift", "lt", "le", "gt", "ge", "neg", "pos", "abs",
            "invert"):
    setattr(Undefined, f"__{_op}__", _binary(_op))
    if _op not in ("lt", "le", "gt", "ge", "neg", "pos", "abs", "invert"):
        setattr(Undefined, f"__r{_op}__", _binary(_op))


class UndefinedReturnValue:
    """Initial value of the converted function's return variable. A staged branch
    that did not return fills it with zeros of the other branch's type; the return
    flag decides whether that value is ever seen."""
    __slots__ = ()

    def __repr__(self):
        return "UndefinedReturnValue()"
