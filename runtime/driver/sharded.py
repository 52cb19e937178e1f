"""`jit(f, shard=...)`: one staged program run over many devices, split by XLA.

A ShardedFunction is a JittedFunction whose signatures compile differently: the driver's
staging (conversion, specialisation, guards on what the program reads from its
environment, the per-signature cache) is reused as it is; only building an entry
differs. Each signature's module is annotated with the layout of every argument
(`xla.sharding`), compiled with XLA's SPMD partitioner for the mesh's devices, and run
on arguments placed on those devices. Results come back as NumPy arrays (assembled
from their shards) or as sharded `jax.Array`s with `output="device"`.

After `jax.distributed.initialize`, the mesh spans every process's devices, each
process passes its own block of every split argument (the whole of the others) and
gets every result whole; mutated arguments receive their own block back.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from npxla.transpiler.base.errors import TranspileError, UnsupportedOperationError

# `to_result`: how a 0-d result comes back (Python or NumPy scalar, 0-d array), one rule
from npxla.runtime.driver import log, reasons, runpath
from npxla.runtime.driver.finish import Finisher
from npxla.runtime.driver.results import to_result
from npxla.runtime.driver.jitted import JittedFunction
from npxla.runtime.driver.shardspec import ShardSpec
from npxla.runtime.driver.staging import ARRAY, key_parts
from npxla.runtime.numpy.core.errorflags import uses_payloads
from npxla.runtime.operators.loops import NpxlaPerformanceWarning
from npxla.runtime.staging.pytree import flatten
from npxla.runtime.xla import devices as xla_devices
from npxla.runtime.xla import resident
from npxla.runtime.xla import sharding
from npxla.runtime.xla.compile import hlo_text


class ShardedFunction(JittedFunction):
    """A NumPy function compiled once per signature for a mesh of devices."""
    # results are global arrays; in a multi-process run an argument is one block of one
    _returns_arguments = False
    # an SPMD program cannot call back into Python
    _host_library = False

    def __init__(self, fn, *, shard, mesh=None, static_argnums=(), static_argnames=(),
                 device=None, output="numpy", fast_math=False, donate_argnums=(),
                 donate_argnames=(), cache=None):
        """As `JittedFunction`, plus the layouts (`shard`, `mesh`). Donated DeviceArrays
        and jax Arrays are deleted by the call (as `jax.jit` does); their buffers take
        no result (the SPMD module aliases nothing). Sharded programs are compiled for
        one mesh and never stored in the disk cache: `cache=True` is a ValueError."""
        super().__init__(fn, static_argnums=static_argnums, static_argnames=static_argnames,
                         device=device, output=output, fast_math=fast_math,
                         donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                         cache=cache)
        if cache is True:
            raise ValueError(
                f"{self.__name__}: cache=True, but a program split over devices (shard=) "
                "is compiled for one mesh and never stored in the disk cache\n"
                "hint: leave cache= out (or pass cache=False)")
        self._disk = False        # never read or written: cache_info().on_disk is None
        self._windows = None      # no speculative windows: a sharded run is not retried
        self._assumed.disable()   # nor assumed bools
        self.spec = ShardSpec(shard, mesh, self._signature, self._static_argnames,
                              self.__name__)
        self._mesh = None

    # --- devices -------------------------------------------------------------------
    @property
    def mesh(self):
        """The `jax.sharding.Mesh` the program runs on (built on first use, from the
        platform of `device=` / NPXLA_DEVICE / the best one)."""
        if self._mesh is None:
            platform = xla_devices.resolve(self._device_spec).platform
            every = xla_devices.global_devices(platform)
            sizes = self.spec.mesh_sizes(len(every), platform)
            self._mesh = sharding.make_mesh(sizes, every)
        return self._mesh

    @property
    def device(self):
        return self.mesh.devices.flat[0]

    @property
    def process_local(self):
        """Whether devices of other processes take part (jax.distributed)."""
        platform = self.device.platform
        return len(xla_devices.global_devices(platform)) > \
            len(xla_devices.local_devices(platform))

    # --- building one signature ----------------------------------------------------
    def _build(self, key, args, kwargs, leaves):
        with self._lock_for(key):
            hit = self._lookup(key, args, kwargs, leaves)
            if hit is not None:
                return hit
            env = self._environment(args, kwargs)
            layouts = self._layouts(args, kwargs)
            # the `npxla` logger's times and why this signature is (re)compiled
            clock = log.Clock(self, leaves, self.device,
                              reasons.why(self, key, args, kwargs, leaves))
            local = self.process_local
            stage_args, stage_kwargs = (args, kwargs) if not local else \
                self._whole(args, kwargs, layouts)
            stage_leaves: list = []
            flatten((stage_args, stage_kwargs), stage_leaves)
            sharing, read_only = key_parts(key)
            staged, positions = self._stage(stage_args, stage_kwargs, stage_leaves, env,
                                            None if local else sharing, read_only)
            clock.staged()
            compiled = self._compiled(staged, layouts, local)
            compiled.executable     # compile now so errors surface at the first call
            clock.compiled()
            self._warn_uneven(compiled, args, kwargs)
            writes = bool(staged.writeback)
            if writes and any(a is leaf for a in env.traced() for leaf in leaves):
                raise self._at_definition(UnsupportedOperationError(
                    "an array the function reads from its environment is also passed as "
                    "an argument, and the function updates arrays in place",
                    hint="use the argument only"))
            variant = self._install(key, env, compiled, positions, leaves, writes, args,
                                    kwargs)
            return variant, compiled, tuple(env.traced())

    def _layouts(self, args, kwargs):
        """{flat leaf position: per-axis layout} of the arguments shard= names."""
        out, seen, pos = {}, set(), 0
        for name, value in self._named_arguments(args, kwargs):
            part: list = []
            flatten(value, part)
            if name in self.spec.entries:
                seen.add(name)
                layout = self.spec.layout(name, value)
                if layout:
                    out[pos] = layout
            pos += len(part)
        missing = [n for n in self.spec.entries if n not in seen]
        if missing:
            raise ValueError(f"shard= names {missing[0]!r}, but the call does not pass it "
                             f"(its default is used)\nhint: pass {missing[0]!r} "
                             "explicitly, or leave it out of shard=")
        return out

    def _warn_uneven(self, compiled, args, kwargs):
        """Say so when XLA splits an argument fewer ways than asked: the program is
        right, but slower than the user expects."""
        names = self._names(args, kwargs)
        for p, asked, got in compiled.uneven():
            leaf = compiled.param_leaves[p]
            shape = compiled.staged.arg_avals[p][0]
            axis = next((k for k, (a, g) in enumerate(zip(asked, got)) if a != g), None)
            if axis is None:
                continue
            code = self._fn.__code__
            warnings.warn_explicit(
                f"{self.__name__}: axis {axis} of argument {names.get(leaf, leaf)!r} has "
                f"{shape[axis]} elements, which do not divide over {asked[axis]} devices: "
                f"XLA splits it {got[axis]} way(s) and repeats each part on the other "
                "devices (make the length a multiple of the device count to use them "
                "all)", NpxlaPerformanceWarning, code.co_filename, code.co_firstlineno)

    def _names(self, args, kwargs):
        """{flat leaf position: argument name} of the arguments that are one leaf."""
        out, pos = {}, 0
        for name, value in self._named_arguments(args, kwargs):
            part: list = []
            flatten(value, part)
            if len(part) == 1 and name is not None:
                out[pos] = name
            pos += len(part)
        return out

    def _named_arguments(self, args, kwargs):
        positional = [n for n, p in self._signature.parameters.items()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)] \
            if self._signature else []
        return [(positional[i] if i < len(positional) else None, a)
                for i, a in enumerate(args)] + list(kwargs.items())

    def _whole(self, args, kwargs, layouts):
        """The arguments as the program sees them when each process passes its block of
        the split ones: stand-ins of the whole shape (broadcast views: no memory)."""
        local_devices = xla_devices.local_devices(self.device.platform)
        pos = 0

        def grow(value):
            nonlocal pos
            part: list = []
            flatten(value, part)
            layout = layouts.get(pos) if len(part) == 1 else None
            pos += len(part)
            if not layout:
                return value
            shape = sharding.global_shape(self.mesh, layout, value.shape, local_devices)
            return np.broadcast_to(np.zeros((), np.dtype(value.dtype)), shape)
        new_args = tuple(grow(a) for a in args)
        return new_args, {k: grow(v) for k, v in kwargs.items()}

    # --- inspection ------------------------------------------------------------------
    def lower(self, *args, **kwargs):
        """`f.lower(*args)`: `.as_text()` is the annotated StableHLO, `.as_text("hlo")`
        XLA's partitioned program, `.collectives()` what XLA inserted."""
        args, kwargs = self._mark_static(args, kwargs)
        (args, kwargs), _ = resident.unwrap((args, kwargs), {})
        layouts = self._layouts(args, kwargs)
        local = self.process_local
        if local:
            args, kwargs = self._whole(args, kwargs, layouts)
        leaves: list = []
        flatten((args, kwargs), leaves)
        staged, _ = self._stage(args, kwargs, leaves)
        return self._compiled(staged, layouts, local)

    def _compiled(self, staged, layouts, local):
        try:
            return ShardedCompiled(staged, self.mesh,
                                   [layouts.get(i, ()) for i in staged.param_leaves], local)
        except TranspileError as e:       # about the whole function: located at its def
            raise self._at_definition(e) from None

    def __repr__(self):
        return f"<npxla.jit {self.__qualname__} sharded>"


class ShardedCompiled:
    """One signature's program for a mesh: annotated module, SPMD executable, the
    placement of its arguments and the recipe that rebuilds results."""


    def __init__(self, staged, mesh, specs, process_local=False):
        if staged.host_callbacks:
            raise UnsupportedOperationError(
                "print inside a function split over devices is not supported",
                hint="return the values and print them after the call")
        if staged.module is not None:
            staged = dataclasses.replace(staged, module=None)
        self.staged = staged
        self.finisher = Finisher(staged)
        self.param_leaves = staged.param_leaves
        self.mesh = mesh
        self.devices = list(mesh.devices.flat)
        self.specs = specs
        self.process_local = process_local
        self._placement = None
        results = {}
        param_of = {leaf: p for p, leaf in enumerate(staged.param_leaves)}
        for leaf, k in staged.writeback:     # written back in the argument's layout
            if leaf in param_of:
                results[k] = specs[param_of[leaf]]
        if staged.error_messages:     # flags and the offending values: small, whole
            for k in range(-1 - self._has_payloads(), 0):
                results[k] = ()
        # with several processes every process returns every result whole
        self.text, self.shapes, annotated = sharding.annotate(
            staged.module_text, mesh, specs, results, others=() if process_local else None)
        self._propagate = [not a for a in annotated]
        self._exe = None

    def _has_payloads(self):
        return int(uses_payloads(self.staged.error_messages))

    @property
    def executable(self):
        if self._exe is None:
            exe = sharding.compile_spmd(self.text, self.devices, self._propagate)
            self._out_shardings = sharding.output_shardings(exe)
            self._exe = exe
        return self._exe

    @property
    def placement(self):
        """How arguments are placed: the layouts the compiled program expects."""
        if self._placement is None:
            self._placement = sharding.Placement(self.mesh, self.specs,
                                                 self.staged.arg_avals, self.executable,
                                                 self.process_local)
        return self._placement

    def uneven(self):
        """[(parameter index, requested splits per axis, XLA's splits per axis)] for
        the arguments XLA splits fewer ways than asked (an axis that does not divide)."""
        return self.placement.changed

    def as_text(self, dialect="stablehlo"):
        if dialect == "stablehlo":
            return self.text
        if dialect == "hlo":
            return hlo_text(self.executable)
        raise ValueError("dialect must be 'stablehlo' or 'hlo'")

    def collectives(self):
        """{collective: count} XLA inserted when it partitioned the program."""
        return sharding.collectives(self.as_text("hlo"))

    def compile(self):
        self.executable
        return self

    def run(self, leaves, output="numpy", holders=None):
        """One call on flat arguments (see `runpath.run`)."""
        return runpath.run(self, leaves, output, holders)

    def execute(self, leaves, holders=None, reuse=()):
        """Place the parameters and execute on every device of the mesh: (outputs, the
        Finisher that reads them). A DeviceArray written back (`holders`) takes the
        new array laid out over the mesh (see `finish`)."""
        placed = self.placement([leaves[i] for i in self.staged.param_leaves])
        exe = self.executable
        try:
            outs = exe.execute_sharded(placed).disassemble_into_single_device_arrays()
        except Exception as e:  # noqa: BLE001 - XLA's run-time errors, without its trace
            raise RuntimeError(f"the sharded program failed on the devices: "
                               f"{str(e).splitlines()[0]}") from None
        return ShardedOutputs(self._out_shardings, self.devices, self.shapes, outs), \
            self.finisher

    def reusable(self, gone, leaves, holders):
        """No donated buffer takes a result: the SPMD module aliases nothing (donated
        buffers are still deleted after the call, as `jax.jit` does)."""
        return ()


class ShardedOutputs(sharding.Results):
    """The outputs of one sharded run, read as `finish` reads one device's
    (`finish.DeviceOutputs`): `numpy(k)` whole, `local(k)` this process's block (what a
    write-back copies into a process's own argument), `device(k)` a sharded jax Array,
    `result(k, kind)` the caller's result."""

    def __init__(self, shardings, devices, shapes, outs):
        super().__init__(shardings, devices, shapes, outs)
        self._n = len(outs)

    def numpy(self, k):
        return super().numpy(k % self._n)

    def local(self, k):
        return super().local(k % self._n)

    def device(self, k):
        return super().device(k % self._n)

    def result(self, k, kind):
        array = self.numpy(k)        # whole and writable
        return to_result(array, kind) if array.ndim == 0 or \
            kind not in (True, False, ARRAY) else array

    def done(self):
        pass
