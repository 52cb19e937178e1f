"""Large test matrices split between the default run and the slow run.

The default `python -m pytest` covers a representative part of each matrix (the
dtypes and cases that take distinct code paths); the rest is marked `slow`, which CI
runs too (`.ci/run`), so nothing is lost, and the default run stays under 5 minutes.
"""
import pytest


def slow_except(values, keep, ids=None, multi=False):
    """`values` for `pytest.mark.parametrize`, each one that `keep(value)` rejects marked
    `slow` (ids: as parametrize's, applied here so the marked ones keep theirs; `multi`:
    each value is a tuple of several arguments)."""
    out = []
    for v in values:
        name = ids(v) if ids is not None else None
        parts = tuple(v) if multi else (v,)
        if keep(v):
            out.append(pytest.param(*parts, id=name) if name is not None else v)
        else:
            out.append(pytest.param(*parts, marks=pytest.mark.slow, id=name))
    return out


def dtype_in(*kept):
    """A `keep` for dtype matrices: these dtypes run by default."""
    import numpy as np
    names = {np.dtype(d).name for d in kept}
    return lambda d: np.dtype(d).name in names


def alternate(values, ids=None, multi=False):
    """`values` with every second one marked `slow` (for lists ordered so that
    neighbours take similar paths: bool, int8, uint8, int64, float16, ... )."""
    keep = {id(v) for v in list(values)[::2]}
    return slow_except(values, lambda v: id(v) in keep, ids=ids, multi=multi)
