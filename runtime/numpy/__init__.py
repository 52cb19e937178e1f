"""NumPy's API on abstract arrays, grouped by concern: one sub-package per concern
(core, ufuncs, indexing, arrays, reductions, linalg, spectral, scipy, ndarray), one
module per family inside it, each registering its functions on import. A function's
bounded-extent implementation (arrays whose length is known only at run time) lives in
the same sub-package as its static one (`bounded*.py`). See docs/architecture.md.

Importing this package loads what AbstractArray's NumPy behaviour needs; `load_all`
loads every family so the registry is complete.
"""
from npxla.runtime.numpy.core import registry  # noqa: F401
from npxla.runtime.numpy.core import convert  # noqa: F401
# AbstractArray's NumPy behaviour (aliased: `indexing` here names the sub-package)
from npxla.runtime.numpy.indexing import indexing as _indexing  # noqa: F401
from npxla.runtime.numpy.ndarray import methods as _methods  # noqa: F401


def load_all():
    """Import every family module of every sub-package (each registers its functions on
    import)."""
    import importlib
    import pkgutil
    for info in pkgutil.walk_packages(__path__, f"{__name__}."):
        importlib.import_module(info.name)
