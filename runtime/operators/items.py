"""Item assignment with NumPy's reference semantics."""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base.catalogue import TRACED_SEQUENCE_INDEX
from npxla.transpiler.base.errors import ConcretizationError

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.staging.trace import current_trace
from npxla.runtime.numpy.indexing.fancy import refuse_outside_array
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.indexing.fancy import aug_assign
from npxla.runtime.numpy.indexing.fancy import value_at
from npxla.runtime.numpy.core.values import fresh
from npxla.runtime.operators.mutation import refuse_container_mutation
from npxla.runtime.operators.effects import recorder as effects_recorder


class _Index:
    """`index[1:3, ::2]` -> `(slice(1, 3), slice(None, None, 2))`."""

    def __getitem__(self, item):
        return item


index = _Index()


def get_item(target, idx):
    """`target[idx]` read (the converter emits it for an index that is one expression,
    not a slice or tuple): a Python list or tuple of numbers at a traced index is read
    like an array of them; everything else is Python's own `target[idx]`."""
    if isinstance(target, (list, tuple)) and type(idx) is AbstractArray and idx.const is None:
        return _element_at(target, idx)
    if type(idx) is int and idx == -1 and type(target) is list:
        trace = current_trace()
        collector = None if trace is None else trace.append_slots.get(id(target))
        if collector is not None and collector.target is target:
            return collector.last()         # a list a staged loop fills: its last row
    return target[idx]


_NUMBERS = (bool, int, float, complex, np.bool_, np.number)


def _element_at(seq, idx):
    """`seq[idx]` with a traced integer index, for numbers of one dtype (Python's
    `float` as float64, `int` as int64): their stack, read at `idx` with Python's
    negative indices and, out of range, its IndexError (a run-time check). Anything
    else is Python's `seq[idx]`, which asks for the index's value: a loop index is
    unrolled, a Python int argument specialised, and one from array data refused
    (mixed kinds would give a Python int at one index and a float at another, which
    one array cannot)."""
    items = [as_abstract(v) if isinstance(v, _NUMBERS) or
             (isinstance(v, (AbstractArray, np.ndarray)) and not v.shape and
              v.dtype.kind in "biufc") else None for v in seq]
    if idx.shape or idx.dtype.kind not in "iu" or not items or \
            any(v is None for v in items) or len({v.dtype for v in items}) != 1:
        try:
            return seq[idx]
        except ConcretizationError as e:     # the same retry (deps), in the list's words
            raise TRACED_SEQUENCE_INDEX.error_for(kind=type(seq).__name__,
                                                  deps=e.deps) from None
    out = value_at(dispatch(np.stack, (items,), {}), idx)
    # Python numbers stay Python numbers (weak): `[0.5, 1.0][i]` is a float, not float64
    return fresh(out, weak=True) if all(v.weak for v in items) else out


def set_item(target, idx, value):
    if is_abstract(target):
        target[idx] = value
    elif isinstance(target, (list, dict)):
        recorder = effects_recorder()
        if recorder is not None:      # replayed after the run if `target` outlives it
            recorder.call(target, "__setitem__", (idx, value), {})
            return
        refuse_container_mutation(f"assignment into a Python {type(target).__name__}",
                                  target)
        target[idx] = value
    elif isinstance(target, np.ndarray) and _contains_abstract((idx, value)):
        refuse_outside_array(target)
    else:
        target[idx] = value


def aug_set_item(target, idx, op, value):
    """`target[idx] op= value`: NumPy evaluates the item, applies the in-place ufunc
    (casting='same_kind') and writes it back."""
    if not is_abstract(target):
        if isinstance(target, np.ndarray) and _contains_abstract((idx, value)):
            refuse_outside_array(target)
        item = target[idx]      # a list/dict item is stored by set_item (refused there
        # inside data-dependent flow, or carried through a branch)
        set_item(target, idx, _python_inplace(item, op, value))
        return
    if aug_assign(target, idx, op, value):   # traced mask: computed everywhere, selected
        return
    item = target[idx]     # an integer-array index gives a copy: written back below
    if is_abstract(item) and item.ndim == 0 and item._view is None:
        # one element: NumPy reads a scalar, computes, and stores it back with the
        # store's casting (`int_array[1] *= 2.5` is allowed, unlike on a slice)
        target[idx] = dispatch(getattr(np, op), (item, value), {})
    elif is_abstract(item):
        dispatch(getattr(np, op), (item, value), {"out": item})
        if item._view is None:  # a copy (integer index): write it back explicitly
            target[idx] = item
    else:
        target[idx] = dispatch(getattr(np, op), (item, value), {})


def _python_inplace(item, op, value):
    import operator
    table = {"add": operator.iadd, "subtract": operator.isub, "multiply": operator.imul,
             "true_divide": operator.itruediv, "floor_divide": operator.ifloordiv,
             "remainder": operator.imod, "power": operator.ipow, "matmul": operator.imatmul,
             "bitwise_and": operator.iand, "bitwise_or": operator.ior,
             "bitwise_xor": operator.ixor, "left_shift": operator.ilshift,
             "right_shift": operator.irshift}
    return table[op](item, value)


def _contains_abstract(tree):
    if isinstance(tree, AbstractArray):
        return True
    if isinstance(tree, (tuple, list)):
        return any(_contains_abstract(t) for t in tree)
    return False
