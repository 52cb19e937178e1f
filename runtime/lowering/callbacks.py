"""XLA's custom-call targets that call back into Python (print, logging, warnings at run
time, and library routines XLA lacks). Programs are lowered with the CPU target;
compiling for a GPU swaps in the GPU one (`xla.compile`), so the lowering does not need
to know the device."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from npxla.runtime.staging.abstract import AbstractArray
from npxla.runtime.lowering.hugepages import advise_huge_pages
from npxla.runtime.lowering.ieee_env import in_default_env
from npxla.runtime.staging.types import tensor_type

CPU_CALLBACK_TARGET = "xla_ffi_python_cpu_callback"
GPU_CALLBACK_TARGET = "xla_ffi_python_gpu_callback"
# The CPU target that hands the callback XLA's own buffers, results included, instead of
# copies (jaxlib's `buffer_callback`): CPU programs only.
CPU_BUFFER_CALLBACK_TARGET = "xla_buffer_python_cpu_callback"


def emit_pure_callback(trace, fn, operands, results):
    """Results of `fn(*operand arrays)` computed on the host: `results` is a list of
    (shape, dtype) and `fn` returns a tuple of C-contiguous arrays of exactly those.
    Without side effects, so XLA orders it by its data alone (and may drop it if its
    results are unused)."""
    return _pure(trace, fn, operands, results, CPU_CALLBACK_TARGET)


def emit_library_callback(trace, recipe, operands, results):
    """Results computed on the host, in a CPU program, by the library routine `recipe`
    names ((name, plain-data arguments), see `LIBRARY`): a function `fn(outs, *operand
    arrays)` whose operands are read-only NumPy views of XLA's buffers and whose `outs`
    are writable views of the result buffers, which it fills (`np.matmul(a, b,
    out=outs[0])`). The copying callback copies every operand (80 MB for a 20000 x 500
    Gram matrix: ~20 ms) and then the returned array; this one copies nothing. Without
    side effects. The recipe is the callback's only description, so the disk cache can
    store the program and a later process make the same callback."""
    call = rebuild((len(operands),) + tuple(recipe))
    return _pure(trace, call, operands, results, CPU_BUFFER_CALLBACK_TARGET)


def _buffer_caller(fn, n_in):
    def call(_context, *buffers):
        views = [np.asarray(b) for b in buffers]
        for out in views[n_in:]:
            advise_huge_pages(out)
        in_default_env(fn, views[n_in:], *views[:n_in])   # IEEE subnormals (XLA flushes)
        return ()
    return call


# --- library callbacks a stored executable can call again ---------------------------------
# A program is compiled with its host callbacks as Python callables, so the disk cache
# can keep only programs whose callbacks a later process can make again: npxla's own
# library routines (NumPy's loops, BLAS products, sorts). Each registers a factory under
# a name; a callback emitted with a recipe (name, plain-data arguments) is rebuilt from
# it. A stored entry can name only what is registered here, and each factory checks its
# arguments, so an entry planted in the cache cannot make a program call anything else.
LIBRARY: dict = {}


def library(name):
    """Register `factory(*args) -> fn(outs, *operands)` as the library callback `name`."""
    def register(factory):
        LIBRARY[name] = factory
        return factory
    return register


def recipes(callbacks):
    """The recipes of `callbacks` (tuples of plain data), or None when one of them has
    none (a print, a user's function): such a program is not stored."""
    out = [getattr(fn, "npxla_recipe", None) for fn in callbacks]
    return None if any(r is None for r in out) else out


def rebuild(recipe):
    """The host callback a recipe describes, marked pure as when it was emitted; raises
    (KeyError, ValueError, TypeError) for a recipe no factory makes."""
    if type(recipe) is not tuple or len(recipe) < 2 or type(recipe[0]) is not int or \
            type(recipe[1]) is not str:
        raise ValueError("malformed callback recipe")
    n_in, name, args = recipe[0], recipe[1], recipe[2:]
    call = _buffer_caller(LIBRARY[name](*args), n_in)
    call.npxla_recipe = recipe
    call.npxla_pure = True
    return call


def _pure(trace, fn, operands, results, target):
    types = [tensor_type(shape, dtype) for shape, dtype in results]
    op = emit_callback(trace, fn, [x.ir for x in operands], types, side_effect=False,
                       target=target)
    return [AbstractArray(tuple(shape), np.dtype(dtype), ir=r)
            for (shape, dtype), r in zip(results, op.results)]


def redo_unsafe(callbacks) -> bool:
    """Whether a run of a program with these host callbacks cannot be redone: some have
    side effects that cannot wait until the run is accepted (a clock read, a random
    draw). Pure ones may run twice; prints, warnings and log records are deferred
    (`npxla_deferrable`, see `operators.printing.execute`)."""
    return any(not getattr(fn, "npxla_pure", False) and
               not getattr(fn, "npxla_deferrable", False) for fn in callbacks)


def emit_callback(trace, fn, values, types, side_effect, target=CPU_CALLBACK_TARGET):
    """The custom call that runs `fn` on `values` (IR values) with results of `types`,
    `fn` registered in `trace.host_callbacks` at the index the call names."""
    index = len(trace.host_callbacks)
    if not side_effect:
        # a pure one may run again when a run is redone (`has_side_effects`)
        try:
            fn.npxla_pure = True
        except AttributeError:      # pragma: no cover - a callable without attributes
            pass
    trace.host_callbacks.append(fn)
    op = hlo.CustomCallOp(
        types, values, target, has_side_effect=side_effect,
        backend_config=ir.StringAttr.get(""),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        operand_layouts=_layouts([v.type for v in values]),
        result_layouts=_layouts(types))
    op.attributes["mhlo.backend_config"] = ir.DictAttr.get(
        {"index": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), index)})
    return op


def _layouts(types):
    return ir.ArrayAttr.get([row_major_layout(ir.RankedTensorType(t).rank) for t in types])


def row_major_layout(rank):
    """The row-major layout of an operand of `rank`, as custom calls name it."""
    return ir.DenseIntElementsAttr.get(np.arange(rank - 1, -1, -1, dtype=np.int64),
                                       type=ir.IndexType.get())
