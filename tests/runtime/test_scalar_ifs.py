"""Small `if`s of scalars in loops computed on both paths and selected
(runtime/lowering/scalar_ifs.py): a short-circuit `and` that guards its reads keeps
NumPy's values and raises nothing Python would not, and a breadth-first search reads its
distance table without XLA copying the table on every trip."""
import re

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.lowering import scalar_ifs
from npxla.runtime.operators import conditionals
from tests.differential import branches_as_if, check

RNG = np.random.default_rng(8)


def bfs_grid(grid):
    h, w = grid.shape
    dist = -np.ones((h, w), dtype=np.int64)
    qi = np.zeros(h * w, dtype=np.int64)
    qj = np.zeros(h * w, dtype=np.int64)
    head, tail = 0, 1
    dist[0, 0] = 0
    while head < tail:
        i, j = qi[head], qj[head]
        head += 1
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            a, b = i + di, j + dj
            if 0 <= a < h and 0 <= b < w and grid[a, b] == 0 and dist[a, b] < 0:
                dist[a, b] = dist[i, j] + 1
                qi[tail] = a
                qj[tail] = b
                tail += 1
    return dist, tail


def _grid(n, density, seed):
    g = (np.random.default_rng(seed).random((n, n)) < density).astype(np.int64)
    g[0, 0] = 0
    return g


@pytest.mark.parametrize("n, density, seed", [(1, 0.0, 0), (5, 0.3, 1), (24, 0.25, 2),
                                              (40, 0.0, 3), (40, 0.6, 4)])
def test_bfs_matches_numpy(n, density, seed):
    check(bfs_grid, _grid(n, density, seed))


def _copies_in_loops(text, shape):
    pattern = re.escape(f"[{','.join(map(str, shape))}]") + r"\{[\d,]*\} copy\("
    bodies = [c for c in re.split(r"\n(?=\S)", text) if not c.startswith("ENTRY")]
    return sum(len(re.findall(pattern, c)) for c in bodies)


def test_the_search_reads_its_table_in_place(monkeypatch):
    g = _grid(60, 0.2, 5)
    assert _copies_in_loops(jit(bfs_grid).lower(g).as_text("hlo"), g.shape) == 0
    monkeypatch.setattr(scalar_ifs, "MAX_OPS", -1)      # as staged: XLA copied it
    assert _copies_in_loops(jit(bfs_grid).lower(g).as_text("hlo"), g.shape) > 0


def guarded_reads(x, idx):
    total = 0.0
    count = 0
    for k in range(idx.shape[0]):
        i = idx[k]
        if i > 0 and x[i - 1] > x[i]:          # x[-1] is never read for i == 0
            total += x[i - 1] - x[i]
        if i < x.shape[0] - 1 and x[i + 1] < 0.5 or i == 0:
            count += 1
        if 0 <= i - 3 and x[i - 3] > 0.9:
            x[i - 3] = 0.9
    return total, count, x


def guarded_reads_flattened(x, idx):      # (other names: other cached programs)
    return guarded_reads(x, idx)


def guarded_reads_kept(x, idx):
    return guarded_reads(x, idx)


@pytest.mark.parametrize("seed", range(4))
def test_guards_keep_their_short_circuit(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    x = rng.random(50)
    idx = rng.integers(0, 50, 200)
    idx[:3] = [0, 49, 1]
    check(guarded_reads, x, idx)
    with branches_as_if():                  # staged and kept as `if`s
        check(guarded_reads_kept, x, idx)
    monkeypatch.setattr(conditionals, "SELECT_MAX_ELEMENTS", 0)   # staged as `if`s,
    check(guarded_reads_flattened, x, idx)                         # then flattened
    text = jit(guarded_reads_flattened).lower(x, idx).as_text()
    assert "stablehlo.if" not in text


def out_of_range_when_taken(x, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        if idx[k] >= 0 and x[idx[k]] > 0.5:     # an index past the end is read: raises
            s += 1.0
    return s


def test_an_index_error_in_a_taken_branch_still_raises():
    x = RNG.random(10)
    check(out_of_range_when_taken, x, np.array([1, 2, -4, 3]))
    with pytest.raises(IndexError, match="out of bounds"):
        jit(out_of_range_when_taken)(x, np.array([1, 12, 3]))
