"""Differential tests: slices of a fixed length at a start computed from a loop index
(`x[i:i + k]`, `x[2 * i:2 * i + 2]`, `x[i - 1:i + 2]`) are dynamic slices of static
shape inside a staged loop (sliding windows, convolution and pooling loops), not arrays
of run-time length and not unrolled loops; a start the loop does not prove inside the
axis keeps NumPy's shortening near the end."""
import warnings

import numpy as np
import pytest

from differential import check
from npxla import jit
from npxla.runtime.driver import staging
from npxla.runtime.operators.loops import NpxlaPerformanceWarning


def conv1d(x, w):
    n, k = len(x), len(w)
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        out[i] = x[i:i + k] @ w
    return out


def centred_mean(x):
    out = np.zeros_like(x)
    for i in range(1, len(x) - 1):
        out[i] = x[i - 1:i + 2].mean()
    return out


def pool2x2(x):
    h, w = x.shape
    out = np.zeros((h // 2, w // 2))
    for i in range(h // 2):
        for j in range(w // 2):
            out[i, j] = x[2 * i:2 * i + 2, 2 * j:2 * j + 2].max()
    return out


def scatter_add_window(x):
    y = np.zeros(len(x) + 2)
    for i in range(len(x)):
        y[i:i + 3] += x[i]
    return y


def patches(img, k):
    c, h, w = img.shape
    out = np.zeros((h - k + 1, w - k + 1))
    for i in range(h - k + 1):
        for j in range(w - k + 1):
            patch = img[:, i:i + k, j:j + k]
            out[i, j] = (patch * patch).sum()
    return out


def write_through_window_view(x):
    for i in range(len(x) - 2):
        view = x[i:i + 3]
        view[1] = view[0] + view[2]
    return x


def empty_window(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i:i + 0].sum()
    return total


def from_data(x, p):
    return x[p:p + 3].sum(), len(x[p:p + 3])


RNG = np.random.default_rng(5)
CASES = [(conv1d, (RNG.standard_normal(40), RNG.standard_normal(5))),
         (centred_mean, (RNG.standard_normal(30),)),
         (pool2x2, (RNG.standard_normal((8, 10)),)),
         (scatter_add_window, (RNG.standard_normal(25),)),
         (patches, (RNG.standard_normal((3, 9, 8)), 3)),
         (write_through_window_view, (RNG.standard_normal(12),)),
         (empty_window, (RNG.standard_normal(7),))]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_fixed_windows_match_numpy(fn, args):
    check(fn, *args, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn,args", CASES[:5], ids=[c[0].__name__ for c in CASES[:5]])
def test_fixed_windows_stay_loops_without_masks(fn, args, monkeypatch):
    # the loop as staged: most of these are maps, which the lanes rewrite then turns
    # into array code (tests/runtime/test_row_lanes.py)
    monkeypatch.setattr(staging, "vectorise_row_loops", lambda module: 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NpxlaPerformanceWarning)   # no unrolling
        text = jit(fn).lower(*args).as_text()
    assert "stablehlo.while" in text
    assert "stablehlo.iota" not in text        # no run-time-length masks


@pytest.mark.parametrize("p", [0, 5, 8, 9, 12, -1, -3, -20])
def test_window_from_data_shortens_like_numpy(p):
    check(from_data, np.arange(10.0), np.int64(p))
