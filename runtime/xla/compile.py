"""StableHLO text -> loaded PJRT executable."""
from __future__ import annotations

import threading

import numpy as np

from npxla.transpiler.base.errors import InternalCompilerError, UnsupportedOperationError

from npxla.runtime.lowering.callbacks import CPU_CALLBACK_TARGET, GPU_CALLBACK_TARGET
from npxla.runtime.xla.backend_options import (LEAN_MIN_TEMP_BYTES, lean_options,
                                               quick_compile, temp_bytes,
                                               with_backend_options, with_quick_compile)

_parse_contexts = threading.local()


def compile_module(module_text: str, device, host_callbacks=()):
    """Compile for `device`. `host_callbacks`: the Python callables the module's host
    callback custom calls name by index (staged with the CPU target name)."""
    from jax._src.lib import xla_client  # noqa: the PJRT client types
    client = device.client
    devices = xla_client.DeviceList((device,))
    options = options_for(device)
    if device.platform == "cpu" and quick_compile(module_text):
        options = with_quick_compile(options)

    def build(opts):
        if not host_callbacks:
            return client.compile_and_load(module, devices, opts)
        return client.compile_and_load(module, devices, opts, list(host_callbacks))

    try:
        module = module_text if not host_callbacks else \
            _module_for_callbacks(module_text, device.platform)
        executable = build(options)
        if device.platform == "cpu":
            executable = _leaner(executable, build, options)
        return executable
    except UnsupportedOperationError:
        raise
    except Exception as e:  # XLA's errors are ours, never the user's
        raise InternalCompilerError(f"XLA failed to compile the staged program: "
                                    f"{str(e).splitlines()[0]}") from None


def _leaner(executable, build, options):
    """`executable`, or its build with the memory-minimising schedule where its
    temporaries are large and that build needs at most half of them
    (`backend_options.LEAN_MIN_TEMP_BYTES`)."""
    temp = temp_bytes(executable)
    if temp is None or temp < LEAN_MIN_TEMP_BYTES:
        return executable
    lean_opts = lean_options(options)
    if lean_opts is None:
        return executable
    lean = build(lean_opts)
    lean_temp = temp_bytes(lean)
    return lean if lean_temp is not None and 2 * lean_temp <= temp else executable


def options_for(device):
    """Compile options for one device: the default options assign the program to the
    platform's device 0 whatever device list is passed, so `cpu:2`/`cuda:1` would fail
    when run ("replica is assigned to device 0")."""
    from jax._src.lib import xla_client  # noqa: the PJRT client types
    options = xla_client.CompileOptions()
    options.device_assignment = xla_client.DeviceAssignment.create(
        np.array([[device.id]], dtype=np.int32))
    return with_backend_options(options, device.platform)


def _module_for_callbacks(module_text, platform):
    """The overloads of `compile_and_load` that take host callbacks want an MLIR module
    object with every dialect registered (our trace contexts register only what they
    build), so the text is parsed again in a JAX context kept per thread."""
    from jaxlib.mlir import ir
    if platform == "tpu":
        raise UnsupportedOperationError(
            "print inside a compiled function is not supported on TPU",
            hint="return the values and print them after the call")
    if platform != "cpu":
        module_text = module_text.replace(CPU_CALLBACK_TARGET, GPU_CALLBACK_TARGET)
    ctx = getattr(_parse_contexts, "ctx", None)
    if ctx is None:
        from jax._src.interpreters import mlir as jax_mlir
        ctx = _parse_contexts.ctx = jax_mlir.make_ir_context()
    with ctx:
        return ir.Module.parse(module_text)


def hlo_text(executable) -> str:
    return "\n".join(m.to_string() for m in executable.hlo_modules())
