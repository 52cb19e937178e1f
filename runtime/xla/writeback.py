"""The plan of how mutated arguments come back with as little copying as PJRT allows:
which outputs a program returns for them (whole arrays or changed regions) and the
spare buffers it writes them into. Copying them into the caller's arrays, after the
run-time checks, is `driver.finish` (`Finisher.write`), from the plan's `writeback`
and `regions`.

What the CPU client does (jaxlib 0.10.2, measured here; `test_writeback_alias` checks
the parts we rely on):
- It never lets a program write into memory it does not own. A parameter made from a
  NumPy array (zero-copy, or a DLPack view) that is donated and aliased to an output is
  first copied into a fresh buffer, so the caller's array cannot itself be the output:
  one copy into it after the run is the floor (`transfer.copy_into`, on every core).
  PJRT's C++ API has a host-buffer mode that would allow it (kMutableZeroCopy), but
  jaxlib's Python binding does not offer it, its DLPack import makes immutable views,
  and no PJRT C API plugin for the CPU ships with it. That copy must follow the
  run-time checks anyway: NumPy raises before writing anything.
- A donated buffer the client owns (an output of an earlier run) is written in place;
  one that something else still views (a NumPy view of it) is copied instead, so
  donating is always safe.
- A fresh output buffer costs page faults (XLA's allocations get no huge pages): for a
  stencil over 80 MB they cost more than the arithmetic.

So (1) a write-back whose value is the parameter with a few rectangular regions
replaced (`a[1:-1] += ...`, `a[i] = v`: dynamic_update_slice ops on it, or the
select a wide write at constant indices is staged as) returns only
those regions: XLA no longer copies the whole parameter into a fresh buffer, and the
call copies back only what changed; (2) every large write-back output is aliased to an
extra trailing parameter through which the call donates the same output of an earlier
call (kept in the process's buffer pool, `pool.POOL`), so XLA writes into warm memory
it owns. Results the caller receives
are never such outputs.
"""
from __future__ import annotations

import numpy as np

from npxla.runtime.lowering.inplace import wide_write
from npxla.runtime.xla.pool import POOL
from npxla.runtime.xla.transfer import aligned_empty

_REGION_MIN_BYTES = 1 << 16     # below: one whole copy costs less than the bookkeeping
_MAX_REGIONS = 8
# Below ~16 MiB glibc serves XLA's outputs from memory it already faulted in (its
# mmap threshold adapts up to 32 MiB) and a spare saves little (32 MB: ~7% here; 80 MB,
# always freshly mapped: a stencil 40 -> 12 ms).
_SPARE_MIN_BYTES = 1 << 24


class Plan:
    """Which outputs of one executable hold the caller's new values. `writeback`: (leaf,
    output k) whole arrays; `regions`: (leaf, output k, starts) where starts are ints or
    the output index of a vector of them, applied in order; `spares`: per extra
    trailing parameter, (output k it aliases, shape, dtype)."""
    __slots__ = ("module_text", "writeback", "regions", "spares")

    def __init__(self, module_text, writeback, regions=(), spares=()):
        self.module_text = module_text
        self.writeback = list(writeback)
        self.regions = list(regions)
        self.spares = list(spares)

    def donate(self, bufs, device):
        """`bufs` and buffers for the spare parameters: earlier outputs when there are
        (owned: written in place), else new host buffers (the client copies them once)."""
        if not self.spares:
            return bufs
        out = list(bufs)
        for _, shape, dtype in self.spares:
            buf = POOL.take((_device_key(device), shape, dtype))
            out.append(buf if buf is not None else _fresh(shape, dtype, device))
        return out

    def keep(self, outs, device):
        """The spare outputs of a run go back to the pool for the next run."""
        for k, shape, dtype in self.spares:
            buf = outs[k]
            if not buf.is_deleted():
                POOL.give((_device_key(device), shape, dtype), buf, _nbytes(shape, dtype))


def plan(staged):
    """The Plan for a staged program that writes arguments back, or None. Deterministic
    in `staged`: a program loaded from the disk cache gets the plan its executable was
    compiled from."""
    if not staged.writeback:
        return None
    ks = [k for _, k in staged.writeback]
    if ks != list(range(ks[0], ks[0] + len(ks))):      # not what staging emits
        return Plan(staged.module_text, staged.writeback)
    from jax._src.interpreters import mlir as jax_mlir  # lazy: JAX's MLIR context
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func
    with jax_mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(staged.module_text)
        main = next(op for op in module.body.operations
                    if "sym_name" in op.attributes and
                    ir.StringAttr(op.attributes["sym_name"]).value == "main")
        block = main.regions[0].blocks[0]
        ret = list(block.operations)[-1]
        outs, params = list(ret.operands), list(block.arguments)
        first, end = ks[0], ks[-1] + 1
        new, whole, regions = outs[:first], [], []
        with ir.InsertionPoint(ret):
            for i, k in staged.writeback:
                p = staged.param_leaves.index(i)
                parts = _regions(outs[k], params[p], staged.arg_avals[p])
                if parts is None:
                    whole.append((i, len(new), p))
                    new.append(outs[k])
                    continue
                for update, starts in parts:
                    dynamic = type(starts) is not tuple
                    regions.append((i, len(new), len(new) + 1 if dynamic else starts, p))
                    new.append(update)
                    if dynamic:
                        new.append(starts)
            new += outs[end:]
            spares = []
            for _, k, *rest in whole + regions:
                dtype = np.dtype(staged.arg_avals[rest[-1]][1])
                shape = tuple(ir.RankedTensorType(new[k].type).shape)
                if _SPARE_MIN_BYTES <= int(np.prod(shape)) * dtype.itemsize <= POOL.cap:
                    block.add_argument(new[k].type, ir.Location.unknown())
                    spares.append((k, shape, dtype.str))
            if not regions and not spares:        # nothing gained: the module as it was
                return Plan(staged.module_text, staged.writeback)
            func.ReturnOp(new)
        ret.erase()
        main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], [v.type for v in new]))
        if spares:
            _alias(main, len(block.arguments), [k for k, _, _ in spares])
        text = module.operation.get_asm(enable_debug_info=False)
    return Plan(text, [(i, k) for i, k, _ in whole],
                [(i, k, s) for i, k, s, _ in regions], spares)


def _regions(value, param, aval):
    """[(update, starts)] in the order they apply when `value` is `param` with
    rectangular regions replaced; starts are a tuple of ints or an i64 vector value,
    clamped as dynamic_update_slice clamps them. None when the value is not of that
    form or the array is small: the whole array is written back."""
    from jaxlib.mlir import ir  # lazy: JAX
    shape, dtype = aval
    if int(np.prod(shape)) * np.dtype(dtype).itemsize < _REGION_MIN_BYTES:
        return None
    parts = []
    while value != param:
        if not isinstance(value, ir.OpResult) or len(parts) == _MAX_REGIONS:
            return None
        wide = wide_write(value)
        if wide is not None:
            base, update, starts = wide
            parts.append((update, starts))
            value = base
            continue
        op = value.owner
        if op.operation.name != "stablehlo.dynamic_update_slice":
            return None
        base, update, *starts = op.operands
        limits = [d - u for d, u in zip(ir.RankedTensorType(base.type).shape,
                                        ir.RankedTensorType(update.type).shape)]
        starts = _clamped_starts(starts, limits)
        if starts is None:
            return None
        parts.append((update, starts))
        value = base
    return parts[::-1]


def _clamped_starts(starts, limits):
    """Start indices clamped to [0, limit]: a tuple of ints when all are constants, else
    an i64 vector the program computes; None for an index type we do not expect."""
    from jaxlib.mlir import ir  # lazy: JAX
    from jaxlib.mlir.dialects import stablehlo as hlo
    static = []
    for s, hi in zip(starts, limits):
        op = s.owner if isinstance(s, ir.OpResult) else None
        if op is None or op.operation.name != "stablehlo.constant":
            break
        static.append(min(max(int(np.asarray(op.attributes["value"])), 0), hi))
    else:
        return tuple(static)
    i64 = ir.IntegerType.get_signless(64)
    scalar = ir.RankedTensorType.get([], i64)
    pieces = []
    for s, hi in zip(starts, limits):
        kind = ir.RankedTensorType(s.type).element_type
        if not isinstance(kind, ir.IntegerType):
            return None
        kind = ir.IntegerType(kind)
        if kind.width == 64 and kind.is_unsigned:   # a large one is not an int64
            return None
        if kind.width != 64 or kind.is_unsigned:
            s = hlo.ConvertOp(scalar, s).result
        lo = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(0, np.int64))).result
        up = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(hi, np.int64))).result
        s = hlo.ClampOp(lo, s, up).result
        pieces.append(hlo.ReshapeOp(ir.RankedTensorType.get([1], i64), s).result)
    return hlo.ConcatenateOp(pieces, 0).result


def _alias(main, n_args, outputs):
    """Mark the last len(outputs) arguments of `main` as aliasing those outputs."""
    from jaxlib.mlir import ir  # lazy: JAX
    old = list(ir.ArrayAttr(main.attributes["arg_attrs"])) \
        if "arg_attrs" in main.attributes else []
    old += [ir.DictAttr.get({})] * (n_args - len(old))
    i32 = ir.IntegerType.get_signless(32)
    first = n_args - len(outputs)
    for j, k in enumerate(outputs):
        entries = {a.name: a.attr for a in ir.DictAttr(old[first + j])}
        entries["tf.aliasing_output"] = ir.IntegerAttr.get(i32, k)
        old[first + j] = ir.DictAttr.get(entries)
    main.attributes["arg_attrs"] = ir.ArrayAttr.get(old)


def _device_key(device):
    return (device.platform, device.id)


def _fresh(shape, dtype, device):
    """A device buffer for a spare parameter when no earlier output is free: host
    memory, 64-byte aligned so the client takes it without its slow copy (its contents
    are never read: the program only writes the output aliased to it)."""
    import jax  # lazy: JAX
    with jax.enable_x64(True):
        return jax.device_put(aligned_empty(shape, np.dtype(dtype)), device)


def _nbytes(shape, dtype):
    return int(np.prod(shape)) * np.dtype(dtype).itemsize
