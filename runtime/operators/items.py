"""Item assignment with NumPy's reference semantics."""
from __future__ import annotations

import numpy as np

from npxla.runtime.staging.abstract import AbstractArray, as_abstract, is_abstract
from npxla.runtime.numpy.indexing.fancy import refuse_outside_array
from npxla.runtime.numpy.core.registry import dispatch
from npxla.runtime.numpy.indexing.fancy import aug_assign
from npxla.runtime.numpy.indexing.fancy import value_at
from npxla.runtime.operators.mutation import refuse_container_mutation
from npxla.runtime.operators.effects import recorder as effects_recorder


class _Index:
    """`index[1:3, ::2]` -> `(slice(1, 3), slice(None, None, 2))`."""

    def __getitem__(self, item):
        return item


index = _Index()


def get_item(target, idx):
    """`target[idx]` read. A NumPy array (a global lookup table, say) indexed with traced
    values is lifted to a constant first: NumPy itself would ask for concrete indices.
    The result is a copy (NumPy would give a view of the global for basic indices)."""
    if isinstance(target, np.ndarray) and _contains_abstract(idx):
        return value_at(as_abstract(target), idx)
    return target[idx]


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
