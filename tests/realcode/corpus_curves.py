"""The real-code corpus's curve comparisons: **similaritymeasures** (1.2.0, pure Python
over NumPy and SciPy), every public function of its one module, each on the inputs its
docstring describes.

Curve matching is dynamic programming over a table of point distances: the discrete
Frechet distance and dynamic time warping fill an (n, m) table cell by cell from its
upper and left neighbours (`ca[i, j] = max(min(ca[i-1, j], ca[i, j-1], ca[i-1, j-1]),
c[i, j])`), after a `scipy.spatial.distance.cdist` of the two curves; the partial
curve mapping walks both curves' arc lengths; the area between two curves inserts
points into one with `np.insert` at run-time positions. Inputs: two noisy sine curves
of 60 and 45 points (two of 60 where the function compares point by point).
"""
from __future__ import annotations

import importlib

import numpy as np

from tests.realcode.corpus import Built, Case


def _curve(rng, n):
    x = np.linspace(0.0, 1.0, n)
    return np.column_stack([x, np.sin(6.0 * x) + 0.05 * rng.normal(size=n)])


def _fn(name):
    return getattr(importlib.import_module("similaritymeasures.similaritymeasures"), name)


def _pair(name, same_length=False, **kwargs):
    def setup(rng):
        a = _curve(rng, 60)
        b = _curve(rng, 60 if same_length else 45)
        return Built(_fn(name), (a, b), kwargs)
    return setup


def _arc_length(rng):
    return Built(_fn("get_arc_length"), (_curve(rng, 60),))


def _length(rng):
    c = _curve(rng, 60)
    return Built(_fn("get_length"), (c[:, 0], c[:, 1]))


def _poly_area(rng):
    t = np.sort(rng.uniform(0.0, 2.0 * np.pi, 12))
    return Built(_fn("poly_area"), (np.cos(t), np.sin(t)))


def _quad(rng):
    return Built(_fn("makeQuad"), (rng.normal(size=4), rng.normal(size=4)))


def _simple_quad(rng):
    return Built(_fn("is_simple_quad"), tuple(rng.normal(size=2) for _ in range(4)))


def _normalize(rng):
    a, b = _curve(rng, 60), _curve(rng, 45)
    return Built(_fn("normalizeTwoCurves"), (a[:, 0], a[:, 1], b[:, 0], b[:, 1]))


def _dtw_path(rng):
    module = importlib.import_module("similaritymeasures.similaritymeasures")
    _, d = module.dtw(_curve(rng, 30), _curve(rng, 25))
    return Built(module.dtw_path, (d,))


_P = "similaritymeasures"
CASES = [
    Case(_P, f"{_P}.frechet_dist", _pair("frechet_dist")),
    Case(_P, f"{_P}.frechet_dist(p=1)", _pair("frechet_dist", p=1)),
    Case(_P, f"{_P}.dtw", _pair("dtw")),
    Case(_P, f"{_P}.dtw(metric='cityblock')", _pair("dtw", metric="cityblock")),
    Case(_P, f"{_P}.dtw_path", _dtw_path),
    Case(_P, f"{_P}.pcm", _pair("pcm")),
    Case(_P, f"{_P}.curve_length_measure", _pair("curve_length_measure")),
    Case(_P, f"{_P}.area_between_two_curves", _pair("area_between_two_curves")),
    Case(_P, f"{_P}.mae", _pair("mae", same_length=True)),
    Case(_P, f"{_P}.mse", _pair("mse", same_length=True)),
    Case(_P, f"{_P}.get_arc_length", _arc_length),
    Case(_P, f"{_P}.get_length", _length),
    Case(_P, f"{_P}.poly_area", _poly_area),
    Case(_P, f"{_P}.makeQuad", _quad),
    Case(_P, f"{_P}.is_simple_quad", _simple_quad),
    Case(_P, f"{_P}.normalizeTwoCurves", _normalize),
]
