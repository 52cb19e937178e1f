"""`f.lower(*args)` and `.compile()`: one staged program, printable and callable.

As with `jax.jit`, `jit(f).lower(*args)` stages `f` for the signature of `args` (shapes,
dtypes, the tree of containers, the values of static arguments) and gives a `Lowered`;
`.compile()` compiles it for the function's device and gives a `CompiledFunction`,
which is called like `f` with arguments of that signature (anything else is a
`TypeError` that names both signatures). Neither touches the function's own cache.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from npxla.runtime.driver import residency, runpath
from npxla.runtime.driver.compiled import Compiled
from npxla.runtime.driver.staging import READ_ONLY, memory_sharing, read_only_leaves
from npxla.runtime.staging.speculation import RerunSignal
from npxla.runtime.staging.pytree import flatten, leaf_key
from npxla.runtime.xla import resident
from npxla.runtime.xla.compile import hlo_text

_SHORT = {"b": "bool", "f": "f", "i": "i", "u": "u", "c": "c"}


def pretty_stablehlo(text: str) -> str:
    """The module in MLIR's custom (readable) syntax: staging prints the generic form
    when its context lacks the `func` dialect. Falls back to `text` unchanged."""
    try:
        from jax._src.interpreters import mlir as jax_mlir  # lazy: JAX's MLIR context
        from jaxlib.mlir import ir
        module = ir.Module.parse(text, jax_mlir.make_ir_context())
        return module.operation.get_asm(enable_debug_info=False)
    except Exception:       # noqa: BLE001 - printing nicely is optional
        return text


def describe_leaf(leaf) -> str:
    """One argument in `npxla emit --sig` syntax: f64[3,4], i64[], int, ..."""
    t = type(leaf)
    if t in (int, float, bool, complex):
        return t.__name__
    shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
    if shape is None or dtype is None:
        text = repr(leaf)
        return text if len(text) <= 40 else text[:37] + "..."
    dtype = np.dtype(dtype)
    name = "bool" if dtype.kind == "b" else \
        f"{_SHORT[dtype.kind]}{dtype.itemsize * 8}" if dtype.kind in _SHORT else str(dtype)
    return f"{name}[{','.join(map(str, shape))}]"


def describe(leaves) -> str:
    return ", ".join(describe_leaf(x) for x in leaves)


def call_key(jitted, args, kwargs):
    """(signature key, flat leaves, args, kwargs, DeviceArray holders) of a call, as
    `JittedFunction._call` computes them; the key is None for arguments in a
    non-native byte order (the jitted function's general path handles those)."""
    if jitted._array_defaults:
        kwargs = jitted._with_array_defaults(args, kwargs)
    args, kwargs = jitted._mark_static(args, kwargs)
    holders: dict = {}
    (args, kwargs), _ = resident.unwrap((args, kwargs), holders)
    leaves: list = []
    treedef = flatten((args, kwargs), leaves)
    if any(type(x) is np.ndarray and not x.dtype.isnative for x in leaves):
        return None, leaves, args, kwargs, holders
    key = (treedef, tuple(map(leaf_key, leaves)))
    sharing = memory_sharing(leaves)
    if holders:
        sharing += resident.same_pairs(holders)
    if sharing:
        key += (sharing,)
    read_only = read_only_leaves(leaves)
    if read_only:
        key += ((READ_ONLY, read_only),)
    return key, leaves, args, kwargs, holders


class Lowered:
    """`f.lower(*args)`: the staged module for one signature, printable as StableHLO
    (MLIR's readable form, as `npxla emit` prints it) or, once compiled, XLA HLO."""

    def __init__(self, staged, device, jitted=None, key=None, leaves=(), specialised=(),
                 environment=None):
        self._staged = staged
        self._device = device
        self._jitted = jitted
        self._key = key
        self._leaves = list(leaves)
        # Python ints the program was specialised on: {flat position: value}
        self._specialised = {i: self._leaves[i] for i in specialised}
        self._environment = environment
        self._compiled: Compiled | None = None

    @property
    def signature(self) -> str:
        """The arguments this program was lowered for, in `--sig` syntax."""
        return describe(self._leaves)

    def as_text(self, dialect: str | None = "stablehlo") -> str:
        """The program as text: "stablehlo" (default), the module npxla builds, in MLIR's
        readable syntax; "hlo", XLA's HLO after compiling for the device."""
        if dialect is None or dialect == "stablehlo":
            return pretty_stablehlo(self._staged.module_text)
        if dialect == "hlo":
            return hlo_text(self._executable().executable)
        raise ValueError("dialect must be 'stablehlo' or 'hlo'")

    def _executable(self) -> Compiled:
        if self._compiled is None:
            self._compiled = Compiled(self._staged, self._device)
            self._compiled.executable   # compile now: errors surface here
        return self._compiled

    def compile(self) -> "CompiledFunction":
        """Compile for the function's device: a callable for this signature."""
        return CompiledFunction(self, self._executable())

    def __repr__(self) -> str:
        name = getattr(self._jitted, "__qualname__", "function")
        return f"<npxla Lowered {name}({self.signature})>"


class CompiledFunction:
    """`f.lower(*args).compile()`: the compiled program, called like `f` with arguments
    of the lowered signature (same shapes, dtypes, containers and static values).
    Results, write-back into array arguments and replayed side effects are those of
    `f(*args)`."""

    def __init__(self, lowered: Lowered, compiled: Compiled):
        self._lowered = lowered
        self._compiled = compiled

    def as_text(self) -> str:
        """XLA's HLO of the compiled program (as `jax.jit(...).lower().compile()`)."""
        return hlo_text(self._compiled.executable)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        lowered, jitted = self._lowered, self._lowered._jitted
        if jitted is None:
            raise TypeError("this program was not lowered from a jitted function")
        overflow = jitted._overflow(None, args, kwargs)
        if overflow is not None:
            raise overflow
        key, leaves, flat_args, flat_kwargs, holders = call_key(jitted, args, kwargs)
        if key is not None and key != lowered._key:
            raise TypeError(
                f"{jitted.__qualname__} was compiled for arguments ({lowered.signature}) "
                f"and is called with ({describe(leaves)}): call jit(f) itself, or lower "
                "and compile it again, for other shapes, dtypes or static values")
        for i, value in lowered._specialised.items():
            if leaves[i] != value:
                raise TypeError(
                    f"{jitted.__qualname__} was compiled for the Python value {value!r} "
                    f"of argument {i} (the program needs it as a constant) and is called "
                    f"with {leaves[i]!r}: lower and compile it again for that value")
        env = lowered._environment
        staged = self._compiled.staged
        if key is None or (env is not None and not env.trivial) or staged.effects or \
                (staged.writeback and (holders or any(map(resident.is_jax_array, leaves)))):
            # guards on what the program reads from its environment, replayed Python
            # effects, device arrays updated in place: the jitted function's own path
            return jitted(*args, **kwargs)
        donate = jitted._donate
        gone = () if not (donate[0] or donate[1]) else residency.consumed(
            self._compiled, leaves, holders, flat_args, flat_kwargs, donate)
        try:
            return runpath.run(self._compiled, leaves, jitted._output, holders, gone,
                               jitted.__qualname__)
        except RerunSignal:       # a window too short, an assumed bool wrong
            return jitted(*args, **kwargs)    # nothing was written back

    def __repr__(self) -> str:
        name = getattr(self._lowered._jitted, "__qualname__", "function")
        return f"<npxla Compiled {name}({self._lowered.signature})>"


__all__ = ["Lowered", "CompiledFunction", "pretty_stablehlo", "describe", "call_key"]
