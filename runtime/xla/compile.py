"""StableHLO text -> loaded PJRT executable."""
from __future__ import annotations

from transpiler.errors import InternalCompilerError


def compile_module(module_text: str, device):
    from jax._src.lib import xla_client  # noqa: the PJRT client types
    from .devices import backend
    client = backend(device.platform)
    try:
        return client.compile_and_load(module_text, xla_client.DeviceList((device,)),
                                       xla_client.CompileOptions())
    except Exception as e:  # XLA's errors are ours, never the user's
        raise InternalCompilerError(f"XLA failed to compile the staged program: "
                                    f"{str(e).splitlines()[0]}") from None


def hlo_text(executable) -> str:
    return "\n".join(m.to_string() for m in executable.hlo_modules())
