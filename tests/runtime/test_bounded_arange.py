"""`np.arange` with traced integer bounds of known range (a loop index, the length of
a slice it bounds, a specialised Python int) is an array of run-time length
(`numpy/arrays/creation._bounded_arange`), and `np.array` / `np.asarray` take such
arrays: pyentrp's `sample_entropy` builds `np.arange(len(x[i + 1:]) - m)` in a loop,
which used to unroll the loop (199 s to compile at 300 samples)."""
import warnings

import numpy as np
import pytest

from differential import check
from npxla import jit

RNG = np.random.default_rng(17)


def counts_up_and_down(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.arange(i, 2, -1).sum() + np.arange(3, i).sum() * 2 + \
            np.arange(i).astype(np.float64).mean() if i else 0.0
    return out


def search_lists(ts, m, tol):
    hits = np.zeros(m + 1)
    for i in range(ts.shape[0] - m):
        rem = ts[i + 1:]
        template = ts[i:i + m]
        search = np.arange(len(rem) - m + 1, dtype=np.int32)
        for k in range(m):
            hit = np.abs(rem[search + k] - template[k]) < tol
            hits[k + 1] += np.sum(hit)
            search = search[hit]
    return hits


def copies_of_windows(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        v = np.array(x[:i + 1])
        v[0] = 5.0                    # a copy: the argument keeps its values
        w = np.asarray(x[i:], dtype=np.float32)
        out[i] = v.sum() + w.sum() + np.asarray(x[:i]).sum()
    return out, x


@pytest.mark.parametrize("fn,args", [
    (counts_up_and_down, (RNG.standard_normal(25),)),
    (search_lists, (RNG.standard_normal(80), 3, 0.4)),
    (copies_of_windows, (RNG.standard_normal(30),)),
])
def test_against_numpy_staged_as_loops(fn, args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no loop unrolled
        check(fn, *args, rtol=1e-6, atol=1e-9)


def test_the_loop_stays_a_loop():
    x = RNG.standard_normal(200)
    text = jit(search_lists).lower(x, 3, 0.4).as_text()
    assert "stablehlo.while" in text and text.count("\n") < 3000


def unknown_range(x, n):
    return np.arange(int(x[0] > 0) + n).sum()


def test_a_bound_of_unknown_range_still_needs_its_value():
    """A bound from array data has no static range: the located refusal as before."""
    with pytest.raises(Exception, match="arange"):
        jit(unknown_range)(np.ones(3), 4)
