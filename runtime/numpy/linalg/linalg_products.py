"""np.linalg's products and array-API aliases: multi_dot (NumPy's optimal chain
order), matmul, matrix_transpose and outer.

Why a module of its own: these are plain products (dot_general through np.dot /
np.matmul) with no factorization, no LinAlgError and none of the family's dtype rules.
"""
from __future__ import annotations

import numpy as np
from numpy.linalg import LinAlgError

from npxla.runtime.lowering import structural as S
from npxla.runtime.numpy.linalg.linalg_common import FAMILY, apply, mT
from npxla.runtime.numpy.reductions.reductions import asarray, numpy_error
from npxla.runtime.numpy.core.registry import implements
from npxla.runtime.numpy.ufuncs.ufunc_core import store_out


# --- products --------------------------------------------------------------------------------

def _chain_order(shapes):
    """Matrix-chain order (NumPy's multi_dot dynamic programme): split table."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = np.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(arrays, split, i, j):
    if i == j:
        return arrays[i]
    k = split[i][j]
    return apply(np.dot, _chain(arrays, split, i, k), _chain(arrays, split, k + 1, j))


@implements(np.linalg.multi_dot, family=FAMILY)
def multi_dot(arrays, *, out=None):
    arrays = [asarray(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    if len(arrays) == 2:
        return apply(np.dot, arrays[0], arrays[1], **({} if out is None else {"out": out}))
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = S.reshape(arrays[0], shape=(1,) + arrays[0].shape)
    if last == 1:
        arrays[-1] = S.reshape(arrays[-1], shape=arrays[-1].shape + (1,))
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be "
                              "two-dimensional")
    result = _chain(arrays, _chain_order([a.shape for a in arrays]), 0, len(arrays) - 1)
    if first == 1 and last == 1:
        result = S.reshape(result, shape=())
    elif first == 1 or last == 1:
        result = S.reshape(result, shape=(result.size,))
    if out is not None:
        return store_out("multi_dot", out, result, casting="no")
    return result


@implements(np.linalg.matmul, family=FAMILY)
def linalg_matmul(x1, x2, /):
    return apply(np.matmul, x1, x2)


@implements(np.linalg.matrix_transpose, family=FAMILY)
def matrix_transpose(x, /):
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return mT(x)


@implements(np.linalg.outer, family=FAMILY)
def linalg_outer(x1, x2, /):
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        numpy_error(np.linalg.outer, x1, x2)
    return apply(np.outer, x1, x2)
