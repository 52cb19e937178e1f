"""The real-code corpus's technical indicators: **pyti** (0.3.0, pure Python over
NumPy), every public function of every indicator module whose parameters a user
passes as price series and periods, all added together as first tried.

pyti is legacy code of the kind npxla is for: list comprehensions over windows
(`[np.mean(data[idx-(period-1):idx+1]) for idx in range(len(data))]`, where the first
windows wrap to empty slices), lists filled by `append` in loops and in both arms of
data-dependent branches, `warnings.catch_warnings()` around NaN means, and
`np.append` of a list onto a NaN prefix. Inputs: a random walk of 120 closes with
highs, lows and volumes around it.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np

from tests.realcode.corpus import Built, Case

_N = 120
# the value of each parameter name pyti's indicators take
_PERIODS = {"period": 14, "short_period": 5, "long_period": 20, "std_mult": 2.0,
            "env_percentage": 0.1, "std": 2.0}
_SERIES = ("data", "close_data", "high_data", "low_data", "volume")
_HELPERS = ("catch_errors", "function_helper")


def _series(rng):
    close = 100.0 + np.cumsum(rng.normal(size=_N))
    spread_up, spread_down = rng.uniform(0.0, 2.0, _N), rng.uniform(0.0, 2.0, _N)
    return {"data": close, "close_data": close.copy(), "high_data": close + spread_up,
            "low_data": close - spread_down, "volume": rng.uniform(1e3, 1e4, _N)}


def _setup(module, name):
    def setup(rng):
        fn = getattr(importlib.import_module(f"pyti.{module}"), name)
        values = {**_series(rng), **_PERIODS}
        params = inspect.signature(fn).parameters
        return Built(fn, kwargs={p: values[p] for p in params if p in values})
    return setup


def _callables():
    """(module, function) of every public function of pyti's indicator modules whose
    required parameters are series and periods."""
    try:
        pyti = importlib.import_module("pyti")
    except ImportError:        # not installed: the corpus skips the package
        return []
    out = []
    known = set(_SERIES) | set(_PERIODS)
    for info in sorted(pkgutil.iter_modules(pyti.__path__), key=lambda m: m.name):
        if info.name in _HELPERS:
            continue
        module = importlib.import_module(f"pyti.{info.name}")
        for name, fn in sorted(vars(module).items()):
            if name.startswith("_") or not inspect.isfunction(fn) or \
                    fn.__module__ != module.__name__:
                continue
            required = [p.name for p in inspect.signature(fn).parameters.values()
                        if p.default is inspect.Parameter.empty]
            if all(p in known for p in required):
                out.append((info.name, name))
    return out


CASES = [Case("pyti", f"pyti.{module}.{name}", _setup(module, name))
         for module, name in _callables()]
