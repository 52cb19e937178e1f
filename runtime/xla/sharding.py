"""One staged program over many devices, partitioned by XLA (SPMD).

npxla does not split programs itself: it states how each entry argument is laid out
over a device mesh (Shardy's `sdy.sharding` attributes on the entry function, as JAX
writes them) and compiles with XLA's SPMD partitioner, which propagates the layouts
through the program and inserts the collectives: all-reduce for a reduction over a
split axis, collective-permute for a stencil's halo, all-gather where a whole operand
is needed. Results XLA lays out as it likes; they are gathered here.

Uneven splits: an axis that does not divide over its mesh axes is split by XLA over
the largest leading part of them that divides it (10 elements over 8 devices: 2 ways),
and the arguments are placed the way the compiled program expects (`Placement`).

Every function that touches JAX imports it lazily: this module sits in the XLA layer,
which the linter's process must be able to import without JAX.
"""
from __future__ import annotations

import re

import numpy as np

from npxla.transpiler.base.errors import InternalCompilerError, UnsupportedOperationError

from npxla.runtime.xla.backend_options import with_backend_options
from npxla.runtime.xla.transfer import aligned, writable

# The collective operations XLA inserts when it partitions a program.
COLLECTIVES = ("all-reduce", "all-gather", "collective-permute", "all-to-all",
               "reduce-scatter", "collective-broadcast")
_COLLECTIVE_RE = re.compile(r"= \S+ (" + "|".join(COLLECTIVES) + r")(?:-start)?\(")


def make_mesh(axes: dict, devices):
    """A `jax.sharding.Mesh` of the first prod(sizes) `devices`, in order (on one host
    device order is the natural one; across processes, process by process, so a
    process holds a contiguous block of every axis split over the first mesh axis)."""
    from jax.sharding import Mesh  # lazy: JAX
    n = int(np.prod(list(axes.values()), dtype=np.int64)) if axes else 1
    grid = np.empty(n, dtype=object)
    grid[:] = list(devices[:n])
    return Mesh(grid.reshape(tuple(axes.values())), tuple(axes))


def _named(mesh, spec):
    from jax.sharding import NamedSharding, PartitionSpec  # lazy: JAX
    return NamedSharding(mesh, PartitionSpec(*spec))


def annotate(module_text, mesh, arg_specs, result_specs, others=None):
    """`module_text` with the entry function's arguments (every one) and results laid
    out over `mesh`, and the partition count set. A spec has one entry per leading axis
    of the array: a mesh axis name, a tuple of names or None (`()`: whole on every
    device). `result_specs` maps result indices (negative ones count from the end) to
    specs; the other results get `others`, or, when None, are left to XLA. Returns
    (text, result shapes, per result whether it is annotated).

    The layouts are Shardy's `sdy.sharding` attributes, built by JAX's own translation
    of a NamedSharding, so placement and annotation cannot disagree. (The older
    `mhlo.sharding` strings are read by XLA only when it falls back to its deprecated
    GSPMD partitioner, which it does only when a result carries one, with a warning on
    every compile.)"""
    from jax._src.interpreters import mlir as jax_mlir  # lazy: JAX's MLIR context
    from jaxlib.mlir import ir
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(module_text)
        main = _entry(module)
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        n_out = len(ftype.results)
        if len(ftype.inputs) != len(arg_specs):
            raise InternalCompilerError(
                f"sharding: {len(arg_specs)} argument layouts for an entry function "
                f"of {len(ftype.inputs)} arguments")
        results = [others] * n_out
        for k, spec in result_specs.items():
            results[k % n_out] = spec
        cache: dict = {}

        def attrs(types, specs):
            return [None if spec is None else _named(mesh, spec)._to_sdy_sharding(
                ir.RankedTensorType(t).rank).build(cache) for t, spec in zip(types, specs)]
        main.attributes["arg_attrs"] = _with_sharding(
            main, "arg_attrs", attrs(ftype.inputs, arg_specs))
        main.attributes["res_attrs"] = _with_sharding(
            main, "res_attrs", attrs(ftype.results, results))
        i32 = ir.IntegerType.get_signless(32)
        module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(
            i32, mesh.devices.size)
        module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        shapes = [tuple(ir.RankedTensorType(t).shape) for t in ftype.results]
        return (module.operation.get_asm(enable_debug_info=False), shapes,
                [r is not None for r in results])


def _entry(module):
    from jaxlib.mlir import ir  # lazy: JAX
    for op in module.body.operations:
        if "sym_name" in op.attributes and \
                ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    raise InternalCompilerError("sharding: the staged module has no main function")


def _with_sharding(main, key, shardings):
    from jaxlib.mlir import ir  # lazy: JAX
    old = list(ir.ArrayAttr(main.attributes[key])) if key in main.attributes else \
        [ir.DictAttr.get({}) for _ in shardings]
    out = []
    for attrs, sharding in zip(old, shardings):
        entries = {a.name: a.attr for a in ir.DictAttr(attrs)}
        if sharding is not None:
            entries["sdy.sharding"] = sharding
        out.append(ir.DictAttr.get(entries))
    return ir.ArrayAttr.get(out)


def compile_spmd(module_text, devices, propagate_results):
    """Compile an annotated module for `devices` (the mesh's devices, in its order) with
    XLA's SPMD partitioner. `propagate_results`: per result, whether XLA chooses its
    layout (results not annotated)."""
    from jax._src.lib import xla_client as xc  # lazy: the PJRT client types
    options = xc.CompileOptions()
    options.num_replicas = 1
    options.num_partitions = len(devices)
    options.device_assignment = xc.DeviceAssignment.create(
        np.array([[d.id for d in devices]], dtype=np.int64))
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    # Shardy, JAX's default partitioner, reads the `mhlo.sharding` annotations (GSPMD,
    # the older one, logs a deprecation warning on every compile)
    build.use_shardy_partitioner = True
    build.allow_spmd_sharding_propagation_to_output = list(propagate_results) or [False]
    options = with_backend_options(options, devices[0].platform)
    try:
        return devices[0].client.compile_and_load(
            module_text, xc.DeviceList(tuple(devices)), options)
    except Exception as e:  # XLA's errors are ours, never the user's
        raise InternalCompilerError("XLA failed to partition or compile the sharded "
                                    f"program: {str(e).splitlines()[0]}") from None


def collectives(hlo: str) -> dict:
    """{collective op: count} in XLA's HLO text of a compiled program."""
    counts: dict = {}
    for m in _COLLECTIVE_RE.finditer(hlo):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


class Placement:
    """How the entry arguments go onto the mesh: per argument the layout the compiled
    program expects. That is the requested one unless an axis does not divide over its
    mesh axes: XLA then splits it over the largest leading part of them that divides it
    and replicates it over the rest (10 elements over 8 devices: 2 ways, each half on 4
    devices), and the arguments are placed that way (`changed` lists those). With
    `process_local` (after `jax.distributed.initialize`) each process passes only its
    own block of every split argument."""

    def __init__(self, mesh, specs, avals, executable, process_local=False):
        from jax._src.lib import xla_client as xc  # lazy: JAX
        from jax._src.sharding_impls import GSPMDSharding
        self.avals = [(tuple(shape), np.dtype(dtype)) for shape, dtype in avals]
        self.process_local = process_local
        actual = _parameter_shardings(executable)
        devices = xc.DeviceList(tuple(mesh.devices.flat))
        self.shardings, self.changed = [], []
        for p, (spec, (shape, _)) in enumerate(zip(specs, self.avals)):
            named = _named(mesh, spec)
            hlo = actual[p] if actual else None
            if hlo is None or hlo == named._to_xla_hlo_sharding(len(shape)):
                self.shardings.append(named)
                continue
            self.shardings.append(GSPMDSharding(devices, hlo))
            self.changed.append((p, splits(named._to_xla_hlo_sharding(len(shape)), shape),
                                 splits(hlo, shape)))
        if process_local and self.changed:
            raise UnsupportedOperationError(
                "an array split over the devices of several processes must split evenly "
                "over its mesh axes", hint="give each process a block whose length "
                "divides over that process's devices")

    def __call__(self, values):
        import jax  # lazy: JAX
        out = []
        with jax.enable_x64(True):
            for value, sharding, (shape, dtype) in zip(values, self.shardings, self.avals):
                if self.process_local:
                    out.append(jax.make_array_from_process_local_data(
                        sharding, np.asarray(value, dtype), shape))
                    continue
                if not _is_device_array(value) or value.dtype != dtype:
                    # XLA's CPU client reads an aligned array in place, else copies slowly
                    value = aligned(np.asarray(value, dtype))
                out.append(jax.device_put(value, sharding))
        return out


def splits(hlo, shape):
    """Per axis of an array of `shape`, how many ways `hlo` splits it."""
    if hlo.is_replicated() or hlo.is_maximal():
        return [1] * len(shape)
    return list(hlo.tile_assignment_dimensions())[:len(shape)]


def _parameter_shardings(executable):
    """Per argument, the XLA sharding the compiled program expects, or None (one
    device: the partitioner did not run)."""
    from jax._src.lib import xla_client as xc  # lazy: JAX
    try:
        protos = executable.get_parameter_shardings()
    except Exception:  # noqa: BLE001 - none recorded: one partition
        return None
    return [xc.HloSharding.from_proto(p) for p in protos] if protos else None


def global_shape(mesh, spec, local_shape, local_devices):
    """The shape of the whole array when each process passes only its own block of it
    (`jax.make_array_from_process_local_data`'s convention): along a split axis, the
    block times the number of mesh positions over the positions this process holds."""
    names = list(mesh.axis_names)
    sizes = dict(mesh.shape)
    where = {d: idx for idx, d in np.ndenumerate(mesh.devices)}
    held = [where[d] for d in local_devices if d in where]
    out = list(local_shape)
    for k, entry in enumerate(spec):
        axes = (entry,) if isinstance(entry, str) else tuple(entry or ())
        if not axes or not held:
            continue
        positions = {tuple(c[names.index(a)] for a in axes) for c in held}
        out[k] = local_shape[k] * int(np.prod([sizes[a] for a in axes])) // len(positions)
    return tuple(out)


def _is_device_array(value):
    return type(value).__module__.startswith("jax")


def output_shardings(executable):
    """Per output, the XLA sharding the partitioner chose, or None (one device: the
    partitioner did not run)."""
    from jax._src.lib import xla_client as xc  # lazy: JAX
    try:
        protos = executable.get_output_shardings()
    except Exception:  # noqa: BLE001 - none recorded: one partition
        return None
    return [xc.HloSharding.from_proto(p) for p in protos] if protos else None


class Results:
    """The outputs of one run: per output, its shards on this process's devices.
    `numpy(k)` is the whole array, `local(k)` this process's block of it (the whole
    array in one process), `device(k)` a (sharded) `jax.Array`."""

    def __init__(self, shardings, devices, shapes, outs):
        self._shardings = shardings         # output_shardings(executable)
        self._devices = devices
        self._shapes = shapes
        self._outs = outs

    def _blocks(self, k):
        """[(global index tuple, shard)] of output k's shards on this process, one per
        distinct block."""
        shape, shards = self._shapes[k], self._outs[k]
        hlo = self._shardings[k] if self._shardings else None
        if hlo is None or hlo.is_replicated() or len(self._devices) == 1:
            return [(tuple(slice(0, n) for n in shape), shards[0])]
        index = _shard_slices(hlo, shape)
        logical = {d: i for i, d in enumerate(self._devices)}
        blocks = {}
        for shard in shards:
            (device,) = shard.devices()
            where = index[logical[device]]
            blocks.setdefault(tuple((s.start, s.stop) for s in where), (where, shard))
        return list(blocks.values())

    def numpy(self, k):
        blocks = self._blocks(k)
        shape = self._shapes[k]
        if len(blocks) == 1 and blocks[0][1].shape == shape:
            shard = blocks[0][1]
            return writable(np.asarray(shard), shard)
        if sum(int(np.prod([s.stop - s.start for s in where])) for where, _ in blocks) < \
                int(np.prod(shape)):
            raise InternalCompilerError("sharding: a result split over several processes "
                                        "was not annotated to be returned whole")
        return self._assemble(blocks, [0] * len(shape), shape)

    def local(self, k):
        blocks = self._blocks(k)
        if len(blocks) == 1:
            return np.asarray(blocks[0][1])
        ndim = len(self._shapes[k])
        start = [min(where[d].start for where, _ in blocks) for d in range(ndim)]
        stop = [max(where[d].stop for where, _ in blocks) for d in range(ndim)]
        return self._assemble(blocks, start, [b - a for a, b in zip(start, stop)])

    @staticmethod
    def _assemble(blocks, origin, shape):
        out = None
        for where, shard in blocks:
            view = np.asarray(shard)
            if out is None:
                out = np.empty(shape, view.dtype)
            out[tuple(slice(s.start - o, s.stop - o) for s, o in zip(where, origin))] = \
                view[tuple(slice(0, s.stop - s.start) for s in where)]
        return out

    def device(self, k):
        import jax  # lazy: JAX
        from jax._src.lib import xla_client as xc
        from jax._src.sharding_impls import GSPMDSharding
        shards, shape = self._outs[k], self._shapes[k]
        hlo = self._shardings[k] if self._shardings else None
        devices = xc.DeviceList(tuple(self._devices))
        sharding = GSPMDSharding.get_replicated(devices) if hlo is None else \
            GSPMDSharding(devices, hlo)
        return jax.make_array_from_single_device_arrays(shape, sharding, shards)


def _shard_slices(hlo, shape):
    """Per logical device, the global index its shard of an array of `shape` holds:
    XLA's tiling, where a tile has ceil(n / tiles) elements and the last ones may be
    short or empty."""
    dims = list(hlo.tile_assignment_dimensions())
    tiles = dims[:len(shape)]      # trailing dimensions group replicas
    index = {}
    for flat, device in enumerate(hlo.tile_assignment_devices()):
        coords = np.unravel_index(flat, dims)[:len(shape)]
        entry = []
        for n, t, c in zip(shape, tiles, coords):
            size = -(-n // t)
            entry.append(slice(min(int(c) * size, n), min((int(c) + 1) * size, n)))
        index[device] = tuple(entry)
    return index
