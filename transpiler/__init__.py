"""npxla: compile existing NumPy code to XLA.

    from transpiler import jit, TranspileError, to_source
"""
from .api import jit, to_source
from .errors import TranspileError

__all__ = ["jit", "to_source", "TranspileError"]
__version__ = "0.1.0"
