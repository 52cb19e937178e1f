"""The driver's side of device-resident arguments (`xla.resident`): running a program
that updates DeviceArrays, which per-call path a call with device arrays takes, and
the refusal to update a jax Array.

A DeviceArray the program updates in place takes its own executable (per Compiled):
the module as staged, whose write-back outputs are the whole new arrays, with each such
argument aliased to its output, so XLA writes the new value into the buffer it
consumes and the DeviceArray takes that output; nothing goes through the host. A
program with run-time checks aliases nothing: when a check fails (NumPy's exception),
the arrays keep their old buffers.

A jax Array is immutable: a function that updates its argument in place cannot make
the change visible to a caller who passed one, so such a call is refused with the fix
(`npxla.asarray`, whose DeviceArray takes the new value). Staging sees jax Arrays as
NumPy stand-ins (`resident.stand_ins`), so the program is the one NumPy arguments get
and the refusal names the argument instead of failing inside staging.
"""
from __future__ import annotations

import numpy as np

from npxla.transpiler.base import catalogue
from npxla.transpiler.base.errors import Location

from npxla.runtime.driver import argspec
from npxla.runtime.driver.results import build as build_result
from npxla.runtime.driver.staging import READ_ONLY
from npxla.runtime.operators.printing import execute as execute_with_callbacks
from npxla.runtime.staging.pytree import flatten
from npxla.runtime.xla import fastcall, resident
from npxla.runtime.xla.resident import DeviceArray
from npxla.runtime.xla.transfer import copy_into

PY_SCALARS = frozenset({int, float, bool, complex})


def donated(compiled, holders):
    """Leaf positions of the updated DeviceArrays whose buffers the program consumes:
    none when a run-time check may fail (they must keep their values), and not a
    DeviceArray passed twice (one buffer cannot be consumed twice)."""
    if compiled.staged.error_messages:
        return ()
    held = list(holders.values())
    return tuple(i for i, _ in compiled.staged.writeback if i in holders and
                 sum(h is holders[i] for h in held) == 1)


def executable(compiled, donate, reuse=()):
    """`compiled`'s executable whose write-back outputs are whole arrays, with the
    parameters of the leaves `donate` aliased to theirs, and those of the leaves
    `reuse` (buffers the caller gave up) to free outputs of their type (compiled
    once per pair of sets)."""
    key = (donate, reuse) if reuse else donate
    exe = compiled.resident_exes.get(key)
    if exe is None:
        if not donate and not reuse and compiled.writes_whole:
            exe = compiled.executable
        else:
            pairs = [(compiled.param_of[i], k) for i, k in compiled.staged.writeback
                     if i in donate]
            exe = compiled.compile_text(resident.aliased_module(
                compiled.staged.module_text, pairs, [compiled.param_of[i] for i in reuse]))
        compiled.resident_exes[key] = exe
    return exe


def run_resident(compiled, leaves, output, holders, reuse=()):
    """One call of `compiled` whose program updates DeviceArrays (`holders`: {leaf
    position: DeviceArray}), or that may write results into the donated buffers of
    the leaves `reuse`; NumPy arguments it updates are written back whole."""
    st = compiled.staged
    donate = donated(compiled, holders)
    exe = executable(compiled, donate, reuse)
    bufs = compiled.upload([leaves[i] for i in st.param_leaves])
    for i in donate:
        p = compiled.param_of[i]
        bufs[p] = holders[i].donatable(bufs[p])
    outs = execute_with_callbacks(exe, bufs) if st.host_callbacks else exe.execute(bufs)
    compiled.check(outs)
    for i, k in st.writeback:
        if i in holders:
            holders[i]._replace(outs[k])
        else:
            copy_into(leaves[i], np.asarray(outs[k]), casting="unsafe")
    # a DeviceArray returned as itself: the holder, not the buffer it held on entry
    return build_result(st, outs, output, [holders.get(i, leaf)
                                           for i, leaf in enumerate(leaves)])


def consumed(entry, leaves, holders, args, kwargs, donate):
    """The flat leaves of the donated parameters (`donate`: positions, names) whose
    device buffers a call consumes: DeviceArrays and jax Arrays. A NumPy array is
    copied to the device for every call anyway, so donating one changes nothing; a
    DeviceArray the program updates in place or returns as itself keeps its (new)
    value, as without donation (NumPy's semantics come first)."""
    positions = argspec.leaf_positions(args, kwargs, donate[0], donate[1])
    if not positions:
        return ()
    st = entry.staged
    kept = {i for i, _ in st.writeback} | {s[1] for s in st.out_slots if s[0] == "arg"}
    return tuple(i for i in positions if i not in kept and i < len(leaves) and
                 (i in holders or resident.is_jax_array(leaves[i])))


def run_consuming(compiled, leaves, output, holders, gone, fn_name):
    """A call whose caller donated the device buffers of the leaves `gone`: XLA may
    write a result of the same shape and dtype into each (not when a run-time check
    could fail: NumPy's exception leaves the arguments as they were), and each is
    deleted once the call has returned."""
    st = compiled.staged
    read_only = any(type(leaves[i]) is np.ndarray and not leaves[i].flags.writeable
                    for i, _ in st.writeback)
    reuse = () if st.error_messages or read_only else tuple(
        i for i in gone if i in compiled.param_of and _sole(i, leaves, holders) and
        (i not in holders or holders[i]._owned))
    if reuse or any(i in holders for i, _ in st.writeback):
        out = run_resident(compiled, leaves, output, holders, reuse)
    else:
        out = compiled.run(leaves, output, holders)
    for i in gone:
        if i in holders:
            holders[i]._give_away(fn_name)
        else:
            resident.delete_donated(leaves[i])
    return out


def _sole(i, leaves, holders):
    """Whether leaf `i`'s buffer is passed once (one buffer cannot be consumed twice)."""
    if i in holders:
        return sum(h is holders[i] for h in holders.values()) == 1
    return sum(x is leaves[i] for x in leaves) == 1


def fast_runner(compiled, n_args, held, output, fallback):
    """`Compiled.fast_runner` for calls whose positional arguments at `held` are
    DeviceArrays (the only arguments the program updates): they go in as their
    buffers, donated where the program updates them, and take the new values;
    `fallback(args)` runs a call that passes one DeviceArray twice."""
    st = compiled.staged
    if any(slot[0] == "arg" for slot in st.out_slots):
        return fallback          # the result is an argument: `finish` sees only outputs
    writes = dict(st.writeback)
    donate = donated(compiled, {i: object() for i in held})     # distinct arrays
    if output == "numpy" and compiled._plain:
        finish = compiled._finish
    else:
        def finish(outs):
            return build_result(st, outs, output)
    return fastcall.make(executable(compiled, donate), compiled.device, compiled.upload,
                         n_args, finish, held=[(i, writes.get(i), i in donate) for i in held],
                         fallback=fallback) or fallback


def refuse_immutable(fn, signature, writeback, leaves, holders, args, kwargs):
    """Raise when the program updates in place an argument passed as a jax Array."""
    for i, _ in writeback:
        if i < len(leaves) and i not in holders and type(leaves[i]) is not np.ndarray:
            code = fn.__code__
            raise catalogue.IMMUTABLE_DEVICE_ARGUMENT.error_for(
                Location(code.co_filename, code.co_firstlineno),
                arg=leaf_name(i, signature, args, kwargs), fn=fn.__name__)


def leaf_name(leaf, signature, args, kwargs):
    """How to name flat leaf `leaf` of a call: its parameter, with an element path
    when the parameter holds several leaves."""
    positional = [n for n, p in signature.parameters.items()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)] \
        if signature is not None else []
    pos = 0
    named = [(positional[i] if i < len(positional) else f"#{i}", a)
             for i, a in enumerate(args)] + list(kwargs.items())
    for name, value in named:
        part: list = []
        flatten(value, part)
        if leaf < pos + len(part):
            return name if len(part) == 1 else f"{name} (leaf {leaf - pos})"
        pos += len(part)
    return f"#{leaf}"


def fast_key(args, jax_type):
    """The fast-path key of positional `args` (as `JittedFunction.__call__` builds it),
    or None when an argument is of a kind the fast path does not take."""
    key = []
    for a in args:
        t = type(a)
        if t is np.ndarray:
            flags = a.flags
            if not flags.c_contiguous:
                return None      # another layout is another program (`leaf_key`)
            key += [a.shape, a.dtype]
            if not flags.writeable:      # so is a read-only array (`JittedFunction._call`)
                key.append(READ_ONLY)
        elif t in PY_SCALARS:
            key.append(t)
        elif t is DeviceArray or t is jax_type:
            v = a._value if t is DeviceArray else a
            key += [t, v.shape, v.dtype, v.sharding]
        else:
            return None
    return tuple(key)


def runner_for(entry, args, n_extra, output, fallback):
    """The fast path's runner for positional `args` (then `n_extra` implicit arrays) of
    the Compiled `entry`, or None when the call needs the general path: device arrays
    must be on the program's device, and only DeviceArrays may be updated."""
    if len(entry.param_leaves) != len(args) + n_extra:
        return None
    jax_type = resident.jax_array_type()
    held = []
    for i, a in enumerate(args):
        t = type(a)
        if t is np.ndarray or t in PY_SCALARS:
            continue
        if t is DeviceArray:
            held.append(i)
            v = a._value
        elif t is jax_type:
            v = a
        else:
            return None
        if v.sharding != entry.upload.sharding:
            return None
    if not held and output == "numpy":
        return entry.fast_runner(len(args) + n_extra) if entry._plain else None
    if not entry.resident_plain or \
            any(i not in held for i, _ in entry.staged.writeback):
        return None
    return fast_runner(entry, len(args) + n_extra, tuple(held), output, fallback)
