"""NumPy's API on abstract arrays: one module per family, each registering its functions.

Importing this package loads every family so the registry is complete.
"""
from npxla.runtime.numpy import registry  # noqa: F401
from npxla.runtime.numpy import convert  # noqa: F401
from npxla.runtime.numpy import indexing  # noqa: F401
from npxla.runtime.numpy import methods  # noqa: F401  (AbstractArray's NumPy behaviour)


def load_all():
    """Import every family module (each registers its functions on import)."""
    import importlib
    import pkgutil
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
