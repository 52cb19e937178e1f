"""NumPy's API on abstract arrays: one module per family, each registering its functions.

Importing this package loads every family so the registry is complete.
"""
from . import registry  # noqa: F401
from . import convert  # noqa: F401
from . import indexing  # noqa: F401


def load_all():
    """Import every family module (each registers its functions on import)."""
    import importlib
    import pkgutil
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
