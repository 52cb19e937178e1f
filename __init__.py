"""npxla: compile existing NumPy code to XLA (CPU, GPU, TPU) with NumPy's answers.

    from npxla import jit, to_source, TranspileError
    from npxla import asarray, to_numpy     # data kept on the device between calls

The repository's `transpiler/` and `runtime/` folders are installed as `npxla.transpiler`
and `npxla.runtime` (this file is the package root). `jit` lives in the driver and is
loaded on first use, so `import npxla` and the linter (`npxla.transpiler.lint`) never
import JAX.
"""
from typing import TYPE_CHECKING, Any

from .transpiler.base.errors import TranspileError
from .transpiler.base.version import VERSION as __version__

__all__ = ["jit", "to_source", "TranspileError", "asarray", "to_numpy", "DeviceArray",
           "JittedFunction", "Lowered", "CompiledFunction", "CacheInfo", "compile_notice"]

if TYPE_CHECKING:     # what type checkers see of the lazy names below
    from .runtime.driver.api import jit
    from .runtime.driver.cacheinfo import CacheInfo
    from .runtime.driver.jitted import JittedFunction
    from .runtime.driver.log import compile_notice
    from .runtime.driver.lowered import CompiledFunction, Lowered
    from .runtime.xla.resident import DeviceArray, asarray, to_numpy
    from .transpiler.conversion import to_source


def __getattr__(name: str) -> Any:
    # lazy: the driver imports JAX and XLA (seconds); the linter and CLI must not pay it
    if name == "jit":
        from .runtime.driver.api import jit
        return jit
    if name in ("asarray", "to_numpy", "DeviceArray"):   # lazy too: they use JAX
        # the driver first: it lets DeviceArray operators compute on the device
        from .runtime.driver import api  # noqa: F401
        from .runtime.xla import resident
        return getattr(resident, name)
    if name in ("JittedFunction", "Lowered", "CompiledFunction"):    # for type hints
        from .runtime.driver import jitted, lowered
        return getattr(jitted if name == "JittedFunction" else lowered, name)
    if name == "CacheInfo":        # what `f.cache_info()` returns
        from .runtime.driver.cacheinfo import CacheInfo
        return CacheInfo
    if name == "compile_notice":   # the slow-compile line on stderr (docs/api.md)
        from .runtime.driver.log import compile_notice
        return compile_notice
    if name == "to_source":
        from .transpiler.conversion import to_source
        return to_source
    raise AttributeError(f"module 'npxla' has no attribute {name!r}")
