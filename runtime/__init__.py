"""npxla runtime: abstract arrays, the NumPy lowering registry, staging and XLA."""
import os as _os

# XLA's C++ INFO logs (client start-up) are noise for NumPy users.
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

# JAX is imported lazily on first use; its import must not move NumPy's random stream
from npxla.runtime.xla import jaxguard as _jaxguard  # noqa: E402

_jaxguard.install()
