"""Importing JAX must not change the user's NumPy random stream.

JAX's import draws from NumPy's global random state (its cluster detection calls
`np.random.rand`), so `np.random.seed(1); jit(f)(x); np.random.rand()` gave another
number than without the `jit` call. npxla imports JAX lazily, from many places, on
first use; a one-shot import hook saves NumPy's global random state before JAX's
package runs and restores it after, wherever that first import happens. It removes
itself once JAX is imported, and does nothing when JAX was already imported (by the
user, who then drew the numbers themselves).
"""
from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys

import numpy as np


@contextlib.contextmanager
def numpy_random_state_kept():
    """Restore NumPy's global random state (the legacy `np.random.*` stream) on exit."""
    state = np.random.get_state()
    try:
        yield
    finally:
        np.random.set_state(state)


class _KeepingLoader(importlib.abc.Loader):
    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        with numpy_random_state_kept():
            self._inner.exec_module(module)

    def __getattr__(self, name):          # get_data, get_filename, ... of the real one
        return getattr(self._inner, name)


class _JaxImportFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "jax":
            return None
        uninstall()
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _KeepingLoader(spec.loader)
        return spec


_FINDER = _JaxImportFinder()


def install():
    """Guard JAX's first import (a no-op once JAX is imported)."""
    if "jax" not in sys.modules and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall():
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
