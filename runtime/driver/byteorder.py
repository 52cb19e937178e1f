"""Arguments in non-native byte order (`>f8` on x86): XLA holds native numbers only."""
from __future__ import annotations

import numpy as np


def native_order(tree, swapped):
    """`tree` with every array in non-native byte order (`>f8` on x86) replaced by a
    native-order copy, recorded in `swapped`: XLA holds native numbers only, and the
    values are the same."""
    t = type(tree)
    if t is tuple or t is list:
        items = [native_order(x, swapped) for x in tree]
        return tree if all(a is b for a, b in zip(items, tree)) else t(items)
    if t is dict:
        items = {k: native_order(v, swapped) for k, v in tree.items()}
        return tree if all(items[k] is v for k, v in tree.items()) else items
    if t is np.ndarray and not tree.dtype.isnative:
        copy = tree.astype(tree.dtype.newbyteorder("="))
        swapped.append((tree, copy))
        return copy
    return tree
