"""Primitive = typing rule (avals -> avals) + lowering rule (MLIR values -> MLIR values)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from npxla.runtime.staging import memory
from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.staging.types import tensor_type

Aval = tuple  # (shape: tuple[int, ...], dtype: np.dtype)


@dataclass(frozen=True)
class Primitive:
    """`typing(*in_avals, **params)` returns one aval or a list (multiple_results);
    `lowering(out_types, *in_values, **params)` returns one MLIR value or a list."""
    name: str
    typing: Callable
    lowering: Callable
    multiple_results: bool = False

    def __call__(self, *operands, **params):
        return bind(self, *operands, **params)


def bind(prim: Primitive, *operands: AbstractArray, **params):
    in_avals = [(o.shape, o.dtype) for o in operands]
    out = prim.typing(*in_avals, **params)
    out_avals = out if prim.multiple_results else [out]
    for s, d in out_avals:      # an array no memory here can hold: NumPy's MemoryError
        memory.check(s, np.dtype(d))
    out_types = [tensor_type(s, d) for s, d in out_avals]
    values = prim.lowering(out_types if prim.multiple_results else out_types[0],
                           *[o.ir for o in operands], **params)
    if not prim.multiple_results:
        values = [values]
    deps = frozenset().union(*[o.deps for o in operands]) if operands else frozenset()
    results = [AbstractArray(s, np.dtype(d), ir=v, deps=deps)
               for (s, d), v in zip(out_avals, values)]
    return results if prim.multiple_results else results[0]


def same_aval(aval, **_):
    return aval


def result_of(op_result):
    """Single MLIR result of an op builder (ops or values both accepted)."""
    return op_result.result if hasattr(op_result, "result") else op_result
