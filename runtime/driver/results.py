"""A call's result from its program's output buffers: NumPy values as NumPy returns
them (Python scalars, NumPy scalars, 0-d arrays, writable arrays), or left on the
device with output="device". Shared by the single-device and split programs."""
from __future__ import annotations

import numpy as np

from npxla.runtime.driver.staging import ARRAY
from npxla.runtime.staging.pytree import unflatten
from npxla.runtime.xla.transfer import to_numpy, writable


def build(staged, outs, output="numpy", leaves=None):
    """The user's result from the output buffers `outs` of `staged`'s program;
    `leaves`: the call's flat arguments (a result that is an argument is that object,
    see `staging.stage`)."""
    results = []
    for slot in staged.out_slots:
        if slot[0] == "arg":
            results.append(leaves[slot[1]])
        elif slot[0] == "dup":           # the same object as an earlier result leaf
            results.append(results[slot[1]])
        elif slot[0] == "bounded":
            results.append(trim(outs[slot[1]], outs[slot[2]], slot[3], output))
        elif slot[0] == "out":
            buf = outs[slot[1]]
            if output == "device":
                results.append(buf)
                continue
            arr = to_numpy(buf)
            if arr.ndim == 0:
                arr = to_result(arr, slot[2])
            results.append(arr)
        else:
            value = slot[1]
            results.append(value.copy() if isinstance(value, np.ndarray) else value)
    return unflatten(staged.out_treedef, iter(results))


def to_result(buf, kind):
    """A result buffer as NumPy returns it; `kind` for 0-d results (see
    `staging._kind`): a Python scalar, a 0-d array, or a NumPy scalar."""
    view = np.asarray(buf)
    if view.ndim == 0:
        if kind == ARRAY:
            return np.array(view)
        return view.item() if kind is True else view[()]
    return writable(view, buf)


def trim(buf, counts, axes, output="numpy"):
    """A result whose size depended on data (`x[x < 0]`, `np.nonzero`): the staged
    program returned it at the front of a buffer of its bound, with its lengths."""
    counts = np.asarray(counts)
    index = [slice(None)] * len(buf.shape)
    for a, n in zip(axes, counts):
        index[a] = slice(0, int(n))
    if output == "device":
        return buf[tuple(index)]
    return np.array(np.asarray(buf)[tuple(index)])
