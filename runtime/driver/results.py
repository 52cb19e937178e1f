"""What one output buffer of a run becomes for the caller: NumPy values as NumPy returns
them (Python scalars, NumPy scalars, 0-d arrays, writable arrays, masked arrays), a
bounded result trimmed to its run-time length, or left on the device with
output="device". `finish.Finisher` builds whole results from these, on every path."""
from __future__ import annotations

import numpy as np

from npxla.runtime.driver.staging import ARRAY, MASKED, MASKED_FALSE, as_masked
from npxla.runtime.xla.transfer import _VIEW_MIN_BYTES, writable

# below this a result array is a copy of the output buffer (see `transfer.writable`)
SMALL_RESULT_BYTES = _VIEW_MIN_BYTES
# kinds whose arrays of one or more dimensions come back as plain ndarrays
PLAIN_KINDS = (True, False, ARRAY)


def to_result(buf, kind):
    """A result buffer as NumPy returns it; `kind` (see `staging._kind`): a masked
    array (any shape), else for 0-d results a Python scalar, a 0-d array, or a NumPy
    scalar."""
    view = np.asarray(buf)
    if kind == MASKED or kind == MASKED_FALSE:
        return as_masked(writable(view, buf) if view.ndim else np.array(view), kind)
    if view.ndim == 0:
        if kind == ARRAY:
            return np.array(view)
        return view.item() if kind is True else view[()]
    return writable(view, buf)


def trim(outs, k, counts, axes, output="numpy"):
    """A result whose size depended on data (`x[x < 0]`, `np.nonzero`): the program
    returned it at the front of output `k`, a buffer of its bound, with its lengths in
    output `counts`."""
    lengths = outs.numpy(counts)
    if output == "device":
        buf = outs.device(k)
        index = [slice(None)] * len(buf.shape)
        for a, n in zip(axes, lengths):
            index[a] = slice(0, int(n))
        return buf[tuple(index)]
    whole = outs.numpy(k)
    index = [slice(None)] * whole.ndim
    for a, n in zip(axes, lengths):
        index[a] = slice(0, int(n))
    return np.array(whole[tuple(index)])
