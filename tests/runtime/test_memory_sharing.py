"""`driver/staging.memory_sharing`, the aliasing part of a call's signature: the same
relation as NumPy's pairwise `np.may_share_memory` over every kind of view, named
compactly (an array passed many times by its first position), and a call with
hundreds of array arguments that repeat (lists of one matrix) against NumPy."""
import random

import numpy as np

from differential import check
from npxla.runtime.driver.staging import memory_sharing

BASE = np.arange(200.0).reshape(10, 20)
OTHER = np.zeros((5, 5))
MASKED = np.ma.masked_array(np.ones(7))
POOL = [BASE, BASE[2:5], BASE[:, ::-1], BASE[::-1], BASE[9:], BASE[:1], BASE.T,
        BASE[3, 4:9], OTHER, OTHER[1:, 1:], np.ones(3), 1.5, "x", np.zeros(0), BASE[0:0],
        MASKED, MASKED[2:], np.float64(2.0), np.ones(()), BASE.reshape(-1)[7:8],
        BASE[::2, 1::3], BASE.reshape(-1)[::-7]]


def _pairwise(leaves):
    arrays = [(i, x) for i, x in enumerate(leaves)
              if type(x) in (np.ndarray, np.ma.MaskedArray) and x.size]
    out = set()
    for a, (i, x) in enumerate(arrays):
        for j, y in arrays[a + 1:]:
            if x is y:
                out.add(("same", i, j))
            elif np.may_share_memory(x, y):
                out.add(("overlap", i, j))
    return out


def _expanded(compact, n):
    """The pairwise relation the compact form names."""
    first = {j: i for kind, i, j in compact if kind == "same"}
    groups = {}
    for j in range(n):
        groups.setdefault(first.get(j, j), []).append(j)
    out = set()
    for g in groups.values():
        out.update(("same", a, b) for k, a in enumerate(g) for b in g[k + 1:])
    for kind, i, j in compact:
        if kind == "overlap":
            out.update(("overlap", min(a, b), max(a, b)) for a in groups[i] for b in groups[j])
    return out


def test_the_relation_is_numpys():
    pick = random.Random(91)
    for _ in range(600):
        leaves = [pick.choice(POOL) for _ in range(pick.randint(0, 9))]
        compact = memory_sharing(leaves)
        assert _expanded(compact, len(leaves)) == _pairwise(leaves), leaves
        assert compact == memory_sharing(list(leaves))          # a stable key


def test_a_repeated_array_is_named_by_its_first_position():
    F = np.eye(2)
    got = memory_sharing([F] * 300 + [np.ones(2)])
    assert got == tuple(("same", 0, j) for j in range(1, 300))


def kalman_steps(x, P, Fs, Qs):
    for F, Q in zip(Fs, Qs):
        x = F @ x
        P = F @ P @ F.T + Q
    return x, P


def test_lists_of_one_repeated_matrix():
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    Q = np.eye(2) * 0.01
    check(kalman_steps, np.array([0.0, 1.0]), np.eye(2), [F] * 40, [Q] * 40, rtol=1e-12)
