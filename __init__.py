"""npxla: compile existing NumPy code to XLA (CPU, GPU, TPU) with NumPy's answers.

    from npxla import jit, to_source, TranspileError
    from npxla import asarray, to_numpy     # data kept on the device between calls

The repository's `transpiler/` and `runtime/` folders are installed as `npxla.transpiler`
and `npxla.runtime` (this file is the package root). `jit` lives in the driver and is
loaded on first use, so `import npxla` and the linter (`npxla.transpiler.lint`) never
import JAX.
"""
from .transpiler.base.errors import TranspileError
from .transpiler.base.version import VERSION as __version__

__all__ = ["jit", "to_source", "TranspileError", "asarray", "to_numpy", "DeviceArray"]


def __getattr__(name):
    # lazy: the driver imports JAX and XLA (seconds); the linter and CLI must not pay it
    if name == "jit":
        from .runtime.driver.api import jit
        return jit
    if name in ("asarray", "to_numpy", "DeviceArray"):   # lazy too: they use JAX
        from .runtime.xla import resident
        return getattr(resident, name)
    if name == "to_source":
        from .transpiler.conversion import to_source
        return to_source
    raise AttributeError(f"module 'npxla' has no attribute {name!r}")
